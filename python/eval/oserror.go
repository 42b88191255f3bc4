package eval

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
)

// RaiseOS raises what CPython raises for a file operation that failed
// with err: for an errno on a path, "[Errno N] Message: 'path'" as an
// OSError of the errno's class (FileNotFoundError for ENOENT,
// PermissionError, IsADirectoryError, NotADirectoryError); any other
// error as a plain OSError.
func (in *Interp) RaiseOS(err error) error {
	var pe *fs.PathError
	var no syscall.Errno
	if !errors.As(err, &pe) || !errors.As(pe.Err, &no) {
		return in.Raise(OSErrorType, "%s", err.Error())
	}
	cls := OSErrorType
	switch no {
	case syscall.ENOENT:
		cls = FileNotFoundErrorType
	case syscall.EACCES, syscall.EPERM:
		cls = PermissionErrorType
	case syscall.EISDIR:
		cls = IsADirectoryErrorType
	case syscall.ENOTDIR:
		cls = NotADirectoryErrorType
	}
	msg := no.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return in.Raise(cls, "[Errno %d] %s: %s", int(no), msg, in.ReprOf(pe.Path))
}
