// Tests of the tokenizer and parser. The oracle is CPython's ast module:
// TestCPythonCorpus parses the standard library with this package and
// with ast (testdata/astdump.py) and compares the trees, node by node,
// positions included; errors are compared with compile()'s.
package syntax

import (
	"bufio"
	"errors"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var corpusDir = flag.String("corpus", "", "compare the trees of the .py files under this folder (default: python3's standard library)")

// leftOut are the subtrees of the standard library the comparison leaves
// out, and why.
var leftOut = map[string]string{
	"site-packages": "third-party packages, not the standard library",
}

// cpythonResult is what astdump.py says of one file.
type cpythonResult struct {
	dump     string // the canonical tree, when CPython parsed the file
	excluded string // why the file is not compared, or ""
	err      string // CPython's syntax error, or ""
}

// TestCPythonCorpus parses every .py file of the standard library with
// our parser and with CPython's ast module and compares the trees, node
// classes, fields and positions: at least 99% of the compared files must
// be identical.
func TestCPythonCorpus(t *testing.T) {
	began := time.Now()
	python := pythonOrFail(t)
	root := *corpusDir
	if root == "" {
		out, err := exec.Command(python, "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
		if err != nil {
			t.Fatalf("asking python3 for its standard library: %v", err)
		}
		root = strings.TrimSpace(string(out))
	}
	files := pyFiles(t, root)
	want := make(chan map[string]cpythonResult, 1)
	go func() { want <- cpythonDumps(t, python, files) }()
	got := ourDumps(files)
	cp := <-want

	var same, compared, bothRefuse int
	excluded := map[string]int{}
	var diffs []string
	for _, f := range files {
		c, ok := cp[f]
		switch {
		case !ok:
			t.Errorf("%s: no output from astdump.py", f)
		case c.excluded != "":
			excluded[c.excluded]++
		case c.err != "":
			excluded["refused by CPython"]++
			if got[f].err == nil {
				diffs = append(diffs, f+": CPython refuses it ("+c.err+"), we accept it")
			} else {
				bothRefuse++
			}
		default:
			compared++
			g := got[f]
			if g.err != nil {
				diffs = append(diffs, f+": we refuse it: "+g.err.Error())
				continue
			}
			if g.dump == c.dump {
				same++
				continue
			}
			diffs = append(diffs, f+": "+firstDifference(c.dump, g.dump))
		}
	}
	for _, d := range diffs {
		t.Log(d)
	}
	for why, n := range excluded {
		t.Logf("excluded: %d files: %s", n, why)
	}
	for dir, why := range leftOut {
		t.Logf("left out: %s/ (%s)", dir, why)
	}
	t.Logf("%d .py files under %s; compared %d, identical %d (%.2f%%); %d refused by both; %v",
		len(files), root, compared, same, 100*float64(same)/float64(max(compared, 1)), bothRefuse, time.Since(began).Round(time.Millisecond))
	if compared == 0 || float64(same) < 0.99*float64(compared) {
		t.Errorf("only %d of %d compared files have CPython's tree; want 99%%", same, compared)
	}
}

// pythonOrFail returns the python3 to compare with, or fails the test.
func pythonOrFail(t *testing.T) string {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 not found: this test compares our trees with CPython 3.11's ast module, so it needs python3 (3.11) on PATH")
	}
	out, err := exec.Command(python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
	if v := strings.TrimSpace(string(out)); err != nil || v != "3.11" {
		t.Fatalf("python3 is %q (%v): the syntax we parse, and so this comparison, is Python 3.11's", v, err)
	}
	return python
}

// pyFiles lists the .py files under root, sorted, less leftOut.
func pyFiles(t *testing.T, root string) []string {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && leftOut[d.Name()] != "" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".py") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing %s: %v", root, err)
	}
	sort.Strings(files)
	return files
}

// cpythonDumps runs astdump.py over files in one python3 process.
func cpythonDumps(t *testing.T, python string, files []string) map[string]cpythonResult {
	cmd := exec.Command(python, filepath.Join("testdata", "astdump.py"))
	cmd.Stdin = strings.NewReader(strings.Join(files, "\n") + "\n")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Errorf("astdump.py: %v", err)
		return nil
	}
	if err := cmd.Start(); err != nil {
		t.Errorf("astdump.py: %v", err)
		return nil
	}
	res := map[string]cpythonResult{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var path string
	var body []string
	flush := func() {
		if path == "" {
			return
		}
		r := cpythonResult{}
		switch text := strings.Join(body, "\n"); {
		case strings.HasPrefix(text, "!excluded "):
			r.excluded = strings.TrimPrefix(text, "!excluded ")
		case strings.HasPrefix(text, "!error "):
			r.err = strings.TrimPrefix(text, "!error ")
		default:
			r.dump = text
		}
		res[path] = r
	}
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "=== "); ok {
			flush()
			path, body = p, nil
			continue
		}
		body = append(body, line)
	}
	flush()
	if err := errors.Join(sc.Err(), cmd.Wait()); err != nil {
		t.Errorf("astdump.py: %v", err)
	}
	return res
}

// ourResult is our parser's verdict on one file.
type ourResult struct {
	dump string
	err  error
}

// ourDumps parses files with ParseFile, on every CPU.
func ourDumps(files []string) map[string]ourResult {
	res := make([]ourResult, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				src, err := os.ReadFile(files[i])
				if err != nil {
					res[i].err = err
					continue
				}
				m, err := ParseFile(files[i], src, nil)
				if err != nil {
					res[i].err = err
					continue
				}
				res[i].dump = dump(m)
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	out := make(map[string]ourResult, len(files))
	for i, f := range files {
		out[f] = res[i]
	}
	return out
}

// firstDifference shows the first line where two dumps differ, around
// the first character that differs.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			k := 0
			for k < len(wl) && k < len(gl) && wl[k] == gl[k] {
				k++
			}
			return "line " + strconv.Itoa(i+1) + " of the dump:\n\tCPython: " + around(wl, k) + "\n\tours:    " + around(gl, k)
		}
	}
	return "the dumps differ in line ends"
}

// around returns s near byte k.
func around(s string, k int) string {
	lo, hi := max(0, k-120), min(len(s), k+120)
	return s[lo:hi]
}
