package engine

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The table of recorded convolutions (testdata/conv/README.md): what
// PyTorch 2.11 with cuDNN 9.19 on the H200 allocated and freed in each
// convolution's forward and backward, keyed by the whole configuration.
// cuDNN's workspace follows its heuristics' choice of engine, which no
// formula predicts, so a configuration is exact only where it was
// recorded: scripts/probe_conv.py's grid (grid.jsonl.gz, bias=None, both
// grads, a dense incoming gradient) and table modes (table.jsonl.gz: the
// scripts' configurations; common.jsonl.gz: the MNIST example's, the
// CIFAR-10 tutorial's and ResNet-18's), and every recording of
// scripts/probe_conv_grid.py (the common networks' layers, in the compact
// form below), copies of testdata/conv's recordings
// (TestConvTableIsTheRecording). A configuration not recorded is
// estimated from the nearest recorded one (convestimate.go). Calibration
// files (a user's own recordings, scripts/calibrate.py: the flag
// --calibration and GPUMEMREPL_CALIBRATION, or GPUMEMREPL_CONV_TABLE)
// add configurations of the same forms over the built-in ones.
//
// The compact form (docs/calibration.md) is one JSON object a line: the
// configuration's fields as probe_conv.py's --config takes them, "fwd"
// the forward's events and "bwd" a map from the grad mask ("xwb": which
// of input, weight and bias autograd asked; "/expanded" after it for a
// broadcast incoming gradient) to the backward's events, each a string
// of tokens: "y" (or "x", "w", "b": the output, or the gradient of the
// input, weight or bias) a kept allocation of that tensor's bytes, "+N"
// a temporary of N bytes, "-I" the free of the phase's I-th allocation
// (counting from 0, kept ones too).

//go:embed convtable/*.jsonl.gz
var convTableFiles embed.FS

// convTableEnv names a user's own recorded tables (the older name;
// calibrationEnv is read the same way).
const convTableEnv = "GPUMEMREPL_CONV_TABLE"

// convKey is a convolution's configuration as the table keys it.
type convKey struct {
	X, W                      string // shapes, "[64, 3, 32, 32]"
	Stride, Padding, Dilation string // one per spatial dimension
	Groups                    int64
	Bias                      bool
	DType, Format             string
	Deterministic             bool
	// Transposed marks F.conv_transposeNd's (its weight [in, out/groups,
	// ...]); OutputPadding is its output_padding, "" for a plain one.
	Transposed    bool
	OutputPadding string
}

// convConfig is a configuration as numbers.
type convConfig struct {
	x, w                              []int64
	stride, padding, dilation, outPad []int64
	groups                            int64
	bias, deterministic, transposed   bool
	dtype                             DType
	format                            string
}

// key is c as the table keys it.
func (c *convConfig) key() convKey {
	k := convKey{X: dimList(c.x), W: dimList(c.w), Stride: dimList(c.stride), Padding: dimList(c.padding),
		Dilation: dimList(c.dilation), Groups: c.groups, Bias: c.bias, DType: c.dtype.Name, Format: c.format,
		Deterministic: c.deterministic, Transposed: c.transposed}
	if c.transposed {
		k.OutputPadding = dimList(c.outPad)
	}
	return k
}

// canon is c as the table keys it: its fields as the compact form
// writes them.
func (c *convConfig) canon() string {
	b := make([]byte, 0, 200)
	ints := func(name string, v []int64) {
		b = append(b, `"`+name+`":[`...)
		for i, n := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, n, 10)
		}
		b = append(b, "],"...)
	}
	ints("x", c.x)
	ints("w", c.w)
	ints("stride", c.stride)
	ints("padding", c.padding)
	ints("dilation", c.dilation)
	b = append(b, `"groups":`...)
	b = strconv.AppendInt(b, c.groups, 10)
	b = append(b, `,"bias":`...)
	b = strconv.AppendBool(b, c.bias)
	b = append(b, `,"dtype":"`+c.dtype.Name+`","format":"`+c.format+`","deterministic":`...)
	b = strconv.AppendBool(b, c.deterministic)
	if c.transposed {
		b = append(b, `,"transposed":true,`...)
		ints("output_padding", c.outPad)
		b = b[:len(b)-1]
	}
	return string(b)
}

// outChannels is the output's channels: the weight's first dimension, or
// for a transposed convolution its second times the groups.
func (c *convConfig) outChannels() int64 {
	if c.transposed {
		return c.w[1] * c.groups
	}
	return c.w[0]
}

// yShape is the output's shape.
func (c *convConfig) yShape() []int64 {
	shape := []int64{c.x[0], c.outChannels()}
	for i := range len(c.x) - 2 {
		span := c.dilation[i]*(c.w[i+2]-1) + 1
		if c.transposed {
			shape = append(shape, (c.x[i+2]-1)*c.stride[i]-2*c.padding[i]+span+c.outPad[i])
		} else {
			shape = append(shape, (c.x[i+2]+2*c.padding[i]-span)/c.stride[i]+1)
		}
	}
	return shape
}

// roleBytes is the bytes of the tensor a kept allocation makes: the
// output (y) or the gradient of the input, weight or bias.
func (c *convConfig) roleBytes(role byte) uint64 {
	switch role {
	case 'x':
		return numel(c.x) * c.dtype.Size
	case 'w':
		return numel(c.w) * c.dtype.Size
	case 'b':
		return uint64(c.outChannels()) * c.dtype.Size
	}
	return numel(c.yShape()) * c.dtype.Size
}

// check refuses a configuration whose shapes do not make a convolution.
func (c *convConfig) check() error {
	d := len(c.x) - 2
	if d < 1 || len(c.w) != d+2 || len(c.stride) != d || len(c.padding) != d || len(c.dilation) != d ||
		c.transposed && len(c.outPad) != d || c.groups <= 0 {
		return fmt.Errorf("not a convolution's configuration")
	}
	if c.dtype.Size == 0 {
		return fmt.Errorf("dtype %q is not a convolution's", c.dtype.Name)
	}
	in := c.w[1] * c.groups
	if c.transposed {
		in = c.w[0]
	}
	if in != c.x[1] || c.outChannels()%c.groups != 0 {
		return fmt.Errorf("input %s and weight %s of groups %d do not make a convolution", dimList(c.x), dimList(c.w), c.groups)
	}
	for _, n := range c.yShape() {
		if n <= 0 {
			return fmt.Errorf("input %s and weight %s make an empty output", dimList(c.x), dimList(c.w))
		}
	}
	return nil
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
	// role is what a kept alloc is, where the recording says ('y', 'x',
	// 'w', 'b': the compact form), or 0 (the older form: by its size).
	role byte
}

// convBackwardKey picks one recorded backward of a configuration: which
// of input, weight and bias needed a gradient ("xwb", "wb", ...) and
// the incoming gradient's layout ("dense", "expanded").
type convBackwardKey struct{ mask, grad string }

// convEntry is what the table holds for one configuration.
type convEntry struct {
	cfg                    convConfig
	feat                   convFeatures // the estimate's coordinates (convestimate.go)
	class                  convClass
	xBytes, wBytes, yBytes uint64
	// source is the file that recorded it: a built-in table's name or a
	// calibration file's path (calibrated); an estimated entry's is the
	// estimate's cause, and heldOut the recorded configuration it was
	// estimated without (Options.ForceGeneral), whose backward is then
	// estimated without it too.
	source     string
	calibrated bool
	// cards are the GPUs that recorded the forward, by the name
	// torch.cuda.get_device_name gives (a calibration file's: its own),
	// and runCards a backward run's where they differ from cards (a
	// configuration recorded on several cards, each the same events).
	cards    []string
	runCards map[convBackwardKey][]string
	heldOut  *convConfig
	// The events: parsed when the table is read (the older forms,
	// calibration files) or, for the built-in compact lines, from their
	// text when first asked (parsed); forward and backward are then set.
	fwdText, bwdText string
	// runs are the backward runs it recorded whose kept allocations say
	// what they are, known when the table is read.
	runs     []convBackwardKey
	parsed   sync.Once
	parseErr error
	forward  []convEvent
	backward map[convBackwardKey][]convEvent
}

// convTable is the recorded configurations, by convConfig.canon.
type convTable map[string]*convEntry

// convRecord is one JSON line of a recording in the older forms: the
// table mode's fields, or the grid mode's (n, c, k, h, w, r and scalar
// stride, pad, dil).
type convRecord struct {
	X, W                      []int64
	Stride, Padding, Dilation []int64
	OutputPadding             []int64 `json:"output_padding"`
	Groups                    int64
	Bias                      bool
	DType                     string `json:"dtype"`
	Format                    string
	Deterministic, Transposed bool
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

// convLine is one line of the compact form.
type convLine struct {
	X, W                      []int64
	Stride, Padding, Dilation []int64
	OutputPadding             []int64 `json:"output_padding"`
	Groups                    int64
	Bias                      bool
	DType                     string `json:"dtype"`
	Format                    string
	Deterministic, Transposed bool
	Fwd                       string
	Bwd                       map[string]string
	Error                     string
	// bwdText is the bwd object's text and runs its keys, where
	// parseCompact read the line (Bwd is then nil).
	bwdText string
	runs    []convBackwardKey
}

// builtinConvTable is the embedded recordings, read once; a compact
// line's events are read when first asked (convEntry.events).
var builtinConvTable = sync.OnceValues(func() (convTable, error) {
	t := convTable{}
	names, err := fs.Glob(convTableFiles, "convtable/*.jsonl.gz")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		f, err := convTableFiles.Open(name)
		if err != nil {
			return nil, err
		}
		source := strings.TrimPrefix(name, "convtable/")
		br := bufio.NewReaderSize(f, 1<<16)
		if err := noteCard(br, source); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		err = t.read(br, source, true)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return t, nil
})

// convFileCard is the card each built-in table file was recorded on,
// from its first line's "device" (defaultCard where it names none): the
// networks' grid and the zoo's convolutions were recorded on an NVIDIA
// H100 80GB HBM3, lent for the H200 (testdata/conv/README.md).
var convFileCard sync.Map

// defaultCard is the card of a recording that names none: the project's
// recordings are the H200's unless they say otherwise.
const defaultCard = "NVIDIA H200"

// noteCard reads the device of a built-in file's first line (gzip) into
// convFileCard, leaving r to be read whole.
func noteCard(r *bufio.Reader, source string) error {
	head, err := r.Peek(2)
	if err != nil || head[0] != 0x1f || head[1] != 0x8b {
		return nil
	}
	all, err := r.Peek(r.Buffered())
	if err != nil {
		return err
	}
	z, err := gzip.NewReader(bytes.NewReader(all))
	if err != nil {
		return err
	}
	first, _ := bufio.NewReader(z).ReadSlice('\n')
	var h struct{ Device string }
	if json.Unmarshal(first, &h) == nil && h.Device != "" {
		convFileCard.Store(source, h.Device)
	}
	return nil
}

// runOn is the cards that recorded e's backward run bk.
func (e *convEntry) runOn(bk convBackwardKey) []string {
	if c, ok := e.runCards[bk]; ok {
		return c
	}
	return e.cards
}

// cardUnion is the cards of a and b, each once, a's first.
func cardUnion(a, b []string) []string {
	out := slices.Clone(a)
	for _, c := range b {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// convTables is the builtin table with the calibration files'
// configurations over it (calibration.go), made at a session's first
// convolution.
func (s *Session) convTables() (convTable, error) {
	if s.convTable != nil {
		return s.convTable, nil
	}
	base, err := builtinConvTable()
	if err != nil {
		return nil, err
	}
	t := make(convTable, len(base)+len(s.calibration))
	for k, e := range base {
		t[k] = e
	}
	for k, e := range s.calibration {
		t[k] = e
	}
	s.convTable = t
	return t, nil
}

// read adds a recording's configurations (gzip JSON lines, or plain)
// from source; lazy leaves a compact line's events to be read when first
// asked (the built-in tables, checked whole by their tests), else every
// line is read whole here.
func (t convTable) read(r io.Reader, source string, lazy bool) error {
	br := bufio.NewReaderSize(r, 1<<16)
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			return err
		}
		defer z.Close()
		br = bufio.NewReaderSize(z, 1<<16)
	}
	for line := 1; ; line++ {
		text, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // a line longer than the buffer
			long := append([]byte(nil), text...)
			for err == bufio.ErrBufferFull {
				text, err = br.ReadSlice('\n')
				long = append(long, text...)
			}
			text = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if text = bytes.TrimSpace(text); len(text) > 0 {
			if err := t.readLine(text, source, lazy); err != nil {
				return fmt.Errorf("line %d: %w", line, err)
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// readLine adds one line's configuration: the compact form's, or the
// probe's older ones; a line of neither (the versions' line, a time
// limit's) says nothing and is passed over.
func (t convTable) readLine(text []byte, source string, lazy bool) error {
	if compact := bytes.Contains(text, []byte(`"fwd":"`)) || bytes.Contains(text, []byte(`"fwd": "`)); compact {
		l, ok := parseCompact(text)
		if !ok {
			l = convLine{}
			if err := json.Unmarshal(text, &l); err != nil {
				return err
			}
		}
		if l.Error != "" {
			return nil // it ran out of memory: nothing to model
		}
		return t.addLine(&l, source, lazy)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(text, &raw); err != nil {
		return err
	}
	if _, ok := raw["fwd"]; !ok {
		return nil
	}
	rec, err := decodeConvRecord(raw)
	if err != nil {
		return err
	}
	if rec.Error != "" {
		return nil
	}
	return t.add(rec, source)
}

// decodeConvRecord reads one line of the older forms, the grid's made the
// table's.
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

// lineConfig is a line's configuration, checked.
func lineConfig(x, w, stride, padding, dilation, outPad []int64, groups int64, bias, det, transposed bool, dtype, format string) (convConfig, error) {
	c := convConfig{x: x, w: w, stride: stride, padding: padding, dilation: dilation, groups: groups, bias: bias,
		deterministic: det, transposed: transposed, dtype: DTypes[dtype], format: format}
	if c.dtype.Size == 0 {
		c.dtype.Name = dtype
	}
	if transposed {
		c.outPad = outPad
		if c.outPad == nil {
			c.outPad = make([]int64, len(stride))
		}
	}
	if c.format == "" {
		c.format = "contiguous"
	}
	return c, c.check()
}

// add puts one older record's configuration in the table.
func (t convTable) add(rec *convRecord, source string) error {
	c, err := lineConfig(rec.X, rec.W, rec.Stride, rec.Padding, rec.Dilation, rec.OutputPadding, rec.Groups, rec.Bias,
		rec.Deterministic, rec.Transposed, rec.DType, rec.Format)
	if err != nil {
		return err
	}
	e := newConvEntry(&c, source)
	if e.xBytes != rec.XBytes || e.wBytes != rec.WBytes || rec.YBytes != 0 && e.yBytes != rec.YBytes {
		return fmt.Errorf("the record's byte sizes are not its shapes'")
	}
	if e.forward, err = convPhase(rec.Fwd.Events, &c, "y"); err != nil {
		return fmt.Errorf("forward: %w", err)
	}
	for _, b := range rec.BwdRuns {
		ev, err := convPhase(b.Events, &c, b.Mask)
		if err != nil {
			return fmt.Errorf("backward %s %s: %w", b.Mask, b.Grad, err)
		}
		if err := e.addBackward(convBackwardKey{b.Mask, b.Grad}, ev); err != nil {
			return err
		}
	}
	e.parsed.Do(func() {})
	e.setRuns()
	return t.put(e)
}

// setRuns notes the parsed backward runs whose kept allocations say what
// they are.
func (e *convEntry) setRuns() {
	e.runs = e.runs[:0]
	for bk, ev := range e.backward {
		if !slices.ContainsFunc(ev, func(x convEvent) bool { return x.alloc && x.kept && x.role == 0 }) {
			e.runs = append(e.runs, bk)
		}
	}
}

// addLine puts one compact line's configuration in the table; lazy
// leaves its events to be read when first asked.
func (t convTable) addLine(l *convLine, source string, lazy bool) error {
	c, err := lineConfig(l.X, l.W, l.Stride, l.Padding, l.Dilation, l.OutputPadding, l.Groups, l.Bias, l.Deterministic,
		l.Transposed, l.DType, l.Format)
	if err != nil {
		return err
	}
	e := newConvEntry(&c, source)
	e.fwdText, e.bwdText = l.Fwd, l.bwdText
	if l.Bwd != nil || !lazy {
		bwd := l.Bwd
		if bwd == nil {
			bwd, _ = new(compactScanner).stringMap(l.bwdText)
		}
		if err := e.parseText(bwd); err != nil {
			return err
		}
		e.parsed.Do(func() {})
		e.setRuns()
	} else {
		e.runs = l.runs
	}
	return t.put(e)
}

// newConvEntry is an entry for c, without events yet.
func newConvEntry(c *convConfig, source string) *convEntry {
	name := defaultCard
	if card, ok := convFileCard.Load(source); ok {
		name = card.(string)
	}
	return &convEntry{cfg: *c, feat: c.features(), class: c.class(), xBytes: c.roleBytes('x'), wBytes: c.roleBytes('w'),
		yBytes: c.roleBytes('y'), source: source, cards: []string{name}}
}

// put adds e to the table; a configuration recorded before must have
// recorded the same forward, and e's backward runs join its.
func (t convTable) put(e *convEntry) error {
	k := e.cfg.canon()
	old := t[k]
	if old == nil {
		t[k] = e
		return nil
	}
	if err := old.readEvents(); err != nil {
		return err
	}
	if err := e.readEvents(); err != nil {
		return err
	}
	if !sameEvents(old.forward, e.forward) {
		return fmt.Errorf("a second recording of %s %s differs in its forward (the first from %s)", dimList(e.cfg.x), dimList(e.cfg.w), old.source)
	}
	if !slices.Equal(old.cards, e.cards) {
		if old.runCards == nil {
			old.runCards = map[convBackwardKey][]string{}
		}
		for bk := range old.backward {
			if _, ok := old.runCards[bk]; !ok {
				old.runCards[bk] = old.cards
			}
		}
		old.cards = cardUnion(old.cards, e.cards)
	}
	for bk, ev := range e.backward {
		if err := old.addBackward(bk, ev); err != nil {
			return err
		}
		if old.runCards != nil {
			old.runCards[bk] = cardUnion(old.runCards[bk], e.cards)
		}
	}
	old.setRuns()
	return nil
}

// readEvents reads the entry's events from its compact text, once.
func (e *convEntry) readEvents() error {
	e.parsed.Do(func() {
		var s compactScanner
		bwd, ok := s.stringMap(e.bwdText)
		if !ok {
			e.parseErr = fmt.Errorf("bwd: not an object of strings")
			return
		}
		e.parseErr = e.parseText(bwd)
	})
	return e.parseErr
}

// parseText reads the forward's text and each backward of bwd into the
// entry.
func (e *convEntry) parseText(bwd map[string]string) error {
	var err error
	if e.forward, err = compactPhase(e.fwdText, &e.cfg, "y"); err != nil {
		return fmt.Errorf("fwd: %w", err)
	}
	masks := make([]string, 0, len(bwd))
	for m := range bwd {
		masks = append(masks, m)
	}
	slices.Sort(masks)
	for _, m := range masks {
		bk := convBackwardKey{m, "dense"}
		if mask, grad, ok := strings.Cut(m, "/"); ok {
			bk = convBackwardKey{mask, grad}
		}
		if bk.mask == "" || strings.Trim(bk.mask, "xwb") != "" || bk.grad != "dense" && bk.grad != "expanded" || strings.Contains(bk.mask, "b") && !e.cfg.bias {
			return fmt.Errorf("bwd %q: not a grad mask (of x, w and b) with /dense or /expanded", m)
		}
		ev, err := compactPhase(bwd[m], &e.cfg, bk.mask)
		if err != nil {
			return fmt.Errorf("bwd %q: %w", m, err)
		}
		if err := e.addBackward(bk, ev); err != nil {
			return err
		}
	}
	return nil
}

// addBackward adds a recorded backward; one recorded already must be the
// same.
func (e *convEntry) addBackward(bk convBackwardKey, ev []convEvent) error {
	if old, ok := e.backward[bk]; ok && !sameEvents(old, ev) {
		return fmt.Errorf("a second recording of %s %s differs in its backward %s %s (the first from %s)", dimList(e.cfg.x), dimList(e.cfg.w), bk.mask, bk.grad, e.source)
	}
	if e.backward == nil {
		e.backward = map[convBackwardKey][]convEvent{}
	}
	e.backward[bk] = ev
	return nil
}

// convPhase reads a phase's [action, size, address id] events (the older
// form) for configuration c: its allocs and frees (segments are the
// allocator's own doing), each alloc marked kept when the phase does not
// free it, and what each kept one is, by its size, among roles ("y" in a
// forward, the grad mask in a backward; none where two are of its size).
// Events are numbered by allocation, as in the compact form. A phase that
// ran out of memory (cuDNN then tries its next engine) is refused.
func convPhase(events [][3]any, c *convConfig, roles string) ([]convEvent, error) {
	var out []convEvent
	open := map[int]int{} // address id -> its alloc's index in out
	allocs := 0           // the phase's allocations so far: an event's id
	for _, e := range events {
		action, _ := e[0].(string)
		size, _ := e[1].(float64)
		id, _ := e[2].(float64)
		switch action {
		case "alloc":
			open[int(id)] = len(out)
			out = append(out, convEvent{alloc: true, bytes: uint64(size), id: allocs, kept: true})
			allocs++
		case "free_requested":
			i, ok := open[int(id)]
			if !ok {
				return nil, fmt.Errorf("a free of an address the phase did not allocate")
			}
			out[i].kept = false
			delete(open, int(id))
			out = append(out, convEvent{bytes: uint64(size), id: out[i].id})
		case "oom":
			return nil, fmt.Errorf("it ran out of memory (cuDNN's fallback is not modelled)")
		}
	}
	want := make([]int, len(roles))
	for i := range roles {
		want[i] = i
	}
	order, err := gradientOrder(kept(out), want, func(i int) uint64 { return c.roleBytes(roles[i]) })
	if err != nil {
		return nil, err
	}
	j := 0
	for i := range out {
		if out[i].alloc && out[i].kept {
			if order[j] >= 0 {
				out[i].role = roles[order[j]]
			}
			j++
		}
	}
	return out, nil
}

// compactPhase reads a phase's tokens (the compact form) for
// configuration c: roles are the tensors it may keep ("y" in a forward,
// the grad mask in a backward), each kept once; every temporary is freed.
func compactPhase(s string, c *convConfig, roles string) ([]convEvent, error) {
	var out []convEvent
	var allocs []int // the phase's allocations: their index in out
	freed := map[int]bool{}
	seen := ""
	for _, tok := range strings.Fields(s) {
		switch r := tok[0]; {
		case len(tok) == 1 && strings.IndexByte(roles, r) >= 0 && strings.IndexByte(seen, r) < 0:
			seen += tok
			allocs = append(allocs, len(out))
			out = append(out, convEvent{alloc: true, bytes: c.roleBytes(r), id: len(allocs) - 1, kept: true, role: r})
		case r == '+':
			n, err := strconv.ParseUint(tok[1:], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("token %q: %w", tok, err)
			}
			allocs = append(allocs, len(out))
			out = append(out, convEvent{alloc: true, bytes: n, id: len(allocs) - 1})
		case r == '-':
			i, err := strconv.Atoi(tok[1:])
			if err != nil || i < 0 || i >= len(allocs) || out[allocs[i]].kept || freed[i] {
				return nil, fmt.Errorf("token %q: not the free of a temporary the phase allocated and has not freed", tok)
			}
			freed[i] = true
			out = append(out, convEvent{bytes: out[allocs[i]].bytes, id: i})
		case r == '!':
			return nil, fmt.Errorf("it ran out of memory (cuDNN's fallback is not modelled)")
		default:
			return nil, fmt.Errorf("token %q: want one of %s (once each), +BYTES or -INDEX", tok, strings.Join(strings.Split(roles, ""), ", "))
		}
	}
	if len(seen) != len(roles) {
		return nil, fmt.Errorf("it keeps %q, want one of each of %q", seen, roles)
	}
	for i, j := range allocs {
		if !out[j].kept && !freed[i] {
			return nil, fmt.Errorf("its temporary %d (+%d) is not freed", i, out[j].bytes)
		}
	}
	return out, nil
}

// sameEvents reports whether two recordings of a phase agree, event for
// event (a kept allocation's role aside: the older form does not say it).
func sameEvents(a, b []convEvent) bool {
	return slices.EqualFunc(a, b, func(x, y convEvent) bool {
		return x.alloc == y.alloc && x.bytes == y.bytes && x.id == y.id && x.kept == y.kept
	})
}
