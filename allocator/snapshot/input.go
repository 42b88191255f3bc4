package snapshot

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
)

// input is a file's bytes as they are read, gunzipped when they are
// gzip's (told by content, not by name), with the offset of each byte:
// errors say where in the pickle (or JSON) they are.
type input struct {
	r      io.Reader
	buf    []byte
	i, n   int   // buf[i:n] is read and not yet taken
	off    int64 // the offset of buf[0]
	limit  int64 // the most bytes read: more is an error
	left   int64 // bytes left in a plain file past buf[n]; -1 when gzipped
	zipped bool
	rerr   error // the reader's error, once it has given one
}

// errTooLarge is a file beyond Limits.MaxBytes.
var errTooLarge = errors.New("too large")

// openInput opens path, a what, for reading at most limit bytes (after
// inflating, and of the file itself: a larger regular file is refused
// before it is read).
func openInput(path string, limit int64, what string) (*input, *fileio.File, error) {
	f, err := fileio.Open(path, limit, what)
	if err != nil {
		return nil, nil, err
	}
	in, err := newInput(f, f.Size, limit)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return in, f, nil
}

// newInput reads r, of size bytes (-1: unknown), inflating it if it is
// gzip's.
func newInput(r io.Reader, size, limit int64) (*input, error) {
	if size > limit {
		return nil, errTooLarge
	}
	in := &input{r: r, buf: make([]byte, 64<<10), limit: limit, left: size}
	if head, err := in.peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		in = &input{r: zr, buf: make([]byte, 64<<10), limit: limit, left: -1, zipped: true}
	}
	return in, nil
}

// pos is the offset of the next byte.
func (in *input) pos() int64 { return in.off + int64(in.i) }

// fill makes at least k bytes readable at buf[i:], growing buf if it must.
func (in *input) fill(k int) error {
	if in.i > 0 {
		in.off += int64(in.i)
		in.n = copy(in.buf, in.buf[in.i:in.n])
		in.i = 0
	}
	if k > len(in.buf) {
		in.buf = append(in.buf[:in.n], make([]byte, k-in.n)...)
	}
	for in.n < k {
		if in.rerr != nil {
			if in.rerr == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return in.rerr
		}
		m, err := in.r.Read(in.buf[in.n:])
		in.n += m
		if in.left >= 0 {
			in.left -= int64(m)
		}
		if in.off+int64(in.n) > in.limit {
			return errTooLarge
		}
		in.rerr = err // kept for when the bytes read with it are taken
	}
	return nil
}

// byte takes one byte.
func (in *input) byte() (byte, error) {
	if in.i < in.n {
		b := in.buf[in.i]
		in.i++
		return b, nil
	}
	if err := in.fill(1); err != nil {
		return 0, err
	}
	in.i++
	return in.buf[0], nil
}

// peek is the next k bytes, not taken.
func (in *input) peek(k int) ([]byte, error) {
	if in.n-in.i < k {
		if err := in.fill(k); err != nil {
			return nil, err
		}
	}
	return in.buf[in.i : in.i+k], nil
}

// take takes k bytes, valid until the next read. A length the file
// cannot hold is an error before anything is allocated for it; one a
// gzipped file declares is read as it arrives, in steps of at most the
// buffer's size, so memory follows what is really there.
func (in *input) take(k uint64) ([]byte, error) {
	have := uint64(in.n - in.i)
	if k <= have {
		b := in.buf[in.i : in.i+int(k)]
		in.i += int(k)
		return b, nil
	}
	if in.left >= 0 && k-have > uint64(in.left) {
		return nil, fmt.Errorf("declares %d bytes and the file has %d left", k, have+uint64(in.left))
	}
	if k > uint64(in.limit-in.pos()) {
		return nil, errTooLarge
	}
	for size := len(in.buf); size < int(k); {
		size = min(int(k), 2*size)
		if err := in.fill(size); err != nil {
			return nil, err
		}
	}
	if err := in.fill(int(k)); err != nil {
		return nil, err
	}
	b := in.buf[in.i : in.i+int(k)]
	in.i += int(k)
	return b, nil
}

// Read implements io.Reader, for the JSON decoder.
func (in *input) Read(p []byte) (int, error) {
	if in.i == in.n {
		if err := in.fill(1); err != nil {
			if err == io.ErrUnexpectedEOF {
				return 0, io.EOF
			}
			return 0, err
		}
	}
	k := copy(p, in.buf[in.i:in.n])
	in.i += k
	return k, nil
}

// trailing reports what follows the end of the data (a pickle's STOP):
// nothing, bytes (how many, up to a few), or a broken gzip stream (its
// checksum, or garbage after it), read to the end within the limit.
func (in *input) trailing() error {
	extra := int64(in.n - in.i)
	in.i = in.n
	for {
		err := in.fill(1)
		if err == errTooLarge {
			return err
		}
		if err != nil {
			break
		}
		extra += int64(in.n)
		in.i = in.n
	}
	if in.rerr != io.EOF {
		if in.zipped {
			return fmt.Errorf("the gzip stream is damaged after the pickle (%v)", in.rerr)
		}
		return in.rerr
	}
	if extra > 0 {
		return fmt.Errorf("%d bytes follow the pickle's STOP", extra)
	}
	return nil
}
