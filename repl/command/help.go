package command

import (
	"fmt"
	"strings"
)

// helpColumn is where help's summaries start on a line of their own
// usage: a terminal narrower than helpTable puts each summary under its
// usage instead.
const (
	helpColumn = 61
	helpTable  = helpColumn + 40
)

// Help is the text of help, or of help NAME, with lines whole (for
// pipes and scripts).
func Help(name string) string { return HelpWidth(name, 0) }

// HelpWidth is Help fitted to a terminal of width columns (0: lines
// whole): summaries are wrapped beside their usage on a wide terminal,
// under it on a narrow one.
func HelpWidth(name string, width int) string {
	var b strings.Builder
	para := func(s string) { b.WriteString(Wrap(s, width, "", "")) }
	if name == "" {
		para("Commands (each line is one step; the report after it shows host RSS and, per GPU, allocated, reserved and driver-used memory with their changes):\n")
		for _, c := range Registry {
			if c.Usage != "" {
				b.WriteString(helpEntry(c.Usage, firstSentence(c.Summary), width))
			}
		}
		b.WriteString(helpEntry("help [COMMAND]", "this text, or one command's (help torch: the tensor ops modelled, a line each; help OP: one op's)", width))
		para("Python runs as Python everywhere (help python): at the prompt, in .py scripts (a top-level statement a step) and in .gpumem scripts (a line a step); the short forms above are read into the Python they mean, over the same names, and mix with it.\n")
		para("Values: zeros, ones, full and torch.tensor keep theirs (print shows them); compute ops, rand and randn leave them unspecified, since only sizes are modelled.\n")
		return b.String()
	}
	for _, c := range Registry {
		if c.Name == name && c.Usage != "" {
			return Wrap(c.Usage+"\n", width, "", "    ") + Wrap(c.Summary+"\n", width, "  ", "  ")
		}
	}
	if h, ok := opHelp(name, width); ok {
		return h
	}
	return Wrap(fmt.Sprintf("help: no command %q (try help)\n", name), width, "", "  ")
}

// helpEntry is one line of help's list: the usage, then its summary in
// a column beside it, or under it when the terminal is narrow.
func helpEntry(usage, summary string, width int) string {
	if width == 0 {
		return fmt.Sprintf("  %-58s %s\n", usage, summary)
	}
	pad := strings.Repeat(" ", helpColumn)
	if width >= helpTable && len(usage) <= helpColumn-3 {
		return Wrap(fmt.Sprintf("  %-58s %s\n", usage, summary), width, "", pad)
	}
	under := "      "
	if width >= helpTable {
		under = pad
	}
	return Wrap("  "+usage+"\n", width, "", "    ") + Wrap(summary+"\n", width, under, under)
}

func firstSentence(s string) string {
	if i := strings.Index(s, "; "); i > 0 {
		return s[:i]
	}
	return s
}
