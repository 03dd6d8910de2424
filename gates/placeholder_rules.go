package gates

import (
	"regexp"
	"strings"
	"unicode"
)

// This file holds the placeholder rules: the plugin's defaults
// (src/tools/placeholder-scan.ts, spec section 6) and swarm-gate's
// extensions, as matchers over one line and its lexed segments. Matchers
// do not allocate; most lines are rejected by a byte scan before any
// regular expression runs.

// The placeholders gate's rule ids: the plugin's (its findings' rule_id),
// then swarm-gate's extensions.
const (
	RuleCommentTodo        = "placeholder/comment-todo"
	RuleCommentFixme       = "placeholder/comment-fixme"
	RuleCommentOther       = "placeholder/comment-other" // TBD, XXX, HACK
	RuleTextPlaceholder    = "placeholder/text-placeholder"
	RuleCodeThrowTodo      = "placeholder/code-throw-todo"
	RuleCodeStubReturn     = "placeholder/code-stub-return"
	RulePlanBracketTask    = "placeholder/plan-bracket-task"
	RulePlanBracketProject = "placeholder/plan-bracket-project"
	RulePlanBracketDate    = "placeholder/plan-bracket-date"
	RulePlanBracketReason  = "placeholder/plan-bracket-reason"
	RulePlanBracketDesc    = "placeholder/plan-bracket-description"

	RuleCodeStubBody        = "placeholder/code-stub-body"             // extension: panic("not implemented"), todo!(), ...
	RuleSuppressionNoReason = "placeholder/suppression-without-reason" // extension: swarm-gate:allow placeholder without a reason
)

const (
	placeholderAllowMarker     = "swarm-gate:allow" // followed by " placeholder <reason>"
	placeholderDefaultSentinel = "SC-PLACEHOLDER"   // the plugin's DEFAULT_SENTINEL_ALLOWLIST
)

// phRule indexes the rules.
type phRule uint8

const (
	rCommentTodo phRule = iota
	rCommentFixme
	rCommentOther
	rText
	rThrowTodo
	rStubReturn
	rStubBody
	rPlanTask
	rPlanProject
	rPlanDate
	rPlanReason
	rPlanDesc
	rSuppression
	numPhRules
)

var phRuleIDs = [numPhRules]string{
	RuleCommentTodo, RuleCommentFixme, RuleCommentOther, RuleTextPlaceholder, RuleCodeThrowTodo, RuleCodeStubReturn,
	RuleCodeStubBody, RulePlanBracketTask, RulePlanBracketProject, RulePlanBracketDate, RulePlanBracketReason,
	RulePlanBracketDesc, RuleSuppressionNoReason,
}

// PlaceholderRules lists the rule ids the placeholders gate reports, the
// plugin's first; the policy's placeholders.disable takes any of them but
// placeholder/suppression-without-reason.
func PlaceholderRules() []string { return append([]string(nil), phRuleIDs[:]...) }

// hit is a rule match on a line: the rule, the byte offset and the matched
// text (a substring of the line).
type hit struct {
	rule phRule
	col  int
	what string
}

// commentWords are the plugin's comment rules in its order: the first rule
// that matches a comment is the one reported.
var commentWords = [...]struct {
	word string
	rule phRule
}{{"todo", rCommentTodo}, {"fixme", rCommentFixme}, {"tbd", rCommentOther}, {"xxx", rCommentOther}, {"hack", rCommentOther}}

// commentMarker finds the plugin's comment rule in a comment: TODO, FIXME,
// TBD, XXX or HACK as a whole word (JavaScript's \b: todoList and
// xxxHandler do not match), ASCII case-insensitive. Of several, the first
// rule in the plugin's order wins; the offset is its first match.
func commentMarker(s string) (hit, bool) {
	best := hit{rule: numPhRules}
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 {
		case 't', 'f', 'x', 'h':
		default:
			continue
		}
		if i > 0 && isWordByte(s[i-1]) {
			continue
		}
		for _, w := range commentWords {
			if w.rule < best.rule && wordAt(s, i, w.word) {
				best = hit{rule: w.rule, col: i, what: s[i : i+len(w.word)]}
				if w.rule == rCommentTodo {
					return best, true
				}
			}
		}
	}
	return best, best.rule != numPhRules
}

// stringMarker applies the plugin's string rules to a string literal
// delimited by quote: placeholder, stub or wip as whole words, and "not
// implemented" in "..." only; in `...` only placeholder and stub.
func stringMarker(s string, quote byte) (hit, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 {
		case 'p', 's', 'w', 'n':
		default:
			continue
		}
		if i > 0 && isWordByte(s[i-1]) {
			continue
		}
		for _, w := range [...]string{"placeholder", "stub", "wip", "not implemented"} {
			if (w == "wip" && quote == '`') || (w == "not implemented" && quote != '"') {
				continue
			}
			if wordAt(s, i, w) {
				return hit{rule: rText, col: i, what: s[i : i+len(w)]}, true
			}
		}
	}
	return hit{}, false
}

// wordAt reports whether the lowercase word w occurs at s[i], ASCII
// case-insensitively, ending at a word boundary (the caller checks the
// start).
func wordAt(s string, i int, w string) bool {
	if len(s)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if c := s[i+k]; c != w[k] && !('A' <= c && c <= 'Z' && c+0x20 == w[k]) {
			return false
		}
	}
	return i+len(w) == len(s) || !isWordByte(s[i+len(w)])
}

// indexFold is strings.Index for a lowercase ASCII word, ignoring ASCII case.
func indexFold(s, w string) int {
	c0, c1 := w[0], w[0]
	if 'a' <= c0 && c0 <= 'z' {
		c1 = c0 - 0x20
	}
	for i := 0; i+len(w) <= len(s); i++ {
		if c := s[i]; c != c0 && c != c1 {
			continue
		}
		k := 1
		for k < len(w) {
			c := s[i+k]
			if c != w[k] && !('A' <= c && c <= 'Z' && c+0x20 == w[k]) {
				break
			}
			k++
		}
		if k == len(w) {
			return i
		}
	}
	return -1
}

// isCodeAt reports whether byte offset p of the line is code: in no
// comment or string segment.
func isCodeAt(segs []segment, p int) bool {
	for _, sg := range segs {
		if sg.start <= p && p < sg.end {
			return false
		}
	}
	return true
}

// stringAt returns the string segment that starts at p.
func stringAt(segs []segment, p int) (segment, bool) {
	for _, sg := range segs {
		if sg.start == p && sg.isStringKind() {
			return sg, true
		}
	}
	return segment{}, false
}

// Hints say which code keywords a line may hold.
const (
	hintReturn uint8 = 1 << iota // return, any case
	hintThrow                    // throw, any case
	hintPanic                    // panic
	hintMacro                    // todo! or unimplemented!
	hintRaise                    // raise
)

// codeHints scans a line once for the keywords of the code rules, so that
// the matchers run only on the few lines that may hold one.
func codeHints(s string) uint8 {
	var h uint8
	for i := 0; i+4 < len(s); i++ {
		if !hintStart[s[i]] {
			continue
		}
		switch s[i] {
		case 'r', 'R':
			if s[i+1]|0x20 == 'e' && s[i+2]|0x20 == 't' {
				h |= hintReturn
			} else if s[i+1] == 'a' && s[i+2] == 'i' {
				h |= hintRaise
			}
		case 't', 'T':
			if s[i+1]|0x20 == 'h' && s[i+2]|0x20 == 'r' {
				h |= hintThrow
			} else if s[i+1] == 'o' && s[i+2] == 'd' && s[i+4] == '!' {
				h |= hintMacro
			}
		case 'p':
			if s[i+1] == 'a' && s[i+2] == 'n' {
				h |= hintPanic
			}
		case 'u':
			if s[i+1] == 'n' && s[i+2] == 'i' && s[i+3] == 'm' {
				h |= hintMacro
			}
		}
	}
	return h
}

var hintStart = [256]bool{'r': true, 'R': true, 't': true, 'T': true, 'p': true, 'u': true}

// isTestLike is the plugin's exemption from its code rules: a line that
// contains describe(, it(, test( or expect( (so also submit( or exit().
func isTestLike(s string) bool {
	return strings.Contains(s, "it(") || strings.Contains(s, "test(") || strings.Contains(s, "describe(") || strings.Contains(s, "expect(")
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// mayHit reports whether any rule could match line s however it is
// lexed: it holds, ASCII case-insensitively, a word every rule but the
// stub return needs (todo, fixme, tbd, xxx, hack, placeholder, stub, wip
// as whole words, as the rules match them: a segment never starts or ends
// inside a word; or "implemented", of not implemented, unimplemented and
// NotImplemented, or the swarm-gate of a suppression marker, anywhere), or
// a stub return as code. A file none of whose added lines may hit has no
// findings, so it needs no head content. The plan.md rules are not covered.
func mayHit(s string) bool {
	returns := false // stubReturn has looked at every return
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		switch {
		case c == 'i':
			if hasFoldAt(s, i, "implemented") {
				return true
			}
			continue
		case c == 'r':
			if !returns && hasFoldAt(s, i, "return") {
				if _, ok := stubReturn(s, nil, &lookback{}); ok {
					return true
				}
				returns = true
			}
			continue
		case c == 's' && hasFoldAt(s, i, "swarm-gate"):
			return true
		case i > 0 && isWordByte(s[i-1]):
			continue // not the start of a word
		}
		switch c {
		case 't':
			if wordAt(s, i, "todo") || wordAt(s, i, "tbd") {
				return true
			}
		case 'f':
			if wordAt(s, i, "fixme") {
				return true
			}
		case 'x':
			if wordAt(s, i, "xxx") {
				return true
			}
		case 'h':
			if wordAt(s, i, "hack") {
				return true
			}
		case 'p':
			if wordAt(s, i, "placeholder") {
				return true
			}
		case 's':
			if wordAt(s, i, "stub") {
				return true
			}
		case 'w':
			if wordAt(s, i, "wip") {
				return true
			}
		}
	}
	return false
}

// hasFoldAt reports whether the lowercase ASCII word w is at s[i], ASCII
// case-insensitively.
func hasFoldAt(s string, i int, w string) bool {
	if len(s)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if s[i+k]|0x20 != w[k] && s[i+k] != w[k] {
			return false
		}
	}
	return true
}

// stubValues are the plugin's stub-return values: case-sensitive, and
// false/true case-insensitive.
var stubValues = [...]string{"null", "undefined", "0", "nil", `""`, "[]", "{}"}

// stubReturn is the plugin's code-stub-return rule: return null;,
// undefined;, 0;, false;, true;, "";, [];, {}; or nil; (the return keyword
// in code, not in a comment or string), or return None ending the line. A
// return undefined; is exempt when back shows the plugin's validation
// pattern.
func stubReturn(s string, segs []segment, back *lookback) (hit, bool) {
	for from := 0; from < len(s); {
		k := indexFold(s[from:], "return")
		if k < 0 {
			break
		}
		p := from + k
		from = p + 1
		j := skipSpace(s, p+6)
		if j == p+6 || !isCodeAt(segs, p) {
			continue
		}
		exact := s[p:p+6] == "return"
		rest := s[j:]
		val := ""
		switch {
		case exact && strings.HasPrefix(rest, "None"):
			if skipSpace(s, j+4) == len(s) {
				return hit{rule: rStubReturn, col: p, what: s[p : j+4]}, true
			}
			continue
		case len(rest) >= 5 && strings.EqualFold(rest[:5], "false"):
			val = rest[:5]
		case len(rest) >= 4 && strings.EqualFold(rest[:4], "true"):
			val = rest[:4]
		case exact:
			for _, v := range stubValues {
				if strings.HasPrefix(rest, v) {
					val = v
					break
				}
			}
		}
		if val == "" {
			continue
		}
		end := skipSpace(s, j+len(val))
		if end >= len(s) || s[end] != ';' {
			continue
		}
		if val == "undefined" && isValidationPattern(back) {
			continue
		}
		return hit{rule: rStubReturn, col: p, what: s[p : end+1]}, true
	}
	return hit{}, false
}

var throwTodoRE = regexp.MustCompile(`(?i)^throw\s+new\s+Error\s*\(\s*["'][^"']*\b(?:TODO|FIXME)\b[^"']*["']\s*\)`)

// throwTodo is the plugin's code-throw-todo rule: throw new Error("...TODO...")
// or with FIXME, case-insensitive, the throw in code.
func throwTodo(s string, segs []segment) (hit, bool) {
	if indexFold(s, "todo") < 0 && indexFold(s, "fixme") < 0 {
		return hit{}, false // the regular expression needs one
	}
	for from := 0; from < len(s); {
		k := indexFold(s[from:], "throw")
		if k < 0 {
			break
		}
		p := from + k
		from = p + 1
		if !isCodeAt(segs, p) {
			continue
		}
		if m := throwTodoRE.FindStringIndex(s[p:]); m != nil {
			return hit{rule: rThrowTodo, col: p, what: s[p : p+m[1]]}, true
		}
	}
	return hit{}, false
}

// The plugin's validation-pattern exemption for return undefined;, ported
// as it behaves: its JSDoc search stops at the first line that is not a
// comment, and its error-return pattern, written with [[:ascii:]] (not a
// class in JavaScript), matches one of [ : a s c i between the quotes.
var (
	functionLineRE = regexp.MustCompile(`^(?:export\s+)?(?:async\s+)?function\s+\w+|^(?:export\s+)?(?:async\s+)?(?:\w+\s+)?\w+\s*\([^)]*\)\s*(?::\s*\w+\s*)?(?:\{|$)`)
	jsdocReturnsRE = regexp.MustCompile(`(?i)@returns\s*(?:\{[^}]*\})?\s*(?:undefined|[A-Za-z_]\w*)`)
	errorReturnRE  = regexp.MustCompile("return\\s+[\"'`][\\[:asci]\\]*[\"'`]\\s*;")
)

// isValidationPattern looks at the up to 50 lines above (in the run) of a
// return undefined;.
func isValidationPattern(back *lookback) bool {
	var jsdoc []string
	for k := 1; k <= back.n; k++ {
		line := strings.TrimSpace(back.at(k))
		if strings.HasPrefix(line, "*") {
			jsdoc = append(jsdoc, line)
			continue
		}
		if strings.Contains(line, "*/") || functionLineRE.MatchString(line) || strings.HasPrefix(line, "function ") ||
			(line != "" && !strings.HasPrefix(line, "//")) {
			break
		}
	}
	for _, l := range jsdoc {
		if jsdocReturnsRE.MatchString(l) {
			return true
		}
	}
	for k := 1; k <= back.n; k++ {
		line := strings.TrimSpace(back.at(k))
		if functionLineRE.MatchString(line) || strings.HasPrefix(line, "function ") {
			break
		}
		if errorReturnRE.MatchString(line) {
			return true
		}
	}
	return false
}

// stubBody is swarm-gate's code-stub-body rule: a body that only says it is
// not written yet. panic("not implemented") and panic!("TODO: ...") (a
// string saying TODO, FIXME or not implemented), unimplemented!() and
// todo!(), raise NotImplementedError (not in an @abstractmethod), and
// throw new XxxError("not implemented") or NotImplementedException.
func stubBody(s string, segs []segment, back *lookback, hints uint8) (hit, bool) {
	if hints&hintPanic == 0 {
		// no panic
	} else if k := keywordAt(s, segs, "panic"); k >= 0 {
		j := k + 5
		if j < len(s) && s[j] == '!' {
			j++
		}
		if h, ok := callWithStubText(s, segs, k, j); ok {
			return h, true
		}
	}
	for _, m := range [...]string{"unimplemented!", "todo!"} {
		if hints&hintMacro == 0 {
			break
		}
		if k := keywordAt(s, segs, m); k >= 0 {
			return hit{rule: rStubBody, col: k, what: s[k : k+len(m)]}, true
		}
	}
	if hints&hintRaise == 0 {
		// no raise
	} else if k := keywordAt(s, segs, "raise"); k >= 0 {
		j := skipSpace(s, k+5)
		if j > k+5 && strings.HasPrefix(s[j:], "NotImplemented") {
			e := j + len("NotImplemented")
			if strings.HasPrefix(s[e:], "Error") {
				e += len("Error")
			}
			if (e == len(s) || !isWordByte(s[e])) && !inAbstractMethod(back) {
				return hit{rule: rStubBody, col: k, what: s[k:e]}, true
			}
		}
	}
	if hints&hintThrow == 0 {
		return hit{}, false
	}
	if k := keywordAt(s, segs, "throw"); k >= 0 {
		j := skipSpace(s, k+5)
		if j == k+5 || !strings.HasPrefix(s[j:], "new") {
			return hit{}, false
		}
		j += 3
		n := skipSpace(s, j)
		if n == j {
			return hit{}, false
		}
		e := n
		for e < len(s) && (isWordByte(s[e]) || s[e] == '.') {
			e++
		}
		name := s[n:e]
		if strings.HasSuffix(name, "NotImplementedException") || strings.HasSuffix(name, "NotImplementedError") {
			return hit{rule: rStubBody, col: k, what: s[k:e]}, true
		}
		if strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception") {
			return callWithStubText(s, segs, k, e)
		}
	}
	return hit{}, false
}

// keywordAt returns the offset of the first occurrence of kw in code that
// starts a word, or -1.
func keywordAt(s string, segs []segment, kw string) int {
	for from := 0; from < len(s); {
		k := strings.Index(s[from:], kw)
		if k < 0 {
			return -1
		}
		p := from + k
		from = p + 1
		if (p == 0 || !isWordByte(s[p-1]) && s[p-1] != '.') && isCodeAt(segs, p) {
			return p
		}
	}
	return -1
}

// callWithStubText matches "(", a string literal saying the code is not
// written (TODO, FIXME, not implemented, ...) at s[j:], for the call whose
// keyword is at k.
func callWithStubText(s string, segs []segment, k, j int) (hit, bool) {
	j = skipSpace(s, j)
	if j >= len(s) || s[j] != '(' {
		return hit{}, false
	}
	j = skipSpace(s, j+1)
	sg, ok := stringAt(segs, j)
	if !ok || !stubWording(s[sg.start:sg.end]) {
		return hit{}, false
	}
	end := sg.end
	if end < len(s) && s[end] == ')' {
		end++
	}
	return hit{rule: rStubBody, col: k, what: s[k:end]}, true
}

// stubWording reports whether a string literal says its code is not
// written: TODO, FIXME, not implemented, not yet implemented or
// unimplemented, as whole words, ASCII case-insensitive.
func stubWording(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 {
		case 't', 'f', 'n', 'u':
		default:
			continue
		}
		if i > 0 && isWordByte(s[i-1]) {
			continue
		}
		for _, w := range [...]string{"todo", "fixme", "not implemented", "not yet implemented", "unimplemented"} {
			if wordAt(s, i, w) {
				return true
			}
		}
	}
	return false
}

// inAbstractMethod reports whether the nearest def above (in the run) is
// decorated with @abstractmethod (or @abc.abstractmethod ...), where
// raise NotImplementedError is the intended body.
func inAbstractMethod(back *lookback) bool {
	k := 1
	for ; k <= back.n; k++ {
		t := strings.TrimSpace(back.at(k))
		if strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ") {
			break
		}
	}
	for k++; k <= back.n; k++ {
		t := strings.TrimSpace(back.at(k))
		if !strings.HasPrefix(t, "@") {
			return false
		}
		if strings.Contains(t, "abstractmethod") {
			return true
		}
	}
	return false
}

// isPythonPass reports whether the code of a Python line (before its
// first comment) is only pass or ..., returning its offset.
func isPythonPass(s string, segs []segment) (int, bool) {
	code := s
	if len(segs) > 0 && segs[0].kind == segComment {
		code = s[:segs[0].start]
	}
	t := strings.TrimSpace(code)
	if t != "pass" && t != "..." {
		return 0, false
	}
	return strings.Index(s, t), true
}

// planBrackets are the plugin's template-bracket rules for .swarm/plan.md.
var planBrackets = [...]struct {
	text string
	fold bool
	rule phRule
}{
	{"[task]", true, rPlanTask}, {"[Project]", false, rPlanProject}, {"[date]", false, rPlanDate},
	{"[reason]", false, rPlanReason}, {"[description]", true, rPlanDesc},
}

// planMarkers appends a hit for each template bracket on a plan.md line.
func planMarkers(s string, hits []hit) []hit {
	for _, b := range planBrackets {
		k := strings.Index(s, b.text)
		if b.fold {
			k = indexFold(s, b.text) // the text is lowercase
		}
		if k >= 0 {
			hits = append(hits, hit{rule: b.rule, col: k, what: s[k : k+len(b.text)]})
		}
	}
	return hits
}

// suppressionMark is an inline `swarm-gate:allow placeholder <reason>`
// marker found on a line.
type suppressionMark struct {
	found   bool   // a marker for this gate, or a near miss of one
	reason  bool   // it gives a reason (a letter or digit, comment closers aside)
	col     int    // its byte offset in the line
	written string // the marker as written, blanks collapsed: "swarm-gate:allow placeholder" when right
}

// findSuppression finds the first marker for this gate in a comment of the
// line (one inside a string literal, or in code, does not count). Near
// misses count as found with written telling them apart: the prefix in
// another case (SWARM-GATE:ALLOW), or the word in another case or in the
// plural (placeholders). Markers for other gates (swarm-gate:allow scope)
// are skipped. The reason must be in the same comment.
func findSuppression(s string, segs []segment) suppressionMark {
	for _, sg := range segs {
		if !sg.isCommentKind() {
			continue
		}
		body := s[sg.start:sg.end]
		for from := 0; from < len(body); {
			k := strings.IndexByte(body[from:], ':') // rare in comments: faster than looking for the marker
			if k < 0 {
				break
			}
			p := from + k - len("swarm-gate")
			from += k + 1
			if p < 0 || p+len(placeholderAllowMarker) > len(body) || !strings.EqualFold(body[p:p+len(placeholderAllowMarker)], placeholderAllowMarker) {
				continue
			}
			rest := body[p+len(placeholderAllowMarker):]
			t := strings.TrimLeft(rest, " \t")
			if len(t) == len(rest) {
				continue
			}
			w := 0
			for w < len(t) && isWordByte(t[w]) {
				w++
			}
			word := t[:w]
			if !strings.EqualFold(word, "placeholder") && !strings.EqualFold(word, "placeholders") {
				continue // a marker for another gate
			}
			why := t[w:]
			for {
				trimmed := strings.TrimSpace(why)
				for _, closer := range [...]string{"*/", "-->", "#>", `"""`, "'''", "#}", "%>"} {
					trimmed = strings.TrimSuffix(trimmed, closer)
				}
				if trimmed == why {
					break
				}
				why = trimmed
			}
			return suppressionMark{found: true, col: sg.start + p,
				reason:  strings.IndexFunc(why, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0,
				written: body[p:p+len(placeholderAllowMarker)] + " " + word}
		}
	}
	return suppressionMark{}
}
