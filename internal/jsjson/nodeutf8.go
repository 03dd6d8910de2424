package jsjson

import "unicode/utf8"

// NodeUTF8 returns b as Node's UTF-8 decoding sees it (fs.readFile(path,
// 'utf-8'), Buffer.toString): each maximal subpart of an ill-formed
// sequence becomes one U+FFFD, as the WHATWG Encoding Standard's UTF-8
// decoder says; valid UTF-8 (a BOM included) is returned as it is. The
// plugin hashes such decoded text (src/utils/spec-hash.ts), so its hash of
// a file that is not valid UTF-8 is the hash of NodeUTF8(file).
func NodeUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			out = append(out, c)
			i++
			continue
		}
		need, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c >= 0xE0 && c <= 0xEF:
			need = 2
			if c == 0xE0 {
				lo = 0xA0
			} else if c == 0xED {
				hi = 0x9F // no surrogates
			}
		case c >= 0xF0 && c <= 0xF4:
			need = 3
			if c == 0xF0 {
				lo = 0x90
			} else if c == 0xF4 {
				hi = 0x8F
			}
		default:
			out = utf8.AppendRune(out, utf8.RuneError)
			i++
			continue
		}
		j := i + 1
		for ; need > 0 && j < len(b) && b[j] >= lo && b[j] <= hi; need-- {
			lo, hi = 0x80, 0xBF
			j++
		}
		if need > 0 {
			// The bytes read so far are one maximal subpart; the byte
			// that broke it starts the next sequence.
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[i:j]...)
		}
		i = j
	}
	return out
}
