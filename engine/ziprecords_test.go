package engine

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"testing"
)

// layoutWriter keeps what a zipWriter writes but the records' data,
// which it only counts.
type layoutWriter struct {
	kept map[uint64][]byte // by offset
	at   uint64
	data bool
}

func (l *layoutWriter) Write(b []byte) (int, error) {
	if !l.data {
		l.kept[l.at] = append([]byte(nil), b...)
	}
	l.at += uint64(len(b))
	return len(b), nil
}

// zeros reads as zeros.
type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }

// TestZipLayoutOfPyTorchsBigCheckpoint writes the records of the 6.9 GB
// checkpoint saved on the H200 (testdata/checkpoints/llama3b_h200.json)
// with their recorded sizes: every local header, padding and zip64
// field, every record's place, the central directory and the end
// records are PyTorch's byte for byte (but the records' CRCs, of data
// the tool does not have).
func TestZipLayoutOfPyTorchsBigCheckpoint(t *testing.T) {
	raw, err := os.ReadFile("../testdata/checkpoints/llama3b_h200.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Layout struct {
			Entries []struct {
				Name   string `json:"name"`
				Offset uint64 `json:"offset"`
				Header string `json:"header"`
				Size   int64  `json:"size"`
			} `json:"entries"`
			TailOffset uint64 `json:"tail_offset"`
			Tail       string `json:"tail"`
		} `json:"layout"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	lw := &layoutWriter{kept: map[uint64][]byte{}}
	z := &zipWriter{w: lw}
	for _, e := range rec.Layout.Entries {
		n := e.Size
		z.record(e.Name, n, func(w io.Writer) (uint32, error) {
			lw.data = true
			defer func() { lw.data = false }()
			_, err := io.CopyN(w, zeros{}, n)
			return 0, err
		})
	}
	if err := z.finish(); err != nil {
		t.Fatal(err)
	}
	// the bytes written from an offset up to the next record's data
	joined := func(from uint64) []byte {
		var b []byte
		for at := from; ; {
			k, ok := lw.kept[at]
			if !ok {
				return b
			}
			b = append(b, k...)
			at += uint64(len(k))
		}
	}
	for _, e := range rec.Layout.Entries {
		want, _ := base64.StdEncoding.DecodeString(e.Header)
		got := joined(e.Offset)
		if len(got) < len(want) || string(got[:len(want)]) != string(want) {
			t.Fatalf("%s at %d: local header\n%x\nPyTorch's\n%x", e.Name, e.Offset, got[:min(len(got), len(want))], want)
		}
	}
	want, _ := base64.StdEncoding.DecodeString(rec.Layout.Tail)
	got := joined(rec.Layout.TailOffset)
	if len(got) != len(want) {
		t.Fatalf("the tail is %d bytes, PyTorch's %d", len(got), len(want))
	}
	// the CRCs: the last record's descriptor's, and each central entry's
	copy(got[4:8], want[4:8])
	for i := 0; i+46 <= len(want) && string(want[i:i+4]) != "PK\x06\x06"; i++ {
		if string(want[i:i+4]) == "PK\x01\x02" {
			copy(got[i+16:i+20], want[i+16:i+20])
			i += 45 + int(binary.LittleEndian.Uint16(want[i+28:])) + int(binary.LittleEndian.Uint16(want[i+30:]))
		}
	}
	if string(got) != string(want) {
		t.Errorf("central directory and end records differ from PyTorch's")
	}
}
