// Package syntax parses Python 3.11 source into a syntax tree whose
// nodes are named, and laid out, as CPython 3.11's ast classes, and
// resolves its names into Scopes as CPython's symbol table does. It knows
// nothing of evaluation, torch or tensors.
//
// # What it parses
//
// Python 3.11's statements and expressions, with CPython's tokenizer
// rules (indentation, tabs, line joining, every literal form, f-strings as
// one token) and CPython's precedence, except:
//
//   - async and await in every form (async def, async for, async with,
//     await, async comprehensions),
//   - match statements (match stays usable as a name),
//   - except* clauses,
//   - anything newer than 3.11 (type statements, PEP 701 f-strings).
//
// These are refused as syntax errors: "'async' is not supported", "'match'
// is not supported", "'except*' is not supported"; an await, async with
// or async for gets CPython's own error, as none can be inside an async
// function here, and an async comprehension is invalid syntax. TestCPythonCorpus holds the standard library's files to
// CPython's ast module, node for node and position for position.
//
// # Errors
//
// A parse stops at the first error, as CPython does, and returns it as a
// *Error: Kind is SyntaxError, IndentationError or TabError, and Msg and
// Pos are CPython's for the same text (TestSyntaxErrorsMatchCPython holds
// the common mistakes to python3's compile()). Compile-time errors that
// CPython's symbol table and compiler report, such as 'return' outside
// function or keyword argument repeated, are syntax errors too. No panic
// leaves the package: a bug of its own is an Error whose Msg begins
// "internal error:".
//
// # Positions
//
// Every node has a Span: Start and End (exclusive) as Pos values, with
// Line counted from 1 and Col counted in characters (runes) from 1, as a
// user sees them. CPython's col_offset is a 0-based count of UTF-8 bytes;
// for the same node Col is the number of characters before it, plus 1.
// An error's Pos is CPython's lineno and offset.
//
// # Files and the prompt
//
// ParseFile parses a whole file. ParseInteractive parses the lines typed
// at a prompt so far as one statement, as CPython's interactive prompt
// reads them, and returns ErrIncomplete while the statement needs more
// lines (TestPromptMatchesCPython types the same lines at python3 -i).
//
// # Command lines
//
// Options.IsCommand lets a caller keep a line form of its own beside
// Python. At the start of each logical line (outside brackets, strings
// and continued lines) the parser hands the line's text, without its
// indentation and newline, to IsCommand; a line it claims is one Command
// statement holding that text. A Command is indented and ends a block as
// any simple statement does, so one may stand in a for body. The package
// has no command words of its own.
//
// Inspect walks a tree.
package syntax
