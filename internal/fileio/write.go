// Package fileio writes output files whole or not at all. The content
// goes to a temporary file beside the target, which is synced and then
// renamed over the target: a write that fails partway leaves the old file
// as it was, and a reader never sees half a file. A symbolic link at the
// target is replaced by the new file, not written through: the file it
// pointed to is left alone.
package fileio

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Write writes the file at path with write, which gets a buffered writer
// on the temporary file. The file takes the mode of the regular file it
// replaces, or the usual one for a new file (0666 less the umask).
func Write(path string, write func(w io.Writer) error) error {
	return replace(path, func(f *os.File) error {
		b := bufio.NewWriter(f)
		if err := write(b); err != nil {
			return err
		}
		return b.Flush()
	})
}

// WritePath is Write for a writer that opens its file by name itself:
// write is given the temporary file's path and must write the whole file
// there.
func WritePath(path string, write func(tmp string) error) error {
	return replace(path, func(f *os.File) error { return write(f.Name()) })
}

// replace creates the temporary file, has fill write it, and renames it
// over path once it is complete and synced; on any failure the temporary
// file is removed and path is untouched.
func replace(path string, fill func(f *os.File) error) error {
	old, err := os.Lstat(path)
	switch {
	case err == nil && old.IsDir():
		return &fs.PathError{Op: "write", Path: path, Err: syscall.EISDIR}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := createBeside(path)
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = fill(f)
	if err == nil && old != nil && old.Mode().IsRegular() {
		err = f.Chmod(old.Mode().Perm())
	}
	if err == nil {
		// without the sync, a crash soon after the rename can leave an
		// empty file under the name on file systems that delay allocation
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if rerr := os.Rename(tmp, path); rerr != nil {
			err = &fs.PathError{Op: "write", Path: path, Err: errors.Unwrap(rerr)}
		}
	}
	if err != nil {
		os.Remove(tmp) //nolint:errcheck // the write's own error is the one to report
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == tmp {
			pe.Path = path // the user named path; the temporary file is gone
		}
	}
	return err
}

// maxTries bounds the names tried for the temporary file: 64 random bits
// collide only where something else makes the same names.
const maxTries = 100

// createBeside creates a new file in path's directory under a name no
// other file has, with the mode a new file gets (0666 less the umask).
func createBeside(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for try := 1; ; try++ {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) || try == maxTries {
			return nil, &fs.PathError{Op: "write", Path: path, Err: errors.Unwrap(err)}
		}
	}
}
