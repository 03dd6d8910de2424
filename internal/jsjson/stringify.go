package jsjson

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as JavaScript's JSON.stringify quotes a string
// (ECMAScript QuoteJSONString): `"` and `\` escaped, \b \f \n \r \t short
// escapes, other code units below 0x20 and lone surrogates as lowercase
// \u00xx / \udxxx, and everything else, including <, >, &, U+2028 and
// U+2029, as raw UTF-8.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if u, ok := wtf8Surrogate(s, i); ok {
				dst = append(dst, s[start:i]...)
				dst = append(dst, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xf], hexDigits[u>>4&0xf], hexDigits[u&0xf])
				i += 3
				start = i
				continue
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendNumber appends f as JSON.stringify writes a number: JavaScript's
// Number.prototype.toString (shortest round-trip digits; plain notation for
// exponents from -7 to 20, e.g. 2, 0.5, 0.00001, 1e-7, 1e+21) and "null" for
// NaN and ±Infinity.
func AppendNumber(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0') // also -0
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	if f < 1e21 && f == math.Trunc(f) {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	// Shortest digits and decimal exponent: "d.ddde±x".
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k := len(digits)
	n := x + 1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// Append appends v as JSON.stringify(v) would write it: no whitespace,
// object members in their stored order.
func Append(dst []byte, v *Value) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	switch v.Kind {
	case Bool:
		if v.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		return AppendNumber(dst, v.Num)
	case String:
		return AppendString(dst, v.Str)
	case Array:
		dst = append(dst, '[')
		for i, el := range v.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = Append(dst, el)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i, m := range v.Members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, m.Key)
			dst = append(dst, ':')
			dst = Append(dst, m.Value)
		}
		return append(dst, '}')
	default:
		return append(dst, "null"...)
	}
}

// Stringify returns JSON.stringify(v).
func Stringify(v *Value) []byte { return Append(nil, v) }

// CompareUTF16 orders strings by UTF-16 code units, the order of
// JavaScript's default Array.prototype.sort for strings. It differs from Go's
// byte order only between supplementary-plane characters and U+E000..U+FFFF.
// It returns -1, 0 or +1.
func CompareUTF16(a, b string) int {
	i, j := 0, 0
	var pa, pb uint16 // pending low surrogate
	for {
		var ua, ub uint16
		var oka, okb bool
		ua, pa, i, oka = nextUnit(a, i, pa)
		ub, pb, j, okb = nextUnit(b, j, pb)
		switch {
		case !oka && !okb:
			return 0
		case !oka:
			return -1
		case !okb:
			return 1
		case ua < ub:
			return -1
		case ua > ub:
			return 1
		}
	}
}

// nextUnit yields the next UTF-16 code unit of s from byte i, with pending
// holding the low surrogate of a supplementary character already started.
func nextUnit(s string, i int, pending uint16) (unit, newPending uint16, next int, ok bool) {
	if pending != 0 {
		return pending, 0, i, true
	}
	if i >= len(s) {
		return 0, 0, i, false
	}
	if c := s[i]; c < utf8.RuneSelf {
		return uint16(c), 0, i + 1, true
	}
	if u, ok := wtf8Surrogate(s, i); ok {
		return u, 0, i + 3, true
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r >= 0x10000 {
		r -= 0x10000
		return uint16(0xd800 + (r >> 10)), uint16(0xdc00 + (r & 0x3ff)), i + size, true
	}
	return uint16(r), 0, i + size, true
}
