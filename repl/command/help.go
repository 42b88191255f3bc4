package command

import (
	"fmt"
	"strings"
)

// Help is the text of help, or of help NAME.
func Help(name string) string {
	var b strings.Builder
	if name == "" {
		b.WriteString("Commands (each line is one step; the report after it shows host RSS and, per GPU, allocated, reserved and driver-used memory with their changes):\n")
		for _, c := range Registry {
			if c.Usage != "" {
				fmt.Fprintf(&b, "  %-58s %s\n", c.Usage, firstSentence(c.Summary))
			}
		}
		b.WriteString("  help [COMMAND]                                             this text, or one command's\n")
		b.WriteString("Python runs as Python everywhere (help python): at the prompt, in .py scripts (a top-level statement a step) and in .gpumem scripts (a line a step); the short forms above are read into the Python they mean, over the same names, and mix with it.\n")
		b.WriteString("Values: zeros, ones, full and torch.tensor keep theirs (print shows them); compute ops, rand and randn leave them unspecified, since only sizes are modelled.\n")
		return b.String()
	}
	for _, c := range Registry {
		if c.Name == name && c.Usage != "" {
			return fmt.Sprintf("%s\n  %s\n", c.Usage, c.Summary)
		}
	}
	return fmt.Sprintf("help: no command %q (try help)\n", name)
}

func firstSentence(s string) string {
	if i := strings.Index(s, "; "); i > 0 {
		return s[:i]
	}
	return s
}
