package main

import (
	"strings"
	"testing"
)

// A module's parameters live while a name or an optimizer holds them.
func TestModuleLifetime(t *testing.T) {
	t.Parallel()
	script := "m = Linear(1000, 1000).cuda()\nopt = AdamW(m.parameters())\nx = randn 10x1000 cuda\nm(x).sum().backward()\nopt.step()\ndel m\ndel opt\n"
	out, errOut, code := runStdin(t, script, "--device", "sim", "--fake-host", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := rowsOf(t, out)
	params := uint64(4000256 + 4096)
	workspaces := uint64(32<<20 + 1<<20 + 32<<20) // forward cuBLAS and cuBLASLt, backward's cuBLAS
	x := uint64(40448)
	if got := rows[0].Allocated; got != params {
		t.Errorf("after Linear(1000, 1000).cuda(): %d allocated, want %d", got, params)
	}
	if rows[5].Allocated != rows[4].Allocated {
		t.Errorf("del m freed memory the optimizer still holds: %d -> %d", rows[4].Allocated, rows[5].Allocated)
	}
	if got, want := rows[6].Allocated, workspaces+x; got != want {
		t.Errorf("after del opt: %d allocated, want the workspaces and x, %d", got, want)
	}
}

// Autograd errors are PyTorch's, at the line's position, and change nothing.
func TestAutogradErrors(t *testing.T) {
	t.Parallel()
	setup := "m = Linear(4, 8).cuda()\nx = torch.randn(2, 4, device='cuda', requires_grad=True)\ny = m(x).sum()\ny.backward()\n"
	for _, tc := range []struct{ line, want string }{
		{"y.backward()", "<stdin>:5:1: RuntimeError: Trying to backward through the graph a second time"},
		{"z = m(torch.randn(2, 5, device='cuda'))", "<stdin>:5:5: RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x5 and 4x8)"},
		{"z = m(torch.randn(2, 4))", "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0!"},
		{"m(x).backward()", "RuntimeError: grad can be implicitly created only for scalar outputs"},
		{"torch.randn(3).backward()", "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"},
		{"opt.step()", "<stdin>:5:1: NameError: name 'opt' is not defined"},
	} {
		out, errOut, code := runStdin(t, setup+tc.line+"\nvars\n", "--device", "sim", "--fake-host", "--keep-going", "--json")
		if code != 1 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q, want one line with %q", tc.line, code, errOut, tc.want)
			continue
		}
		rows := rowsOf(t, out)
		if before, after := rows[3], rows[4]; before.Allocated != after.Allocated || before.Reserved != after.Reserved {
			t.Errorf("%q failed but changed memory: %d -> %d", tc.line, before.Allocated, after.Allocated)
		}
	}
}
