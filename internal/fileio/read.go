package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// The bounds of what each kind of input may hold. A file beyond its
// bound is refused before it is read whole: a regular file by its size,
// anything else (a device such as /dev/zero, a FIFO, a pipe, standard
// input) as soon as one byte past the bound arrives.
const (
	// MaxScript is the most a script (.py, .gpumem, or piped in) may
	// hold: 64 MiB, a thousand times the longest program of the project's
	// tests and a million-line generated sweep with room to spare.
	MaxScript = 64 << 20
	// MaxTable is the most a calibration file (a recorded table of the
	// user's convolutions: --calibration, GPUMEMREPL_CALIBRATION) may
	// hold: the project's own tables are a few MB together.
	MaxTable = 64 << 20
)

// TooLargeError is an input beyond its bound.
type TooLargeError struct {
	Path  string
	Size  int64 // the file's size; -1 where it is not a regular file
	Limit int64
	What  string // what the file was read as ("script", "trace")
}

func (e *TooLargeError) Error() string {
	if e.Size >= 0 {
		return fmt.Sprintf("read %s: %d bytes, more than a %s may hold (%s)", e.Path, e.Size, e.What, Bytes(e.Limit))
	}
	return fmt.Sprintf("read %s: more than a %s may hold (%s) and not yet at its end", e.Path, e.What, Bytes(e.Limit))
}

// InFile is an error in what a file holds, said after the file's name
// ("PATH: what is wrong"). A caller that names each file it reports on
// tells by this type that the error names it already, where a text's
// start would be a guess.
type InFile struct {
	Path string
	Err  error
}

func (e *InFile) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *InFile) Unwrap() error { return e.Err }

// Bytes is n bytes as the bound's unit says it: "64 MiB", "1 GiB",
// else the count.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// File is an input file open for reading within its bound.
type File struct {
	f *os.File
	Limited
	// Size is the file's size, or -1 where it is not a regular file.
	Size int64
}

// Open opens path, a what, for reading at most limit bytes: a regular
// file larger is refused here, by its size; any other is read through
// Limited.
func Open(path string, limit int64, what string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	size := int64(-1)
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	if size > limit {
		f.Close()
		return nil, &TooLargeError{Path: path, Size: size, Limit: limit, What: what}
	}
	return &File{f: f, Limited: Limited{R: f, Path: path, Limit: limit, What: what}, Size: size}, nil
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Read reads the file at path, a what, whole, within limit bytes.
func Read(path string, limit int64, what string) ([]byte, error) {
	f, err := Open(path, limit, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadAll()
}

// ReadAll reads the rest of the file. A regular file is read into one
// buffer of its size; anything else in pieces joined at its end, so that
// an input that never ends costs the bound, not the garbage of a buffer
// grown to it.
func (f *File) ReadAll() ([]byte, error) {
	if f.Size >= 0 {
		buf := make([]byte, 0, f.Size+1)
		for {
			if len(buf) == cap(buf) { // it grew since the stat
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := f.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if errors.Is(err, io.EOF) {
				return buf, nil
			}
			if err != nil {
				return nil, err
			}
		}
	}
	var parts [][]byte
	for {
		piece := make([]byte, 64<<10)
		n, err := io.ReadFull(f, piece)
		parts = append(parts, piece[:n])
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return bytes.Join(parts, nil), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Limited reads R, and fails with a TooLargeError once more than Limit
// bytes would have been read.
type Limited struct {
	R     io.Reader
	Path  string
	Limit int64
	What  string
	n     int64
}

func (l *Limited) Read(p []byte) (int, error) {
	if l.n >= l.Limit {
		// one more byte tells a file of exactly Limit bytes from a
		// larger one
		var one [1]byte
		if m, err := l.R.Read(one[:]); m == 0 {
			return 0, err
		}
		return 0, &TooLargeError{Path: l.Path, Size: -1, Limit: l.Limit, What: l.What}
	}
	if int64(len(p)) > l.Limit-l.n {
		p = p[:l.Limit-l.n]
	}
	m, err := l.R.Read(p)
	l.n += int64(m)
	return m, err
}
