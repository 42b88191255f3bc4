package engine

import (
	"archive/zip"
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// describeSaved writes a checkpoint's object as a line of text: each
// tensor as its storage, dtype, location, view and flags.
func describeSaved(v any) string {
	switch x := v.(type) {
	case *SavedTensor:
		s := fmt.Sprintf("T(%s %s %s n=%d off=%d %v %v", x.Key, x.DType.Name, x.Location, x.StorageElems, x.Offset, x.Shape, x.Strides)
		if x.RequiresGrad {
			s += " grad"
		}
		if x.Parameter {
			s += " param"
		}
		return s + ")"
	case *snapshot.Dict:
		var b []string
		for _, it := range x.Items {
			b = append(b, describeSaved(it.Key)+": "+describeSaved(it.Value))
		}
		s := "{" + strings.Join(b, ", ") + "}"
		if x.Ordered {
			s = "OrderedDict" + s
		}
		if x.State != nil {
			s += ".state=" + describeSaved(x.State)
		}
		return s
	case *snapshot.List:
		var b []string
		for _, e := range x.Items {
			b = append(b, describeSaved(e))
		}
		return "[" + strings.Join(b, ", ") + "]"
	case snapshot.Tuple:
		var b []string
		for _, e := range x {
			b = append(b, describeSaved(e))
		}
		return "(" + strings.Join(b, ", ") + ")"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}

// TestReadSavedByPyTorch reads each checkpoint PyTorch 2.11 saved
// (testdata/checkpoints/make.py): its tensors' storages, dtypes, places
// and views, and its other values, as make.py made them.
func TestReadSavedByPyTorch(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"tensor.pt", `T(0 float32 cpu n=12 off=0 [3 4] [4 1])`},
		{"linear_cuda.pt", `OrderedDict{"weight": T(0 float32 cuda:0 n=12 off=0 [3 4] [4 1]), "bias": T(1 float32 cuda:0 n=3 off=0 [3] [1])}.state={"_metadata": OrderedDict{"": {"version": 1}}}`},
		{"views.pt", `{"base": T(0 float32 cuda:0 n=24 off=0 [4 6] [6 1]), "row": T(0 float32 cuda:0 n=24 off=6 [6] [1]), "t": T(0 float32 cuda:0 n=24 off=0 [6 4] [1 6]), "cols": T(0 float32 cuda:0 n=24 off=2 [4 2] [6 1])}`},
		{"mixed.pt", `{"model": {"tok.weight": T(0 float16 cpu n=40 off=0 [10 4] [4 1]), "head.weight": T(0 float16 cpu n=40 off=0 [10 4] [4 1])}, "step": 100, "lr": 0.0003, "name": "run-1", "betas": (0.9, 0.95), "tags": ["a", "b"], "done": false, "none": <nil>, "big": 1099511627776, "neg": -5}`},
		{"parameter.pt", `T(0 float32 cpu n=5 off=0 [5] [1] grad param)`},
		{"list.pt", `[T(0 float32 cpu n=0 off=0 [0] [1]), T(1 int64 cpu n=4 off=0 [2 2] [2 1]), T(2 bool cpu n=2 off=0 [2] [1]), T(3 int32 cuda:0 n=3 off=0 [3] [1])]`},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := OpenSaved("../testdata/checkpoints/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			if got := describeSaved(f.Root); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// savedZip is a checkpoint archive of the given records, stored as
// torch.save stores them (no compression).
func savedZip(t *testing.T, records map[string]string) *bytes.Reader {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	names := slices.Sorted(maps.Keys(records))
	for _, name := range names {
		w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(records[name]))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b.Bytes())
}

// tensorPickle is a pickle of one float32 tensor of storage key "0"
// holding numel elements, viewed as shape (n,) from offset, as
// torch.save writes it (protocol 2).
func tensorPickle(numel, n, offset byte) string {
	return "\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK" + string(numel) +
		"tQK" + string(offset) + "K" + string(n) + "\x85K\x01\x85\x89ccollections\nOrderedDict\n)RtR."
}

// TestReadSavedRefuses: a file that is not a checkpoint, or one whose
// pickle names a class torch.load(weights_only=True) does not read, or
// whose tensors do not fit their records, is refused with a line that
// says what and where; nothing is allocated for it.
func TestReadSavedRefuses(t *testing.T) {
	for _, c := range []struct {
		name    string
		records map[string]string
		raw     string
		want    string
	}{
		{name: "text", raw: "hello", want: "not a checkpoint: neither a zip archive"},
		{name: "legacy", raw: legacyMagic + ".\x80\x02M\xe9\x03.", want: ""},
		{name: "a pickle", raw: "\x80\x02K\x01.", want: "not a checkpoint"},
		{name: "no data.pkl", records: map[string]string{"a/version": "3\n"}, want: "has no data.pkl"},
		{name: "os.system", records: map[string]string{"a/data.pkl": "\x80\x02cos\nsystem\nX\x02\x00\x00\x00lsq\x00\x85R."}, want: "a/data.pkl: pickle offset 2: refused: the pickle names os.system, which is not among the classes read"},
		{name: "no record", records: map[string]string{"a/data.pkl": tensorPickle(4, 4, 0)}, want: `storage "0" has no record data/0`},
		{name: "short record", records: map[string]string{"a/data.pkl": tensorPickle(4, 4, 0), "a/data/0": "12345678"}, want: `storage "0": its record holds 8 bytes, its 4 float32 elements need 16`},
		{name: "past the storage", records: map[string]string{"a/data.pkl": tensorPickle(4, 4, 1), "a/data/0": "0123456789abcdef"}, want: "a tensor of size [4], stride [1] and offset 1 reaches past its storage 0 of 4 elements"},
		{name: "truncated", records: map[string]string{"a/data.pkl": tensorPickle(4, 4, 0)[:40], "a/data/0": "0123456789abcdef"}, want: "pickle offset 37: declares 4 bytes and the file has 2 left"},
		{name: "trailing", records: map[string]string{"a/data.pkl": tensorPickle(4, 4, 0) + "x", "a/data/0": "0123456789abcdef"}, want: "bytes after the pickle's STOP"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r *bytes.Reader
			if c.records != nil {
				r = savedZip(t, c.records)
			} else {
				r = bytes.NewReader([]byte(c.raw))
			}
			f, err := ReadSaved(r, r.Size())
			switch {
			case c.want == "" && (err != nil || !f.Legacy):
				t.Fatalf("got %v, %v; want the legacy format", f, err)
			case c.want == "":
			case err == nil:
				t.Fatalf("read %s; want an error", describeSaved(f.Root))
			case !strings.Contains(err.Error(), c.want):
				t.Errorf("error %q; want it to say %q", err, c.want)
			}
		})
	}
	r := savedZip(t, map[string]string{"a/data.pkl": tensorPickle(4, 3, 1), "a/data/0": "0123456789abcdef"})
	f, err := ReadSaved(r, r.Size())
	if err != nil || describeSaved(f.Root) != "T(0 float32 cpu n=4 off=1 [3] [1])" {
		t.Errorf("the last 3 of 4 elements: %v, %v", describeSaved(f.Root), err)
	}
}

// FuzzReadSaved: whatever the bytes, reading a checkpoint returns a
// value or an error, never a panic; seeded with PyTorch's checkpoints.
func FuzzReadSaved(f *testing.F) {
	for _, name := range []string{"tensor", "views", "mixed", "parameter", "list", "linear_cuda", "train_state", "legacy"} {
		b, err := os.ReadFile("../testdata/checkpoints/" + name + ".pt")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		ReadSaved(r, r.Size()) //nolint:errcheck // only a panic fails
	})
}
