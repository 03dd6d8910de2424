package secrets

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// maxLeads bounds the literals a leading set may have; a larger set is not
// worth searching for one by one.
const maxLeads = 64

// lead is a rule prefilter's leading literals: every match of the
// prefilter starts with one of lits (compared in ASCII lower case), so it
// is enough to try the prefilter anchored at each place one of them occurs,
// instead of at every byte of the line (the generic rules' prefilter is a
// large expression, and Go tries it from each position).
type lead struct {
	lits     [][]byte
	anchored *regexp.Regexp
	// boundary is true when the expression starts with \b, which match
	// checks by hand before the literal (anchored is the rest): Go's \b
	// is ASCII, between a word byte [0-9A-Za-z_] and a non-word one.
	boundary bool
	// run, when not nil, rules out most places before anchored runs: see
	// leadRun.
	run *leadRun
}

// leadRun is a necessary condition of a prefilter that starts with its
// literals' element, then optional runs of classes, then an element that
// must start with a byte of next, none of which the classes hold (the
// generic rules: a name, spacing and quotes, then an assignment sign). On
// an ASCII line, every byte of a match before that element is in in (the
// first element's bytes too), so the bytes in in from the literal on must
// end at a byte of next.
type leadRun struct {
	in, next [256]bool
}

// newLeadRun returns re's leadRun, nil when re is not of that shape.
func newLeadRun(re *syntax.Regexp) *leadRun {
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return nil
	}
	var lr leadRun
	k := 1
	for ; k < len(re.Sub); k++ {
		sub := re.Sub[k]
		for sub.Op == syntax.OpCapture {
			sub = sub.Sub[0]
		}
		optional := sub.Op == syntax.OpStar || sub.Op == syntax.OpQuest || sub.Op == syntax.OpRepeat && sub.Min == 0
		if !optional || sub.Sub[0].Op != syntax.OpCharClass || !asciiBytes(sub.Sub[0], &lr.in) {
			break
		}
	}
	var first [256]bool
	if k == len(re.Sub) || !asciiBytes(re.Sub[0], &first) || !firstBytes(re.Sub[k], &lr.next) {
		return nil
	}
	any := false
	for c := range 256 {
		if first[c] && !lr.in[c] || lr.next[c] && lr.in[c] {
			return nil
		}
		any = any || lr.next[c]
	}
	if !any {
		return nil
	}
	return &lr
}

// asciiBytes adds to set every ASCII byte re can match (letters in both
// cases where re folds them); false when re is not made of literals and
// classes.
func asciiBytes(re *syntax.Regexp, set *[256]bool) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			addRune(set, r, re.Flags&syntax.FoldCase != 0)
		}
		return true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && r < 0x80; r++ {
				addRune(set, r, false)
			}
		}
		return true
	case syntax.OpCapture, syntax.OpAlternate, syntax.OpConcat, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		for _, sub := range re.Sub {
			if !asciiBytes(sub, set) {
				return false
			}
		}
		return true
	case syntax.OpEmptyMatch:
		return true
	}
	return false
}

// firstBytes adds to set every ASCII byte a match of re can start with;
// false when not known (re may match the empty string, or starts with an
// assertion).
func firstBytes(re *syntax.Regexp, set *[256]bool) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return false
		}
		addRune(set, re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return true
	case syntax.OpCharClass:
		return asciiBytes(re, set)
	case syntax.OpCapture, syntax.OpPlus:
		return firstBytes(re.Sub[0], set)
	case syntax.OpRepeat:
		return re.Min >= 1 && firstBytes(re.Sub[0], set)
	case syntax.OpConcat:
		return len(re.Sub) > 0 && minLen(re.Sub[0]) > 0 && firstBytes(re.Sub[0], set)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !firstBytes(sub, set) {
				return false
			}
		}
		return true
	}
	return false
}

func addRune(set *[256]bool, r rune, fold bool) {
	if r >= 0x80 {
		return
	}
	set[r] = true
	if fold {
		set[unicode.ToLower(r)], set[unicode.ToUpper(r)] = true, true
	}
}

// possible reports whether the run from text[at] can end at a byte of
// next.
func (lr *leadRun) possible(text string, at int) bool {
	for at < len(text) && lr.in[text[at]] {
		at++
	}
	return at < len(text) && lr.next[text[at]]
}

// newLead returns the leading literals of re (the loosened expression) and
// its anchored form, or nil when re does not start with literals of at
// least two bytes.
func newLead(re *syntax.Regexp) *lead { return newLeadOf(re, "") }

// newLeadOf is newLead given expr, re.String() when not "" (printing a
// large expression again costs more than compiling it: about half of the
// rules' loading). It is reused for the anchored form unless re starts
// with \b before a literal that starts with a non-word byte: tried at the
// start of the rest of the line, \b holds there exactly when the first
// byte is a word byte, which match has checked against the byte before.
func newLeadOf(re *syntax.Regexp, expr string) *lead {
	boundary := false
	if re.Op == syntax.OpConcat && len(re.Sub) > 1 && re.Sub[0].Op == syntax.OpWordBoundary {
		boundary = true
		re = &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[1:]}
	}
	lits, _ := leading(re)
	if len(lits) == 0 {
		return nil
	}
	l := &lead{boundary: boundary, run: newLeadRun(re)}
	seen := map[string]bool{}
	for _, s := range lits {
		if len(s) < 2 {
			return nil
		}
		if !seen[s] {
			seen[s] = true
			l.lits = append(l.lits, []byte(s))
		}
	}
	if expr == "" || boundary && slices.ContainsFunc(l.lits, func(lit []byte) bool { return !isWordByte(lit[0]) }) {
		expr = re.String()
	}
	anchored, err := regexp.Compile(`^(?:` + expr + `)`)
	if err != nil {
		return nil
	}
	l.anchored = anchored
	return l
}

// leading returns the strings (lower case) one of which every match of re
// starts with, and whether they are all of what re matches (so that what
// follows re in a concatenation extends them); nil when not known. Only
// ASCII literals count, and the sets are only used on ASCII lines, where
// (?i) folds as ASCII lower-casing does (on other lines k also matches the
// Kelvin sign).
func leading(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		var b strings.Builder
		for _, r := range re.Rune {
			if r >= 0x80 {
				return nil, false
			}
			b.WriteRune(unicode.ToLower(r))
		}
		if b.Len() == 0 {
			return nil, false
		}
		return []string{b.String()}, true
	case syntax.OpCharClass:
		var out []string
		seen := map[rune]bool{}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if r >= 0x80 || len(seen) >= 8 {
					return nil, false
				}
				if lr := unicode.ToLower(r); !seen[lr] {
					seen[lr] = true
					out = append(out, string(lr))
				}
			}
		}
		return out, len(out) > 0
	case syntax.OpCapture:
		return leading(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		exact := true
		for _, sub := range re.Sub {
			l, e := leading(sub)
			if l == nil {
				return nil, false
			}
			exact = exact && e
			out = append(out, l...)
		}
		if len(out) > maxLeads {
			return nil, false
		}
		return out, exact
	case syntax.OpConcat:
		cur := []string{""}
		for _, sub := range re.Sub {
			l, e := leading(sub)
			if l == nil || len(cur)*len(l) > maxLeads {
				return nonEmpty(cur), false
			}
			next := make([]string, 0, len(cur)*len(l))
			for _, a := range cur {
				for _, b := range l {
					next = append(next, a+b)
				}
			}
			cur = next
			if !e {
				return cur, false
			}
		}
		return nonEmpty(cur), true
	}
	return nil, false
}

func nonEmpty(ls []string) []string {
	for _, s := range ls {
		if s == "" {
			return nil
		}
	}
	return ls
}

// match reports whether the prefilter matches text, lower its ASCII lower
// case: anchored at each occurrence of a leading literal.
func (l *lead) match(text string, lower []byte) bool {
	for _, lit := range l.lits {
		for off := 0; ; {
			i := bytes.Index(lower[off:], lit)
			if i < 0 {
				break
			}
			if l.boundary && isWordByte(text[off+i]) == (off+i > 0 && isWordByte(text[off+i-1])) {
				off += i + 1
				continue
			}
			if (l.run == nil || l.run.possible(text, off+i)) && l.anchored.MatchString(text[off+i:]) {
				return true
			}
			off += i + 1
		}
	}
	return false
}

// isWordByte reports whether c is an ASCII word character, as \b has them.
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// hasNonASCII reports whether s has a byte outside ASCII, where lower
// casing by bytes does not fold as (?i) does.
func hasNonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}

// required returns strings (lower case, ASCII) one of which every match of
// re contains somewhere, nil when not known: a necessary condition that
// lets a path, or a line, skip an expression that cannot match it.
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass:
		l, _ := leading(re)
		return l
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			r := required(sub)
			if r == nil || len(out)+len(r) > maxLeads {
				return nil
			}
			out = append(out, r...)
		}
		return out
	case syntax.OpConcat:
		// The best of: what each element requires, and the literals each
		// run of elements starts with.
		var best []string
		for i, sub := range re.Sub {
			for _, cand := range [][]string{required(sub), leadingOf(re.Sub[i:])} {
				if better(cand, best) {
					best = cand
				}
			}
		}
		return best
	}
	return nil
}

// leadingOf is leading of the concatenation of subs.
func leadingOf(subs []*syntax.Regexp) []string {
	l, _ := leading(&syntax.Regexp{Op: syntax.OpConcat, Sub: subs})
	return l
}

// better reports whether set a is a stronger condition than b: its
// shortest string is longer.
func better(a, b []string) bool {
	if len(a) == 0 {
		return false
	}
	return len(b) == 0 || shortest(a) > shortest(b)
}

func shortest(ls []string) int {
	n := -1
	for _, s := range ls {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

// pathFilter is one allowlist's path expressions, each with the strings a
// path must contain for it to match (nil: always tried).
type pathFilter []struct {
	re   *regexp.Regexp
	need [][]byte
}

// newPathFilter prepares res as gitleaks joins them, (?:a|b|...), where a
// flag such as (?i) in one expression holds for those after it: the joined
// expression is parsed, and each of its alternatives tried on its own.
func newPathFilter(res []*regexp.Regexp) pathFilter {
	if len(res) == 0 {
		return nil
	}
	parts := make([]string, len(res))
	for i, re := range res {
		parts[i] = re.String()
	}
	joined := "(?:" + strings.Join(parts, "|") + ")"
	whole := func() pathFilter {
		return pathFilter{{re: regexp.MustCompile(joined)}}
	}
	parsed, err := syntax.Parse(joined, syntax.Perl)
	if err != nil {
		return whole()
	}
	alts := []*syntax.Regexp{parsed}
	if parsed.Op == syntax.OpAlternate {
		alts = parsed.Sub
	}
	var f pathFilter
	for _, alt := range alts {
		re, err := regexp.Compile(alt.String())
		if err != nil {
			return whole()
		}
		e := struct {
			re   *regexp.Regexp
			need [][]byte
		}{re: re}
		if req := required(alt); shortest(req) >= 2 {
			for _, s := range req {
				e.need = append(e.need, []byte(s))
			}
		}
		f = append(f, e)
	}
	return f
}

// match reports whether one of the expressions matches p.
func (f pathFilter) match(p string) bool {
	var lower []byte
	ascii := !hasNonASCII(p)
	if ascii {
		lower = lowerASCII(nil, p)
	}
	for _, e := range f {
		if ascii && e.need != nil && !containsAny(lower, e.need) {
			continue
		}
		if e.re.MatchString(p) {
			return true
		}
	}
	return false
}

func containsAny(s []byte, subs [][]byte) bool {
	for _, sub := range subs {
		if bytes.Contains(s, sub) {
			return true
		}
	}
	return false
}
