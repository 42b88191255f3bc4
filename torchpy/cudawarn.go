package torchpy

import (
	"fmt"
)

// PyTorch's deprecated torch.cuda names (testdata/pyrules/
// ops_cuda_warn.py; its .stderr is what plain python3 printed).

// renamed are torch.cuda's deprecated memory statistics and their new
// names: each gives the new one's figure after a FutureWarning.
var renamed = map[string]string{
	"memory_cached":     "memory_reserved",
	"max_memory_cached": "max_memory_reserved",
}

// renamedWarning is the FutureWarning of a deprecated torch.cuda name.
func renamedWarning(old string) string {
	return fmt.Sprintf("`torch.cuda.%s` has been renamed to `torch.cuda.%s`", old, renamed[old])
}
