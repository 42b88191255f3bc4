package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocMapsEveryFile: the package comment (doc.go) names every file
// of the package, and no file that is not there, so the map stays true
// as files come and go.
func TestDocMapsEveryFile(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`[a-z_0-9]+\.go\b`).FindAllString(string(doc), -1) {
		named[m] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") && f != "doc.go" && !named[f] {
			t.Errorf("doc.go does not say where %s belongs", f)
		}
		delete(named, f)
	}
	for f := range named {
		t.Errorf("doc.go names %s, which is not a file of the package", f)
	}
}
