// Package fileio is how every layer writes its output files and reads
// its input files.
//
// Write never changes what kind of thing a path is, nor its mode. A new
// path or a regular file is written whole or not at all: the content
// goes to a temporary file beside it, which is synced and then renamed
// over it, so a write that fails partway leaves the old file as it was
// and a reader never sees half a file. A character device (/dev/null,
// /dev/full, a terminal) or a FIFO is opened and written in place, as a
// shell's > does: renaming over it would put a regular file where the
// device node was, for every other program on the machine. A symbolic
// link is followed to what it names, which is then written as above (a
// dangling link makes the file it names). A directory, a block device or
// a socket is refused. Every error of the write, the sync and the close
// comes back, naming the path as given.
//
// Read and Open bound what they read: the size is checked before
// reading (a regular file's by stat, anything else's by a limited
// reader), so that /dev/zero or a line that never ends is an error, not
// all of memory.
package fileio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Write writes the file at path with write, which gets a buffered writer.
// Where stdout is not nil, the path "-" means stdout (a command-line
// flag's convention); otherwise "-" is a file's name. A regular file
// written keeps its mode and, where the process may set them, its owner
// and group; a new file gets the usual mode (0666 less the umask).
func Write(path string, stdout io.Writer, write func(w io.Writer) error) error {
	if path == "-" && stdout != nil {
		return buffered(stdout, write)
	}
	target, fi, err := resolve(path)
	if err != nil {
		return named(path, err)
	}
	switch {
	case fi == nil || fi.Mode().IsRegular():
		err = replace(target, fi, write)
	case fi.IsDir():
		err = syscall.EISDIR
	case fi.Mode()&fs.ModeCharDevice != 0 || fi.Mode()&fs.ModeNamedPipe != 0:
		err = inPlace(target, write)
	default:
		err = fmt.Errorf("not a regular file, character device or FIFO (%s)", kind(fi.Mode()))
	}
	return named(path, err)
}

// kind names a mode's file type.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// named is err as the error of writing path: the path the user gave,
// whatever temporary file or link target the error arose at.
func named(path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return &fs.PathError{Op: "write", Path: path, Err: err}
}

// buffered has write write to w through a buffer, then flushes it.
func buffered(w io.Writer, write func(io.Writer) error) error {
	b := bufio.NewWriterSize(w, 64<<10)
	if err := write(b); err != nil {
		return err
	}
	return b.Flush()
}

// maxLinks is how many symbolic links resolve follows in a row, as
// Linux does (MAXSYMLINKS) before it answers ELOOP.
const maxLinks = 40

// resolve follows path's symbolic links to the path they name, and
// returns it with what is there (nil where nothing is: a new file).
func resolve(path string) (string, fs.FileInfo, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil, nil // a missing directory fails at the create
		}
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, fi, err
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(to) {
			// not filepath.Join: it would clean a/link/.. to a, where
			// the kernel goes up from what link names
			to = dirOf(path) + string(filepath.Separator) + to
		}
		path = to
	}
	return "", nil, syscall.ELOOP
}

// dirOf is the directory part of path, uncleaned ("." for none).
func dirOf(path string) string {
	i := strings.LastIndexByte(path, filepath.Separator)
	switch {
	case i < 0:
		return "."
	case i == 0:
		return string(filepath.Separator)
	}
	return path[:i]
}

// inPlace opens an existing device or FIFO and writes it, as a shell's
// > would: nothing is created, renamed or truncated.
func inPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	if fi, serr := f.Stat(); serr == nil && fi.Mode().IsRegular() {
		// it was replaced by a regular file since it was looked at:
		// writing into that in place would leave its old tail
		err = errors.New("changed while it was being opened")
	} else {
		err = buffered(f, write)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// replace writes a new file or replaces the regular file old at path:
// it creates the temporary file, has write fill it, and renames it over
// path once it is complete and synced; on any failure the temporary
// file is removed and path is untouched. A file the process could not
// open for writing is refused as that open would be.
func replace(path string, old fs.FileInfo, write func(io.Writer) error) error {
	if old != nil {
		probe, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		probe.Close() //nolint:errcheck // nothing was written
	}
	f, err := createBeside(path)
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = buffered(f, write)
	if err == nil && old != nil {
		err = keepOwnerAndMode(f, old)
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
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp) //nolint:errcheck // the write's own error is the one to report
	}
	return err
}

// keepOwnerAndMode gives the new file f the mode of the file old it
// replaces, and its owner and group where the process may set them (a
// user who may write a file of another's makes it theirs, as an editor
// saving by rename does).
func keepOwnerAndMode(f *os.File, old fs.FileInfo) error {
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		if err := f.Chown(int(st.Uid), int(st.Gid)); err != nil && !errors.Is(err, fs.ErrPermission) {
			return err
		}
	}
	return f.Chmod(old.Mode().Perm() | old.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
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
			return nil, err
		}
	}
}
