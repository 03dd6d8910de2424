package gates

import (
	"fmt"
	"strings"
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
// streaming: it holds the lexer state and the last lines of the current
// run, never a whole file. Lines must come in ascending order; a gap in
// the numbers starts a new run, lexed from the code state.
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

// file starts the next file; plan selects the plan.md rules.
func (sc *lineScanner) file(path string, plan bool) {
	sc.path, sc.plan, sc.last = path, plan, 0
	sc.fam = familyOf(path)
}

// line scans added line n of the current file.
func (sc *lineScanner) line(n int, text string) {
	if sc.last == 0 || n != sc.last+1 {
		sc.lx.reset(sc.fam, sc.opt.headings, text)
		sc.back.clear()
	}
	sc.last = n
	sc.hits = sc.hits[:0]
	if sc.plan {
		sc.hits = planMarkers(text, sc.hits)
	} else {
		sc.codeLine(text)
	}
	if strings.Contains(text, placeholderAllowMarker) {
		if found, reason, col := suppression(text); found {
			if reason {
				sc.hits = sc.hits[:0]
			} else {
				sc.out = append(sc.out, Finding{Path: sc.path, Line: n, EndLine: n, Column: col + 1, Rule: RuleSuppressionNoReason, Severity: SeverityError,
					Message: "`swarm-gate:allow placeholder` without a reason suppresses nothing; say why after it, e.g. `swarm-gate:allow placeholder sample data for the docs`"})
			}
		}
	}
	if len(sc.hits) > 0 {
		sc.emit(n, text)
	}
	sc.back.push(text)
}

// codeLine lexes a line and collects the comment, string and code rules' hits.
func (sc *lineScanner) codeLine(text string) {
	segs, code := sc.lx.line(text)
	commented := false
	for _, sg := range segs {
		body := text[sg.start:sg.end]
		if sg.kind != segString {
			if h, ok := commentMarker(body); ok {
				h.col += sg.start
				sc.hits = append(sc.hits, h)
				commented = true
			}
		}
		if sg.kind != segComment {
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
// holds a sentinel (as in the plugin).
func (sc *lineScanner) emit(n int, text string) {
	hits := sc.hits
	for i := 1; i < len(hits); i++ { // insertion sort: a handful of hits
		for j := i; j > 0 && hits[j].col < hits[j-1].col; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	excerpt := excerptOf(text)
	checked := false
	for i, h := range hits {
		if sc.opt.off[h.rule] || seenRule(hits[:i], h.rule) {
			continue
		}
		if !checked {
			checked = true
			lower := strings.ToLower(excerpt)
			for _, s := range sc.opt.sentinels {
				if strings.Contains(lower, s) {
					return
				}
			}
		}
		sc.out = append(sc.out, Finding{Path: sc.path, Line: n, EndLine: n, Column: h.col + 1, Rule: phRuleIDs[h.rule],
			Severity: SeverityError, Message: hitMessage(h, strings.TrimSpace(excerpt))})
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

// hitMessage is a finding's message: what matched, and the excerpt.
func hitMessage(h hit, excerpt string) string {
	what := clipN(h.what, 60)
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

// excerptOf is the plugin's excerpt: the line cut at 100 characters.
func excerptOf(s string) string {
	n := 0
	for i := range s {
		if n == 100 {
			return s[:i]
		}
		n++
	}
	return s
}
