package main

import (
	"strings"
	"testing"
)

func TestProgressBar(t *testing.T) {
	t.Parallel()
	if newProgress(&strings.Builder{}, false) != nil {
		t.Error("a bar on a writer that is not a terminal")
	}
	if got := barText(500, 1000); got != "[###############...............] 500/1000 ops" {
		t.Errorf("bar %q", got)
	}
}
