package placeholder

import "strings"

// This file holds the whole-body check of the stub rules (B08, B10): a
// constant return, or a not-implemented raise with no message of its own,
// is a stub only when it is the whole body of a function. Guard clauses,
// fall-through returns and else branches are not. The scanner streams, so
// the check looks both ways: the lines above (the lookback keeps where each
// line's code is) must open a function right before the statement, and the
// code after it must close that function (Python: go back to the def's
// indent). A candidate waits as the scanner's pendingBody until that code
// comes, on its line or below.

// backLine is a line of the lookback: its text and where its code is.
type backLine struct {
	text        string
	first, last int // the first and last code bytes (not blank, in no comment or docstring); -1 when none
}

// codeBounds returns where the code of a lexed line starts and ends: the
// first and last bytes that are not blank and in no comment or docstring
// (strings are code), or -1, -1.
func codeBounds(s string, segs []segment) (first, last int) {
	first, last = -1, -1
	note := func(a, b int) {
		for i := a; i < b; i++ {
			if !isSpace(s[i]) {
				if first < 0 {
					first = i
				}
				break
			}
		}
		for i := b - 1; i >= a; i-- {
			if !isSpace(s[i]) {
				last = i
				break
			}
		}
	}
	pos := 0
	for _, sg := range segs {
		if sg.isCommentKind() {
			note(pos, sg.start)
			pos = sg.end
		}
	}
	note(pos, len(s))
	return first, last
}

// lastCodeBefore returns the offset of the last code byte before p (not
// blank, in no comment), or -1.
func lastCodeBefore(s string, segs []segment, p int) int {
	for i := p - 1; i >= 0; i-- {
		if isSpace(s[i]) {
			continue
		}
		if sg, ok := segAt(segs, i); ok && sg.isCommentKind() {
			i = sg.start
			continue
		}
		return i
	}
	return -1
}

// opensFunction reports whether the code right before the statement at
// s[p] (on its line, else on the code lines above) is the '{' that opens a
// function's body.
func (sc *Scanner) opensFunction(s string, segs []segment, p int) bool {
	k, header := 0, ""
	if q := lastCodeBefore(s, segs, p); q >= 0 {
		if s[q] != '{' {
			return false
		}
		header = s[:q]
	} else {
		var l *backLine
		if k, l = sc.back.prevCode(1); l == nil || l.text[l.last] != '{' {
			return false
		}
		header = l.text[:l.last]
	}
	if strings.Trim(header, "} \t") == "" { // Allman style: the header is the line above the brace
		var l *backLine
		if k, l = sc.back.prevCode(k + 1); l == nil {
			return false
		}
		header = l.text[l.first : l.last+1]
	}
	return sc.funcHeader(header, k)
}

// controlWords start a block that is not a function's body (or, before a
// '(', name no function).
var controlWords = map[string]bool{
	"if": true, "else": true, "elif": true, "for": true, "foreach": true, "while": true, "do": true, "switch": true, "match": true,
	"when": true, "try": true, "catch": true, "except": true, "finally": true, "with": true, "using": true, "lock": true, "loop": true,
	"select": true, "case": true, "synchronized": true, "checked": true, "unchecked": true, "fixed": true, "guard": true,
	"return": true, "throw": true, "await": true, "yield": true, "new": true, "typeof": true, "sizeof": true, "class": true,
	"struct": true, "enum": true, "interface": true, "trait": true, "impl": true, "namespace": true, "module": true, "object": true,
	"record": true, "union": true, "extension": true, "protocol": true, "until": true, "repeat": true,
}

// funcHeader reports whether h, the code before a block's '{' (whose line
// is the k-th above, 0 for the current one), declares a function: an
// arrow or lambda (=> {, -> {), a function keyword (function, func, fn,
// fun), or a name, its parameters and maybe a return type (foo(x): T {,
// String get() throws E {, a signature over several lines), the name no
// control word (if, for, catch, ...) and not after new (an anonymous class).
func (sc *Scanner) funcHeader(h string, k int) bool {
	h = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(h), "}"))
	switch {
	case h == "":
		return false
	case strings.HasSuffix(h, "=>") || strings.HasSuffix(h, "->"):
		return true
	case controlWords[firstWord(h)]:
		return false
	case hasWord(h, "function") || hasWord(h, "func") || hasWord(h, "fn") || hasWord(h, "fun"):
		return true
	}
	r := strings.LastIndexByte(h, ')')
	if r < 0 || strings.ContainsAny(h[r+1:], "=;(){}\"'`") {
		return false // no parameters, or what follows them is no return type
	}
	line, open := h, matchingOpen(h, r)
	if open < 0 { // a signature over lines: the line that opens it
		_, line, open = sc.back.opening(k+1, -parenBalance(h))
		if open < 0 || controlWords[firstWord(strings.TrimSpace(line))] {
			return false
		}
	}
	name, before := identBefore(line, open)
	return name != "" && !controlWords[name] && before != "new"
}

// firstWord is the identifier h starts with.
func firstWord(h string) string {
	e := 0
	for e < len(h) && (isWordByte(h[e]) || h[e] == '$') {
		e++
	}
	return h[:e]
}

// hasWord reports whether the identifier w occurs in h as a whole word.
func hasWord(h, w string) bool {
	for from := 0; ; {
		k := strings.Index(h[from:], w)
		if k < 0 {
			return false
		}
		p := from + k
		if !letterBefore(h, p) && !letterAt(h, p+len(w)) {
			return true
		}
		from = p + 1
	}
}

// matchingOpen returns the offset of the '(' that the ')' at r closes, or -1.
func matchingOpen(h string, r int) int {
	depth := 0
	for i := r; i >= 0; i-- {
		switch h[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// parenBalance is the number of '(' less the number of ')' in h.
func parenBalance(h string) int {
	return strings.Count(h, "(") - strings.Count(h, ")")
}

// identBefore returns the identifier right before s[open] (a call's or a
// declaration's name; a generic's <T> skipped) and the word before that.
func identBefore(s string, open int) (name, before string) {
	i := open - 1
	for i >= 0 && isSpace(s[i]) {
		i--
	}
	if i >= 0 && s[i] == '>' { // foo<T>(
		depth := 0
		for ; i >= 0; i-- {
			if s[i] == '>' {
				depth++
			} else if s[i] == '<' {
				if depth--; depth == 0 {
					i--
					break
				}
			}
		}
	}
	e := i + 1
	for i >= 0 && (isWordByte(s[i]) || s[i] == '$') {
		i--
	}
	name = s[i+1 : e]
	for i >= 0 && isSpace(s[i]) {
		i--
	}
	e = i + 1
	for i >= 0 && isWordByte(s[i]) {
		i--
	}
	return name, s[i+1 : e]
}

// isDefStart reports whether the code t (trimmed) starts a Python def.
func isDefStart(t string) bool {
	return strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ")
}

// indentOf is the width of s's leading blanks, in bytes.
func indentOf(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}

// opensDef reports whether the statement at s[p] is the first of a Python
// def's body: the code before it is the def's ':', on its line (def f():
// return None) or the code line above (a docstring aside; a signature may
// span lines). It returns the def's indent and its line's place in the
// lookback (0: the current line).
func (sc *Scanner) opensDef(s string, segs []segment, p int) (indent, k int, ok bool) {
	if q := lastCodeBefore(s, segs, p); q >= 0 {
		if s[q] == ':' && isDefStart(strings.TrimSpace(s[:q])) {
			return indentOf(s), 0, true
		}
		return 0, 0, false
	}
	k, l := sc.back.prevCode(1)
	if l == nil || l.text[l.last] != ':' {
		return 0, 0, false
	}
	line := l.text
	if !isDefStart(strings.TrimSpace(line)) {
		var open int
		k, line, open = sc.back.opening(k+1, -parenBalance(l.text[l.first:l.last+1]))
		if open < 0 || !isDefStart(strings.TrimSpace(line)) {
			return 0, 0, false
		}
	}
	if indent = indentOf(line); indent >= indentOf(s) {
		return 0, 0, false
	}
	return indent, k, true
}

// decoratedAbstract reports whether the def on the k-th line above (0: the
// current line) is decorated with @abstractmethod (or @abc.abstractmethod),
// whose body is meant to raise NotImplementedError.
func (sc *Scanner) decoratedAbstract(k int) bool {
	for j := k + 1; j <= sc.back.n; j++ {
		t := strings.TrimSpace(sc.back.at(j))
		if !strings.HasPrefix(t, "@") {
			return false
		}
		if strings.Contains(t, "abstractmethod") {
			return true
		}
	}
	return false
}

// pendingBody is a stub candidate that opens a function's body, waiting
// for the code after its statement: the function's closing '}' (Python: a
// line back at the def's indent, or the end of the file) makes it a stub;
// any other code does not.
type pendingBody struct {
	on     bool
	py     bool // Python: decided by the indent of the next code line
	indent int  // Python: the def's indent
	depth  int  // brackets the statement has open
	ended  bool // the statement has ended: the next code decides
	n, off int  // the candidate's line, and its BOM offset
	text   string
	h      hit
}

// follow reads the code of s from byte from (the candidate's own line, or
// a line below it from 0) and reports whether it decides the candidate,
// and if so whether it is a stub.
func (pb *pendingBody) follow(s string, segs []segment, from int) (decided, stub bool) {
	if pb.py && pb.ended {
		if first, _ := codeBounds(s, segs); first >= 0 {
			return true, indentOf(s) <= pb.indent
		}
		return false, false
	}
	k := 0
	for i := from; i < len(s); i++ {
		for k < len(segs) && segs[k].end <= i {
			k++
		}
		if k < len(segs) && segs[k].start <= i {
			if !segs[k].isCommentKind() && pb.ended {
				return true, false // a string after the statement: more code
			}
			i = segs[k].end - 1
			continue
		}
		c := s[i]
		switch {
		case isSpace(c):
		case pb.ended:
			return true, !pb.py && c == '}'
		case c == '(' || c == '[' || c == '{':
			pb.depth++
		case c == ')' || c == ']' || c == '}':
			if pb.depth == 0 {
				return true, !pb.py && c == '}'
			}
			pb.depth--
		case c == ';' && pb.depth == 0:
			pb.ended = true
		}
	}
	if pb.depth == 0 {
		pb.ended = true // a line break ends a statement whose brackets are closed
	}
	return false, false
}

// wholeBody starts the whole-body check of the candidate h on line n
// (text, with body = text[off:], lexed as segs), whose statement starts at
// byte p and whose code after it starts at byte end: it returns true when
// the line itself shows the candidate to be a stub; a candidate not decided
// on its line becomes the scanner's pending body (held, until the
// suppression check of its line commits it).
func (sc *Scanner) wholeBody(n int, text string, off int, segs []segment, h hit, p, end int, abstractExempt bool) bool {
	body := text[off:]
	pb := pendingBody{n: n, off: off, text: text, h: h}
	switch {
	case sc.fam == famPython:
		indent, k, ok := sc.opensDef(body, segs, p)
		if !ok || abstractExempt && sc.decoratedAbstract(k) {
			return false
		}
		pb.py, pb.indent = true, indent
	case sc.fam.braces:
		if !sc.opensFunction(body, segs, p) {
			return false
		}
	default:
		return false // no function structure known
	}
	pb.ended = strings.HasSuffix(body[:end], ";")
	decided, stub := pb.follow(body, segs, end)
	if decided {
		return stub
	}
	pb.on = true
	sc.held = pb
	return false
}
