package repl

import (
	"bytes"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// A statement typed at the prompt that the tool refuses makes the
// figures after it estimates, as in a script; a user's exception, whatever
// its words, does not.
func TestPromptRefusalMakesLaterFiguresEstimates(t *testing.T) {
	for _, tc := range []struct {
		line  string
		exact bool
	}{
		{"raise RuntimeError('not modelled by gpumemrepl')", true},
		{"v = vars()", false},
	} {
		r, py, out := newTestPrompt(t)
		r.pyInput(py, "x = torch.zeros(3, device='cuda')")
		r.pyInput(py, tc.line)
		if got := r.Session.Tier().Exact(); got != tc.exact {
			t.Errorf("%s: exact %v after it, want %v:\n%s", tc.line, got, tc.exact, out.String())
		}
	}
}

// newTestPrompt is the Python prompt over a simulated H200 session, its
// output and errors in out.
func newTestPrompt(t *testing.T) (*Runner, *pyPrompt, *bytes.Buffer) {
	t.Helper()
	s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], Backend: "sim", FakeHost: true, Devices: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := &bytes.Buffer{}
	r := &Runner{Session: s, Out: out, Err: out}
	return r, r.newPyPrompt(), out
}
