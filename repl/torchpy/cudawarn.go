package torchpy

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/repl/eval"
)

// PyTorch's deprecated torch.cuda names and its answers to device
// indices it cannot take (testdata/pyrules/ops_cuda_warn.py; its .stderr
// is what plain python3 printed).

// renamed are torch.cuda's deprecated memory statistics and their new
// names: each gives the new one's figure after a FutureWarning.
var renamed = map[string]string{
	"memory_cached":     "memory_reserved",
	"max_memory_cached": "max_memory_reserved",
}

// warnings shows Python warnings as its default filter does: once per
// calling line and message, on stderr, as "FILE:LINE: Category: message"
// then the line's source, indented; FILE is the script's absolute path,
// as CPython gives its main script.
type warnings struct {
	in    *eval.Interp
	shown map[string]bool
	lines map[string][]string // each script's lines, read when first warned in
}

func newWarnings(in *eval.Interp) *warnings {
	return &warnings{in: in, shown: map[string]bool{}, lines: map[string][]string{}}
}

// warn shows a category warning msg at the calling line.
func (w *warnings) warn(category, msg string) {
	file, line := "<stdin>", 1
	if st := w.in.Stack(); len(st) > 0 {
		file, line = st[0].File, st[0].Line
	}
	key := fmt.Sprintf("%s:%d:%s", file, line, msg)
	if w.shown[key] {
		return
	}
	w.shown[key] = true
	where := file
	if abs, err := filepath.Abs(file); err == nil && !strings.HasPrefix(file, "<") {
		where = abs
	}
	fmt.Fprintf(w.in.Stderr, "%s:%d: %s: %s\n", where, line, category, msg)
	if src := w.source(file, line); src != "" {
		fmt.Fprintf(w.in.Stderr, "  %s\n", src)
	}
}

// source is line n of file, stripped ("" when it cannot be read).
func (w *warnings) source(file string, n int) string {
	lines, ok := w.lines[file]
	if !ok {
		if data, err := os.ReadFile(file); err == nil {
			lines = eval.SourceLines(data)
		}
		w.lines[file] = lines
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

// renamedWarning is the FutureWarning of a deprecated torch.cuda name.
func renamedWarning(old string) string {
	return fmt.Sprintf("`torch.cuda.%s` has been renamed to `torch.cuda.%s`", old, renamed[old])
}

// checkDeviceIndex answers a device argument PyTorch rejects before it
// reads it as a device: an int past int64 does not fit a DeviceIndex
// (the memory statistics); for the device's properties (validIDs), an
// int past the last device is an invalid id.
func (b *Binding) checkDeviceIndex(args []eval.Value, kw []eval.KeywordArg, validIDs bool) error {
	v := eval.Kwarg(kw, "device")
	if len(args) > 0 {
		v = args[0]
	}
	switch n := v.(type) {
	case *big.Int:
		if validIDs {
			return b.in.Raise(eval.AssertionErrorType, "Invalid device id")
		}
		return b.in.Raise(eval.RuntimeErrorType, "Overflow when unpacking DeviceIndex")
	case int64:
		if validIDs && n >= int64(b.S.DeviceCount()) {
			return b.in.Raise(eval.AssertionErrorType, "Invalid device id")
		}
	}
	return nil
}
