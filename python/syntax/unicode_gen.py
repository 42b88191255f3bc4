"""Write unicode.txt.gz, the Unicode data the syntax package takes from
the Python it mimics (python3.11's unicodedata, Unicode 14.0.0):

  N HEX NAME      a character's name, for \\N{NAME} escapes
  R PREFIX LO HI  names PREFIX-XXXX for the code points LO..HI (hex)
  K HEX HEX...    an identifier character and its NFKC form, which the
                  identifier is normalized to, as CPython does

Run: python3 unicode_gen.py (go generate runs it).
"""

import gzip
import sys
import unicodedata

RANGED = ("CJK UNIFIED IDEOGRAPH-", "CJK COMPATIBILITY IDEOGRAPH-",
          "TANGUT IDEOGRAPH-", "KHITAN SMALL SCRIPT CHARACTER-",
          "NUSHU CHARACTER-")


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit("unicode_gen.py: run it with Python 3.11, whose Unicode data we follow")
    lines = []
    ranges = {}
    for cp in range(0x110000):
        ch = chr(cp)
        name = unicodedata.name(ch, "")
        prefix = next((p for p in RANGED if name.startswith(p)), None)
        if prefix:
            runs = ranges.setdefault(prefix, [])
            if runs and runs[-1][1] == cp - 1:
                runs[-1][1] = cp
            else:
                runs.append([cp, cp])
        elif name:
            lines.append("N %X %s" % (cp, name))
        if cp >= 0x80 and ("a" + ch).isidentifier():
            nfkc = unicodedata.normalize("NFKC", ch)
            if nfkc != ch:
                lines.append("K %X %s" % (cp, " ".join("%X" % ord(c) for c in nfkc)))
    for prefix, runs in ranges.items():
        for lo, hi in runs:
            lines.append("R %s %X %X" % (prefix, lo, hi))
    data = ("\n".join(lines) + "\n").encode("ascii")
    with open("unicode.txt.gz", "wb") as f:
        f.write(gzip.compress(data, 9, mtime=0))


if __name__ == "__main__":
    main()
