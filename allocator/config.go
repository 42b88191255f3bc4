package allocator

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/internal/refusal"
)

// Config is a parsed PYTORCH_CUDA_ALLOC_CONF string.
type Config struct {
	// MaxSplitSize is max_split_size_mb in bytes; blocks of at least this
	// size are oversize: never split. NoMaxSplit when unset.
	MaxSplitSize uint64
	// MaxNonSplitRounding is max_non_split_rounding_mb in bytes: how much
	// larger than the request an oversize block may be and still serve it.
	MaxNonSplitRounding uint64
	// LargeSegmentSize is large_segment_size_mb in bytes: the segment size
	// for 1-10 MiB requests.
	LargeSegmentSize uint64
	// GCThreshold is garbage_collection_threshold (0: off).
	GCThreshold float64
	// RoundupDivisions is roundup_power2_divisions, one entry per
	// power-of-two interval from 1 MiB up.
	RoundupDivisions [roundupIntervals]uint64
	// MemoryFraction is per_process_memory_fraction (1: no limit).
	MemoryFraction float64
	// ExpandableSegments is expandable_segments: one growing virtual range
	// per pool, physical pages mapped on demand.
	ExpandableSegments bool
	// ReleaseLockOnMalloc is release_lock_on_cudamalloc; it changes no
	// figure and is kept only so the string round-trips.
	ReleaseLockOnMalloc bool
	// Source is the string the config was parsed from.
	Source string
}

// NoMaxSplit is MaxSplitSize when max_split_size_mb is not set (SIZE_MAX).
const NoMaxSplit = ^uint64(0)

const roundupIntervals = 16

// DefaultConfig returns PyTorch's defaults.
func DefaultConfig() Config {
	return Config{
		MaxSplitSize:        NoMaxSplit,
		MaxNonSplitRounding: kLargeBuffer,
		LargeSegmentSize:    kLargeBuffer,
		MemoryFraction:      1,
	}
}

// ConfigError is a refused PYTORCH_CUDA_ALLOC_CONF string.
type ConfigError struct {
	Option string // the option name, "" when the string is malformed
	Value  string // the value given
	Msg    string // PyTorch's wording where it has one
}

func (e *ConfigError) Error() string {
	if e.Option == "" {
		return "PYTORCH_CUDA_ALLOC_CONF: " + e.Msg
	}
	return fmt.Sprintf("PYTORCH_CUDA_ALLOC_CONF: %s:%s: %s", e.Option, e.Value, e.Msg)
}

// tokenize splits a config string as PyTorch's ConfigTokenizer does: each
// of , : [ ] is a token, any other run of characters is one, and all
// whitespace is dropped.
func tokenize(s string) []string {
	var toks []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch r {
		case ',', ':', '[', ']':
			flush()
			toks = append(toks, string(r))
		case ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return toks
}

// ParseConfig parses a PYTORCH_CUDA_ALLOC_CONF string, starting from
// PyTorch's defaults. Options PyTorch has but gpumemrepl does not model
// are refused by name.
func ParseConfig(s string) (Config, error) {
	c := DefaultConfig()
	c.Source = s
	p := confParser{toks: tokenize(s)}
	// large_segment_size_mb is applied before every other option, since
	// max_split_size_mb's minimum and the non-split rounding depend on it.
	nonSplitGiven := false
	for pass := 0; pass < 2; pass++ {
		p.i = 0
		for p.i < len(p.toks) {
			key := p.toks[p.i]
			if key == "," {
				p.i++
				continue
			}
			if p.i+2 > len(p.toks) || p.toks[p.i+1] != ":" {
				if !knownOptions[key] {
					return c, &ConfigError{Option: key, Msg: fmt.Sprintf("Unrecognized key '%s' in Accelerator allocator config.", key)}
				}
				return c, &ConfigError{Option: key, Msg: "expected ':' and a value after the option name (PyTorch: Index out of bounds in ConfigTokenizer)"}
			}
			p.i += 2
			if (key == "large_segment_size_mb") != (pass == 0) {
				if err := p.skipValue(key); err != nil {
					return c, err
				}
				continue
			}
			if key == "max_non_split_rounding_mb" {
				nonSplitGiven = true
			}
			if err := p.option(&c, key); err != nil {
				return c, err
			}
		}
	}
	if !nonSplitGiven {
		c.MaxNonSplitRounding = c.LargeSegmentSize
	}
	return c, nil
}

// knownOptions are the option names PyTorch 2.11 accepts.
var knownOptions = map[string]bool{
	"max_split_size_mb": true, "max_non_split_rounding_mb": true, "large_segment_size_mb": true,
	"garbage_collection_threshold": true, "roundup_power2_divisions": true, "expandable_segments": true,
	"per_process_memory_fraction": true, "release_lock_on_cudamalloc": true, "release_lock_on_hipmalloc": true,
	"backend": true, "pinned_use_cuda_host_register": true, "pinned_use_hip_host_register": true,
	"pinned_num_register_threads": true, "pinned_reserve_segment_size_mb": true,
	"pinned_use_background_threads": true, "graph_capture_record_stream_reuse": true,
}

type confParser struct {
	toks []string
	i    int
}

func (p *confParser) value(key string) (string, error) {
	if p.i >= len(p.toks) {
		return "", &ConfigError{Option: key, Msg: "missing value (PyTorch: Index out of bounds in ConfigTokenizer)"}
	}
	v := p.toks[p.i]
	p.i++
	return v, nil
}

func (p *confParser) skipValue(key string) error {
	v, err := p.value(key)
	if err != nil || v != "[" {
		return err
	}
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		p.i++
		if t == "]" {
			return nil
		}
	}
	return &ConfigError{Option: key, Msg: "Expected closing bracket ']' in ConfigTokenizer but reached end of config"}
}

// stoull parses the leading digits of v, as C's stoull does ("40.5" is 40).
func stoull(key, v string) (uint64, error) {
	n := 0
	for n < len(v) && v[n] >= '0' && v[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, &ConfigError{Option: key, Value: v, Msg: "not an integer (PyTorch: stoull)"}
	}
	x, err := strconv.ParseUint(v[:n], 10, 64)
	if err != nil {
		return 0, &ConfigError{Option: key, Value: v, Msg: "integer out of range (PyTorch: stoull)"}
	}
	return x, nil
}

func parseBool(key, v string) (bool, error) {
	switch v {
	case "True":
		return true, nil
	case "False":
		return false, nil
	}
	return false, &ConfigError{Option: key, Value: v, Msg: fmt.Sprintf("Expected 'True' or 'False' in ConfigTokenizer but got '%s'", v)}
}

func megabytes(key, v string, min uint64, msg string) (uint64, error) {
	x, err := stoull(key, v)
	if err != nil {
		return 0, err
	}
	if x < min {
		return 0, &ConfigError{Option: key, Value: v, Msg: msg}
	}
	if x > NoMaxSplit/MiB {
		x = NoMaxSplit / MiB
	}
	return x * MiB, nil
}

func (p *confParser) option(c *Config, key string) error {
	if key == "roundup_power2_divisions" {
		return p.roundup(c)
	}
	v, err := p.value(key)
	if err != nil {
		return err
	}
	minMB := c.LargeSegmentSize / MiB
	switch key {
	case "max_split_size_mb":
		c.MaxSplitSize, err = megabytes(key, v, minMB, fmt.Sprintf("CachingAllocator option max_split_size_mb too small, must be >= %d", minMB))
	case "max_non_split_rounding_mb":
		c.MaxNonSplitRounding, err = megabytes(key, v, minMB, fmt.Sprintf("CachingAllocator option max_non_split_rounding_mb too small, must be >= %d", minMB))
	case "large_segment_size_mb":
		c.LargeSegmentSize, err = megabytes(key, v, 11, "CachingAllocator option large_segment_size_mb must be > 10 MB")
	case "garbage_collection_threshold":
		var f float64
		f, err = strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || f >= 1 {
			return &ConfigError{Option: key, Value: v, Msg: "garbage_collect_threshold is invalid, set it in (0.0, 1.0)"}
		}
		c.GCThreshold = f
	case "per_process_memory_fraction":
		var f float64
		f, err = strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1 {
			return &ConfigError{Option: key, Value: v, Msg: "per_process_memory_fraction is invalid, set it in [0.0, 1.0]"}
		}
		c.MemoryFraction = f
	case "expandable_segments":
		c.ExpandableSegments, err = parseBool(key, v)
	case "release_lock_on_cudamalloc", "release_lock_on_hipmalloc":
		c.ReleaseLockOnMalloc, err = parseBool(key, v)
	case "backend":
		switch v {
		case "native":
		case "cudaMallocAsync":
			err = &refusal.Error{Err: &ConfigError{Option: key, Value: v, Msg: "the cudaMallocAsync backend is not modelled by gpumemrepl"}}
		default:
			err = &ConfigError{Option: key, Value: v, Msg: "Unknown allocator backend, options are native and cudaMallocAsync"}
		}
	case "pinned_use_cuda_host_register", "pinned_use_hip_host_register", "pinned_num_register_threads",
		"pinned_reserve_segment_size_mb", "pinned_use_background_threads", "graph_capture_record_stream_reuse":
		err = &refusal.Error{Err: &ConfigError{Option: key, Value: v, Msg: "option not supported by gpumemrepl (it configures pinned host memory or CUDA graphs)"}}
	default:
		err = &ConfigError{Option: key, Value: v, Msg: fmt.Sprintf("Unrecognized key '%s' in Accelerator allocator config.", key)}
	}
	return err
}

// roundup parses roundup_power2_divisions: one power of two for every
// interval, or a list [MB:DIV,...,>:DIV] where key K covers [K MiB, 2K MiB).
func (p *confParser) roundup(c *Config) error {
	const key = "roundup_power2_divisions"
	v, err := p.value(key)
	if err != nil {
		return err
	}
	if v != "[" {
		d, err := stoull(key, v)
		if err != nil {
			return err
		}
		if bits.OnesCount64(d) != 1 {
			return &ConfigError{Option: key, Value: v, Msg: "For roundups, the divisions has to be power of 2 "}
		}
		for i := range c.RoundupDivisions {
			c.RoundupDivisions[i] = d
		}
		return nil
	}
	last, first := 0, true
	for {
		k, err := p.value(key)
		if err != nil {
			return &ConfigError{Option: key, Msg: "Expected closing bracket ']' in ConfigTokenizer but reached end of config"}
		}
		if k == "]" {
			return nil
		}
		if k == "," {
			continue
		}
		if colon, err := p.value(key); err != nil || colon != ":" {
			return &ConfigError{Option: key, Value: k, Msg: "expected ':' after an interval (PyTorch: Index out of bounds in ConfigTokenizer)"}
		}
		dv, err := p.value(key)
		if err != nil {
			return err
		}
		d, err := stoull(key, dv)
		if err != nil {
			return err
		}
		if d != 0 && bits.OnesCount64(d) != 1 {
			return &ConfigError{Option: key, Value: dv, Msg: "For roundups, the divisions has to be power of 2 or 0 to disable roundup "}
		}
		if k == ">" {
			for i := last + 1; i < roundupIntervals; i++ {
				c.RoundupDivisions[i] = d
			}
			continue
		}
		mb, err := stoull(key, k)
		if err != nil {
			return err
		}
		if bits.OnesCount64(mb) != 1 {
			return &ConfigError{Option: key, Value: k, Msg: "For roundups, the intervals have to be power of 2 "}
		}
		idx := min(bits.Len64(mb)-1, roundupIntervals-1)
		if first {
			for i := 0; i < idx; i++ {
				c.RoundupDivisions[i] = d
			}
			first = false
		}
		c.RoundupDivisions[idx] = d
		last = idx
	}
}
