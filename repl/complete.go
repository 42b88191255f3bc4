package repl

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
	"github.com/gpumemrepl/gpumemrepl/repl/command"
	"github.com/gpumemrepl/gpumemrepl/torchpy"
)

// completer completes what the cursor is in: a file name after a file
// command or inside a string, a topic after help, an attribute after a
// dot (of a module, a class or an object in scope: torch.cuda., nn.,
// x.), else a command word, a name in scope, a device or a dtype.
type completer struct {
	py *pyPrompt
	// busy is set while a statement runs: completion reads the
	// interpreter's namespaces, which the statement may be changing.
	busy atomic.Bool
}

var completionWords = func() []string {
	w := append([]string{"del", "cpu", "cuda", "cuda:0", "torch.", ".to", ".cuda()", ".cpu()", ".clone()", "exit"}, command.Words()...)
	w = append(w, "ReLU", "GELU", "Sequential", "SGD", "Adam", "AdamW", "torch.no_grad():")
	for d := range engine.DTypes {
		w = append(w, d)
	}
	for k := range pyKeywords {
		w = append(w, k)
	}
	return w
}()

// fileCommands are the command-form lines whose next word is a file.
var fileCommands = []string{"load ", "plot ", "snapshot save ", "run "}

// Do implements readline.AutoCompleter: candidates for the text before
// the cursor, as suffixes, and how many runes of it they complete.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	text := string(line[:pos])
	if path, ok := fileArg(text); ok {
		_, base := filepath.Split(path)
		return suffixes(fileNames(path), base)
	}
	if topic, ok := strings.CutPrefix(strings.TrimLeft(text, " "), "help "); ok {
		var names []string
		for _, c := range command.Registry {
			names = append(names, c.Name)
		}
		return suffixes(append(names, command.OpTopics()...), topic)
	}
	start := pos
	for start > 0 && (unicode.IsLetter(line[start-1]) || unicode.IsDigit(line[start-1]) || strings.ContainsRune("_:.", line[start-1])) {
		start--
	}
	word := string(line[start:pos])
	if c.py == nil || c.busy.Load() {
		return suffixes(completionWords, word)
	}
	if dot := strings.LastIndexByte(word, '.'); dot > 0 {
		base, prefix := word[:dot], word[dot+1:]
		return suffixes(c.attributes(base, strings.HasPrefix(prefix, "_")), prefix)
	}
	return suffixes(append(slices.Clone(completionWords), c.names()...), word)
}

// fileArg is the file name being typed: the word after a file command,
// or the text of a string literal the cursor is in.
func fileArg(text string) (string, bool) {
	t := strings.TrimLeft(text, " ")
	for _, cmd := range fileCommands {
		if arg, ok := strings.CutPrefix(t, cmd); ok && !strings.Contains(arg, " ") {
			return arg, true
		}
	}
	open := -1
	for i, r := range text {
		switch {
		case open < 0 && (r == '"' || r == '\''):
			open = i
		case open >= 0 && rune(text[open]) == r:
			open = -1
		}
	}
	if open < 0 {
		return "", false
	}
	return text[open+1:], true
}

// fileNames are the entries of path's folder, a folder's with a slash
// after it; hidden ones only when path's last element starts with a dot.
func fileNames(path string) []string {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(cmp.Or(dir, "."))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, name)
	}
	return out
}

// names are the prompt's names in scope: its globals and the builtins.
func (c *completer) names() []string {
	var out []string
	for _, d := range []*eval.Dict{c.py.fr.Globals(), c.py.in.Builtins()} {
		d.Items(func(k, _ eval.Value) bool {
			if s, ok := k.(string); ok && !strings.HasPrefix(s, "_") {
				out = append(out, s)
			}
			return true
		})
	}
	return out
}

// attributes are the attributes of the value the dotted name base
// means, a method's with "(" after it; private ones (_x) only when
// asked. base is followed through names, modules, classes and
// instances' own attributes only, so that completing runs no code.
func (c *completer) attributes(base string, private bool) []string {
	parts := strings.Split(base, ".")
	v, ok := c.py.fr.Globals().GetStr(parts[0])
	if !ok {
		v, ok = c.py.in.Builtins().GetStr(parts[0])
	}
	for _, p := range parts[1:] {
		if !ok {
			return nil
		}
		v, ok = attrValue(v, p)
	}
	if !ok {
		return nil
	}
	names := eval.Dir(v)
	for _, reg := range registries(v) {
		reg.Items(func(k, _ eval.Value) bool {
			if s, ok := k.(string); ok {
				names = append(names, s)
			}
			return true
		})
	}
	var out []string
	for _, name := range names {
		if strings.HasPrefix(name, "_") && !private {
			continue
		}
		if a, found := attrValue(v, name); found && isCallable(a) {
			name += "("
		}
		out = append(out, name)
	}
	return out
}

// attrValue is v.name where finding it runs no code (a borrowed value):
// a module's or an instance's own attribute, or one of its class's.
func attrValue(v eval.Value, name string) (eval.Value, bool) {
	switch o := v.(type) {
	case *eval.ModuleObj:
		return o.Dict.GetStr(name)
	case *eval.Class:
		a := o.Lookup(name)
		return a, a != nil
	case *eval.Instance:
		if a, ok := o.Attr(name); ok {
			return a, true
		}
		for _, reg := range registries(o) {
			if a, ok := reg.GetStr(name); ok {
				return a, true
			}
		}
	}
	a := eval.TypeOf(v).Lookup(name)
	return a, a != nil
}

// registries are an nn.Module's parameters, buffers and submodules,
// which are its attributes as PyTorch's Module.__dir__ lists them.
func registries(v eval.Value) []*eval.Dict {
	o, ok := v.(*eval.Instance)
	if !ok || !o.Type().IsSubclass(torchpy.ModuleType) {
		return nil
	}
	var out []*eval.Dict
	for _, name := range []string{"_parameters", "_buffers", "_modules"} {
		if d, ok := o.Attr(name); ok {
			if d, ok := d.(*eval.Dict); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// isCallable reports whether v is a function, a method or a class.
func isCallable(v eval.Value) bool {
	switch v.(type) {
	case *eval.Builtin, *eval.Function, *eval.Class:
		return true
	}
	return false
}

// suffixes are the words that start with prefix (each once, sorted),
// less the prefix, as readline takes them.
func suffixes(words []string, prefix string) ([][]rune, int) {
	words = slices.Clone(words)
	sort.Strings(words)
	var out [][]rune
	for i, w := range words {
		if strings.HasPrefix(w, prefix) && w != prefix && (i == 0 || words[i-1] != w) {
			out = append(out, []rune(w[len(prefix):]))
		}
	}
	return out, len([]rune(prefix))
}
