package main

import "testing"

// TestTypePromotion: the dtype of a binary op is PyTorch 2.11's
// result_type (its documented rules and examples, torch.result_type):
// tensors with dimensions promote among themselves (float16 * float32 is
// float32, it was float16; bfloat16 + float16 float32; uint8 + int8
// int16; int64 + float16 float16), a 0-d tensor or a Python number only
// when of a higher category (float16 * a 0-d float32 stays float16;
// int32 * a 0-d float64 is float64; int32 * 2.5 the default float32; a
// bool tensor + 1 int64), and an in-place op refuses a result it cannot
// hold, in PyTorch's words. Autograd converts each gradient to its
// input's dtype.
func TestTypePromotion(t *testing.T) {
	steps, printed, errOut := runPython(t, `import torch
h = torch.ones(4, 4, device='cuda', dtype=torch.float16, requires_grad=True)
f = torch.ones(4, 4, device='cuda', requires_grad=True)
o = lambda dt: torch.ones(4, device='cuda', dtype=dt)
print((h * f).dtype, (o(torch.bfloat16) + o(torch.float16)).dtype, (o(torch.uint8) + o(torch.int8)).dtype, (o(torch.int64) + o(torch.float16)).dtype, (o(torch.int32) + o(torch.int64)).dtype)
print((h * torch.tensor(2.0, device='cuda')).dtype, (o(torch.int32) * torch.tensor(2.5, dtype=torch.float64, device='cuda')).dtype, (o(torch.int32) * 2.5).dtype, (o(torch.bool) + 1).dtype, (o(torch.bool) + True).dtype, (o(torch.int32) + torch.tensor(1, device='cuda')).dtype)
(h * f).sum().backward()
print(h.grad.dtype, f.grad.dtype)
o(torch.int32).add_(o(torch.float32))
`)
	for line, want := range map[int]string{
		5: "torch.float32 torch.float32 torch.int16 torch.float16 torch.int64\n",
		6: "torch.float16 torch.float64 torch.float32 torch.int64 torch.bool torch.int32\n",
		8: "torch.float16 torch.float32\n",
	} {
		if printed[line] != want {
			t.Errorf("line %d printed %q, want %q\n%s", line, printed[line], want, errOut)
		}
	}
	if s := steps[9]; s.Error == nil || *s.Error != "9:1: RuntimeError: result type Float can't be cast to the desired output type Int" {
		t.Errorf("line 9: error %v", s.Error)
	}
}
