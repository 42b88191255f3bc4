package main

import (
	"strings"
	"testing"
)

// TestPrint checks print against what PyTorch prints for the same tensors.
func TestPrint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ setup, want string }{
		{"a = ones 2x3 cuda", "tensor([[1., 1., 1.],\n        [1., 1., 1.]], device='cuda:0')"},
		{"a = torch.tensor([1, 2, 3]).cuda()", "tensor([1, 2, 3], device='cuda:0')"},
		{"a = torch.tensor([1, 20, 3])[1]", "tensor(20)"},
		{"a = torch.tensor([0.5, 2, -1])", "tensor([ 0.5000,  2.0000, -1.0000])"},
		{"a = torch.full((2, 2), 1.5, dtype=torch.float16)", "tensor([[1.5000, 1.5000],\n        [1.5000, 1.5000]], dtype=torch.float16)"},
		{"a = zeros 2000", "tensor([0., 0., 0.,  ..., 0., 0., 0.])"},
		{"a = torch.ones(3, requires_grad=True)", "tensor([1., 1., 1.], requires_grad=True)"},
		{"a = ones 4 int32", "tensor([1, 1, 1, 1], dtype=torch.int32)"},
		{"a = randn 3", "tensor(<values not computed: 12 bytes float32 [3] on cpu>)"},
		{"a = ones 2x2\na = a.clone().cuda()", "tensor([[1., 1.],\n        [1., 1.]], device='cuda:0')"},
		// no elements: bounded whatever the shape (issue 16 item 4)
		{"a = zeros 1000000000000x0 cuda", "tensor([], device='cuda:0', size=(1000000000000, 0))"},
		{"a = zeros 0 int64", "tensor([], dtype=torch.int64)"},
	} {
		out, errOut, code := runStdin(t, tc.setup+"\nprint a\n", "--device", "sim", "--fake-host", "--no-color")
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", tc.setup, code, errOut)
		}
		_, rest, ok := strings.Cut(out, "> print a\n")
		got, _, ok2 := strings.Cut(rest, "\n    host")
		if !ok || !ok2 {
			t.Fatalf("%q: no print output in\n%s", tc.setup, out)
		}
		if got != tc.want {
			t.Errorf("%q: print gave\n%s\nwant\n%s", tc.setup, got, tc.want)
		}
	}
}

// TestViewShapes: view's inferred dimension follows PyTorch's rules and
// its errors, an empty tensor included (issue 16 item 4).
func TestViewShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{"y = x.view(0, -1)", "RuntimeError: cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension size -1 can be any value and is ambiguous"},
		{"y = x.view(-1, -1)", "RuntimeError: only one dimension can be inferred"},
		{"y = x.view(-2, 5)", "RuntimeError: invalid shape dimension -2"},
		{"y = x.view(3, 5)", "RuntimeError: shape '[3, 5]' is invalid for input of size 0"},
	} {
		_, errOut, code := runStdin(t, "x = zeros 0x5 cuda\n"+tc.line+"\n", "--device", "sim", "--fake-host", "--no-color")
		if code != 1 || !strings.Contains(errOut, "<stdin>:2:5: "+tc.want+"\n") {
			t.Errorf("%s: exit %d, %q", tc.line, code, errOut)
		}
	}
	out, errOut, code := runStdin(t, "x = zeros 0x5 cuda\ny = x.view(0, 5, 0)\nprint(y.shape)\n", "--device", "sim", "--fake-host", "--no-color")
	if code != 0 || !strings.Contains(out, "torch.Size([0, 5, 0])") {
		t.Errorf("view(0, 5, 0): exit %d, %s%s", code, out, errOut)
	}
	// t() of a 0-d tensor is itself (a view); an empty dimension splits
	// into one empty piece, as PyTorch gives.
	out, errOut, code = runStdin(t, "s = torch.tensor(3.).cuda().t()\nprint(s.shape, len(torch.zeros(0, 4).split(2)), len(torch.zeros(5, 4).split(2)))\n", "--device", "sim", "--fake-host", "--no-color")
	if code != 0 || !strings.Contains(out, "torch.Size([]) 1 3\n") {
		t.Errorf("t() of a 0-d tensor, split: exit %d, %s%s", code, out, errOut)
	}
}
