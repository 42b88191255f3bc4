package trace

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
)

// Limits bound the bytes a trace file may make the loader read: a trace
// needs about 30 bytes of JSON an op, and recorded traces inflate from
// gzip at most about 30 times (27 for the boundaries traces), so a file
// beyond these is refused before it costs memory or time.
type Limits struct {
	// MaxBytes is the most JSON read, after inflating.
	MaxBytes int64
	// MaxInflation is how many times its own size a gzipped trace may
	// inflate to (never below MinInflated); 0: no bound but MaxBytes.
	MaxInflation int64
}

// DefaultLimits hold a trace of about 30 million ops (1 GiB of JSON).
var DefaultLimits = Limits{MaxBytes: 1 << 30, MaxInflation: 50}

// MinInflated is what a small gzipped trace may always inflate to.
const MinInflated = 32 << 20

// RaisedLimits are the limits of --trace-limit-bytes n: n bytes of
// JSON, however well the file compressed.
func RaisedLimits(n int64) Limits { return Limits{MaxBytes: n} }

// ErrTooLarge is a trace beyond its Limits.
var ErrTooLarge = errors.New("trace too large")

// ErrNotJSON is a file that does not hold a JSON object.
var ErrNotJSON = errors.New("not a JSON object")

// source is a trace file's JSON as it is read: inflated if the file is
// gzip's (told by its first bytes, not its name), counted against the
// limit.
type source struct {
	f      *fileio.File
	file   *bufio.Reader // the file's own bytes
	zr     *gzip.Reader  // nil for plain JSON
	json   *bufio.Reader // what the decoder reads
	count  countingReader
	zipped bool
}

// countingReader reads at most limit bytes of r; past them it fails with
// an error naming the limit.
type countingReader struct {
	r     io.Reader
	n     int64
	limit int64
	why   string // how the limit was set, for the error
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n >= c.limit {
		// One more byte tells a file of exactly limit bytes from a larger one.
		var one [1]byte
		if m, err := c.r.Read(one[:]); m == 0 {
			if err == nil {
				err = io.EOF
			}
			return 0, err // the file's own bound (fileio's) may end it too
		}
		return 0, fmt.Errorf("%w: more than %d bytes of JSON (%s); --trace-limit-bytes raises the limit", ErrTooLarge, c.limit, c.why)
	}
	p = p[:min(int64(len(p)), c.limit-c.n)]
	m, err := c.r.Read(p)
	c.n += int64(m)
	return m, err
}

// openSource opens path within l.
func openSource(path string, l Limits) (*source, error) {
	// the file itself is no larger than the JSON it may hold
	f, err := fileio.Open(path, l.MaxBytes, "trace")
	var tl *fileio.TooLargeError
	if errors.As(err, &tl) {
		return nil, fmt.Errorf("%w: %d bytes, more than %d bytes of JSON (the most a trace may hold); --trace-limit-bytes raises the limit", ErrTooLarge, tl.Size, tl.Limit)
	}
	if err != nil {
		return nil, err
	}
	s := &source{f: f, file: bufio.NewReaderSize(f, 64<<10)}
	size := f.Size
	limit, why := l.MaxBytes, "the most a trace may hold"
	var r io.Reader = s.file
	if head, err := s.file.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		if s.zr, err = gzip.NewReader(s.file); err != nil {
			f.Close()
			return nil, fmt.Errorf("gzip: %w", err)
		}
		s.zr.Multistream(false) // what follows the stream is looked at apart
		s.zipped = true
		r = s.zr
		if l.MaxInflation > 0 && size >= 0 {
			if ratio := max(MinInflated, l.MaxInflation*size); ratio < limit {
				limit, why = ratio, fmt.Sprintf("%d times its %d bytes of gzip", l.MaxInflation, size)
			}
		}
	}
	s.count = countingReader{r: r, limit: limit, why: why}
	s.json = bufio.NewReaderSize(&s.count, 64<<10)
	return s, nil
}

// trailing reports whether bytes follow the gzip stream in the file
// (always false for plain JSON, whose trailing bytes the decoder sees).
func (s *source) trailing() bool {
	if !s.zipped {
		return false
	}
	_, err := s.file.Peek(1)
	return err == nil
}

func (s *source) Close() error { return s.f.Close() }
