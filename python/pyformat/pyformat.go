// Package pyformat provides CPython's text forms of numbers and strings:
// repr and str of floats, ints and strings, the format-spec mini-language
// (format(), str.format, f-strings), printf-style % formatting, float() and
// int() parsing, and the float and int arithmetic whose results Python
// prints (floor division, modulo, round, **, int true division).
//
// Every result is meant to be byte-identical to CPython 3.12's on Linux;
// the tests compare thousands of cases against the python3 on the machine.
// Errors are *Error values that carry the Python exception class, worded
// as CPython words them; the evaluator raises them as that exception.
//
// Where it differs from CPython, on purpose: a field wider or a precision
// longer than 2**28 characters, and an int power of more than 2**31 bits,
// are MemoryError (CPython builds them); float ** is correctly rounded,
// where glibc's pow is off by an ulp in about one case in a few thousand;
// strings are Go strings, so a lone surrogate cannot occur.
package pyformat
