package sast

import (
	"fmt"
	"regexp"
	"strings"
)

// jsSpace is the set JavaScript's \s matches (WhiteSpace and LineTerminator:
// TAB, LF, VT, FF, CR, SPACE, NBSP, the other Unicode Zs characters, LS, PS
// and U+FEFF). Go's \s is only [\t\n\f\r ].
const jsSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// jsDot is what JavaScript's "." matches without the s flag: anything but a
// line terminator. Go's "." excludes only \n.
const jsDot = `[^\n\r\x{2028}\x{2029}]`

// compileJS compiles a rule pattern written in the subset of JavaScript
// regular expression syntax that RE2 shares, translating the constructs whose
// meaning differs so that a match starts where JavaScript's would:
//
//   - \s and \S use JavaScript's whitespace set;
//   - "." excludes all JavaScript line terminators;
//   - with fold (the "i" flag, no "u" flag), each ASCII letter outside a
//     character class becomes [xX]: JavaScript then folds ASCII letters only,
//     while Go's (?i) would also fold U+017F and U+212A onto s and k. Classes
//     in folded patterns must list both cases themselves.
//
// Lookaround and backreferences do not exist in RE2; rules express those
// conditions as validators instead.
func compileJS(src string, fold bool) (*regexp.Regexp, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 >= len(src) {
				return nil, fmt.Errorf("pattern %q ends with a backslash", src)
			}
			i++
			switch n := src[i]; n {
			case 's':
				if inClass {
					b.WriteString(jsSpace)
				} else {
					b.WriteString("[" + jsSpace + "]")
				}
			case 'S':
				if inClass {
					return nil, fmt.Errorf("pattern %q: \\S inside a class is not supported", src)
				}
				b.WriteString("[^" + jsSpace + "]")
			case 'x', 'p', 'P':
				b.WriteByte('\\')
				b.WriteByte(n)
				if i+1 < len(src) && src[i+1] == '{' {
					// \x{...} and \p{...}: copy the braces unfolded.
					end := strings.IndexByte(src[i:], '}')
					if end < 0 {
						return nil, fmt.Errorf("pattern %q: unterminated escape", src)
					}
					b.WriteString(src[i+1 : i+end+1])
					i += end
				} else if n == 'x' && i+2 < len(src) {
					b.WriteString(src[i+1 : i+3]) // \xHH
					i += 2
				}
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			if strings.HasPrefix(src[i:], "[]") || strings.HasPrefix(src[i:], "[^]") {
				return nil, fmt.Errorf("pattern %q: empty classes mean something else in JavaScript", src)
			}
			inClass = true
			b.WriteByte(c)
			if strings.HasPrefix(src[i+1:], "^") {
				b.WriteByte('^')
				i++
			}
		case c == '.':
			b.WriteString(jsDot)
		case c == '(' && (strings.HasPrefix(src[i:], "(?<") || strings.HasPrefix(src[i:], "(?P<")):
			// A named group: copy its name unfolded.
			end := strings.IndexByte(src[i:], '>')
			if end < 0 {
				return nil, fmt.Errorf("pattern %q: unterminated group name", src)
			}
			b.WriteString(src[i : i+end+1])
			i += end
		case fold && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			lo, up := c|0x20, c&^0x20
			b.WriteByte('[')
			b.WriteByte(lo)
			b.WriteByte(up)
			b.WriteByte(']')
		default:
			b.WriteByte(c)
		}
	}
	if inClass {
		return nil, fmt.Errorf("pattern %q: unterminated class", src)
	}
	return regexp.Compile(b.String())
}
