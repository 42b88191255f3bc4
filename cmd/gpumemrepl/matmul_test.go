package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMatmulFoldedLetsGo: a matrix that requires grad times a batch
// (matmul folds the batch, transposed, into one mm) keeps no reference
// to either factor once the product and the factors are deleted: only
// the cuBLAS workspace stays (33,554,432 bytes, kept by PyTorch as by
// the tool: testdata/pyrules/ops_matmul_nd.py).
func TestMatmulFoldedLetsGo(t *testing.T) {
	script := filepath.Join(t.TempDir(), "fold.py")
	src := "import torch\nm = torch.randn(128, 64, device='cuda', requires_grad=True)\ns3 = torch.randn(8, 64, 128, device='cuda')\np = m @ s3\ndel p, m, s3\nprint(torch.cuda.memory_allocated())\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--fake-host", "--device", "sim", script)
	if code != 0 || !strings.Contains(out, "\n33554432\n") {
		t.Errorf("exit %d, output:\n%s%s\nwant 33554432 allocated (the workspace) after the deletes", code, out, errOut)
	}
}
