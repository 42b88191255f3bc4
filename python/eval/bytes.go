package eval

import (
	"strings"
	"unicode/utf8"
)

// bytes.decode: UTF-8 (with or without its byte-order mark), ASCII and
// Latin-1, strict, replacing or ignoring what does not decode.
func init() {
	method(BytesType, "decode", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		encoding, errors := "utf-8", "strict"
		if err := in.UnpackArgs("decode", args, kw, "encoding?", &encoding, "errors?", &errors); err != nil {
			return nil, err
		}
		return in.decodeBytes(string(self.(Bytes)), encoding, errors)
	})
}

// decodeBytes is b.decode(encoding, errors).
func (in *Interp) decodeBytes(b, encoding, errors string) (Value, error) {
	enc := strings.ReplaceAll(strings.ToLower(encoding), "_", "-")
	switch enc {
	case "utf-8-sig", "utf-8", "utf8":
		if enc == "utf-8-sig" {
			b = strings.TrimPrefix(b, "\ufeff")
		}
		var out strings.Builder
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRuneInString(b[i:])
			if r != utf8.RuneError || n > 1 {
				out.WriteRune(r)
				i += n
				continue
			}
			switch errors {
			case "replace":
				out.WriteRune(utf8.RuneError)
			case "ignore":
			default:
				return nil, in.Raise(UnicodeDecodeErrorType, "'utf-8' codec can't decode byte 0x%02x in position %d: %s", b[i], i, utf8Problem(b[i:]))
			}
			i++
		}
		return out.String(), nil
	case "ascii", "us-ascii", "latin-1", "latin1", "iso-8859-1", "iso8859-1":
		var out strings.Builder
		for i := 0; i < len(b); i++ {
			if b[i] >= 0x80 && strings.Contains(enc, "ascii") {
				switch errors {
				case "replace":
					out.WriteRune(utf8.RuneError)
				case "ignore":
				default:
					return nil, in.Raise(UnicodeDecodeErrorType, "'ascii' codec can't decode byte 0x%02x in position %d: ordinal not in range(128)", b[i], i)
				}
				continue
			}
			out.WriteRune(rune(b[i]))
		}
		return out.String(), nil
	}
	return nil, in.Raise(LookupErrorType, "unknown encoding: %s", encoding)
}

// utf8Problem is CPython's reason a UTF-8 sequence starting at b[0]
// does not decode.
func utf8Problem(b string) string {
	c := b[0]
	need := 0
	switch {
	case c >= 0xc2 && c <= 0xdf:
		need = 2
	case c >= 0xe0 && c <= 0xef:
		need = 3
	case c >= 0xf0 && c <= 0xf4:
		need = 4
	default:
		return "invalid start byte"
	}
	for i := 1; i < need; i++ {
		if i >= len(b) {
			return "unexpected end of data"
		}
		if b[i] < 0x80 || b[i] > 0xbf {
			return "invalid continuation byte"
		}
	}
	return "invalid continuation byte"
}
