package sast

import (
	"encoding/binary"
	"unicode/utf8"
)

// The plugin reads every file with Node's fs.readFileSync(file, 'utf-8') and
// works on the resulting JavaScript string: rules match UTF-16 code units,
// columns count them, and fingerprints hash the string's UTF-8 encoding. The
// helpers here reproduce that view from raw bytes.

// jsText returns content as Node decodes it: valid UTF-8 is kept as is, and
// every maximal ill-formed subsequence becomes one U+FFFD (the WHATWG
// Encoding Standard's UTF-8 decoder, which Node follows). A byte order mark
// is kept: Node's Buffer.toString does not strip it.
func jsText(content []byte) string {
	if utf8.Valid(content) {
		return string(content)
	}
	out := make([]byte, 0, len(content)+16)
	for i := 0; i < len(content); {
		if c := content[i]; c < 0x80 {
			out = append(out, c)
			i++
			continue
		}
		if r, w := utf8.DecodeRune(content[i:]); r != utf8.RuneError || w > 1 {
			out = append(out, content[i:i+w]...)
			i += w
			continue
		}
		out = utf8.AppendRune(out, utf8.RuneError)
		i += IllFormedPrefix(content[i:])
	}
	return string(out)
}

// IllFormedPrefix is the length in bytes of the maximal ill-formed subpart
// at the start of b, which must not start with a well-formed character:
// what the WHATWG UTF-8 decoder (Node's, the browser's) turns into one
// U+FFFD. It is at least 1 for a non-empty b.
func IllFormedPrefix[T string | []byte](b T) int {
	if len(b) == 0 {
		return 0
	}
	c := b[0]
	need, lo, hi := 0, byte(0x80), byte(0xbf)
	switch {
	case c >= 0xc2 && c <= 0xdf:
		need = 1
	case c >= 0xe0 && c <= 0xef:
		need = 2
		if c == 0xe0 {
			lo = 0xa0
		} else if c == 0xed {
			hi = 0x9f
		}
	case c >= 0xf0 && c <= 0xf4:
		need = 3
		if c == 0xf0 {
			lo = 0x90
		} else if c == 0xf4 {
			hi = 0x8f
		}
	}
	j := 1
	for k := 0; k < need && j < len(b) && b[j] >= lo && b[j] <= hi; k++ {
		lo, hi = 0x80, 0xbf
		j++
	}
	return j
}

// utf16Len is the length of s in UTF-16 code units, JavaScript's
// String.prototype.length. s must be valid UTF-8.
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x80:
			n++
		case c >= 0xf0:
			n += 2 // a 4-byte sequence is a surrogate pair
		case c >= 0xc0:
			n++
		}
		// continuation bytes (0x80..0xbf) add nothing
	}
	return n
}

// asciiLower lowercases ASCII letters only, keeping every byte offset. It is
// the haystack for the literal prefilter of case-insensitive rules: the
// plugin's rules have no unicode flag, so their "i" flag folds ASCII letters
// only.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	// Eight bytes at a time: a byte gets 0x20 added when it is in 'A'..'Z'.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		low7 := w &^ highs
		geA := low7 + (0x80-'A')*ones    // high bit set where byte >= 'A'
		gtZ := low7 + (0x80-'Z'-1)*ones  // high bit set where byte > 'Z'
		upper := geA &^ gtZ &^ w & highs // and the byte is ASCII
		binary.LittleEndian.PutUint64(b[i:], w|upper>>2)
	}
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}
