package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The pickle reader is ours: no maintained Go library streams pickle. It
// runs a pickle's opcodes (the set CPython's pickletools documents, for
// protocols 0-5) as a stream, on a stack of unboxed slots, and builds
// only plain data: a class, a call or a persistent reference is refused
// by name before anything could run. The events of device_traces are
// built straight into Events (see roles.go), never as dicts. Every
// declared length is checked against what the file holds before it is
// read, and the stack, the values built and the integers are bounded
// (Limits).

// Limits bound the work a snapshot file may ask for.
type Limits struct {
	// MaxBytes is the most bytes read, after inflating a gzipped file.
	MaxBytes int64
	// MaxValues is the most values (events, and the items of the data
	// kept whole) a pickle may build.
	MaxValues int
}

// DefaultLimits are enough for a 10,000,000-event history.
var DefaultLimits = Limits{MaxBytes: 4 << 30, MaxValues: 100_000_000}

// maxStack bounds the pickle's stack: a snapshot's deepest batch is the
// events of one device (PyTorch's pickler batches by 1000; a writer that
// does not may put a whole history there).
const maxStack = 1 << 22

// maxIntBytes bounds an integer's length: 128 bits.
const maxIntBytes = 16

// maxLine bounds the text argument of a protocol 0 opcode (a number).
const maxLine = 64

// slotKind is what a stack slot holds.
type slotKind uint8

const (
	kObj      slotKind = iota // v
	kInt                      // n, an int64
	kFloat                    // n, a float64's bits
	kEventRef                 // an event already built: v its *eventList, n its index
)

// slot is one stack or memo entry: numbers unboxed, so that the events'
// numbers cost no allocation.
type slot struct {
	v any
	n uint64
	k slotKind
	f fieldKey // for a string from the memo, the event field it names
}

// boxed is the slot as a plain value (small enough to inline for an
// object, which is its own value).
func (s slot) boxed() any {
	if s.k == kObj {
		return s.v
	}
	return s.unboxed()
}

// unboxed is boxed for a number or an event already built.
func (s slot) unboxed() any {
	switch s.k {
	case kInt:
		return int64(s.n)
	case kFloat:
		return math.Float64frombits(s.n)
	case kEventRef:
		l := s.v.(*eventList)
		return l.tables.event(l.at(s.n)).asDict()
	}
	return s.v
}

// unpickler is the state of one pickle being read.
type unpickler struct {
	in     *input
	stack  []slot
	marks  []int // stack heights at each MARK
	memo   memo
	at     int64 // the offset of the opcode being run
	limits Limits
	values int // values built, against limits.MaxValues

	top      *dict      // the snapshot dict (the first dict made on an empty stack)
	traces   *traceList // its device_traces, once attached
	builders []*eventBuilder
	problems []Problem
	tables   *eventTables // what the events read refer to (the last of its extras is shared by the next event if equal)
	stacks   stackTable
	pending  []memoEntry // the items of an event dict being read (eventItems)
	// lastFields are the other fields of the last event set from
	// eventItems that had any, and lastStrings their keys and values.
	lastFields  *fields
	lastStrings []string
	// objects, when set, are the classes, calls and persistent
	// references read beyond plain data (ReadObjects); nil for a snapshot.
	objects *objectRules
}

// pickleError is an error at a pickle offset.
type pickleError struct {
	at  int64
	msg string
}

func (e *pickleError) Error() string { return fmt.Sprintf("pickle offset %d: %s", e.at, e.msg) }

func (u *unpickler) fail(format string, a ...any) error {
	return &pickleError{u.at, fmt.Sprintf(format, a...)}
}

// readError names where a read failed.
func (u *unpickler) readError(err error) error {
	switch {
	case errors.Is(err, errTooLarge):
		return &pickleError{u.at, fmt.Sprintf("the file is larger than %d bytes (the limit)", u.limits.MaxBytes)}
	case err == io.ErrUnexpectedEOF:
		return &pickleError{u.at, "the pickle ends before its STOP (truncated?)"}
	}
	return &pickleError{u.at, err.Error()}
}

// unpickle runs the pickle in in to its STOP and returns the value left.
func unpickle(in *input, limits Limits) (any, *unpickler, error) {
	u := &unpickler{in: in, limits: limits, tables: newEventTables()}
	v, err := u.run()
	return v, u, err
}

func (u *unpickler) push(s slot) error {
	if len(u.stack) >= maxStack {
		return u.fail("the stack holds more than %d values", maxStack)
	}
	u.stack = appendDoubling(u.stack, s)
	return nil
}

func (u *unpickler) pushObj(v any) error { return u.push(slot{v: v}) }

func (u *unpickler) pop() (slot, error) {
	n := len(u.stack)
	if n == 0 || (len(u.marks) > 0 && u.marks[len(u.marks)-1] == n) {
		return slot{}, u.fail("pops an empty stack")
	}
	s := u.stack[n-1]
	u.stack = u.stack[:n-1]
	return s, nil
}

// popMark takes the items above the last mark (valid until the next
// push) and the mark.
func (u *unpickler) popMark() ([]slot, error) {
	if len(u.marks) == 0 {
		return nil, u.fail("no MARK to take items from")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := u.stack[m:]
	u.stack = u.stack[:m]
	return items, nil
}

// count counts n values built.
func (u *unpickler) count(n int) error {
	if u.values += n; u.values > u.limits.MaxValues {
		return u.fail("builds more than %d values (the limit)", u.limits.MaxValues)
	}
	return nil
}

func (u *unpickler) run() (any, error) {
	in := u.in
	for {
		u.at = in.pos()
		op, err := in.byte()
		if err != nil {
			return nil, u.readError(err)
		}
		if err := u.step(op); err != nil {
			if err == errStop {
				s, err := u.pop()
				if err != nil {
					return nil, err
				}
				return s.boxed(), nil
			}
			return nil, err
		}
	}
}

// errStop is the STOP opcode.
var errStop = errors.New("stop")

// arg reads an opcode's fixed-size argument.
func (u *unpickler) arg(n uint64) ([]byte, error) {
	b, err := u.in.take(n)
	if err != nil {
		if _, ok := err.(*pickleError); !ok && !errors.Is(err, errTooLarge) && err != io.ErrUnexpectedEOF {
			return nil, u.fail("%v", err)
		}
		return nil, u.readError(err)
	}
	return b, nil
}

// counted reads a length of n bytes and the bytes it counts.
func (u *unpickler) counted(n uint64) ([]byte, error) {
	b, err := u.arg(n)
	if err != nil {
		return nil, err
	}
	var l uint64
	switch n {
	case 1:
		l = uint64(b[0])
	case 4:
		l = uint64(binary.LittleEndian.Uint32(b))
	default:
		l = binary.LittleEndian.Uint64(b)
	}
	return u.arg(l)
}

// line reads a protocol 0 argument: text up to a newline, short.
func (u *unpickler) line() (string, error) {
	var b []byte
	for {
		c, err := u.in.byte()
		if err != nil {
			return "", u.readError(err)
		}
		if c == '\n' {
			return string(b), nil
		}
		if len(b) == maxLine {
			return "", u.fail("a text argument longer than %d bytes (%q...)", maxLine, b[:16])
		}
		b = append(b, c)
	}
}

// step runs one opcode.
func (u *unpickler) step(op byte) error {
	switch op {
	case 'h', 'j', 'g', 0x94, 'q', 'r', 'p':
		return u.memoOp(op)
	case 0x8c, 'X', 0x8d, 'U', 'T', 'C', 'B', 0x8e, 0x96:
		return u.textOp(op)
	case 'K', 'M', 'J', 0x8a, 0x8b, 'I', 'L', 'G', 'F', 'N', 0x88, 0x89:
		return u.numberOp(op)
	case '(', '}', ']', ')', 'd', 'l', 't', 0x85, 0x86, 0x87, 'a', 'e', 's', 'u', '0', '1', '2':
		return u.stackOp(op)
	}
	return u.controlOp(op)
}

// memoOp runs an opcode of the memo: GET and PUT in their forms, MEMOIZE.
func (u *unpickler) memoOp(op byte) error {
	switch op {
	case 'h': // BINGET
		b, err := u.arg(1)
		if err != nil {
			return err
		}
		return u.get(uint64(b[0]))
	case 'j': // LONG_BINGET
		b, err := u.arg(4)
		if err != nil {
			return err
		}
		return u.get(uint64(binary.LittleEndian.Uint32(b)))
	case 'g': // GET
		n, err := u.lineInt()
		if err != nil {
			return err
		}
		return u.get(uint64(n))
	case 0x94: // MEMOIZE
		return u.put(u.memo.len())
	case 'q': // BINPUT
		b, err := u.arg(1)
		if err != nil {
			return err
		}
		return u.put(uint64(b[0]))
	case 'r': // LONG_BINPUT
		b, err := u.arg(4)
		if err != nil {
			return err
		}
		return u.put(uint64(binary.LittleEndian.Uint32(b)))
	case 'p': // PUT
		n, err := u.lineInt()
		if err != nil {
			return err
		}
		return u.put(uint64(n))
	}
	return u.unknownOp(op)
}

// textOp runs an opcode that pushes a str or bytes.
func (u *unpickler) textOp(op byte) error {
	switch op {
	case 0x8c: // SHORT_BINUNICODE
		return u.str(1)
	case 'X': // BINUNICODE
		return u.str(4)
	case 0x8d: // BINUNICODE8
		return u.str(8)
	case 'U': // SHORT_BINSTRING
		return u.str(1)
	case 'T': // BINSTRING
		return u.str(4)
	case 'C': // SHORT_BINBYTES
		return u.bytes(1)
	case 'B': // BINBYTES
		return u.bytes(4)
	case 0x8e, 0x96: // BINBYTES8, BYTEARRAY8
		return u.bytes(8)
	}
	return u.unknownOp(op)
}

// numberOp runs an opcode that pushes a number, None or a boolean.
func (u *unpickler) numberOp(op byte) error {
	switch op {
	case 'K': // BININT1
		b, err := u.arg(1)
		if err != nil {
			return err
		}
		return u.push(slot{n: uint64(b[0]), k: kInt})
	case 'M': // BININT2
		b, err := u.arg(2)
		if err != nil {
			return err
		}
		return u.push(slot{n: uint64(binary.LittleEndian.Uint16(b)), k: kInt})
	case 'J': // BININT
		b, err := u.arg(4)
		if err != nil {
			return err
		}
		return u.push(slot{n: uint64(int64(int32(binary.LittleEndian.Uint32(b)))), k: kInt})
	case 0x8a: // LONG1
		b, err := u.arg(1)
		if err != nil {
			return err
		}
		return u.long(uint64(b[0]))
	case 0x8b: // LONG4
		b, err := u.arg(4)
		if err != nil {
			return err
		}
		return u.long(uint64(binary.LittleEndian.Uint32(b)))
	case 'I': // INT (also 00 and 01: False and True)
		return u.textInt()
	case 'L': // LONG
		return u.textInt()
	case 'G': // BINFLOAT
		b, err := u.arg(8)
		if err != nil {
			return err
		}
		return u.push(slot{n: binary.BigEndian.Uint64(b), k: kFloat})
	case 'F': // FLOAT
		s, err := u.line()
		if err != nil {
			return err
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return u.fail("FLOAT %q is not a number", s)
		}
		return u.push(slot{n: math.Float64bits(f), k: kFloat})
	case 'N': // NONE
		return u.pushObj(nil)
	case 0x88: // NEWTRUE
		return u.pushObj(true)
	case 0x89: // NEWFALSE
		return u.pushObj(false)
	}
	return u.unknownOp(op)
}

// stackOp runs an opcode that builds a container on the stack, or
// moves the stack: MARK, the empty containers, TUPLE, APPEND, SETITEM
// and their kin, POP and DUP.
func (u *unpickler) stackOp(op byte) error {
	switch op {
	case '(': // MARK
		u.marks = append(u.marks, len(u.stack))
		if n := len(u.stack); n > 0 {
			if b, ok := u.stack[n-1].v.(*eventBuilder); ok {
				return u.eventItems(b)
			}
		}
		return nil
	case '}': // EMPTY_DICT
		return u.pushObj(u.newDict())
	case ']': // EMPTY_LIST
		return u.pushObj(u.newList())
	case ')': // EMPTY_TUPLE
		return u.pushObj(tuple{})
	case 'd': // DICT
		return u.markDict()
	case 'l': // LIST
		return u.markList()
	case 't': // TUPLE
		items, err := u.popMark()
		if err != nil {
			return err
		}
		return u.tuple(items)
	case 0x85, 0x86, 0x87: // TUPLE1, TUPLE2, TUPLE3
		n := int(op - 0x84)
		if len(u.stack) < n || (len(u.marks) > 0 && u.marks[len(u.marks)-1] > len(u.stack)-n) {
			return u.fail("TUPLE%d with fewer than %d items", n, n)
		}
		items := u.stack[len(u.stack)-n:]
		u.stack = u.stack[:len(u.stack)-n]
		return u.tuple(items)
	case 'a': // APPEND
		v, err := u.pop()
		if err != nil {
			return err
		}
		return u.appendTo(u.target(), []slot{v})
	case 'e': // APPENDS
		items, err := u.popMark()
		if err != nil {
			return err
		}
		return u.appendTo(u.target(), items)
	case 's': // SETITEM
		if len(u.stack) < 3 || (len(u.marks) > 0 && u.marks[len(u.marks)-1] > len(u.stack)-2) {
			return u.fail("SETITEM without a dict, a key and a value")
		}
		kv := u.stack[len(u.stack)-2:]
		u.stack = u.stack[:len(u.stack)-2]
		return u.setItems(kv)
	case 'u': // SETITEMS
		items, err := u.popMark()
		if err != nil {
			return err
		}
		return u.setItems(items)
	case '0': // POP
		_, err := u.pop()
		return err
	case '1': // POP_MARK
		_, err := u.popMark()
		return err
	case '2': // DUP
		if len(u.stack) == 0 {
			return u.fail("DUP of an empty stack")
		}
		top := u.stack[len(u.stack)-1]
		if b, ok := top.v.(*eventBuilder); ok {
			b.refs++
		}
		return u.push(top)
	}
	return u.unknownOp(op)
}

// controlOp runs the opcodes of the stream itself (PROTO, FRAME, STOP),
// and refuses those that call, build or import objects, sets, and
// protocol 0 text.
func (u *unpickler) controlOp(op byte) error {
	switch op {
	case 0x80: // PROTO
		b, err := u.arg(1)
		if err != nil {
			return err
		}
		if b[0] > 5 {
			return u.fail("pickle protocol %d (5 is the newest)", b[0])
		}
		return nil
	case 0x95: // FRAME: a length, then the opcodes it frames
		_, err := u.arg(8)
		return err
	case '.': // STOP
		return errStop
	case 'c', 0x93: // GLOBAL, STACK_GLOBAL
		if u.objects != nil {
			return u.global(op)
		}
		return u.refuseClass(op)
	case 'R', 'b', 'Q': // REDUCE, BUILD, BINPERSID
		if u.objects != nil {
			return u.objectOp(op)
		}
		return u.fail("refused: the pickle calls or builds an object (opcode %s); only plain data (dicts, lists, tuples, strings, numbers, None, booleans) is read", opName(op))
	case 'i', 'o', 0x81, 0x92, 'P', 0x82, 0x83, 0x84, 0x97, 0x98:
		return u.fail("refused: the pickle calls or builds an object (opcode %s); only plain data (dicts, lists, tuples, strings, numbers, None, booleans) is read", opName(op))
	case 0x8f, 0x90, 0x91: // EMPTY_SET, ADDITEMS, FROZENSET
		return u.fail("refused: the pickle holds a set; a snapshot has none")
	case 'S', 'V': // STRING, UNICODE: quoted text
		return u.fail("a protocol 0 text string (opcode %s); snapshots are written in protocol 2 or later", opName(op))
	}
	return u.unknownOp(op)
}

// unknownOp is the error for a byte that is no opcode.
func (u *unpickler) unknownOp(op byte) error {
	return u.fail("unknown opcode 0x%02x (not a pickle, or a damaged one)", op)
}

// opName names the opcodes that are refused.
func opName(op byte) string {
	names := map[byte]string{'R': "REDUCE", 'b': "BUILD", 'i': "INST", 'o': "OBJ", 0x81: "NEWOBJ", 0x92: "NEWOBJ_EX",
		'P': "PERSID", 'Q': "BINPERSID", 0x82: "EXT1", 0x83: "EXT2", 0x84: "EXT4", 0x97: "NEXT_BUFFER", 0x98: "READONLY_BUFFER",
		'S': "STRING", 'V': "UNICODE"}
	return names[op]
}

// refuseClass names the class a GLOBAL or STACK_GLOBAL would import.
func (u *unpickler) refuseClass(op byte) error {
	var module, name string
	if op == 'c' {
		var err error
		if module, err = u.line(); err != nil {
			return err
		}
		if name, err = u.line(); err != nil {
			return err
		}
	} else if n := len(u.stack); n >= 2 {
		module, _ = u.stack[n-2].v.(string)
		name, _ = u.stack[n-1].v.(string)
	}
	return u.fail("refused: the pickle names %s.%s, and only plain data (dicts, lists, tuples, strings, numbers, None, booleans) is read", excerpt(module), excerpt(name))
}

// excerpt is at most 40 bytes of s, for a message.
func excerpt(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func (u *unpickler) str(n uint64) error {
	b, err := u.counted(n)
	if err != nil {
		return err
	}
	return u.pushObj(string(b))
}

func (u *unpickler) bytes(n uint64) error {
	b, err := u.counted(n)
	if err != nil {
		return err
	}
	return u.pushObj(pyBytes(append([]byte(nil), b...)))
}

// long pushes an integer of n little-endian two's complement bytes.
func (u *unpickler) long(n uint64) error {
	if n > maxIntBytes {
		return u.fail("an integer of %d bytes (more than %d)", n, maxIntBytes)
	}
	b, err := u.arg(n)
	if err != nil {
		return err
	}
	if v, ok := int64Of(b); ok {
		return u.push(slot{n: v, k: kInt})
	}
	return u.pushObj(&bigInt{le: append([]byte(nil), b...)})
}

// int64Of is a little-endian two's complement integer's value; false
// when it takes more than 64 bits.
func int64Of(b []byte) (uint64, bool) {
	n := len(b)
	neg := n > 0 && b[n-1]&0x80 != 0
	if fits := n <= 8 || (n == 9 && b[8] == 0 && b[7]&0x80 == 0) || (n == 9 && b[8] == 0xff && b[7]&0x80 != 0); !fits {
		return 0, false
	}
	var v uint64
	for i := min(n, 8) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	if neg && n < 8 {
		v |= ^uint64(0) << (8 * n)
	}
	return v, true
}

// textInt pushes INT or LONG's decimal argument (01 and 00 are True
// and False).
func (u *unpickler) textInt() error {
	s, err := u.line()
	if err != nil {
		return err
	}
	switch s {
	case "01":
		return u.pushObj(true)
	case "00":
		return u.pushObj(false)
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(s, "L"), 10, 64)
	if err != nil {
		return u.fail("integer %q is not a 64-bit integer", excerpt(s))
	}
	return u.push(slot{n: uint64(n), k: kInt})
}

// lineInt reads GET and PUT's decimal memo index.
func (u *unpickler) lineInt() (int64, error) {
	s, err := u.line()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return 0, u.fail("memo index %q", excerpt(s))
	}
	return n, nil
}

// get pushes memo entry i.
func (u *unpickler) get(i uint64) error {
	s, ok := u.memo.at(i)
	if !ok {
		return u.fail("memo entry %d was never put", i)
	}
	if b, ok := s.v.(*eventBuilder); ok {
		b.refs++
	}
	return u.push(s)
}

// put stores the top of the stack as memo entry i.
func (u *unpickler) put(i uint64) error {
	if len(u.stack) == 0 {
		return u.fail("memoizes an empty stack")
	}
	return u.memoize(i, u.stack[len(u.stack)-1])
}

// memoize stores s as memo entry i.
func (u *unpickler) memoize(i uint64, s slot) error {
	if b, ok := s.v.(*eventBuilder); ok {
		b.refs++
		b.memo = int64(i)
	}
	if i <= u.memo.len() {
		u.memo.set(i, s)
		return nil
	}
	if !u.memo.setFar(i, s, u.limits.MaxValues) {
		return u.fail("more than %d memo entries", u.limits.MaxValues)
	}
	return nil
}

func (u *unpickler) tuple(items []slot) error {
	if err := u.count(len(items)); err != nil {
		return err
	}
	t := make(tuple, len(items))
	for i, s := range items {
		v, err := u.plain(s)
		if err != nil {
			return err
		}
		t[i] = v
	}
	return u.pushObj(t)
}

// markDict is DICT: a dict of the items above the mark.
func (u *unpickler) markDict() error {
	items, err := u.popMark()
	if err != nil {
		return err
	}
	items = append([]slot(nil), items...) // the new dict is pushed over them
	if err := u.pushObj(u.newDict()); err != nil {
		return err
	}
	return u.setItems(items)
}

// markList is LIST: a list of the items above the mark.
func (u *unpickler) markList() error {
	items, err := u.popMark()
	if err != nil {
		return err
	}
	items = append([]slot(nil), items...)
	if err := u.pushObj(u.newList()); err != nil {
		return err
	}
	return u.appendTo(u.stack[len(u.stack)-1:], items)
}

// plain is a slot as a value kept whole: a built event or a trace list
// has no place there.
func (u *unpickler) plain(s slot) (any, error) {
	switch s.v.(type) {
	case *eventBuilder, *eventList, *traceList:
		return nil, u.fail("a device trace or one of its events stands outside device_traces")
	}
	if s.k == kEventRef {
		return nil, u.fail("an event of device_traces is used again elsewhere")
	}
	return s.boxed(), nil
}

// target is the top of the stack as a one-slot slice, or none when the
// stack is empty above the last mark: what APPEND and SETITEMS add to.
func (u *unpickler) target() []slot {
	n := len(u.stack)
	if n == 0 || (len(u.marks) > 0 && u.marks[len(u.marks)-1] == n) {
		return nil
	}
	return u.stack[n-1:]
}

// appendTo appends items to the list in target[0].
func (u *unpickler) appendTo(target []slot, items []slot) error {
	if len(target) == 0 {
		return u.fail("APPEND without a list")
	}
	switch l := target[0].v.(type) {
	case *list:
		if err := u.count(len(items)); err != nil {
			return err
		}
		l.items = slices.Grow(l.items, len(items))
		for _, s := range items {
			v, err := u.plain(s)
			if err != nil {
				return err
			}
			l.items = append(l.items, v)
		}
		return nil
	case *traceList:
		for _, s := range items {
			if err := u.addTrace(l, s); err != nil {
				return err
			}
		}
		return nil
	case *eventList:
		for _, s := range items {
			if err := u.addEvent(l, s); err != nil {
				return err
			}
		}
		return nil
	}
	return u.fail("APPEND to a %s, not a list", typeName(target[0]))
}

// setItems sets key-value pairs in the dict below them.
func (u *unpickler) setItems(kv []slot) error {
	if len(kv)%2 != 0 {
		return u.fail("SETITEMS with a key and no value")
	}
	target := u.target()
	if len(target) == 0 {
		return u.fail("SETITEMS without a dict")
	}
	switch d := target[0].v.(type) {
	case *dict:
		if err := u.count(len(kv) / 2); err != nil {
			return err
		}
		for i := 0; i < len(kv); i += 2 {
			k, err := u.key(kv[i])
			if err != nil {
				return err
			}
			if d == u.top && k == "device_traces" {
				if tl, ok := kv[i+1].v.(*traceList); ok {
					u.traces = tl
					d.set("device_traces", tl)
					continue
				}
			}
			v, err := u.plain(kv[i+1])
			if err != nil {
				return err
			}
			d.items = append(d.items, item{k, v})
		}
		return nil
	case *eventBuilder:
		for i := 0; i < len(kv); i += 2 {
			k, err := u.key(kv[i])
			if err != nil {
				return err
			}
			if err := u.setField(d, k, kv[i].f, kv[i+1]); err != nil {
				return err
			}
		}
		return nil
	}
	return u.fail("SETITEMS on a %s, not a dict", typeName(target[0]))
}

// key is a dict key: a string, a number, None, a boolean or a tuple of
// them (hashable plain data).
func (u *unpickler) key(s slot) (any, error) {
	if _, ok := s.v.(string); ok && s.k == kObj {
		return s.v, nil
	}
	switch s.v.(type) {
	case *list, *dict, *eventBuilder, *eventList, *traceList:
		return nil, u.fail("a dict key is a %s (unhashable)", typeName(s))
	}
	return u.plain(s)
}

// typeName names what a slot holds, for a message.
func typeName(s slot) string {
	switch s.k {
	case kInt:
		return "int"
	case kFloat:
		return "float"
	case kEventRef:
		return "dict"
	}
	switch s.v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case string:
		return "str"
	case pyBytes:
		return "bytes"
	case *bigInt:
		return "int"
	case *list, *eventList, *traceList:
		return "list"
	case *dict, *eventBuilder:
		return "dict"
	case tuple:
		return "tuple"
	case Global:
		return "class"
	case *call, *persistent:
		return "object"
	}
	return fmt.Sprintf("%T", s.v)
}
