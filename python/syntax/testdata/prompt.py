"""PYTHONSTARTUP for python/syntax's TestPromptMatchesCPython: makes the
interactive prompt (python3 -i, lines on stdin) say in plain marks what it
does with each line, and run nothing.

Each prompt is written as \\x01>\\x02 (a new statement) or \\x01.\\x02 (more
lines wanted); a SyntaxError as \\x01E Kind|line|col|msg\\x02; a statement
the prompt compiled as \\x01R\\x02, for a trace hook stops it before its
first line runs."""

import sys

sys.ps1 = "\x01>\x02"
sys.ps2 = "\x01.\x02"


def report(kind, exc, tb):
    if isinstance(exc, SyntaxError):
        sys.stderr.write("\x01E %s|%s|%s|%s\x02" % (kind.__name__, exc.lineno, exc.offset or 0, exc.msg))
    else:
        sys.stderr.write("\x01R\x02")


class Compiled(Exception):
    pass


def stop(frame, event, arg):
    if frame.f_code.co_filename == "<stdin>":
        raise Compiled
    return None


sys.excepthook = report
sys.settrace(stop)
