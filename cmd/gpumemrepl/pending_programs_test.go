package main

import (
	"strings"
	"testing"
)

// TestPendingProgramsRunToTheirEnd runs the programs written as users
// write them that wait in testdata/pyrules_pending for a GPU call
// through the binary, as users run them: each runs to its end (exit 0,
// its last print made), and what the tool models there from PyTorch's
// source without a recording is labelled (YOLO's SiLU(inplace=True), the
// diffusion UNet's cross-attention backward).
// dino_ema.py holds BatchNorm on two views before one backward, a
// weight_norm'd Linear and a frozen EMA teacher; yolo_head.py a 0-d host
// tensor beside a CUDA one; swin_train.py roll and a gathered bias;
// sd_unet.py checkpointing, bfloat16 autocast and _foreach_lerp_.
func TestPendingProgramsRunToTheirEnd(t *testing.T) {
	// each program's last print starts with last and has fields words
	for name, want := range map[string]struct {
		last   string
		fields int
		label  string
	}{
		"swin_train": {"1 ", 3, ""},
		"dino_ema":   {"1 ", 3, ""},
		"yolo_head":  {"torch.Size([2, 6300, 85]) ", 5, "F.silu(inplace=True) ["},
		"sd_unet":    {"1 ", 3, "F.scaled_dot_product_attention cuDNN's backward over 1024 queries and 77 keys"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := run(t, "run", "../../testdata/pyrules_pending/"+name+".py")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			printed := ""
			for _, l := range lines {
				if strings.HasPrefix(l, want.last) && len(strings.Fields(l)) == want.fields {
					printed = l
				}
			}
			if code != 0 || printed == "" {
				t.Fatalf("exit %d, no line starting %q\nstderr %s", code, want.last, errOut)
			}
			if want.label != "" && !strings.Contains(out+errOut, want.label) {
				t.Errorf("%s is not labelled estimated", want.label)
			}
		})
	}
}
