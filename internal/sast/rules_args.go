package sast

import "strings"

// This file is a one-line tokenizer for what Refine looks at around a
// match: a call's arguments, the right-hand side of an assignment. It knows
// each language's string literals (prefixes, escapes, interpolation) well
// enough to tell a literal from an expression; anything it cannot read on
// the line (a call or string that goes on below) makes the check give up,
// which leaves the finding as the rule reported it.

type tokKind uint8

const (
	tokName  tokKind = iota + 1 // an identifier or keyword
	tokNum                      // a number
	tokLit                      // a string literal
	tokPunct                    // any other byte
)

type token struct {
	kind       tokKind
	text       string
	start, end int // byte offsets in the line
	// interps are a literal's interpolated expressions ({x} in a Python
	// f-string, ${x} in a template literal), as written.
	interps []string
	// pieces is a literal's text around its interpolations: one more
	// than interps, undecoded.
	pieces []string
}

// tokenize splits line from byte from on, stopping at a line comment. ok
// is false when a string literal does not close on the line.
func tokenize(lang Language, line string, from int) (toks []token, ok bool) {
	for i := from; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case lang == Python && c == '#', lang != Python && c == '/' && i+1 < len(line) && line[i+1] == '/':
			return toks, true
		case isIdentStart(lang, c):
			j := i + 1
			for j < len(line) && isIdentByte(lang, line[j]) {
				j++
			}
			if j < len(line) && isQuote(lang, line[j]) && isLitPrefix(lang, line[i:j]) {
				t, good := readLiteral(lang, line, i, j)
				if !good {
					return toks, false
				}
				toks, i = append(toks, t), t.end
				continue
			}
			toks, i = append(toks, token{kind: tokName, text: line[i:j], start: i, end: j}), j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(line) && (isIdentByte(lang, line[j]) || line[j] == '.') {
				j++
			}
			toks, i = append(toks, token{kind: tokNum, text: line[i:j], start: i, end: j}), j
		case isQuote(lang, c) || lang == CSharp && (c == '@' || c == '$') && i+1 < len(line) && strings.IndexByte(`"@$`, line[i+1]) >= 0:
			j := i
			for j < len(line) && (line[j] == '@' || line[j] == '$') {
				j++
			}
			if j >= len(line) || !isQuote(lang, line[j]) {
				toks, i = append(toks, token{kind: tokPunct, text: line[i : i+1], start: i, end: i + 1}), i+1
				continue
			}
			t, good := readLiteral(lang, line, i, j)
			if !good {
				return toks, false
			}
			toks, i = append(toks, t), t.end
		default:
			toks, i = append(toks, token{kind: tokPunct, text: line[i : i+1], start: i, end: i + 1}), i+1
		}
	}
	return toks, true
}

func isQuote(lang Language, c byte) bool {
	switch c {
	case '"':
		return true
	case '\'':
		return lang != Go && lang != Java && lang != CSharp && lang != CPP && lang != Rust // char literals are no strings
	case '`':
		return lang == JavaScript || lang == TypeScript || lang == Go
	}
	return false
}

// isLitPrefix reports whether an identifier right before a quote is a
// string prefix: Python's r, b, u, f and their pairs.
func isLitPrefix(lang Language, p string) bool {
	if lang != Python || len(p) > 2 {
		return false
	}
	switch strings.ToLower(p) {
	case "r", "b", "u", "f", "rb", "br", "fr", "rf":
		return true
	}
	return false
}

func isIdentStart(lang Language, c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || c == '$' && (lang == JavaScript || lang == TypeScript || lang == PHP)
}

func isIdentByte(lang Language, c byte) bool {
	return isIdentStart(lang, c) || c >= '0' && c <= '9'
}

// readLiteral reads the literal whose prefix starts at i and whose quote is
// at q.
func readLiteral(lang Language, line string, i, q int) (token, bool) {
	prefix := strings.ToLower(line[i:q])
	quote := line[q]
	closer := line[q : q+1]
	if lang == Python && strings.HasPrefix(line[q:], strings.Repeat(line[q:q+1], 3)) {
		closer = line[q : q+3]
	}
	var interp byte // '{': {x} with {{ escaped; '$': ${x}
	switch {
	case lang == Python && strings.Contains(prefix, "f"), lang == CSharp && strings.Contains(prefix, "$"):
		interp = '{'
	case quote == '`' && lang != Go:
		interp = '$'
	}
	escapes := !(lang == Go && quote == '`') && !(lang == CSharp && strings.Contains(prefix, "@"))
	t := token{kind: tokLit, start: i}
	piece := strings.Builder{}
	for j := q + len(closer); j < len(line); {
		c := line[j]
		switch {
		case escapes && c == '\\':
			end := min(j+2, len(line))
			piece.WriteString(line[j:end])
			j = end
		case !escapes && lang == CSharp && c == '"' && j+1 < len(line) && line[j+1] == '"':
			piece.WriteString(`""`)
			j += 2
		case strings.HasPrefix(line[j:], closer):
			t.pieces = append(t.pieces, piece.String())
			t.end = j + len(closer)
			t.text = line[i:t.end]
			return t, true
		case interp == '{' && c == '{' && j+1 < len(line) && line[j+1] == '{',
			interp == '{' && c == '}' && j+1 < len(line) && line[j+1] == '}':
			piece.WriteByte(c)
			j += 2
		case interp == '{' && c == '{', interp == '$' && c == '$' && j+1 < len(line) && line[j+1] == '{':
			open := j + 1
			if c == '$' {
				open++
			}
			end, good := closeBrace(lang, line, open)
			if !good {
				return t, false
			}
			t.pieces = append(t.pieces, piece.String())
			piece.Reset()
			t.interps = append(t.interps, line[open:end])
			j = end + 1
		default:
			piece.WriteByte(c)
			j++
		}
	}
	return t, false
}

// closeBrace finds the '}' that ends an interpolation whose code starts at
// from, skipping nested brackets and literals.
func closeBrace(lang Language, line string, from int) (int, bool) {
	depth := 0
	for j := from; j < len(line); {
		switch c := line[j]; {
		case c == '{' || c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == '}':
			if depth == 0 {
				return j, true
			}
			depth--
		case isQuote(lang, c):
			t, good := readLiteral(lang, line, j, j)
			if !good {
				return 0, false
			}
			j = t.end
			continue
		}
		j++
	}
	return 0, false
}

// callArgs splits the arguments of the call whose '(' is toks[open]; end
// is the index of its ')'. ok is false when the call does not close on the
// line.
func callArgs(toks []token, open int) (args [][]token, end int, ok bool) {
	if open < 0 || open >= len(toks) || toks[open].text != "(" {
		return nil, 0, false
	}
	depth, from := 0, open+1
	for i := open + 1; i < len(toks); i++ {
		switch toks[i].text {
		case "(", "[", "{":
			depth++
		case "]", "}":
			depth--
		case ")":
			if depth == 0 {
				if i > from {
					args = append(args, toks[from:i])
				}
				return args, i, true
			}
			depth--
		case ",":
			if depth == 0 {
				args = append(args, toks[from:i])
				from = i + 1
			}
		}
	}
	return nil, 0, false
}

// firstArg returns the first argument of the call whose '(' is toks[open]
// when it ends on the line (at a ',' or the call's ')'), even if the call
// goes on below.
func firstArg(toks []token, open int) ([]token, bool) {
	if open < 0 || open >= len(toks) || toks[open].text != "(" {
		return nil, false
	}
	depth := 0
	for i := open + 1; i < len(toks); i++ {
		switch toks[i].text {
		case "(", "[", "{":
			depth++
		case "]", "}":
			depth--
		case ")", ",":
			if depth == 0 {
				return toks[open+1 : i], i > open+1
			}
			if toks[i].text == ")" {
				depth--
			}
		}
	}
	return nil, false
}

// nextText is the text of toks[i], or "" past the end.
func nextText(toks []token, i int) string {
	if i < 0 || i >= len(toks) {
		return ""
	}
	return toks[i].text
}

// isConstName reports whether an identifier is an UPPER_CASE constant by
// the usual convention (PEP 8 and most style guides): two or more
// characters, capitals, digits and underscores, at least one capital.
func isConstName(s string) bool {
	s = strings.TrimLeft(s, "_")
	if len(s) < 2 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// isConstInterp reports whether an interpolation is a constant's name,
// with an optional conversion and format spec ({OUT_ROOT!r:>10}).
func isConstInterp(expr string) bool {
	if i := strings.IndexAny(expr, "!:"); i >= 0 {
		if strings.ContainsAny(expr[i:], "{}") || strings.HasPrefix(expr[i:], "!=") {
			return false
		}
		expr = expr[:i]
	}
	return isConstName(strings.TrimSpace(expr))
}

// isConstExpr reports whether an expression is built only from literals,
// numbers and UPPER_CASE constants, joined by '+' (and '%' or .format() in
// Python): no input can reach its value. An empty expression is not.
func isConstExpr(lang Language, toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	depth := 0
	for i, t := range toks {
		switch t.kind {
		case tokLit:
			for _, e := range t.interps {
				if !isConstInterp(e) {
					return false
				}
			}
		case tokNum:
		case tokName:
			format := lang == Python && t.text == "format" && nextText(toks, i-1) == "." && nextText(toks, i+1) == "("
			if !format && !isConstName(t.text) {
				return false
			}
			if !format && nextText(toks, i+1) == "(" {
				return false // a call
			}
		default:
			switch t.text {
			case "+":
			case "%":
				if lang != Python {
					return false
				}
			case ".":
				if lang != Python || nextText(toks, i+1) != "format" {
					return false
				}
			case "(":
				depth++
			case ")":
				depth--
			case ",":
				if depth == 0 {
					return false
				}
			default:
				return false
			}
		}
	}
	return depth == 0
}

// allConst reports whether every argument is a constant expression.
func allConst(lang Language, args [][]token) bool {
	if len(args) == 0 {
		return false
	}
	for _, a := range args {
		if !isConstExpr(lang, a) {
			return false
		}
	}
	return true
}
