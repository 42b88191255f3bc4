package engine

import (
	"encoding/binary"
	"io"
	"math"
)

// zipWriter writes the zip archive of torch.save as PyTorch's writer
// lays it out (serialization_save.go): each record's local header and
// padding, its data, its data descriptor, then the central directory
// and the zip64 and zip end records. A record or an offset past 4 GiB
// gets zip64 fields (the offset's form is the H200 checkpoint's, in
// testdata/checkpoints; a record of 4 GiB or more was not recorded and
// is written as the zip64 specification orders its fields).
type zipWriter struct {
	w       io.Writer
	at      uint64 // bytes written
	entries []zipEntry
	err     error
}

type zipEntry struct {
	name        string
	offset      uint64
	size        uint64
	crc         uint32
	zip64Offset bool
	zip64Size   bool
}

// alignment is where a record's data starts: a multiple of 64 bytes
// (torch.serialization's storage alignment).
const alignment = 64

const max32 = math.MaxUint32

func (z *zipWriter) write(b []byte) {
	if z.err == nil {
		_, z.err = z.w.Write(b)
		z.at += uint64(len(b))
	}
}

// record writes one record of size bytes, its data written by f.
func (z *zipWriter) record(name string, size int64, f fill) {
	e := zipEntry{name: name, offset: z.at, size: uint64(size)}
	e.zip64Offset, e.zip64Size = e.offset >= max32, e.size >= max32
	var extra []byte
	if e.zip64Offset || e.zip64Size {
		var body []byte
		if e.zip64Size {
			body = binary.LittleEndian.AppendUint64(body, e.size)
			body = binary.LittleEndian.AppendUint64(body, e.size)
		}
		if e.zip64Offset {
			body = binary.LittleEndian.AppendUint64(body, e.offset)
		}
		extra = append(binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(nil, 1), uint16(len(body))), body...)
	}
	start := e.offset + 30 + uint64(len(name)) + uint64(len(extra)) + 4
	pad := (alignment - start%alignment) % alignment
	extra = append(extra, 'F', 'B', byte(pad), byte(pad>>8))
	for range pad {
		extra = append(extra, 'Z')
	}
	h := []byte("PK\x03\x04")
	h = binary.LittleEndian.AppendUint16(h, 0) // version needed
	h = binary.LittleEndian.AppendUint16(h, e.flags())
	h = append(h, make([]byte, 2+2+2+4+4+4)...) // method, time, date, crc, sizes: in the descriptor
	h = binary.LittleEndian.AppendUint16(h, uint16(len(name)))
	h = binary.LittleEndian.AppendUint16(h, uint16(len(extra)))
	z.write(h)
	z.write([]byte(name))
	z.write(extra)
	if z.err == nil {
		cw := &countingWriter{w: z.w}
		e.crc, z.err = f(cw)
		z.at += cw.n
	}
	z.entries = append(z.entries, e)
	if e.size == 0 { // an empty record has no descriptor
		return
	}
	d := binary.LittleEndian.AppendUint32([]byte("PK\x07\x08"), e.crc)
	if e.zip64Offset || e.zip64Size {
		d = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(d, e.size), e.size)
	} else {
		d = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(d, uint32(e.size)), uint32(e.size))
	}
	z.write(d)
}

// flags are a record's: a UTF-8 name, and a data descriptor after its
// data unless it has none.
func (e zipEntry) flags() uint16 {
	if e.size == 0 {
		return 0x0800
	}
	return 0x0808
}

// finish writes the central directory and the end records.
func (z *zipWriter) finish() error {
	cdStart := z.at
	for _, e := range z.entries {
		var body []byte
		size32, off32 := uint32(e.size), uint32(e.offset)
		if e.zip64Size {
			body = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(body, e.size), e.size)
			size32 = max32
		}
		if e.zip64Offset {
			body = binary.LittleEndian.AppendUint64(body, e.offset)
			off32 = max32
		}
		var extra []byte
		if len(body) > 0 {
			extra = append(binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(nil, 1), uint16(len(body))), body...)
		}
		h := []byte("PK\x01\x02")
		h = binary.LittleEndian.AppendUint16(h, 0) // made by
		h = binary.LittleEndian.AppendUint16(h, 0) // needed
		h = binary.LittleEndian.AppendUint16(h, e.flags())
		h = append(h, make([]byte, 6)...) // method, time, date
		h = binary.LittleEndian.AppendUint32(h, e.crc)
		h = binary.LittleEndian.AppendUint32(h, size32)
		h = binary.LittleEndian.AppendUint32(h, size32)
		h = binary.LittleEndian.AppendUint16(h, uint16(len(e.name)))
		h = binary.LittleEndian.AppendUint16(h, uint16(len(extra)))
		h = append(h, make([]byte, 2+2+2+4)...) // comment, disk, attributes
		h = binary.LittleEndian.AppendUint32(h, off32)
		z.write(h)
		z.write([]byte(e.name))
		z.write(extra)
	}
	cdSize, n := z.at-cdStart, uint64(len(z.entries))
	end64 := z.at
	r := []byte("PK\x06\x06")
	r = binary.LittleEndian.AppendUint64(r, 44)
	r = binary.LittleEndian.AppendUint16(r, 0x031e) // made by
	r = binary.LittleEndian.AppendUint16(r, 0x2d)   // needed
	r = append(r, make([]byte, 8)...)               // disks
	r = binary.LittleEndian.AppendUint64(r, n)
	r = binary.LittleEndian.AppendUint64(r, n)
	r = binary.LittleEndian.AppendUint64(r, cdSize)
	r = binary.LittleEndian.AppendUint64(r, cdStart)
	r = append(r, "PK\x06\x07"...)
	r = binary.LittleEndian.AppendUint32(r, 0)
	r = binary.LittleEndian.AppendUint64(r, end64)
	r = binary.LittleEndian.AppendUint32(r, 1)
	r = append(r, "PK\x05\x06"...)
	r = append(r, make([]byte, 4)...)
	r = binary.LittleEndian.AppendUint16(r, uint16(min(n, 0xffff)))
	r = binary.LittleEndian.AppendUint16(r, uint16(min(n, 0xffff)))
	r = binary.LittleEndian.AppendUint32(r, uint32(min(cdSize, max32)))
	r = binary.LittleEndian.AppendUint32(r, uint32(min(cdStart, max32)))
	r = binary.LittleEndian.AppendUint16(r, 0)
	z.write(r)
	return z.err
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n uint64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += uint64(n)
	return n, err
}
