package jsjson

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is how deeply arrays and objects may nest before Parse gives up.
// Real plugin files nest fewer than 10 levels; the limit keeps hostile input
// from exhausting the stack.
const MaxDepth = 512

// SyntaxError is a JSON syntax error with its position (1-based line and
// byte column) in the parsed input.
type SyntaxError struct {
	Offset int
	Line   int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Parse parses exactly one JSON value (RFC 8259, as JSON.parse accepts it:
// no comments, no trailing commas, no leading byte order mark) surrounded by
// optional whitespace. Errors are *SyntaxError.
func Parse(data []byte) (*Value, error) {
	p := parser{data: data}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.errorf("unexpected %s after the JSON value", p.describe())
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
	buf  []byte
}

func (p *parser) errorf(format string, args ...any) error {
	off := p.pos
	line, col := 1, 1
	for _, b := range p.data[:min(off, len(p.data))] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &SyntaxError{Offset: off, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) describe() string {
	if p.pos >= len(p.data) {
		return "end of input"
	}
	c := p.data[p.pos]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (*Value, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of JSON input")
	}
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, Str: s, Offset: start}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", &Value{Kind: Bool, Bool: true, Offset: start})
	case c == 'f':
		return p.literal("false", &Value{Kind: Bool, Offset: start})
	case c == 'n':
		return p.literal("null", &Value{Kind: Null, Offset: start})
	default:
		return nil, p.errorf("unexpected %s where a value was expected", p.describe())
	}
}

func (p *parser) literal(word string, v *Value) (*Value, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.errorf("invalid literal (expected %s)", word)
	}
	p.pos += len(word)
	return v, nil
}

func (p *parser) object(depth int) (*Value, error) {
	if depth > MaxDepth {
		return nil, p.errorf("nesting deeper than %d levels", MaxDepth)
	}
	v := &Value{Kind: Object, Offset: p.pos}
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	var index map[string]int
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of JSON input in an object")
		}
		if p.data[p.pos] != '"' {
			return nil, p.errorf("unexpected %s where an object key was expected", p.describe())
		}
		keyOff := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("expected ':' after object key, found %s", p.describe())
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		// JSON.parse keeps a duplicated key at its first position with the
		// last value.
		if i, dup := lookup(v.Members, &index, key); dup {
			v.Members[i].Value = val
			v.Members[i].DupOffset = keyOff
		} else {
			v.Members = append(v.Members, Member{Key: key, Value: val, KeyOffset: keyOff})
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of JSON input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v, nil
		default:
			return nil, p.errorf("expected ',' or '}' in an object, found %s", p.describe())
		}
	}
}

// lookup finds key among members, building a map once objects grow large so
// that hostile files with many keys stay linear.
func lookup(members []Member, index *map[string]int, key string) (int, bool) {
	if len(members) < 16 {
		for i := range members {
			if members[i].Key == key {
				return i, true
			}
		}
		return 0, false
	}
	if *index == nil {
		*index = make(map[string]int, len(members)*2)
		for i := range members {
			if _, ok := (*index)[members[i].Key]; !ok {
				(*index)[members[i].Key] = i
			}
		}
	}
	i, ok := (*index)[key]
	if !ok {
		(*index)[key] = len(members)
	}
	return i, ok
}

func (p *parser) array(depth int) (*Value, error) {
	if depth > MaxDepth {
		return nil, p.errorf("nesting deeper than %d levels", MaxDepth)
	}
	v := &Value{Kind: Array, Offset: p.pos}
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		v.Elems = []*Value{}
		return v, nil
	}
	for {
		p.skipSpace()
		el, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		v.Elems = append(v.Elems, el)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of JSON input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return nil, p.errorf("expected ',' or ']' in an array, found %s", p.describe())
		}
	}
}

func (p *parser) number() (*Value, error) {
	start := p.pos
	d := p.data
	i := p.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return nil, p.errorf("invalid number: expected a digit")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			return nil, p.errorf("invalid number: expected a digit after '.'")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			return nil, p.errorf("invalid number: expected a digit in the exponent")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	p.pos = i
	f, err := strconv.ParseFloat(string(d[start:i]), 64)
	if err != nil {
		// Only a range error is possible on a well-formed literal; JavaScript
		// gives ±Infinity or 0 just as ParseFloat's result does.
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return nil, p.errorf("invalid number %q", d[start:i])
		}
	}
	return &Value{Kind: Number, Num: f, Offset: start}, nil
}

// str reads a string literal starting at the opening quote.
func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	d := p.data
	// Fast path: no escapes, valid UTF-8, no control characters.
	for i := p.pos; i < len(d); i++ {
		c := d[i]
		if c == '"' {
			s := d[p.pos:i]
			if utf8.Valid(s) {
				p.pos = i + 1
				return string(s), nil
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	p.buf = p.buf[:0]
	for {
		if p.pos >= len(d) {
			return "", p.errorf("unexpected end of JSON input in a string")
		}
		c := d[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(p.buf), nil
		case c < 0x20:
			return "", p.errorf("control character 0x%02x in a string (must be escaped)", c)
		case c == '\\':
			if err := p.escape(); err != nil {
				return "", err
			}
		case c < utf8.RuneSelf:
			p.buf = append(p.buf, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(d[p.pos:])
			if r == utf8.RuneError && size == 1 {
				p.buf = utf8.AppendRune(p.buf, utf8.RuneError)
			} else {
				p.buf = append(p.buf, d[p.pos:p.pos+size]...)
			}
			p.pos += size
		}
	}
}

func (p *parser) escape() error {
	d := p.data
	if p.pos+1 >= len(d) {
		p.pos = len(d)
		return p.errorf("unexpected end of JSON input in a string escape")
	}
	e := d[p.pos+1]
	if r, ok := simpleEscape(e); ok {
		p.buf = append(p.buf, r)
		p.pos += 2
		return nil
	}
	if e != 'u' {
		p.pos++
		return p.errorf("invalid escape \\%c in a string", e)
	}
	u, ok := hex4(d, p.pos+2)
	if !ok {
		p.pos += 2
		return p.errorf("invalid \\u escape in a string")
	}
	p.pos += 6
	if utf16.IsSurrogate(rune(u)) && u < 0xdc00 {
		// A high surrogate: pair it with a following \uDCxx escape if present.
		if p.pos+1 < len(d) && d[p.pos] == '\\' && d[p.pos+1] == 'u' {
			if lo, ok := hex4(d, p.pos+2); ok && lo >= 0xdc00 && lo <= 0xdfff {
				p.buf = utf8.AppendRune(p.buf, utf16.DecodeRune(rune(u), rune(lo)))
				p.pos += 6
				return nil
			}
		}
	}
	if utf16.IsSurrogate(rune(u)) {
		p.buf = appendWTF8Surrogate(p.buf, u)
		return nil
	}
	p.buf = utf8.AppendRune(p.buf, rune(u))
	return nil
}

func hex4(d []byte, i int) (uint16, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var u uint16
	for _, c := range d[i : i+4] {
		u <<= 4
		switch {
		case c >= '0' && c <= '9':
			u |= uint16(c - '0')
		case c >= 'a' && c <= 'f':
			u |= uint16(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			u |= uint16(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return u, true
}

// appendWTF8Surrogate appends the generalized-UTF-8 (WTF-8) bytes of a lone
// surrogate code unit: 0xED, 0xA0..0xBF, 0x80..0xBF.
func appendWTF8Surrogate(b []byte, u uint16) []byte {
	return append(b, 0xed, byte(0x80|(u>>6)&0x3f), byte(0x80|u&0x3f))
}

// wtf8Surrogate reports whether s[i:] starts with a WTF-8 lone surrogate and
// returns its code unit.
func wtf8Surrogate(s string, i int) (uint16, bool) {
	if i+2 < len(s) && s[i] == 0xed && s[i+1] >= 0xa0 && s[i+1] <= 0xbf && s[i+2] >= 0x80 && s[i+2] <= 0xbf {
		return 0xd000 | uint16(s[i+1]&0x3f)<<6 | uint16(s[i+2]&0x3f), true
	}
	return 0, false
}

func simpleEscape(e byte) (byte, bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}
