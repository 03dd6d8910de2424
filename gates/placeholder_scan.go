package gates

import (
	"fmt"
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
	lines [lookbackLines]string
	n     int // lines held
	next  int // where the next line goes
}

func (b *lookback) push(s string) {
	b.lines[b.next] = s
	b.next = (b.next + 1) % lookbackLines
	b.n = min(b.n+1, lookbackLines)
}

// at returns the k-th previous line, 1 <= k <= n.
func (b *lookback) at(k int) string {
	return b.lines[(b.next-k+2*lookbackLines)%lookbackLines]
}

func (b *lookback) clear() { b.n, b.next = 0, 0 }

// scanOptions are a scan's settings, from the policy.
type scanOptions struct {
	sentinels []string // lowercased; SC-PLACEHOLDER first
	headings  bool     // Markdown '#' headings are comments (plugin parity)
	off       [numPhRules]bool
}

func newScanOptions(c PlaceholdersConfig) *scanOptions {
	o := &scanOptions{headings: !c.IgnoreMarkdownHeadings, sentinels: []string{strings.ToLower(placeholderDefaultSentinel)}}
	for _, s := range c.Sentinels {
		o.sentinels = append(o.sentinels, strings.ToLower(s))
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

// lineScanner applies the rules to the added lines of one file at a time,
// streaming: it holds the lexer state and the last lines, never a whole
// file. A file is scanned either whole (whole: every line from the top of
// the head content down to the last added line is lexed, and the rules run
// on the added lines) or run by run (line: each run of consecutive added
// lines is lexed on its own, from the code state).
type lineScanner struct {
	opt  *scanOptions
	path string
	fam  *family
	plan bool // .swarm/plan.md: the template-bracket rules only
	lx   lexer
	last int // the previous line's number (0: none yet)
	back lookback
	hits []hit
	out  []Finding
}

// utf8BOM is a byte order mark, which only the first line of a file may
// start with: it is no part of the line's syntax, and counts as one UTF-16
// code unit in columns (as in swarm/sast).
const utf8BOM = "\ufeff"

// file starts the next file; plan selects the plan.md rules.
func (sc *lineScanner) file(path string, plan bool) {
	sc.path, sc.plan, sc.last = path, plan, 0
	sc.fam = familyOf(path)
	if plan {
		sc.fam = famMD
	}
}

// line scans added line n of the current file, lexed run by run: lines
// must come in ascending order, and a gap in the numbers starts a new run,
// lexed from the code state (a run that does not start the file may be
// taken as inside a block comment: see lexer.guessBlock).
func (sc *lineScanner) line(n int, text string) {
	if sc.last == 0 || n != sc.last+1 {
		sc.lx.reset(sc.fam, sc.opt.headings)
		sc.back.clear()
		if n > 1 {
			sc.lx.guessBlock(text)
		}
	}
	sc.last = n
	sc.scan(n, text)
}

// whole scans the added lines of the current file with its head content:
// every line from the first down to the last added one is lexed, and the
// rules run on the added lines only. Lines are split as the change set's
// are: on "\n", without one "\r" before it. It returns false, with no findings
// for the file, when the content does not hold the added lines as given
// (the caller then scans run by run).
func (sc *lineScanner) whole(content string, added []changeset.AddedLine) bool {
	mark := len(sc.out)
	sc.lx.reset(sc.fam, sc.opt.headings)
	sc.back.clear()
	pos, n := 0, 0
	for k := 0; k < len(added); {
		if pos >= len(content) {
			sc.out = sc.out[:mark]
			return false
		}
		var text string
		if e := strings.IndexByte(content[pos:], '\n'); e >= 0 {
			text, pos = content[pos:pos+e], pos+e+1
		} else {
			text, pos = content[pos:], len(content)
		}
		text = strings.TrimSuffix(text, "\r") // as in changeset.AddedLine.Text
		n++
		switch al := &added[k]; {
		case al.Line > n:
			sc.context(n, text)
		case al.Line == n && al.Text == text:
			sc.scan(n, text)
			k++
		default:
			sc.out = sc.out[:mark]
			return false
		}
	}
	sc.last = n
	return true
}

// context lexes line n, which the pull request does not add, for the
// state it leaves (an open comment or string) and for the rules that look
// at the lines above.
func (sc *lineScanner) context(n int, text string) {
	if n == 1 {
		text = strings.TrimPrefix(text, utf8BOM)
	}
	sc.lx.line(text)
	sc.back.push(text)
}

// scan lexes added line n and applies the rules to it.
func (sc *lineScanner) scan(n int, text string) {
	off := 0
	if n == 1 && strings.HasPrefix(text, utf8BOM) {
		off = len(utf8BOM)
	}
	body := text[off:]
	sc.hits = sc.hits[:0]
	segs, code := sc.lx.line(body)
	if sc.plan {
		sc.hits = planMarkers(body, sc.hits)
	} else {
		sc.codeLine(body, segs, code)
	}
	if sup := findSuppression(body, segs); sup.found {
		switch {
		case sup.written != placeholderAllowMarker+" placeholder":
			sc.out = append(sc.out, Finding{Path: sc.path, Line: n, EndLine: n, Column: utf16Col(text, off+sup.col) + 1, Rule: RuleSuppressionNoReason, Severity: SeverityError,
				Message: fmt.Sprintf("`%s` is not a suppression marker and suppresses nothing: the marker is exactly `swarm-gate:allow placeholder <reason>` (lowercase, singular)", sup.written)})
		case sup.reason:
			sc.hits = sc.hits[:0]
		default:
			sc.out = append(sc.out, Finding{Path: sc.path, Line: n, EndLine: n, Column: utf16Col(text, off+sup.col) + 1, Rule: RuleSuppressionNoReason, Severity: SeverityError,
				Message: "`swarm-gate:allow placeholder` without a reason suppresses nothing; say why after it, e.g. `swarm-gate:allow placeholder sample data for the docs`"})
		}
	}
	if len(sc.hits) > 0 {
		sc.emit(n, text, off)
	}
	sc.back.push(body)
}

// codeLine collects the comment, string and code rules' hits of a lexed line.
func (sc *lineScanner) codeLine(text string, segs []segment, code bool) {
	commented := false
	for _, sg := range segs {
		body := text[sg.start:sg.end]
		if sg.isCommentKind() {
			if h, ok := commentMarker(body); ok {
				h.col += sg.start
				sc.hits = append(sc.hits, h)
				commented = true
			}
		}
		if sg.isStringKind() {
			if h, ok := stringMarker(body, sg.quote); ok {
				h.col += sg.start
				sc.hits = append(sc.hits, h)
			}
		}
	}
	if !code {
		return
	}
	if hints := codeHints(text); hints != 0 && !isTestLike(text) {
		pluginCode := false
		if hints&hintThrow != 0 {
			if h, ok := throwTodo(text, segs); ok {
				sc.hits = append(sc.hits, h)
				pluginCode = true
			}
		}
		if hints&hintReturn != 0 {
			if h, ok := stubReturn(text, segs, &sc.back); ok {
				sc.hits = append(sc.hits, h)
			}
		}
		if !pluginCode {
			if h, ok := stubBody(text, segs, &sc.back, hints); ok {
				sc.hits = append(sc.hits, h)
			}
		}
	}
	if commented && sc.fam == famPython {
		if k, ok := isPythonPass(text, segs); ok {
			sc.hits = append(sc.hits, hit{rule: rStubBody, col: k, what: strings.TrimSpace(text[k:])})
		}
	}
}

// emit turns the line's hits into findings: ordered by column, one per
// rule, without rules the policy turned off, and none when the excerpt
// (the line's first 100 UTF-16 code units, as the plugin's) holds a
// sentinel. Hit offsets are into text[off:]; columns count UTF-16 code
// units of the whole line. The message quotes the line with what looks
// like a credential masked.
func (sc *lineScanner) emit(n int, text string, off int) {
	hits := sc.hits
	for i := 1; i < len(hits); i++ { // insertion sort: a handful of hits
		for j := i; j > 0 && hits[j].col < hits[j-1].col; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	shown, checked := "", false
	for i, h := range hits {
		if sc.opt.off[h.rule] || seenRule(hits[:i], h.rule) {
			continue
		}
		if !checked {
			checked = true
			lower := strings.ToLower(excerptOf(text))
			for _, s := range sc.opt.sentinels {
				if strings.Contains(lower, s) {
					return
				}
			}
			shown = shownExcerpt(text[off:])
		}
		sc.out = append(sc.out, Finding{Path: sc.path, Line: n, EndLine: n, Column: utf16Col(text, off+h.col) + 1, Rule: phRuleIDs[h.rule],
			Severity: SeverityError, Message: hitMessage(h, shown)})
	}
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
		return fmt.Sprintf("%s comment on an added line: %s", strings.ToUpper(what), excerpt)
	case rText:
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
