package placeholder

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// lookbackLines is how far back the rules that need context look (the
// plugin's validation-pattern exemption looks 50 lines up).
const lookbackLines = 50

// lookback holds the previous lines of the current run, newest last. It
// keeps string headers only, never copies of the text.
type lookback struct {
	lines [lookbackLines]backLine
	n     int // lines held
	next  int // where the next line goes
}

func (b *lookback) push(l backLine) {
	b.lines[b.next] = l
	b.next = (b.next + 1) % lookbackLines
	b.n = min(b.n+1, lookbackLines)
}

// line returns the k-th previous line, 1 <= k <= n.
func (b *lookback) line(k int) *backLine {
	return &b.lines[(b.next-k+2*lookbackLines)%lookbackLines]
}

// at returns the text of the k-th previous line, 1 <= k <= n.
func (b *lookback) at(k int) string { return b.line(k).text }

// prevCode returns the nearest line with code from the k-th previous one
// up, and its place; nil when there is none in the lookback.
func (b *lookback) prevCode(k int) (int, *backLine) {
	for ; k <= b.n; k++ {
		if l := b.line(k); l.first >= 0 {
			return k, l
		}
	}
	return 0, nil
}

// opening finds, from the k-th previous line up, the '(' that leaves need
// more '(' than ')' open (the start of a signature over lines): its line's
// place, text and offset; -1 when it is not in the lookback.
func (b *lookback) opening(k, need int) (int, string, int) {
	for ; k <= b.n && need > 0; k++ {
		l := b.line(k)
		for i := l.last; i >= 0 && i >= l.first; i-- {
			switch l.text[i] {
			case ')':
				need++
			case '(':
				if need--; need == 0 {
					return k, l.text, i
				}
			}
		}
	}
	return 0, "", -1
}

func (b *lookback) clear() { b.n, b.next = 0, 0 }

// Options are a scan's settings, from the policy's placeholders section.
type Options struct {
	// Sentinels drop a finding when its excerpt (the line's first 100
	// UTF-16 code units) holds one, ignoring case; SC-PLACEHOLDER always
	// does.
	Sentinels []string
	// IgnoreMarkdownHeadings: a Markdown "# TODO:" heading is not a prose
	// marker.
	IgnoreMarkdownHeadings bool
	// FailProse makes a prose marker a failure (Finding.Warning false).
	FailProse bool
	// Disable lists rule ids (see Rules) that are not applied; unknown ids
	// and RuleSuppressionNoReason are ignored.
	Disable []string
}

// scanOptions are a scan's settings, from Options.
type scanOptions struct {
	sentinels []string // lowercased; SC-PLACEHOLDER first
	named     []string // sentinels as written, for the suppression's reason
	headings  bool     // Markdown '#' headings are comments (plugin parity)
	failProse bool     // prose markers fail (placeholders.prose: fail)
	off       [numPhRules]bool
}

func newScanOptions(c Options) *scanOptions {
	o := &scanOptions{headings: !c.IgnoreMarkdownHeadings, failProse: c.FailProse, sentinels: []string{strings.ToLower(placeholderDefaultSentinel)}, named: []string{placeholderDefaultSentinel}}
	for _, s := range c.Sentinels {
		o.sentinels = append(o.sentinels, strings.ToLower(s))
		o.named = append(o.named, s)
	}
	for _, id := range c.Disable {
		for r, known := range phRuleIDs {
			if id == known && phRule(r) != rSuppression {
				o.off[r] = true
			}
		}
	}
	return o
}

// Finding is a rule's match on a line of the current file.
type Finding struct {
	Line   int // 1-based
	Column int // 1-based, in UTF-16 code units (a BOM is one)
	Rule   string
	// Warning: a note in a document's prose (unless Options.FailProse),
	// not a failure.
	Warning bool
	// Message says what matched and quotes the line's excerpt, with what
	// looks like a credential masked (sast.MaskLine).
	Message string
	// Key is the rule and the trimmed line, joined by a NUL byte: the same
	// line holds the same finding wherever it moves.
	Key string
}

// Suppression is one line whose findings an inline
// `swarm-gate:allow placeholder <reason>` dropped: the ids of the rules
// it dropped and the reason as written (comment closers trimmed).
type Suppression struct {
	Line   int
	Rules  []string
	Reason string
}

// Scanner applies the rules to the added lines of one file at a time,
// streaming: it holds the lexer state and the last lines, never a whole
// file. File starts a file; it is then scanned either whole (Whole: every
// line from the top of the head content down to the last added line is
// lexed, and the rules run on the added lines) or run by run (Line: each
// run of consecutive added lines is lexed on its own, from the code state,
// and Finish ends it); All scans every line of a content. Findings and
// Suppressions are the current file's. A Scanner is not safe for
// concurrent use.
type Scanner struct {
	opt  *scanOptions
	fam  *family
	plan bool // .swarm/plan.md: the template-bracket rules only
	lx   lexer
	last int // the previous line's number (0: none yet)
	back lookback
	hits []hit
	pend pendingBody // a stub candidate waiting for the code after it
	held pendingBody // the current line's candidate, until its suppression check
	call int         // brackets left open by a raise, throw or panic whose message may go on below
	out  []Finding
	// suppressed are the lines whose findings a marker with a reason
	// dropped.
	suppressed []Suppression
}

// NewScanner returns a scanner with the settings of opt.
func NewScanner(opt Options) *Scanner {
	return &Scanner{opt: newScanOptions(opt)}
}

// Findings are the current file's findings, in line order (a line's by
// column). The slice is the scanner's: valid until the next call to File.
func (sc *Scanner) Findings() []Finding { return sc.out }

// Suppressions are the current file's suppressed lines, in the order
// scanned; as Findings, valid until the next call to File.
func (sc *Scanner) Suppressions() []Suppression { return sc.suppressed }

// utf8BOM is a byte order mark, which only the first line of a file may
// start with: it is no part of the line's syntax, and counts as one UTF-16
// code unit in columns (as in swarm/sast).
const utf8BOM = "\ufeff"

// File starts the next file, at path (its family is by its name: see
// IsDocument), dropping the previous file's findings and suppressions;
// plan selects the template-bracket rules of .swarm/plan.md (and only
// those).
func (sc *Scanner) File(path string, plan bool) {
	sc.plan, sc.last = plan, 0
	sc.fam = familyOf(path)
	if plan {
		sc.fam = famMD
	}
	sc.pend, sc.held, sc.call = pendingBody{}, pendingBody{}, 0
	sc.out, sc.suppressed = sc.out[:0], sc.suppressed[:0]
}

// Line scans added line n (1-based; text without its line end) of the
// current file, lexed run by run: lines must come in ascending order, and
// a gap in the numbers starts a new run, lexed from the code state (a run
// that does not start the file may be taken as inside a block comment:
// see lexer.guessBlock).
func (sc *Scanner) Line(n int, text string) {
	if sc.last == 0 || n != sc.last+1 {
		sc.Finish(false)
		sc.lx.reset(sc.fam, sc.opt.headings)
		sc.back.clear()
		if n > 1 {
			sc.lx.guessBlock(text)
		}
	}
	sc.last = n
	sc.scan(n, text)
}

// Finish ends the current run or file: a candidate still waiting for the
// code after it is a stub when the file ends there (eof) and it is
// Python's (a def's body ends with its file); otherwise what follows it is
// not known, and it is dropped.
func (sc *Scanner) Finish(eof bool) {
	if sc.pend.on && eof && sc.pend.py && sc.pend.depth == 0 {
		sc.emitPending()
	}
	sc.pend.on, sc.call = false, 0
}

// Whole scans the added lines of the current file with its head content:
// every line from the first down to the last added one is lexed, and the
// rules run on the added lines only; lines below are lexed while a stub
// candidate waits for the code after it. Lines are split as the change
// set's are: on "\n", without one "\r" before it. It returns false, with no
// findings for the file, when the content does not hold the added lines as
// given (the caller then scans run by run, Line and Finish); suppressions
// of the lines scanned before the mismatch are kept.
func (sc *Scanner) Whole(content string, added []changeset.AddedLine) bool {
	mark := len(sc.out)
	sc.lx.reset(sc.fam, sc.opt.headings)
	sc.back.clear()
	pos, n := 0, 0
	next := func() string {
		var text string
		if e := strings.IndexByte(content[pos:], '\n'); e >= 0 {
			text, pos = content[pos:pos+e], pos+e+1
		} else {
			text, pos = content[pos:], len(content)
		}
		n++
		return strings.TrimSuffix(text, "\r") // as in changeset.AddedLine.Text
	}
	for k := 0; k < len(added); {
		if pos >= len(content) {
			sc.out, sc.pend.on = sc.out[:mark], false
			return false
		}
		text := next()
		switch al := &added[k]; {
		case al.Line > n:
			sc.context(n, text)
		case al.Line == n && al.Text == text:
			sc.scan(n, text)
			k++
		default:
			sc.out, sc.pend.on = sc.out[:mark], false
			return false
		}
	}
	for sc.pend.on && pos < len(content) {
		text := next()
		sc.context(n, text)
	}
	sc.Finish(pos >= len(content))
	sc.last = n
	return true
}

// All scans every line of content as if added (the merge-base side of a
// file, for the moved-lines check), and finishes the file.
func (sc *Scanner) All(content string) {
	sc.lx.reset(sc.fam, sc.opt.headings)
	sc.back.clear()
	n := 0
	for pos := 0; pos < len(content); {
		text := content[pos:]
		if e := strings.IndexByte(text, '\n'); e >= 0 {
			text, pos = text[:e], pos+e+1
		} else {
			pos = len(content)
		}
		n++
		sc.scan(n, strings.TrimSuffix(text, "\r"))
	}
	sc.Finish(true)
	sc.last = n
}

// context lexes line n, which the pull request does not add, for the
// state it leaves (an open comment or string, a stub candidate above
// decided) and for the rules that look at the lines above.
func (sc *Scanner) context(n int, text string) {
	if n == 1 {
		text = strings.TrimPrefix(text, utf8BOM)
	}
	segs, _ := sc.lx.line(text)
	first, last := codeBounds(text, segs)
	if sc.pend.on && first >= 0 {
		sc.follow(text, segs)
	}
	if sc.call > 0 {
		sc.callLine(text, segs, false)
	}
	sc.back.push(backLine{text: text, first: first, last: last})
}

// follow lets the code of a lexed line decide the pending candidate.
func (sc *Scanner) follow(body string, segs []segment) {
	if decided, stub := sc.pend.follow(body, segs, 0); decided {
		sc.pend.on = false
		if stub {
			sc.emitPending()
		}
	}
}

// emitPending reports the pending candidate, a stub, in line order among
// the file's findings.
func (sc *Scanner) emitPending() {
	pb := &sc.pend
	sc.emit(pb.n, pb.text, pb.off, []hit{pb.h})
	for i := len(sc.out) - 1; i > 0 && sc.out[i-1].Line > sc.out[i].Line; i-- {
		sc.out[i-1], sc.out[i] = sc.out[i], sc.out[i-1]
	}
}

// scan lexes added line n and applies the rules to it.
func (sc *Scanner) scan(n int, text string) {
	off := 0
	if n == 1 && strings.HasPrefix(text, utf8BOM) {
		off = len(utf8BOM)
	}
	body := text[off:]
	sc.hits = sc.hits[:0]
	sc.held.on = false
	segs, code := sc.lx.line(body)
	first, last := codeBounds(body, segs)
	if sc.pend.on && first >= 0 {
		sc.follow(body, segs)
	}
	switch {
	case sc.plan:
		sc.hits = planMarkers(body, sc.hits)
	case sc.fam.markdown && !code: // an MDX import/export block is code
		if sc.lx.prose {
			if h, ok := proseMarker(body, sc.opt.headings); ok {
				sc.hits = append(sc.hits, h)
			}
		}
	default:
		sc.codeLine(n, text, off, segs, code)
	}
	if sup := findSuppression(body, segs); sup.found {
		switch {
		case sup.written != placeholderAllowMarker+" placeholder":
			sc.out = append(sc.out, Finding{Line: n, Column: utf16Col(text, off+sup.col) + 1, Rule: RuleSuppressionNoReason,
				Message: fmt.Sprintf("`%s` is not a suppression marker and suppresses nothing: the marker is exactly `swarm-gate:allow placeholder <reason>` (lowercase, singular)", sup.written),
				Key:     key(RuleSuppressionNoReason, strings.TrimSpace(body))})
		case sup.reason:
			if len(sc.hits) > 0 || sc.held.on {
				rules := make([]string, 0, len(sc.hits)+1)
				for _, h := range sc.hits {
					if !sc.opt.off[h.rule] && !slices.Contains(rules, phRuleIDs[h.rule]) {
						rules = append(rules, phRuleIDs[h.rule])
					}
				}
				if sc.held.on && !slices.Contains(rules, RuleCodeStubBody) {
					rules = append(rules, RuleCodeStubBody)
				}
				if len(rules) > 0 {
					sc.suppressed = append(sc.suppressed, Suppression{Line: n, Rules: rules, Reason: sup.why})
				}
			}
			sc.hits, sc.held.on = sc.hits[:0], false
		default:
			sc.out = append(sc.out, Finding{Line: n, Column: utf16Col(text, off+sup.col) + 1, Rule: RuleSuppressionNoReason,
				Message: "`swarm-gate:allow placeholder` without a reason suppresses nothing; say why after it, e.g. `swarm-gate:allow placeholder sample data for the docs`",
				Key:     key(RuleSuppressionNoReason, strings.TrimSpace(body))})
		}
	}
	if len(sc.hits) > 0 {
		sc.emit(n, text, off, sc.hits)
	}
	if sc.held.on {
		sc.pend = sc.held
	}
	sc.back.push(backLine{text: body, first: first, last: last})
}

// codeLine collects the comment, string and code rules' hits of added line
// n (text; text[off:] lexed as segs).
func (sc *Scanner) codeLine(n int, text string, off int, segs []segment, code bool) {
	body := text[off:]
	commented := false
	for _, sg := range segs {
		if sg.isCommentKind() {
			h, ok := commentMarker(body[sg.start:sg.end])
			if !ok {
				h, ok = hiddenMarker(body[sg.start:sg.end])
			}
			if ok {
				h.col += sg.start
				sc.hits = append(sc.hits, h)
				commented = true
			}
		}
		if sg.isStringKind() {
			h, ok := stringMarker(body, sg)
			if !ok {
				h, ok = hiddenStringMarker(body, sg)
			}
			if ok {
				sc.hits = append(sc.hits, h)
			}
		}
	}
	if !code {
		return
	}
	if sc.call > 0 {
		sc.callLine(body, segs, true)
	}
	if hints := codeHints(body); hints != 0 && !isTestLike(body) {
		pluginCode := false
		if hints&hintThrow != 0 {
			if h, ok := throwTodo(body, segs); ok {
				sc.hits = append(sc.hits, h)
				pluginCode = true
			}
		}
		if hints&hintReturn != 0 {
			sc.stubReturn(n, text, off, segs)
		}
		if !pluginCode {
			h, whole, depth, ok := stubBody(body, segs, hints)
			switch {
			case ok && !whole:
				sc.hits = append(sc.hits, h)
			case ok && sc.wholeBody(n, text, off, segs, h, h.col, h.col+len(h.what), true):
				sc.hits = append(sc.hits, h)
			}
			if depth > 0 && !(ok && !whole) {
				sc.call = depth // its message may say so below
			}
		}
	}
	if commented && sc.fam == famPython {
		if k, ok := isPythonPass(body, segs); ok {
			sc.hits = append(sc.hits, hit{rule: rStubBody, col: k, what: strings.TrimSpace(body[k:])})
		}
	}
}

// stubReturn is the code-stub-return rule: a candidate (stubReturnAt) that
// is the whole body of its function (B08), the plugin's validation-pattern
// exemption of return undefined; aside.
func (sc *Scanner) stubReturn(n int, text string, off int, segs []segment) {
	body := text[off:]
	for from := 0; from < len(body); {
		p, end, ok := stubReturnAt(body, segs, from)
		if !ok {
			return
		}
		from = end
		h := hit{rule: rStubReturn, col: p, what: body[p:end]}
		if strings.Contains(h.what, "undefined") && isValidationPattern(&sc.back) {
			continue
		}
		if sc.wholeBody(n, text, off, segs, h, p, end, false) {
			sc.hits = append(sc.hits, h)
			return
		}
		if sc.held.on {
			return
		}
	}
}

// callLine reads a line inside the arguments of a raise, throw or panic
// whose message goes on below its line: a string there saying the code is
// not written is a stub-body hit (when the line is added).
func (sc *Scanner) callLine(body string, segs []segment, added bool) {
	k := 0
	for i := 0; i < len(body) && sc.call > 0; i++ {
		for k < len(segs) && segs[k].end <= i {
			k++
		}
		if k < len(segs) && segs[k].start <= i {
			sg := segs[k]
			if added && sg.isStringKind() && stubWording(body[sg.start:sg.end]) && !seenRule(sc.hits, rStubBody) {
				sc.hits = append(sc.hits, hit{rule: rStubBody, col: sg.start, what: strings.TrimSpace(body[sg.start:sg.end])})
			}
			i = sg.end - 1
			continue
		}
		switch body[i] {
		case '(', '[', '{':
			sc.call++
		case ')', ']', '}':
			sc.call--
		}
	}
}

// emit turns a line's hits into findings: ordered by column, one per rule,
// a string rule's hit dropped for a code rule's, without rules the policy
// turned off, and none when the excerpt (the line's first 100 UTF-16 code
// units, as the plugin's) holds a sentinel. Hit offsets are into
// text[off:]; columns count UTF-16 code units of the whole line. The
// message quotes the line with what looks like a credential masked; the
// key is the rule and the trimmed line, as the moved-lines check matches
// findings.
func (sc *Scanner) emit(n int, text string, off int, hits []hit) {
	for i := 1; i < len(hits); i++ { // insertion sort: a handful of hits
		for j := i; j > 0 && hits[j].col < hits[j-1].col; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	coded := seenRule(hits, rStubBody) || seenRule(hits, rThrowTodo)
	shown, checked := "", false
	for i, h := range hits {
		if sc.opt.off[h.rule] || seenRule(hits[:i], h.rule) || h.rule == rText && coded {
			continue
		}
		if !checked {
			checked = true
			lower := strings.ToLower(excerptOf(text))
			for si, s := range sc.opt.sentinels {
				if strings.Contains(lower, s) {
					sc.sentinelSuppressed(n, hits, coded, si)
					return
				}
			}
			shown = shownExcerpt(text[off:])
		}
		sc.out = append(sc.out, Finding{Line: n, Column: utf16Col(text, off+h.col) + 1, Rule: phRuleIDs[h.rule],
			Warning: h.warn && !sc.opt.failProse, Message: hitMessage(h, shown), Key: key(phRuleIDs[h.rule], strings.TrimSpace(text[off:]))})
	}
}

// sentinelSuppressed records that sentinel si dropped the findings of
// line n, as a marker with a reason does, so that the drop is shown (the
// plugin drops them unseen).
func (sc *Scanner) sentinelSuppressed(n int, hits []hit, coded bool, si int) {
	var rules []string
	for _, h := range hits {
		if !sc.opt.off[h.rule] && !(h.rule == rText && coded) && !slices.Contains(rules, phRuleIDs[h.rule]) {
			rules = append(rules, phRuleIDs[h.rule])
		}
	}
	why := "the line holds the policy's sentinel " + sc.opt.named[si] + " (placeholders.sentinels)"
	if si == 0 {
		why = "the line holds the plugin's sentinel " + placeholderDefaultSentinel
	}
	sc.suppressed = append(sc.suppressed, Suppression{Line: n, Rules: rules, Reason: why})
}

// key is a finding's Key: the rule and what it is about (the trimmed
// line), as the gates key their findings.
func key(rule, about string) string { return rule + "\x00" + about }

// clipN cuts s to n runes, the last three an ellipsis.
func clipN(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return s
}

func seenRule(hits []hit, r phRule) bool {
	for _, h := range hits {
		if h.rule == r {
			return true
		}
	}
	return false
}

// hitMessage is a finding's message: what matched, and the excerpt (already
// masked).
func hitMessage(h hit, excerpt string) string {
	what := h.what
	if mayHoldSecret(what) {
		what = sast.MaskLine(what)
	}
	what = clipN(what, 60)
	switch h.rule {
	case rCommentTodo, rCommentFixme, rCommentOther:
		if h.hidden != "" {
			return fmt.Sprintf("%s comment on an added line, the word split by an invisible %s (hidden from a reader and a search): %s", strings.ToUpper(what), h.hidden, excerpt)
		}
		return fmt.Sprintf("%s comment on an added line: %s", strings.ToUpper(what), excerpt)
	case rText:
		if h.hidden != "" {
			return fmt.Sprintf("placeholder text %q in a string on an added line, the word split by an invisible %s (hidden from a reader and a search): %s", what, h.hidden, excerpt)
		}
		return fmt.Sprintf("placeholder text %q in a string on an added line: %s", what, excerpt)
	case rThrowTodo:
		return "throws a TODO error on an added line: " + excerpt
	case rStubReturn:
		return fmt.Sprintf("stub return %s on an added line: %s", what, excerpt)
	case rStubBody:
		return fmt.Sprintf("stub body %s on an added line: %s", what, excerpt)
	default: // plan brackets
		return fmt.Sprintf("template placeholder %s left in the plan on an added line: %s", what, excerpt)
	}
}

// maxMaskedLine bounds how much of a long line is masked before its
// excerpt is cut: credentials further in cannot reach the excerpt.
const maxMaskedLine = 64 << 10

// shownExcerpt is the excerpt a message quotes: the line with what looks
// like a credential masked (sast.MaskLine), then cut to 100 UTF-16 code
// units and trimmed.
func shownExcerpt(s string) string {
	if len(s) > maxMaskedLine {
		s = s[:maxMaskedLine]
	}
	if mayHoldSecret(s) {
		s = sast.MaskLine(s)
	}
	return strings.TrimSpace(excerptOf(s))
}

// secretHints are words one of which every value sast.MaskLine masks comes
// with (its patterns' names, api_key ... credential, and token prefixes,
// sk_live_ ... eyJ), lowercase: a prefilter, since MaskLine's regular
// expressions cost microseconds a line. FuzzPlaceholderScanner checks that
// MaskLine leaves a line without one unchanged.
var secretHints = [...]string{"key", "pass", "secret", "token", "auth", "credential", "sk_", "pk_", "rk_", "gh", "github_pat_", "akia", "xox", "aiza", "eyj"}

// mayHoldSecret reports whether sast.MaskLine may change s: s has a
// non-ASCII byte (Unicode case folding: "ſecret" matches secret), or one of
// secretHints in any ASCII case.
func mayHoldSecret(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	for _, h := range secretHints {
		if indexFold(s, h) >= 0 {
			return true
		}
	}
	return false
}

// excerptLen is the plugin's excerpt length: line.slice(0, 100), in UTF-16
// code units.
const excerptLen = 100

// excerptOf is the plugin's excerpt: the line cut at 100 UTF-16 code units
// (a character that would straddle the cut is left out).
func excerptOf(s string) string {
	n := 0
	for i := 0; i < len(s); {
		w, u := 1, 1
		if s[i] >= 0x80 {
			w, u = utf16Step(s[i:])
		}
		if n+u > excerptLen {
			return s[:i]
		}
		n += u
		i += w
	}
	return s
}

// utf16Col is the number of UTF-16 code units in s[:off], as JavaScript
// counts the string Node decodes from the bytes (and swarm/sast): a
// character beyond U+FFFF is two, and each maximal ill-formed UTF-8
// subsequence becomes one U+FFFD. A BOM is one.
func utf16Col(s string, off int) int {
	s = s[:off]
	n := 0
	for i := 0; i < len(s); {
		if s[i] < 0x80 {
			n++
			i++
			continue
		}
		w, u := utf16Step(s[i:])
		n += u
		i += w
	}
	return n
}

// utf16Step decodes the non-ASCII character at the start of s: its width
// in bytes and in UTF-16 code units. An ill-formed sequence is its maximal
// subpart (the WHATWG UTF-8 decoder's U+FFFD), one unit.
func utf16Step(s string) (w, units int) {
	r, w := utf8.DecodeRuneInString(s)
	if r != utf8.RuneError || w > 1 {
		if r > 0xffff {
			return w, 2
		}
		return w, 1
	}
	return sast.IllFormedPrefix(s), 1
}
