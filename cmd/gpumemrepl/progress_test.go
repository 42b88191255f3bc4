package main

import (
	"strings"
	"testing"
	"time"
)

func TestProgressBar(t *testing.T) {
	t.Parallel()
	if newProgress(&strings.Builder{}, false) != nil {
		t.Error("a bar on a writer that is not a terminal")
	}
	var b strings.Builder
	p := &progress{w: &b}
	hook := p.hook("trace.json")
	hook(100, 1000)
	if b.Len() != 0 {
		t.Errorf("a bar within the first second: %q", b.String())
	}
	p.start = time.Now().Add(-2 * time.Second)
	hook(500, 1000)
	if got := b.String(); got != "\rtrace.json [###############...............] 500/1000 ops" {
		t.Errorf("bar %q", got)
	}
	p.done()
	if !strings.HasSuffix(b.String(), "\r\033[K") {
		t.Errorf("not cleared: %q", b.String())
	}
}
