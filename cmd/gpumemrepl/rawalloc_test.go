package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRawAllocAsPython: the ground truth's traces were recorded with
// torch.cuda.caching_allocator_alloc and caching_allocator_delete; the
// same calls as a Python program give PyTorch's allocated and reserved
// bytes after every op, under each trace's config.
func TestRawAllocAsPython(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"default_s0", "maxsplit40_s0", "expandable_s0", "rp2_4_s0"} {
		raw, err := os.ReadFile(filepath.Join("../../testdata/truth/traces", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var tr struct {
			AllocConf string `json:"alloc_conf"`
			Ops       []struct {
				Op   string `json:"op"`
				ID   int    `json:"id"`
				Size int64  `json:"size"`
			} `json:"ops"`
			Expect []map[string]int64 `json:"expect"`
		}
		if err := json.Unmarshal(raw, &tr); err != nil {
			t.Fatal(err)
		}
		var src strings.Builder
		src.WriteString("import torch\np = {}\n")
		for _, op := range tr.Ops {
			switch op.Op {
			case "alloc":
				fmt.Fprintf(&src, "p[%d] = torch.cuda.caching_allocator_alloc(%d)\n", op.ID, op.Size)
			case "free":
				fmt.Fprintf(&src, "torch.cuda.caching_allocator_delete(p.pop(%d))\n", op.ID)
			case "empty_cache":
				src.WriteString("torch.cuda.empty_cache()\n")
			default:
				t.Fatalf("%s: op %q", name, op.Op)
			}
		}
		script := filepath.Join(t.TempDir(), name+".py")
		if err := os.WriteFile(script, []byte(src.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run(t, "run", "--json", "--fake-host", "--device", "sim", "--alloc-conf", tr.AllocConf, script)
		rows := strings.Split(strings.TrimSpace(out), "\n")
		if code != 0 || len(rows) != len(tr.Ops)+2 {
			t.Fatalf("%s: exit %d, %d rows for %d ops\n%s", name, code, len(rows), len(tr.Ops), errOut)
		}
		for i, l := range rows[2:] {
			var s pythonStep
			if err := json.Unmarshal([]byte(l), &s); err != nil {
				t.Fatal(err)
			}
			w := tr.Expect[i]
			if s.Allocated != w["allocated_bytes.all.current"] || s.Reserved != w["reserved_bytes.all.current"] {
				t.Errorf("%s op %d: allocated %d reserved %d, PyTorch %d and %d", name, i, s.Allocated, s.Reserved, w["allocated_bytes.all.current"], w["reserved_bytes.all.current"])
				break
			}
		}
	}
}
