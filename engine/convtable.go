package engine

import (
	"bufio"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
)

// The table of recorded convolutions (testdata/conv/README.md): what
// PyTorch 2.11 with cuDNN 9.19 on the H200 allocated and freed in each
// convolution's forward and backward, keyed by the whole configuration.
// cuDNN's workspace follows its heuristics' choice of engine, which no
// formula measured so far predicts, so a configuration is modelled only
// where it was recorded: scripts/probe_conv.py's grid (grid.jsonl.gz,
// bias=None, both grads, a dense incoming gradient) and table modes
// (table.jsonl.gz: the scripts' configurations; common.jsonl.gz: the
// MNIST example's, the CIFAR-10 tutorial's and ResNet-18's), copies of testdata/conv's recordings
// (TestConvTableIsTheRecording). Extra tables of the same form load from
// the files GPUMEMREPL_CONV_TABLE names (separated by ':').

//go:embed convtable/*.jsonl.gz
var convTableFiles embed.FS

// convTableEnv names a user's own recorded tables.
const convTableEnv = "GPUMEMREPL_CONV_TABLE"

// convKey is a convolution's configuration as the table keys it.
type convKey struct {
	X, W                      string // shapes, "[64, 3, 32, 32]"
	Stride, Padding, Dilation string // one per spatial dimension
	Groups                    int64
	Bias                      bool
	DType, Format             string
	Deterministic             bool
}

// convEvent is one recorded allocator event of a phase: an alloc or a
// free of the phase's id-th address.
type convEvent struct {
	alloc bool
	bytes uint64
	id    int
	// kept marks an alloc the phase does not free (an output or a
	// gradient).
	kept bool
}

// convBackwardKey picks one recorded backward of a configuration: which
// of input, weight and bias needed a gradient ("xwb", "wb", ...) and
// the incoming gradient's layout ("dense", "expanded").
type convBackwardKey struct{ mask, grad string }

// convEntry is what the table holds for one configuration.
type convEntry struct {
	xBytes, wBytes, yBytes uint64
	forward                []convEvent
	backward               map[convBackwardKey][]convEvent
}

// convTable is the recorded configurations.
type convTable map[convKey]*convEntry

// convRecord is one JSON line of a recording: the table mode's fields,
// or the grid mode's (n, c, k, h, w, r and scalar stride, pad, dil).
type convRecord struct {
	X, W                      []int64
	Stride, Padding, Dilation []int64
	Groups                    int64
	Bias                      bool
	DType                     string `json:"dtype"`
	Format                    string
	Deterministic             bool
	XBytes                    uint64 `json:"x_bytes"`
	WBytes                    uint64 `json:"w_bytes"`
	YBytes                    uint64 `json:"y_bytes"`
	Fwd                       *struct{ Events [][3]any }
	BwdRuns                   []struct {
		Mask, Grad string
		Events     [][3]any
	} `json:"bwd_runs"`
	Error string
	// the grid's
	N, C, K, H, R      int64
	GridW              int64 `json:"w_grid"`
	Pad, Dil, StrideAt int64
	Bwd                *struct{ Events [][3]any }
}

// builtinConvTable is the embedded recordings, read once.
var builtinConvTable = sync.OnceValues(func() (convTable, error) {
	t := convTable{}
	for _, name := range []string{"convtable/grid.jsonl.gz", "convtable/table.jsonl.gz", "convtable/common.jsonl.gz"} {
		f, err := convTableFiles.Open(name)
		if err != nil {
			return nil, err
		}
		err = t.read(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return t, nil
})

// convTables is the builtin table with the user's from
// GPUMEMREPL_CONV_TABLE over it, read at a session's first convolution.
func (s *Session) convTables() (convTable, error) {
	if s.convTable != nil {
		return s.convTable, nil
	}
	base, err := builtinConvTable()
	if err != nil {
		return nil, err
	}
	t := convTable{}
	for k, e := range base {
		t[k] = e
	}
	for _, path := range strings.Split(os.Getenv(convTableEnv), ":") {
		if path == "" {
			continue
		}
		f, err := fileio.Open(path, fileio.MaxTable, "table")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", convTableEnv, err)
		}
		err = t.read(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", convTableEnv, path, err)
		}
	}
	s.convTable = t
	return t, nil
}

// read adds a recording's configurations (gzip JSON lines, or plain).
func (t convTable) read(r io.Reader) error {
	br := bufio.NewReader(r)
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			return err
		}
		defer z.Close()
		br = bufio.NewReader(z)
	}
	dec := json.NewDecoder(br)
	for line := 1; ; line++ {
		var raw map[string]json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("record %d: %w", line, err)
		}
		if _, ok := raw["fwd"]; !ok {
			continue // the versions' line, a time-limit line
		}
		rec, err := decodeConvRecord(raw)
		if err != nil {
			return fmt.Errorf("record %d: %w", line, err)
		}
		if rec.Error != "" {
			continue // it ran out of memory: nothing to model
		}
		if err := t.add(rec); err != nil {
			return fmt.Errorf("record %d: %w", line, err)
		}
	}
}

// decodeConvRecord reads one line, the grid's form made the table's.
func decodeConvRecord(raw map[string]json.RawMessage) (*convRecord, error) {
	var rec convRecord
	_, grid := raw["n"]
	if !grid {
		delete(raw, "bwd") // the table mode's configuration: its [mask, grad] pairs
	}
	if grid {
		raw["w_grid"] = raw["w"]
		delete(raw, "w")
		if st, ok := raw["stride"]; ok {
			raw["strideat"] = st
			delete(raw, "stride")
		}
	}
	b, _ := json.Marshal(raw)
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, err
	}
	if rec.N > 0 { // the grid: square kernels, bias=None, both grads, a dense gradient
		rec.X = []int64{rec.N, rec.C, rec.H, rec.GridW}
		rec.W = []int64{rec.K, rec.C / rec.Groups, rec.R, rec.R}
		rec.Stride, rec.Padding, rec.Dilation = []int64{rec.StrideAt, rec.StrideAt}, []int64{rec.Pad, rec.Pad}, []int64{rec.Dil, rec.Dil}
		if rec.Bwd != nil {
			rec.BwdRuns = append(rec.BwdRuns, struct {
				Mask, Grad string
				Events     [][3]any
			}{"xw", "dense", rec.Bwd.Events})
		}
	}
	if len(rec.X) < 3 || len(rec.W) != len(rec.X) || rec.Fwd == nil {
		return nil, fmt.Errorf("not a convolution's record")
	}
	return &rec, nil
}

// add puts one record's configuration in the table.
func (t convTable) add(rec *convRecord) error {
	k := convKey{X: dimList(rec.X), W: dimList(rec.W), Stride: dimList(rec.Stride), Padding: dimList(rec.Padding),
		Dilation: dimList(rec.Dilation), Groups: rec.Groups, Bias: rec.Bias, DType: rec.DType, Format: rec.Format,
		Deterministic: rec.Deterministic}
	fwd, err := convPhase(rec.Fwd.Events)
	if err != nil {
		return fmt.Errorf("forward: %w", err)
	}
	e := t[k]
	if e == nil {
		e = &convEntry{xBytes: rec.XBytes, wBytes: rec.WBytes, yBytes: rec.YBytes, forward: fwd, backward: map[convBackwardKey][]convEvent{}}
		t[k] = e
	} else if !slices.Equal(e.forward, fwd) {
		return fmt.Errorf("a second recording of %s %s differs in its forward", k.X, k.W)
	}
	for _, b := range rec.BwdRuns {
		ev, err := convPhase(b.Events)
		if err != nil {
			return fmt.Errorf("backward %s %s: %w", b.Mask, b.Grad, err)
		}
		bk := convBackwardKey{b.Mask, b.Grad}
		if old, ok := e.backward[bk]; ok && !slices.Equal(old, ev) {
			return fmt.Errorf("a second recording of %s %s differs in its backward %s %s", k.X, k.W, b.Mask, b.Grad)
		}
		e.backward[bk] = ev
	}
	return nil
}

// convPhase reads a phase's [action, size, address id] events: its
// allocs and frees (segments are the allocator's own doing), each alloc
// marked kept when the phase does not free it. A phase that ran out of
// memory (cuDNN then tries its next engine) is refused.
func convPhase(events [][3]any) ([]convEvent, error) {
	var out []convEvent
	open := map[int]int{} // address id -> its alloc's index in out
	for _, e := range events {
		action, _ := e[0].(string)
		size, _ := e[1].(float64)
		id, _ := e[2].(float64)
		switch action {
		case "alloc":
			open[int(id)] = len(out)
			out = append(out, convEvent{alloc: true, bytes: uint64(size), id: int(id), kept: true})
		case "free_requested":
			i, ok := open[int(id)]
			if !ok {
				return nil, fmt.Errorf("a free of an address the phase did not allocate")
			}
			out[i].kept = false
			delete(open, int(id))
			out = append(out, convEvent{bytes: uint64(size), id: int(id)})
		case "oom":
			return nil, fmt.Errorf("it ran out of memory (cuDNN's fallback is not modelled)")
		}
	}
	return out, nil
}

// kept is the sizes of a phase's kept allocations, in order.
func kept(events []convEvent) []uint64 {
	var sizes []uint64
	for _, e := range events {
		if e.alloc && e.kept {
			sizes = append(sizes, e.bytes)
		}
	}
	return sizes
}

// probeConfig is the probe's --config line for k, its backward for
// each of bwd.
func (k convKey) probeConfig(bwd ...convBackwardKey) string {
	runs := make([][2]string, 0, len(bwd))
	for _, b := range bwd {
		runs = append(runs, [2]string{b.mask, b.grad})
	}
	ints := func(s string) json.RawMessage { return json.RawMessage(strings.ReplaceAll(s, " ", "")) }
	b, _ := json.Marshal(map[string]any{"x": ints(k.X), "w": ints(k.W), "stride": ints(k.Stride), "padding": ints(k.Padding),
		"dilation": ints(k.Dilation), "groups": k.Groups, "bias": k.Bias, "dtype": k.DType, "format": k.Format,
		"deterministic": k.Deterministic, "bwd": runs})
	return string(b)
}

// notRecorded is the error of a convolution the table does not hold:
// what, and how to record it.
func (k convKey) notRecorded(op, what string, bwd ...convBackwardKey) error {
	return Errorf(NotImplementedError, "%s of input %s, weight %s, stride %s, padding %s, dilation %s, groups %d, bias %s, %s, deterministic=%s%s is not modelled by gpumemrepl: cuDNN's workspace for it was not recorded; record it on a GPU with `python3 scripts/probe_conv.py table conv.jsonl.gz --config '%s'` and set %s=conv.jsonl.gz",
		op, k.X, k.W, k.Stride, k.Padding, k.Dilation, k.Groups, pyBool(k.Bias), k.DType, pyBool(k.Deterministic), what,
		k.probeConfig(bwd...), convTableEnv)
}

// pyBool is b as Python writes it.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
