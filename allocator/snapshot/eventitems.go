package snapshot

import "encoding/binary"

// An event dict's items, after its MARK up to its SETITEMS, are read off
// the input buffer without the opcode loop: first as the event a
// PyTorch snapshot holds (eventFields), else as scalars to set
// (eventItems); anything else falls back to the opcodes, one at a time.

// maxSharedFields bounds the other fields an event read by eventFields
// may have.
const maxSharedFields = 8

// eventFields reads an event dict's items as PyTorch writes them, each
// key a BINGET of a string (the memo's first 256 entries hold them) and
// its value a number or a memo entry: the modelled fields of their kind
// (an integer, the action a string) straight into its record, the others
// strings (compile_context, user_metadata), matched as they are read
// against the last event's read here, whose fields it shares when they
// are the same. It changes nothing and reports false at anything else
// (another opcode, FRAME, a field of another kind, an event with fields
// set before, the buffer's end): the items are then read as the opcodes
// would have them, from the same place.
func (u *unpickler) eventFields(ev *eventBuilder) bool {
	if len(ev.extra) > 0 || ev.fields != nil || len(u.memo.entries.chunks) == 0 {
		return false
	}
	in := u.in
	buf, at := in.buf[:in.n], in.i // the buffer, and the next opcode's place in it
	room := maxStack - len(u.stack)
	first, objs, last := u.memo.entries.chunks[0], u.memo.objs, u.lastStrings
	r, action := ev.rec, ev.action
	// the other fields' keys and values, by memo object; whether they
	// match the last event's, and how many
	var other [2 * maxSharedFields]uint32
	same, n := true, 0
	for items := 2; items < room && len(buf)-at >= 12; items += 2 { // a BINGET and the longest value, LONG1 of 8 bytes
		b := buf[at : at+12]
		if b[0] == 'u' { // SETITEMS
			in.i = at
			u.at = in.pos()
			in.i++
			u.marks = u.marks[:len(u.marks)-1] // the event's MARK; nothing is above it
			ev.rec, ev.action = r, action
			if n > 0 {
				u.shareFields(ev, other[:2*n], same && 2*n == len(last))
			}
			return true
		}
		if b[0] != 'h' || int(b[1]) >= len(first) { // a key: BINGET
			return false
		}
		key := &first[b[1]]
		var v memoEntry
		switch b[2] {
		case 'h': // BINGET
			k := uint64(b[3])
			if k >= uint64(u.memo.entries.n) {
				return false
			}
			v = *u.memo.entries.at(k)
			at += 4
		case 'K': // BININT1
			v = memoEntry{n: uint64(b[3]), k: kInt}
			at += 4
		case 0x8a: // LONG1
			w := int(b[3])
			if w > 8 {
				return false
			}
			// Its w bytes are the low ones of the 8 after the length (the
			// view holds them), sign-extended.
			shift := uint(64 - 8*w)
			v = memoEntry{n: uint64(int64(binary.LittleEndian.Uint64(b[4:12])<<shift) >> shift), k: kInt}
			at += 4 + w
		case 'J': // BININT
			v = memoEntry{n: uint64(int64(int32(binary.LittleEndian.Uint32(b[3:7])))), k: kInt}
			at += 7
		case 'M': // BININT2
			v = memoEntry{n: uint64(binary.LittleEndian.Uint16(b[3:5])), k: kInt}
			at += 5
		default:
			return false
		}
		switch key.field {
		case fieldAddr, fieldSize, fieldStream:
			if v.k != kInt || int64(v.n) < 0 {
				return false
			}
			switch key.field {
			case fieldAddr:
				r.addr = v.n
			case fieldSize:
				r.size = v.n
			default:
				r.stream = v.n
			}
			r.missing &^= fieldBit[key.field]
		case fieldTime:
			if v.k != kInt {
				return false
			}
			r.time, r.missing = int64(v.n), r.missing&^hasTime
		case fieldAction:
			if v.k != kObj {
				return false
			}
			a, ok := objs[v.ref].(string)
			if !ok {
				return false
			}
			action, r.missing = a, r.missing&^hasAction
		case fieldOther:
			if v.k != kObj || n == maxSharedFields {
				return false
			}
			s, ok := objs[v.ref].(string)
			if !ok {
				return false
			}
			same = same && 2*n+1 < len(last) && last[2*n] == objs[key.ref].(string) && last[2*n+1] == s
			other[2*n], other[2*n+1] = key.ref, v.ref
			n++
		default:
			return false
		}
	}
	return false
}

// shareFields gives an event the other fields read by eventFields (keys
// and values, by memo object): the last event's when they are the same,
// else its own, which the next events share.
func (u *unpickler) shareFields(ev *eventBuilder, other []uint32, same bool) {
	if !same {
		objs := u.memo.objs
		f := &fields{items: make([]item, 0, len(other)/2)}
		last := u.lastStrings[:0]
		for k := 0; k < len(other); k += 2 {
			key, v := objs[other[k]], objs[other[k+1]]
			f.items = append(f.items, item{key, v})
			last = append(last, key.(string), v.(string))
		}
		u.lastFields, u.lastStrings = f, last
	}
	ev.fields = u.lastFields
}

// eventItems runs the opcodes after an event dict's MARK up to its
// SETITEMS while each pushes a number or a memo entry that is a scalar
// (a number, a string, None, a boolean), or is FRAME, with its argument
// in the buffer: the items go to a short list of their own, as memo
// entries (no pointers to write), rather than the stack, and SETITEMS
// sets them, as the opcodes would. At any other opcode (a new string,
// MEMOIZE, a container, another MARK, the buffer's last bytes) the items
// go on the stack where the opcodes would have put them, and the opcodes
// go on from there: the file reads the same either way, its errors and
// their offsets too. The event PyTorch writes is read by eventFields.
func (u *unpickler) eventItems(ev *eventBuilder) error {
	if u.eventFields(ev) {
		return nil
	}
	in := u.in
	buf, at := in.buf[:in.n], in.i
	room := maxStack - len(u.stack)
	items := u.pending[:0]
loop:
	for len(items) < room && len(buf)-at >= 10 {
		b := buf[at:]
		var e memoEntry
		var width int
		switch b[0] {
		case 'h': // BINGET
			var ok bool
			if e, ok = u.memo.scalar(uint64(b[1])); !ok {
				break loop
			}
			width = 2
		case 'K': // BININT1
			e, width = memoEntry{n: uint64(b[1]), k: kInt}, 2
		case 0x8a: // LONG1
			n := int(b[1])
			if n > 8 {
				break loop
			}
			shift := uint(64 - 8*n)
			e, width = memoEntry{n: uint64(int64(binary.LittleEndian.Uint64(b[2:10])<<shift) >> shift), k: kInt}, 2+n
		case 'J': // BININT
			e, width = memoEntry{n: uint64(int64(int32(binary.LittleEndian.Uint32(b[1:])))), k: kInt}, 5
		case 'u': // SETITEMS
			in.i = at
			u.at = in.pos()
			in.i++
			u.pending = items
			if _, err := u.popMark(); err != nil {
				return err
			}
			return u.setEventItems(ev, items)
		case 'j': // LONG_BINGET
			var ok bool
			if e, ok = u.memo.scalar(uint64(binary.LittleEndian.Uint32(b[1:]))); !ok {
				break loop
			}
			width = 5
		case 'M': // BININT2
			e, width = memoEntry{n: uint64(binary.LittleEndian.Uint16(b[1:])), k: kInt}, 3
		case 0x95: // FRAME
			at += 9
			continue
		default:
			break loop
		}
		items = append(items, e)
		at += width
	}
	in.i = at
	u.pending = items
	for _, e := range items {
		u.stack = append(u.stack, u.memo.slotOf(e))
	}
	return nil
}

// setEventItems sets an event's items, read by eventItems, as setItems
// would. Scalars are never refused.
func (u *unpickler) setEventItems(ev *eventBuilder, items []memoEntry) error {
	if len(items)%2 != 0 {
		kv := make([]slot, len(items))
		for i, e := range items {
			kv[i] = u.memo.slotOf(e)
		}
		return u.setItems(kv) // its error
	}
	for k := 0; k < len(items); k += 2 {
		key := u.memo.slotOf(items[k])
		u.setField(ev, key.boxed(), key.f, u.memo.slotOf(items[k+1])) //nolint:errcheck // a scalar is never refused
	}
	return nil
}
