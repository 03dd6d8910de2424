package placeholder

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the placeholder rules: the plugin's defaults
// (src/tools/placeholder-scan.ts, spec section 6) and swarm-gate's
// extensions, as matchers over one line and its lexed segments. Matchers
// do not allocate; most lines are rejected by a byte scan before any
// regular expression runs.

// The rule ids (Finding.Rule): the plugin's (its findings' rule_id), then
// swarm-gate's extensions.
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

// Rules lists the ids of the rules a Scanner applies, the plugin's first,
// as a new slice; Options.Disable takes any of them but
// RuleSuppressionNoReason.
func Rules() []string { return append([]string(nil), phRuleIDs[:]...) }

// hit is a rule match on a line: the rule, the byte offset and the matched
// text (a substring of the line).
type hit struct {
	rule phRule
	col  int
	what string
	warn bool // a warning, not a failure (a marker in a document's prose)
	// hidden names the invisible character inside a comment's marker
	// ("U+200B"; hiddenMarker), "" when there is none.
	hidden string
}

// commentWords are the plugin's comment rules in its order: the first rule
// that matches a comment is the one reported.
var commentWords = [...]struct {
	word, upper string
	rule        phRule
}{{"todo", "TODO", rCommentTodo}, {"fixme", "FIXME", rCommentFixme}, {"tbd", "TBD", rCommentOther}, {"xxx", "XXX", rCommentOther}, {"hack", "HACK", rCommentOther}}

// commentMarker finds the plugin's comment rule in a comment: TODO, FIXME,
// TBD, XXX or HACK as a whole word (todoList, xxxHandler and mé-todo do not
// match) written in upper case, or in any case right before ':' or '(' (the
// plugin's own fix, #2306: "todo" is Spanish for all, "a hack" is prose,
// "plugins/xxx/" a path), or as the doc tag @todo. Of several, the first
// rule in the plugin's order wins; the offset is its first match.
func commentMarker(s string) (hit, bool) {
	best := hit{rule: numPhRules}
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 {
		case 't', 'f', 'x', 'h':
		default:
			continue
		}
		if letterBefore(s, i) {
			continue
		}
		for _, w := range commentWords {
			if w.rule < best.rule && markerAt(s, i, w.word, w.upper) {
				best = hit{rule: w.rule, col: i, what: s[i : i+len(w.word)]}
				if w.rule == rCommentTodo {
					return best, true
				}
			}
		}
	}
	return best, best.rule != numPhRules
}

// hiddenMarker is commentMarker for a comment whose marker an invisible
// character splits ("TO\u200bDO", "FIX\u00adME"): a reader and a search
// see nothing, and the plugin's regular expressions miss the word. The
// comment is matched without its invisible characters (invisibleAt); the
// hit's column is the word's in s, and hidden names the character.
func hiddenMarker(s string) (hit, bool) {
	if !hasInvisible(s) {
		return hit{}, false
	}
	stripped, at, name := stripInvisible(s)
	h, ok := commentMarker(stripped)
	if !ok {
		return hit{}, false
	}
	h.col, h.hidden = at[h.col], name
	return h, true
}

// hiddenStringMarker is stringMarker for a string segment whose
// placeholder value or "not implemented" an invisible character splits
// ("place\u200bholder"), as hiddenMarker is for comments.
func hiddenStringMarker(s string, sg segment) (hit, bool) {
	body := s[sg.start:sg.end]
	if !hasInvisible(body) {
		return hit{}, false
	}
	stripped, at, name := stripInvisible(body)
	sg2 := sg
	sg2.end = sg.start + len(stripped)
	h, ok := stringMarker(s[:sg.start]+stripped+s[sg.end:], sg2)
	if !ok {
		return hit{}, false
	}
	h.col, h.hidden = sg.start+at[h.col-sg.start], name
	return h, true
}

// stripInvisible is s without the characters invisibleAt takes, the
// offset in s of each byte kept, and the first such character's name
// ("U+200B").
func stripInvisible(s string) (string, []int, string) {
	var b strings.Builder
	at := make([]int, 0, len(s))
	name := ""
	for i := 0; i < len(s); {
		if n, r := invisibleAt(s, i); n > 0 {
			if name == "" {
				name = fmt.Sprintf("U+%04X", r)
			}
			i += n
			continue
		}
		b.WriteByte(s[i])
		at = append(at, i)
		i++
	}
	return b.String(), at, name
}

// hasInvisible reports whether s holds a character invisibleAt takes.
func hasInvisible(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 { // ASCII runs, 8 bytes a test
		if b := s[i : i+8]; b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7] >= 0x80 {
			break
		}
	}
	for ; i < len(s); i++ {
		switch s[i] {
		case 0xC2, 0xCD, 0xE1, 0xE2, 0xEF: // the first bytes of invisibleAt's runes in UTF-8
			if n, _ := invisibleAt(s, i); n > 0 {
				return true
			}
		}
	}
	return false
}

// invisibleAt is the length and rune of the invisible format character at
// s[i] (0 when there is none): the soft hyphen, the combining grapheme
// joiner, the Mongolian vowel separator, zero-width space, non-joiner and
// joiner, the direction marks and embeddings, the word joiner and
// invisible operators, the isolates, and the zero-width no-break space.
func invisibleAt(s string, i int) (int, rune) {
	if s[i] < 0x80 {
		return 0, 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == 0x00AD, r == 0x034F, r == 0x180E, r == 0xFEFF,
		0x200B <= r && r <= 0x200F, 0x202A <= r && r <= 0x202E, 0x2060 <= r && r <= 0x2064, 0x2066 <= r && r <= 0x2069:
		return n, r
	}
	return 0, 0
}

// markerAt reports whether the marker word w (lowercase; upper is its upper
// case) is at s[i] as commentMarker takes it; the caller checks the start.
func markerAt(s string, i int, w, upper string) bool {
	if !wordAt(s, i, w) {
		return false
	}
	e := i + len(w)
	return s[i:e] == upper || e < len(s) && (s[e] == ':' || s[e] == '(') || w == "todo" && i > 0 && s[i-1] == '@'
}

// hasMarker reports whether s holds TODO or FIXME as commentMarker takes them.
func hasMarker(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; (c == 't' || c == 'f') && !letterBefore(s, i) &&
			(markerAt(s, i, "todo", "TODO") || markerAt(s, i, "fixme", "FIXME")) {
			return true
		}
	}
	return false
}

// proseMarker is the rule for a line of a document's prose: a TODO: or
// FIXME: (as commentMarker takes them, with the colon) that starts the
// line, after indentation, an optional list bullet, checkbox, quote or
// heading marker (when headings count), <!-- or emphasis. It is a warning:
// a note in a document does not fail the gate.
func proseMarker(s string, headings bool) (hit, bool) {
	i := skipSpace(s, 0)
	if strings.HasPrefix(s[i:], ">") {
		i = skipSpace(s, i+1)
	}
	switch {
	case i < len(s) && strings.IndexByte("-*+", s[i]) >= 0 && i+1 < len(s) && s[i+1] == ' ':
		i = skipSpace(s, i+1)
	case i < len(s) && '0' <= s[i] && s[i] <= '9':
		k := i
		for k < len(s) && '0' <= s[k] && s[k] <= '9' {
			k++
		}
		if k < len(s) && (s[k] == '.' || s[k] == ')') {
			i = skipSpace(s, k+1)
		}
	case headings && i < len(s) && s[i] == '#':
		for i < len(s) && s[i] == '#' {
			i++
		}
		i = skipSpace(s, i)
	case strings.HasPrefix(s[i:], "<!--"):
		i = skipSpace(s, i+4)
	}
	if strings.HasPrefix(s[i:], "[ ] ") || strings.HasPrefix(s[i:], "[x] ") || strings.HasPrefix(s[i:], "[X] ") {
		i = skipSpace(s, i+3)
	}
	e := i
	for e < len(s) && e-i < 2 && (s[e] == '*' || s[e] == '_') {
		e++
	}
	for _, w := range commentWords[:2] {
		if !wordAt(s, e, w.word) {
			continue
		}
		k := e + len(w.word)
		for k < len(s) && k-e-len(w.word) < 2 && (s[k] == '*' || s[k] == '_') {
			k++ // **TODO**: as well as **TODO:**
		}
		if k < len(s) && s[k] == ':' {
			return hit{rule: w.rule, col: e, what: s[e : e+len(w.word)], warn: true}, true
		}
	}
	return hit{}, false
}

// stringMarker applies the string rules to the string segment sg of line
// s: "not implemented" or "not yet implemented" anywhere in it, or a
// placeholder value (see placeholderValue).
func stringMarker(s string, sg segment) (hit, bool) {
	body := s[sg.start:sg.end]
	if k := notImplementedIn(body); k >= 0 {
		return hit{rule: rText, col: sg.start + k, what: "not implemented"}, true
	}
	if k, w := placeholderValue(body, sg.quote, interpolated(s, sg)); k >= 0 && !nameLike(s, sg) {
		return hit{rule: rText, col: sg.start + k, what: w}, true
	}
	return hit{}, false
}

// interpolated reports whether the string segment sg of line s is a
// Python f-string or a C# $"..." string, where {name} is code.
func interpolated(s string, sg segment) bool {
	if sg.start < len(s) && s[sg.start] == '$' {
		return true
	}
	a := s[:sg.start]
	a = strings.TrimRight(a, "rRbB")
	return strings.HasSuffix(a, "f") || strings.HasSuffix(a, "F")
}

// notImplementedIn returns the offset of "not implemented" or "not yet
// implemented" as whole words in s, ASCII case-insensitive, or -1 (also
// when "implemented" is in neither lower nor upper case after its first
// letter: a prefilter that keeps most strings to two fast searches).
func notImplementedIn(s string) int {
	if !strings.Contains(s, "mplemented") && !strings.Contains(s, "MPLEMENTED") {
		return -1
	}
	for from := 0; ; {
		k := indexFold(s[from:], "not ")
		if k < 0 {
			return -1
		}
		p := from + k
		from = p + 1
		if letterBefore(s, p) {
			continue
		}
		if wordAt(s, p, "not implemented") || wordAt(s, p, "not yet implemented") {
			return p
		}
	}
}

// valueWords are the words a string may hold as its whole value, or last
// after a separator, to be a placeholder value: any case, and the comment
// markers in upper case.
var valueWords = [...]struct {
	word string
	fold bool
}{{"placeholder", true}, {"stub", true}, {"wip", true}, {"TODO", false}, {"FIXME", false}, {"TBD", false}}

// placeholderValue reports whether a string literal (body, with its
// quotes; or a piece of one spanning lines) is a placeholder value: its
// content is only the word ("placeholder", "<placeholder>", "{{stub}}",
// "WIP", "TODO"), or ends with it after a separator ("...; placeholder",
// "model: stub", "value (placeholder)"). Prose that merely mentions the
// word ("contains an unfilled placeholder", "Placeholder count:"), a
// hyphenated name (dpad-placeholder, placeholder-gray-400) or a URL is not.
// In an interpolated string (interp), {placeholder} is code. It returns
// the word's offset in body and the word, or -1.
func placeholderValue(body string, quote byte, interp bool) (int, string) {
	// The end first, as most strings end in no value word: the closing
	// quotes (and Rust's #), blanks, closers and punctuation ("<stub>.").
	e := len(body)
	for e > 0 && (body[e-1] == quote || body[e-1] == '#') {
		e--
	}
	for e > 0 && strings.IndexByte(" \t.!)]}>_", body[e-1]) >= 0 {
		e--
	}
	if e == 0 {
		return -1, ""
	}
	switch body[e-1] | 0x20 {
	case 'r', 'b', 'p', 'o', 'e', 'd':
	default:
		return -1, ""
	}
	// The content's start: after the prefix a segment may start with (C#'s
	// @ and $, Rust's r#) and the opening quotes; a piece of a string
	// spanning lines may have neither.
	lo := 0
	for lo < e && lo < 4 && strings.IndexByte("@$rb#", body[lo]) >= 0 {
		lo++
	}
	if lo == e || body[lo] != quote {
		lo = 0
	}
	for lo < e && body[lo] == quote {
		lo++
	}
	for _, v := range valueWords {
		p := e - len(v.word)
		if p < lo {
			continue
		}
		got := body[p:e]
		if !(got == v.word || v.fold && strings.EqualFold(got, v.word)) || letterBefore(body, p) {
			continue
		}
		before := strings.TrimSpace(body[lo:p])
		if interp && strings.HasSuffix(before, "{") && !strings.HasSuffix(before, "{{") {
			continue // f"... {placeholder}": a variable
		}
		if strings.Trim(before, "<[({_ ") == "" && len(before) <= 2 || endsWithSeparator(before) {
			return p, got // the whole content (maybe bracketed), or its last item
		}
	}
	return -1, ""
}

// endsWithSeparator reports whether the text before a value word ends with
// a separator: ; : , | = ( [ < { a dash between spaces, or an em or en dash.
func endsWithSeparator(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[len(s)-1]; {
	case strings.IndexByte(";:,|=([<{", c) >= 0:
		return true
	case c == '-':
		return len(s) >= 2 && s[len(s)-2] == ' '
	}
	return strings.HasSuffix(s, "—") || strings.HasSuffix(s, "–")
}

// nameLike reports whether the string segment sg of line s is used as a
// name rather than a value: a key ("placeholder": ...), an index
// (attrs["placeholder"]), compared (mode == "stub", case "wip":), one of a
// union type ("stub" | "real") or of a list of words (["TODO", "TBD"]), or
// an attribute or property name (getAttribute("placeholder")).
func nameLike(s string, sg segment) bool {
	a := strings.TrimRight(s[:sg.start], " \t")
	for a != "" && strings.IndexByte("fFrRbBuU", a[len(a)-1]) >= 0 && (len(a) == 1 || !isWordByte(a[len(a)-2])) {
		a = strings.TrimRight(a[:len(a)-1], " \t") // a Python string prefix
	}
	z := strings.TrimLeft(s[sg.end:], " \t")
	quote := func(c byte) bool { return c == '"' || c == '\'' || c == '`' }
	prev := strings.TrimRight(strings.TrimSuffix(a, ","), " \t")
	switch {
	case strings.HasPrefix(z, ":") && !strings.HasPrefix(z, "::"), strings.HasPrefix(z, "=="), strings.HasPrefix(z, "!="),
		strings.HasPrefix(z, "|") && !strings.HasPrefix(z, "||"), strings.HasPrefix(z, "]") && strings.HasSuffix(a, "["):
		return true
	case strings.HasSuffix(a, "=="), strings.HasSuffix(a, "!="), strings.HasSuffix(a, "|") && !strings.HasSuffix(a, "||"),
		strings.HasSuffix(a, " in"), strings.HasSuffix(a, "case"):
		return true
	case strings.HasPrefix(z, ",") && quote((strings.TrimLeft(z[1:], " \t") + " ")[0]),
		strings.HasSuffix(a, ",") && prev != "" && quote(prev[len(prev)-1]):
		return true
	}
	return (strings.HasSuffix(a, "(") || strings.HasSuffix(a, ",")) && (strings.Contains(a, "Attribute") || strings.Contains(a, "attr(") ||
		strings.Contains(a, "prop(") || strings.Contains(a, "Property("))
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
	return !letterAt(s, i+len(w))
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
			} else if s[i+1] == 'o' && s[i+2] == 'd' && s[i+3] == 'o' && (s[i+4] == '!' || isSpace(s[i+4])) {
				h |= hintMacro // todo! or todo !: rustc takes white space before the !
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
// calls describe(, it(, test( or expect(, here as whole words and not a
// regex's .test( (the plugin's substrings also exempt submit( and raise
// SystemExit().
func isTestLike(s string) bool {
	for _, w := range [...]string{"it(", "test(", "describe(", "expect("} {
		for from := 0; from < len(s); {
			k := strings.Index(s[from:], w)
			if k < 0 {
				break
			}
			if p := from + k; !letterBefore(s, p) && (p == 0 || s[p-1] != '.' || w != "test(") {
				return true
			}
			from += k + 1
		}
	}
	return false
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

// MayHit reports whether any rule could match line s however it is
// lexed: it holds, ASCII case-insensitively, a word every rule but the
// stub return needs (todo, fixme, tbd, xxx, hack, placeholder, stub, wip
// as whole words, as the rules match them: a segment never starts or ends
// inside a word; or "implemented", of not implemented, unimplemented and
// NotImplemented, or the swarm-gate of a suppression marker, anywhere), or
// a stub return's candidate, or an invisible character (hiddenMarker). A
// file none of whose added lines may hit has
// no findings, so it needs no head content. The plan.md rules are not
// covered.
//
// Every check below needs, at the position it starts, one of a few words
// of 3 letters or more (ASCII case folded with |0x20, as the checks fold).
// Such a word covers two letters at an even offset: its first two (it
// starts at an even offset) or its second and third (an odd one). So the
// loop looks only at even offsets j, with one table lookup for the pair
// at j (hitPairs: the words' first and second pairs), and on a hit runs
// the checks at j-1 and j (hitAt). mayHitRef in the tests looks at every
// position.
func MayHit(s string) bool {
	returns := false // stubReturnAt has looked at every return
	for j := 0; j+1 < len(s); j += 2 {
		if k := uint16(s[j]) | uint16(s[j+1])<<8; hitPairs[k>>3]&(1<<(k&7)) == 0 {
			continue
		}
		if j > 0 && hitAt(s, j-1, &returns) || hitAt(s, j, &returns) {
			return true
		}
	}
	return hasInvisible(s) // a marker split by one (hiddenMarker)
}

// hitAt reports whether one of MayHit's checks matches at s[i]; *returns
// is set once stubReturnAt has looked at the whole line (the answer is
// the line's, not the position's).
func hitAt(s string, i int, returns *bool) bool {
	c := s[i] | 0x20
	switch {
	case c == 'i':
		return hasFoldAt(s, i, "implemented")
	case c == 'r':
		if !*returns && hasFoldAt(s, i, "return") {
			if _, _, ok := stubReturnAt(s, nil, 0); ok {
				return true
			}
			*returns = true
		}
		return false
	case c == 's' && hasFoldAt(s, i, "swarm-gate"):
		return true
	case i > 0 && isWordByte(s[i-1]):
		return false // not the start of a word
	}
	switch c {
	case 't':
		return wordHit(s, i, "todo") || wordHit(s, i, "tbd")
	case 'f':
		return wordHit(s, i, "fixme")
	case 'x':
		return wordHit(s, i, "xxx")
	case 'h':
		return wordHit(s, i, "hack")
	case 'p':
		return wordHit(s, i, "placeholder")
	case 's':
		return wordHit(s, i, "stub")
	case 'w':
		return wordHit(s, i, "wip")
	}
	return false
}

// wordHit is wordAt, or the word followed by an underscore: a string's
// value ends before trailing underscores ("placeholder_" is a value, see
// placeholderValue), so MayHit, a necessary condition, must not rule it out.
func wordHit(s string, i int, w string) bool {
	return wordAt(s, i, w) || len(s)-i > len(w) && s[i+len(w)] == '_' && hasFoldAt(s, i, w)
}

// hitPairs has bit k set (k = the first byte | the second << 8) for each
// pair of bytes that folds to the first or second pair of a word MayHit
// checks for: a bit set over all 65,536 pairs, 8 KiB.
var hitPairs = func() (t [1 << 13]uint8) {
	for _, w := range [...]string{"implemented", "return", "swarm-gate", "todo", "tbd", "fixme", "xxx", "hack", "placeholder", "stub", "wip"} {
		for _, p := range [...]string{w[0:2], w[1:3]} {
			for a := 0; a < 256; a++ {
				for b := 0; b < 256; b++ {
					if byte(a)|0x20 == p[0] && byte(b)|0x20 == p[1] {
						k := a | b<<8
						t[k>>3] |= 1 << (k & 7)
					}
				}
			}
		}
	}
	return t
}()

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

// stubValues are the plugin's stub-return values, case-sensitive, without
// its true and false: a function whose whole body is return true; is a
// constant predicate, not a stub (B08).
var stubValues = [...]string{"null", "undefined", "0", "nil", `""`, "[]", "{}"}

// stubReturnAt finds, from byte from, the next candidate of the
// code-stub-return rule: return null;, undefined;, 0;, "";, [];, {}; or
// nil; (the return keyword in code, not in a comment or string), or
// return None ending the line (a comment aside). It returns the keyword's
// offset and where the statement ends. Whether it is a stub depends on the
// lines around it: see Scanner.stubReturn.
func stubReturnAt(s string, segs []segment, from int) (p, end int, ok bool) {
	for from < len(s) {
		k := strings.Index(s[from:], "return")
		if k < 0 {
			break
		}
		p = from + k
		from = p + 1
		j := skipSpace(s, p+6)
		if j == p+6 || letterBefore(s, p) || !isCodeAt(segs, p) {
			continue
		}
		rest := s[j:]
		if strings.HasPrefix(rest, "None") && !letterAt(s, j+4) {
			if e := skipSpace(s, j+4); e == len(s) || s[e] == '#' && !isCodeAt(segs, e) || s[e] == '#' && segs == nil {
				return p, j + 4, true
			}
			continue
		}
		for _, v := range stubValues {
			if strings.HasPrefix(rest, v) {
				if e := skipSpace(s, j+len(v)); e < len(s) && s[e] == ';' {
					return p, e + 1, true
				}
				break
			}
		}
	}
	return 0, 0, false
}

var throwTodoRE = regexp.MustCompile(`^throw\s+new\s+Error\s*\(\s*(?:"[^"]*"|'[^']*')\s*\)`)

// throwTodo is the plugin's code-throw-todo rule: throw new Error("...TODO...")
// or with FIXME (as commentMarker takes them), the throw in code.
func throwTodo(s string, segs []segment) (hit, bool) {
	if indexFold(s, "todo") < 0 && indexFold(s, "fixme") < 0 {
		return hit{}, false // the message needs one
	}
	for from := 0; from < len(s); {
		k := strings.Index(s[from:], "throw")
		if k < 0 {
			break
		}
		p := from + k
		from = p + 1
		if !isCodeAt(segs, p) {
			continue
		}
		if m := throwTodoRE.FindStringIndex(s[p:]); m != nil && hasMarker(s[p:p+m[1]]) {
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

// stubBody is swarm-gate's code-stub-body rule: code that says it is not
// written yet (B10). A call whose message says so (TODO, FIXME, stub, not
// implemented, ...: see stubWording) is one anywhere: panic("TODO"),
// panic!, raise or throw of any error with such a message. todo!() is one
// anywhere: its name is its message. unimplemented!(), raise
// NotImplementedError and throw new NotImplementedException() without such
// a message are one only as the whole body of a function (body is set;
// the caller checks): in an else branch they reject an unknown case.
// open is the number of brackets the line leaves open in the arguments of
// a call with a message (which may go on below).
func stubBody(s string, segs []segment, hints uint8) (h hit, body bool, open int, ok bool) {
	if hints&hintMacro != 0 {
		if k, _ := macroAt(s, segs, "todo"); k >= 0 {
			return hit{rule: rStubBody, col: k, what: "todo!"}, false, 0, true
		}
		if k, j := macroAt(s, segs, "unimplemented"); k >= 0 {
			h, worded, open := callMessage(s, segs, k, j)
			return h, !worded, open, true
		}
	}
	if hints&hintPanic != 0 {
		if k := keywordAt(s, segs, "panic"); k >= 0 {
			j := k + 5
			if j < len(s) && s[j] == '!' {
				j++
			}
			if h, worded, open := callMessage(s, segs, k, j); worded || open > 0 {
				return h, false, open, worded
			}
		}
	}
	if hints&hintRaise != 0 {
		if k := keywordAt(s, segs, "raise"); k >= 0 {
			if h, body, open, ok := raised(s, segs, k, skipSpace(s, k+5)); ok || open > 0 {
				return h, body, open, ok
			}
		}
	}
	if hints&hintThrow != 0 {
		if k := keywordAt(s, segs, "throw"); k >= 0 {
			j := skipSpace(s, k+5)
			if strings.HasPrefix(s[j:], "new") && !letterAt(s, j+3) {
				j = skipSpace(s, j+3)
			}
			return raised(s, segs, k, j)
		}
	}
	return hit{}, false, 0, false
}

// raised is stubBody for the raise or throw at k of the error named at j.
func raised(s string, segs []segment, k, j int) (h hit, body bool, open int, ok bool) {
	e := j
	for e < len(s) && (isWordByte(s[e]) || s[e] == '.') {
		e++
	}
	if e == j || e == k {
		return hit{}, false, 0, false
	}
	name := s[j:e]
	h, worded, open := callMessage(s, segs, k, e)
	if worded {
		return h, false, open, true
	}
	if strings.HasSuffix(name, "NotImplementedError") || strings.HasSuffix(name, "NotImplementedException") || strings.HasSuffix(name, "NotImplemented") {
		return hit{rule: rStubBody, col: k, what: s[k:e]}, true, open, true
	}
	return hit{}, false, open, false
}

// callMessage looks at the call whose name is s[k:j]: worded when a string
// in its arguments on this line says the code is not written (stubWording);
// open counts the brackets the line leaves open in them (the message may
// go on below). The hit spans the keyword to the call's end on the line.
func callMessage(s string, segs []segment, k, j int) (h hit, worded bool, open int) {
	h = hit{rule: rStubBody, col: k, what: s[k:j]}
	j = skipSpace(s, j)
	if j >= len(s) || s[j] != '(' {
		return h, false, 0
	}
	depth, e := 0, j
	for e < len(s) {
		if sg, ok := segAt(segs, e); ok {
			if sg.isStringKind() && stubWording(s[sg.start:sg.end]) {
				worded = true
			}
			e = sg.end
			continue
		}
		switch s[e] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
		e++
		if depth == 0 {
			break
		}
	}
	h.what = s[k:e]
	return h, worded, max(depth, 0)
}

// segAt returns the segment that holds byte p.
func segAt(segs []segment, p int) (segment, bool) {
	for _, sg := range segs {
		if sg.start <= p && p < sg.end {
			return sg, true
		}
	}
	return segment{}, false
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
		if (p == 0 || !isWordByte(s[p-1]) && s[p-1] != '.') && isCodeAt(segs, p) && (kw[len(kw)-1] == '!' || !letterAt(s, p+len(kw))) {
			return p
		}
	}
	return -1
}

// macroAt finds the Rust macro call name! in code, as rustc reads it: the
// name as a whole word (not after '.'), white space allowed before the
// '!' (`todo !()`), and a '(', '[' or '{' after it, or the line's end (so
// `todo != x` and TypeScript's `todo!.x` are no call). It returns the name's offset and the
// offset just after the '!', or -1.
func macroAt(s string, segs []segment, name string) (int, int) {
	for from := 0; from < len(s); {
		k := strings.Index(s[from:], name)
		if k < 0 {
			return -1, -1
		}
		p := from + k
		from = p + 1
		if p > 0 && (isWordByte(s[p-1]) || s[p-1] == '.') || !isCodeAt(segs, p) {
			continue
		}
		j := p + len(name)
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j >= len(s) || s[j] != '!' {
			continue
		}
		j++
		if d := skipSpace(s, j); d == len(s) || s[d] == '(' || s[d] == '[' || s[d] == '{' {
			return p, j
		}
	}
	return -1, -1
}

// stubWording reports whether a string literal says its code is not
// written: not implemented, not yet implemented, unimplemented or stub as
// whole words in any ASCII case, or TODO or FIXME as commentMarker takes
// them (so Spanish "todo" and "método" are not).
func stubWording(s string) bool {
	if notImplementedIn(s) >= 0 || hasMarker(s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 {
		case 'u', 's':
		default:
			continue
		}
		if !letterBefore(s, i) && (wordAt(s, i, "unimplemented") || wordAt(s, i, "stub")) {
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
	why     string // the reason as written, trimmed
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
			return suppressionMark{found: true, col: sg.start + p, why: strings.TrimSpace(why),
				reason:  strings.IndexFunc(why, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0,
				written: body[p:p+len(placeholderAllowMarker)] + " " + word}
		}
	}
	return suppressionMark{}
}
