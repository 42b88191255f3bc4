package snapshot

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// checkPickle walks a pickle's opcodes before it is decoded and checks
// that every length it declares lies within the file, so that a corrupt
// or hostile file cannot make the decoder allocate more than it holds.
func checkPickle(b []byte) error {
	for i := 0; i < len(b); {
		op := b[i]
		i++
		need, err := argLen(op, b[i:])
		if err != nil {
			return fmt.Errorf("corrupt pickle at byte %d: %w", i-1, err)
		}
		if need > uint64(len(b)-i) {
			return fmt.Errorf("corrupt pickle at byte %d: opcode 0x%02x needs %d bytes, %d are left", i-1, op, need, len(b)-i)
		}
		if op == 0x95 { // FRAME: the frame it announces must fit too
			if l := binary.LittleEndian.Uint64(b[i:]); l > uint64(len(b)-i-8) {
				return fmt.Errorf("corrupt pickle at byte %d: a %d-byte frame, %d bytes are left", i-1, l, len(b)-i-8)
			}
		}
		i += int(need)
		if op == '.' {
			return nil
		}
	}
	return fmt.Errorf("corrupt pickle: it ends before its STOP")
}

// argLen is the size of an opcode's argument, read from the bytes after
// it where it is length-prefixed.
func argLen(op byte, rest []byte) (uint64, error) {
	prefixed := func(n int) (uint64, error) {
		if len(rest) < n {
			return 0, fmt.Errorf("a length runs past the end")
		}
		var l uint64
		switch n {
		case 1:
			l = uint64(rest[0])
		case 4:
			l = uint64(binary.LittleEndian.Uint32(rest))
		case 8:
			l = binary.LittleEndian.Uint64(rest)
		}
		return uint64(n) + l, nil
	}
	lines := func(n int) (uint64, error) {
		var off int
		for range n {
			k := bytes.IndexByte(rest[off:], '\n')
			if k < 0 {
				return 0, fmt.Errorf("a line runs past the end")
			}
			off += k + 1
		}
		return uint64(off), nil
	}
	switch op {
	case '(', '.', '0', '2', 'N', ')', ']', '}', 'a', 'e', 'b', 'l', 't', 'd', 's', 'u', 'R', 'o', '1', 'Q',
		0x85, 0x86, 0x87, 0x88, 0x89, 0x81, 0x92, 0x93, 0x94, 0x8f, 0x90, 0x91, 0x97, 0x98:
		return 0, nil
	case 0x80, 'K', 'h', 'q', 0x82:
		return 1, nil
	case 'M', 0x83:
		return 2, nil
	case 'J', 'j', 'r', 0x84:
		return 4, nil
	case 'G', 0x95: // a float; a frame's length (its opcodes follow)
		return 8, nil
	case 'U', 'C', 0x8c, 0x8a:
		return prefixed(1)
	case 'T', 'B', 'X', 0x8b:
		return prefixed(4)
	case 0x8d, 0x8e, 0x96:
		return prefixed(8)
	case 'I', 'L', 'F', 'S', 'V', 'P', 'g', 'p':
		return lines(1)
	case 'c', 'i':
		return lines(2)
	}
	return 0, fmt.Errorf("unknown opcode 0x%02x", op)
}
