package command

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// The ops' help, generated from the engine's op table: help torch lists
// every op in one line (its signature and memory rule), help OP shows
// one with all the names it answers to.

// OpTopics are the help topics of the op table: torch, then each op by
// name.
func OpTopics() []string {
	topics := []string{"torch"}
	for _, d := range engine.OpList() {
		topics = append(topics, d.Name)
	}
	return topics
}

// opHelp is help torch or help OP; ok false for another topic.
func opHelp(name string, width int) (string, bool) {
	if name == "torch" {
		var b strings.Builder
		b.WriteString(Wrap("Tensor ops the tool models, from its op table: each one's signature and memory rule (help OP for one op; an op not listed raises NotImplementedError):\n", width, "", ""))
		for _, d := range engine.OpList() {
			b.WriteString(helpEntry(d.Signature(), d.Memory, width))
		}
		return b.String(), true
	}
	d, ok := engine.Ops[strings.TrimPrefix(strings.TrimPrefix(name, "torch."), "Tensor.")]
	if !ok {
		return "", false
	}
	return Wrap(d.Signature()+"\n", width, "", "    ") +
		Wrap("names: "+strings.Join(d.Names(), ", ")+"\n", width, "  ", "    ") +
		Wrap("memory: "+d.Memory+"\n", width, "  ", "    "), true
}
