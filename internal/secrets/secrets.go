// Package secrets finds credentials on the lines a pull request adds, with
// gitleaks' default detection rules (github.com/zricethezav/gitleaks/v8,
// its config package and embedded gitleaks.toml) used as a library: the
// rules' regular expressions, entropy thresholds, secret groups and
// allowlists are gitleaks'; the scanning around them is ours, so that only
// added lines are read and only lines holding one of a rule's keywords run
// its expression.
//
// Two things differ from gitleaks' detector on purpose: a
// "gitleaks:allow" comment does not hide a finding (whoever adds the secret
// can add the comment), and a rule that can only match within one line is
// run on single lines, not on whole hunks (see Scanner.ScanLines).
package secrets

import (
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// GitleaksVersion is the gitleaks module whose default rules are used.
const GitleaksVersion = "v8.30.1"

// Limits of one scan. Findings past MaxPerFile in one file are counted,
// not returned (ScanLines' omitted).
const (
	MaxPerFile = 100
	// Multi-line rules run on windows of consecutive added lines: at most
	// ChunkLines lines or ChunkBytes bytes each, consecutive windows
	// sharing ChunkOverlap lines, so that a match across a window's edge
	// is still found whole while the text one expression reads stays
	// bounded.
	ChunkLines   = 5000
	ChunkBytes   = 1 << 20
	ChunkOverlap = 200
)

// Line is one line to scan: N is its 1-based line number in the file,
// Text the line without its terminator.
type Line struct {
	N    int
	Text string
}

// Finding is one credential found. Secret is the raw value: it must never
// be shown (use Excerpt, which has it masked, or Mask).
type Finding struct {
	// RuleID is gitleaks' rule id, e.g. "aws-access-token".
	RuleID      string
	Description string
	// Line and EndLine are the 1-based lines the match starts and ends on
	// (equal for a one-line match); Column is the 1-based byte column of
	// the match's start on Line.
	Line, EndLine, Column int
	// Secret is the value the rule's secret group captured (the whole
	// match for rules without one).
	Secret string
	// Excerpt is the text of Line with the secret, and every other copy
	// of it, masked (Mask).
	Excerpt string
	// Entropy is the secret's Shannon entropy in bits per character.
	Entropy float64
	// Note says why the finding was dismissed ("" when it was not).
	Note string
}

// rule is one gitleaks rule prepared for scanning.
type rule struct {
	config.Rule
	// multiline is true when the expression is written to match across
	// lines (a private key block, a curl command continued on the next
	// line): it is run on windows of consecutive lines instead of single
	// lines.
	multiline bool
	// breaks is true for a rule not written to span lines whose
	// expression still lets a line break stand where it allows white
	// space ([\s'"]{0,3} between a name and its value): gitleaks, run on
	// the whole added text, finds a value on the line after its name, so
	// such a rule also runs on a keyword line joined with the next few.
	breaks bool
	// cross, for a rule that breaks, matches every line that starts a
	// match going on past the line's end (crossCheck); a line it does
	// not match is not joined with the next.
	cross   *crossFilter
	generic bool
	// minLen is the fewest bytes a match can have: a line shorter than
	// that cannot match, so the expression is not run on it.
	minLen int
	// pre is the expression with its counted repetitions loosened (see
	// relax): it matches wherever the rule's does, and being far smaller
	// it runs on a line much faster (Go's backtracker rather than its
	// NFA). A line it does not match is not given to the rule's own
	// expression. Nil when loosening changes nothing.
	pre *regexp.Regexp
	// lead, when not nil, is pre's leading literals: on an ASCII line
	// pre is tried only where one of them occurs.
	lead *lead
	// need, for a multi-line rule, is what every match holds (newNeeds):
	// a window without it is not given to the expression.
	need needs
}

// Scanner holds the prepared rules. It is safe for concurrent use.
type Scanner struct {
	rules  []*rule
	global []*config.Allowlist
	// globalPaths is each global allowlist's Paths, tried one by one with
	// a substring prefilter (gitleaks joins them into one expression, which
	// Go's NFA runs slowly on every path).
	globalPaths []pathFilter
	// kw finds the rules' keywords in a line; trie does when kw is nil
	// (an automaton too large for kw's table).
	kw         *keywords
	trie       *ahocorasick.Trie
	byKeyword  [][]int // keyword index -> rule indexes
	noKeywords []int   // rules run on every line
	pathOnly   []int   // rules that match a file's path alone

	// stops are the stop words of each allowlist above (see lists).
	stops map[*config.Allowlist]*stopWords

	// pathMu guards pathVerdict, PathAllowed's answers by path: the
	// global allowlist is one large expression, and the pipeline asks
	// about each file before ScanLines asks again.
	pathMu      sync.Mutex
	pathVerdict map[string]bool
	pathSecrets map[string][]string // PathSecrets' answers
}

var (
	defaultOnce    sync.Once
	defaultScanner *Scanner
	defaultErr     error
)

// Default returns the scanner with gitleaks' default configuration, loaded
// once. The error says why the embedded configuration could not be loaded
// (it cannot happen with the pinned module; it is checked all the same).
func Default() (*Scanner, error) {
	defaultOnce.Do(func() {
		var cfg config.Config
		cfg, defaultErr = DefaultConfig()
		if defaultErr == nil {
			defaultScanner, defaultErr = New(cfg)
		}
	})
	return defaultScanner, defaultErr
}

// DefaultConfig parses gitleaks' embedded default configuration with a
// viper instance of its own (gitleaks' Translate needs a ViperConfig; the
// global viper is left alone).
func DefaultConfig() (config.Config, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return config.Config{}, fmt.Errorf("gitleaks %s default config: %w", GitleaksVersion, err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return config.Config{}, fmt.Errorf("gitleaks %s default config: %w", GitleaksVersion, err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return config.Config{}, fmt.Errorf("gitleaks %s default config: %w", GitleaksVersion, err)
	}
	return cfg, nil
}

// New prepares the rules of cfg. Composite rules (RequiredRules) are
// refused: the default configuration has none, and judging them needs
// gitleaks' proximity logic, which this package does not have.
func New(cfg config.Config) (*Scanner, error) {
	s := &Scanner{stops: map[*config.Allowlist]*stopWords{}}
	var err error
	if s.global, err = s.lists(cfg.Allowlists); err != nil {
		return nil, fmt.Errorf("gitleaks global allowlist: %w", err)
	}
	for _, a := range s.global {
		s.globalPaths = append(s.globalPaths, newPathFilter(a.Paths))
	}
	kwIndex := map[string]int{}
	var keywords []string
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		if len(r.RequiredRules) > 0 {
			return nil, fmt.Errorf("gitleaks rule %s: composite rules (required) are not supported", id)
		}
		if r.SkipReport {
			continue
		}
		pr := &rule{Rule: r, generic: strings.Contains(strings.ToLower(id), "generic")}
		var err error
		if pr.Allowlists, err = s.lists(r.Allowlists); err != nil {
			return nil, fmt.Errorf("gitleaks rule %s: allowlist: %w", id, err)
		}
		if r.Regex != nil {
			ml, err := spansLines(r.Regex.String())
			if err != nil {
				return nil, fmt.Errorf("gitleaks rule %s: %w", id, err)
			}
			pr.multiline = ml
			if ml {
				full, _ := syntax.Parse(r.Regex.String(), syntax.Perl)
				pr.need = newNeeds(full)
			}
			if !ml && matchesNewline(r.Regex.String()) {
				if pr.cross, err = crossCheck(r.Regex.String()); err != nil {
					return nil, fmt.Errorf("gitleaks rule %s: line-end expression: %w", id, err)
				}
				pr.breaks = pr.cross != nil
			}
			re, _ := syntax.Parse(r.Regex.String(), syntax.Perl)
			pr.minLen = minLen(re)
			if r1, r2 := relax(re), trimStart(re); r1 || r2 {
				expr := re.String()
				if pr.pre, err = regexp.Compile(expr); err != nil {
					return nil, fmt.Errorf("gitleaks rule %s: loosened expression %s: %w", id, expr, err)
				}
				pr.lead = newLeadOf(re, expr)
			}
		}
		i := len(s.rules)
		s.rules = append(s.rules, pr)
		switch {
		case r.Regex == nil && r.Path != nil:
			s.pathOnly = append(s.pathOnly, i)
			continue
		case r.Regex == nil:
			continue
		case len(r.Keywords) == 0:
			s.noKeywords = append(s.noKeywords, i)
			continue
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			j, ok := kwIndex[k]
			if !ok {
				j = len(keywords)
				kwIndex[k] = j
				keywords = append(keywords, k)
				s.byKeyword = append(s.byKeyword, nil)
			}
			s.byKeyword[j] = append(s.byKeyword[j], i)
		}
	}
	if s.kw = newKeywords(keywords); s.kw == nil {
		s.trie = ahocorasick.NewTrieBuilder().AddStrings(keywords).Build()
	}
	return s, nil
}

// findKeywords appends to dst the index of each keyword text holds (lower
// cased as gitleaks does, with strings.ToLower; ascii says text is ASCII),
// once or more.
func (s *Scanner) findKeywords(text string, ascii bool, dst []int) []int {
	var kw []byte
	if ascii && s.kw != nil {
		kw = unsafe.Slice(unsafe.StringData(text), len(text)) // only read
	} else {
		kw = []byte(strings.ToLower(text))
	}
	if s.kw != nil {
		return s.kw.find(kw, dst)
	}
	s.trie.Walk(kw, func(_, _, pattern int64) bool {
		dst = append(dst, int(pattern))
		return true
	})
	return dst
}

// lists gives allowlists the same as these, but for their stop words,
// which s.stops holds instead: gitleaks' Validate keeps them in an
// Aho-Corasick trie of its own, some 8 MiB for generic-api-key's 1,446
// words, a fifth of what a check holds in memory (issue 25). The copies are
// validated again without their stop words, so their regexes and paths
// are combined as gitleaks combines them; each keeps its StopWords (as
// Validate left them, lower case), which only s.stops reads.
func (s *Scanner) lists(in []*config.Allowlist) ([]*config.Allowlist, error) {
	out := make([]*config.Allowlist, 0, len(in))
	for _, a := range in {
		c := &config.Allowlist{Description: a.Description, MatchCondition: a.MatchCondition, Commits: a.Commits,
			Paths: a.Paths, RegexTarget: a.RegexTarget, Regexes: a.Regexes}
		if len(c.Commits) > 0 || len(c.Paths) > 0 || len(c.Regexes) > 0 {
			if err := c.Validate(); err != nil {
				return nil, err
			}
		}
		c.StopWords = a.StopWords
		if len(a.StopWords) > 0 {
			s.stops[c] = newStopWords(a.StopWords)
		}
		out = append(out, c)
	}
	return out, nil
}

// stopWords is a set of stop words, by length.
type stopWords struct {
	words map[string]bool
	lens  []int // the lengths the words have, ascending
}

func newStopWords(words []string) *stopWords {
	w := &stopWords{words: make(map[string]bool, len(words))}
	for _, x := range words {
		x = strings.ToLower(x)
		if x == "" || w.words[x] {
			continue
		}
		w.words[x] = true
		if i, found := slices.BinarySearch(w.lens, len(x)); !found {
			w.lens = slices.Insert(w.lens, i, len(x))
		}
	}
	return w
}

// in reports whether secret, in lower case, holds one of the words, as
// gitleaks' Allowlist.ContainsStopWord does.
func (w *stopWords) in(secret string) bool {
	if w == nil || secret == "" {
		return false
	}
	secret = strings.ToLower(secret)
	for _, n := range w.lens {
		for i := 0; i+n <= len(secret); i++ {
			if w.words[secret[i:i+n]] {
				return true
			}
		}
	}
	return false
}

// RuleIDs lists the rules' ids, in the configuration's order.
func (s *Scanner) RuleIDs() []string {
	out := make([]string, len(s.rules))
	for i, r := range s.rules {
		out[i] = r.RuleID
	}
	return out
}

// spansLines reports whether an expression is written to match across
// lines: it has a dot that matches newline, a literal newline, a class
// with a newline but no space (such as [\r\n]), or a class of nearly
// everything (such as [\s\S]). A plain \s also matches a newline, but the
// rules use it for spacing within a line.
func spansLines(expr string) (bool, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return false, err
	}
	var walk func(*syntax.Regexp) bool
	walk = func(re *syntax.Regexp) bool {
		switch re.Op {
		case syntax.OpAnyChar:
			return true
		case syntax.OpLiteral:
			for _, r := range re.Rune {
				if r == '\n' {
					return true
				}
			}
		case syntax.OpCharClass:
			hasNL, hasSpace, size := false, false, 0
			for i := 0; i+1 < len(re.Rune); i += 2 {
				lo, hi := re.Rune[i], re.Rune[i+1]
				size += int(hi-lo) + 1
				hasNL = hasNL || lo <= '\n' && '\n' <= hi
				hasSpace = hasSpace || lo <= ' ' && ' ' <= hi
			}
			if hasNL && (!hasSpace || size > 1000) {
				return true
			}
		}
		for _, sub := range re.Sub {
			if walk(sub) {
				return true
			}
		}
		return false
	}
	return walk(re), nil
}

// relaxCap bounds the count a loosened repetition keeps.
const relaxCap = 10

// relax loosens every counted repetition of re in place: x{m,n} becomes
// x{min(m,relaxCap),}. The language only grows (every count the original
// allows, the loosened allows), and anchors, word boundaries and classes
// are kept, so wherever re matches a text the loosened one matches too:
// it is a necessary condition, never a filter that drops a match. It
// reports whether anything changed.
func relax(re *syntax.Regexp) bool {
	changed := false
	for _, sub := range re.Sub {
		if relax(sub) {
			changed = true
		}
	}
	if re.Op == syntax.OpRepeat {
		if m := min(re.Min, relaxCap); m != re.Min || re.Max != -1 {
			re.Min, re.Max, changed = m, -1, true
		}
	}
	return changed
}

// trimStart drops, from a top-level concatenation, the leading elements
// that are repetitions (a run of name characters before a keyword): for
// finding whether a text holds a match anywhere, the rest of a
// concatenation is a necessary condition of the whole (same text, same
// context for its anchors). It reports whether anything changed.
func trimStart(re *syntax.Regexp) bool {
	n := 0
	for re.Op == syntax.OpConcat && n < len(re.Sub)-1 && isRepeat(re.Sub[n].Op) {
		n++
	}
	re.Sub = re.Sub[n:]
	return n > 0
}

func isRepeat(op syntax.Op) bool {
	return op == syntax.OpRepeat || op == syntax.OpStar || op == syntax.OpPlus || op == syntax.OpQuest
}

// minLen is the fewest runes (so at least as many bytes) any match of re
// has.
func minLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minLen(sub)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, sub := range re.Sub {
			if m := minLen(sub); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0 // empty, anchors, star, quest
}

// PathAllowed reports whether gitleaks' global allowlist exempts a path
// (lock files, images, vendored Go modules, ...): such a file is not
// scanned.
func (s *Scanner) PathAllowed(path string) bool {
	s.pathMu.Lock()
	v, ok := s.pathVerdict[path]
	s.pathMu.Unlock()
	if ok {
		return v
	}
	for i, a := range s.global {
		if len(a.Paths) > 0 && a.MatchCondition == config.AllowlistMatchOr && s.globalPaths[i].match(path) {
			v = true
			break
		}
	}
	s.pathMu.Lock()
	if s.pathVerdict == nil || len(s.pathVerdict) >= maxPathVerdicts {
		s.pathVerdict = map[string]bool{} // bounded: a long-lived App scans many repositories
	}
	s.pathVerdict[path] = v
	s.pathMu.Unlock()
	return v
}

// maxPathVerdicts bounds PathAllowed's memory of answers.
const maxPathVerdicts = 1 << 16

// ScanFile scans every line of content (split on '\n', a trailing '\r'
// dropped) as if all were added: ScanLines over the whole file.
func (s *Scanner) ScanFile(path string, content []byte) (findings, dismissed []Finding, omitted int) {
	text := string(content)
	var lines []Line
	for n := 1; ; n++ {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			if text != "" {
				lines = append(lines, Line{n, strings.TrimSuffix(text, "\r")})
			}
			break
		}
		lines = append(lines, Line{n, strings.TrimSuffix(text[:i], "\r")})
		text = text[i+1:]
	}
	return s.ScanLines(path, lines)
}

// ScanLines scans the added lines of one file (path repository-relative,
// '/'-separated; lines in ascending N, as a change set holds them).
//
// A rule whose expression stays within a line runs on each line that
// holds one of its keywords (case-insensitively), as gitleaks' own
// keyword prefilter would on that line alone. A rule written to span lines
// (spansLines) runs on windows of consecutive lines around its keywords'
// lines, as gitleaks runs on a hunk. A path-only rule (a .p12 file) yields
// one finding at line 0 when path matches. Findings are deduplicated and
// sorted by line and column; those refine dismisses are returned apart,
// with their Note. Past MaxPerFile findings the rest are counted in
// omitted. A path on gitleaks' global allowlist returns nothing.
func (s *Scanner) ScanLines(path string, lines []Line) (findings, dismissed []Finding, omitted int) {
	if s.PathAllowed(path) {
		return nil, nil, 0
	}
	var all []Finding
	for _, i := range s.pathOnly {
		r := s.rules[i]
		if r.Path.MatchString(path) && !ruleExemptsPath(r, path) {
			all = append(all, Finding{RuleID: r.RuleID, Description: r.Description, Excerpt: "file detected: " + path})
		}
	}
	// A rule limited to some paths (.tf files, YAML) is ruled out once per
	// file, not per line.
	skip := make([]bool, len(s.rules))
	for i, r := range s.rules {
		skip[i] = r.Path != nil && !r.Path.MatchString(path)
	}
	var buf []byte
	hits := make([]bool, len(s.rules))
	var hitList []int
	multiLines := map[int][]int{} // multi-line rule -> indexes into lines with a keyword
	var kwHits []int
	for li, ln := range lines {
		ascii := !hasNonASCII(ln.Text)
		lowered := false // buf holds ln.Text in ASCII lower case
		hitList = hitList[:0]
		// gitleaks finds keywords in strings.ToLower of the text, which
		// folds more than ASCII (the Kelvin sign becomes k); on an ASCII
		// line the automaton folds capitals itself.
		kwHits = s.findKeywords(ln.Text, ascii, kwHits[:0])
		for _, p := range kwHits {
			for _, ri := range s.byKeyword[p] {
				if !hits[ri] {
					hits[ri] = true
					hitList = append(hitList, ri)
				}
			}
		}
		hitList = append(hitList, s.noKeywords...)
		for _, ri := range hitList {
			hits[ri] = false
			r := s.rules[ri]
			if r.multiline {
				multiLines[ri] = append(multiLines[ri], li)
				continue
			}
			if skip[ri] {
				continue
			}
			if r.breaks && li+1 < len(lines) && lines[li+1].N == ln.N+1 {
				var lower []byte
				if ascii {
					if !lowered {
						buf, lowered = lowerASCII(buf[:0], ln.Text), true
					}
					lower = buf
				}
				if r.cross.match(ln.Text, lower) {
					all = s.matchBroken(r, path, lines, li, all)
				}
			}
			if len(ln.Text) < r.minLen {
				continue
			}
			switch {
			case r.lead != nil && ascii:
				if !lowered {
					buf, lowered = lowerASCII(buf[:0], ln.Text), true
				}
				if !r.lead.match(ln.Text, buf) {
					continue
				}
			case r.pre != nil:
				if !r.pre.MatchString(ln.Text) {
					continue
				}
			}
			all = s.matchText(r, path, ln.Text, []int{ln.N}, []int{0}, all)
		}
	}
	for ri, at := range multiLines {
		r := s.rules[ri]
		if skip[ri] {
			continue
		}
		for _, w := range windows(lines, at) {
			text, nums, starts := join(lines[w[0]:w[1]])
			if !r.need.holds(text) {
				continue
			}
			all = s.matchText(r, path, text, nums, starts, all)
		}
	}
	all = dedupe(all)
	all = dropGenericDuplicates(all)
	for _, f := range all {
		if note := refine(f); note != "" {
			f.Note = note
			dismissed = append(dismissed, f)
			continue
		}
		if len(findings) == MaxPerFile {
			omitted++
			continue
		}
		findings = append(findings, f)
	}
	return findings, dismissed, omitted
}

// Bounds of matchBroken's window: the line breaks a match may hold (the
// rules allow at most 8 white space characters between a name and its
// value), and the bytes of the line after them it reads (a value is at
// most 150 characters, after a few of white space and quotes).
const (
	maxBreaks     = 8
	nextLineBytes = 256
)

// matchBroken appends the findings of rule r (breaks) that start on line
// li and end on a consecutive line after it: li joined with the lines
// after it that hold only white space, quotes and assignment signs (what
// the rules allow between a name and its value; at most maxBreaks of
// them) and the line after those, cut to nextLineBytes. Matches within one
// line are left to the line's own scan.
func (s *Scanner) matchBroken(r *rule, path string, lines []Line, li int, out []Finding) []Finding {
	window := []Line{lines[li]}
	for to := li + 1; to < len(lines) && to-li <= maxBreaks && lines[to].N == lines[to-1].N+1; to++ {
		ln := lines[to]
		between := strings.Trim(ln.Text, " \t\r\f\v'\"`=:>|?,") == ""
		if !between && len(ln.Text) > nextLineBytes {
			ln.Text = ln.Text[:nextLineBytes]
		}
		window = append(window, ln)
		if !between {
			break
		}
	}
	text, nums, starts := join(window)
	switch {
	case r.lead != nil && !hasNonASCII(text):
		if !r.lead.match(text, lowerASCII(nil, text)) {
			return out
		}
	case r.pre != nil:
		if !r.pre.MatchString(text) {
			return out
		}
	}
	for _, f := range s.matchText(r, path, text, nums, starts, nil) {
		if f.Line == lines[li].N && f.EndLine > f.Line {
			out = append(out, f)
		}
	}
	return out
}

// matchesNewline reports whether an expression has a class that matches
// a line feed (such as \s), or a dot that does.
func matchesNewline(expr string) bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return false
	}
	var walk func(*syntax.Regexp) bool
	walk = func(re *syntax.Regexp) bool {
		switch re.Op {
		case syntax.OpAnyChar:
			return true
		case syntax.OpCharClass:
			for i := 0; i+1 < len(re.Rune); i += 2 {
				if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
					return true
				}
			}
		}
		for _, sub := range re.Sub {
			if walk(sub) {
				return true
			}
		}
		return false
	}
	return walk(re)
}

// windows returns [from, to) index ranges of lines for a multi-line rule
// whose keywords are on lines at (indexes, ascending): from a few lines
// before each keyword line to ChunkOverlap lines after it, within a run of
// consecutive line numbers, merged, and cut to ChunkLines lines or
// ChunkBytes bytes with ChunkOverlap lines shared between cuts.
func windows(lines []Line, at []int) [][2]int {
	const before = 5
	var merged [][2]int
	for _, i := range at {
		from, to := i, i+1
		for from > 0 && i-from < before && lines[from-1].N == lines[from].N-1 {
			from--
		}
		for to < len(lines) && to-i <= ChunkOverlap && lines[to].N == lines[to-1].N+1 {
			to++
		}
		if n := len(merged); n > 0 && from < merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], to)
			continue
		}
		merged = append(merged, [2]int{from, to})
	}
	var out [][2]int
	for _, m := range merged {
		for from := m[0]; ; {
			to, size := from, 0
			for to < m[1] && to-from < ChunkLines && (to == from || size+len(lines[to].Text)+1 <= ChunkBytes) {
				size += len(lines[to].Text) + 1
				to++
			}
			out = append(out, [2]int{from, to})
			if to >= m[1] {
				break
			}
			from = max(from+1, to-ChunkOverlap)
		}
	}
	return out
}

// join joins lines with '\n', with each line's number and start offset.
func join(lines []Line) (string, []int, []int) {
	var b strings.Builder
	nums := make([]int, len(lines))
	starts := make([]int, len(lines))
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		nums[i], starts[i] = l.N, b.Len()
		b.WriteString(l.Text)
	}
	return b.String(), nums, starts
}

// matchText appends the findings of rule r in text, whose lines are
// numbered nums and start at byte offsets starts. It applies the rule as
// gitleaks' detector does: the secret group of the match (re-matched on
// the match alone), the entropy threshold, then the global and the rule's
// allowlists.
func (s *Scanner) matchText(r *rule, path, text string, nums, starts []int, out []Finding) []Finding {
	// A "line" allowlist's verdict depends on the line alone: it is
	// computed once per line, not once per match (a long line holds
	// thousands of matches).
	var lineKey [2]int
	lineOK := map[*config.Allowlist]bool{}
	for _, loc := range r.Regex.FindAllStringIndex(text, -1) {
		match := strings.Trim(text[loc[0]:loc[1]], "\n")
		start := loc[0] + strings.Index(text[loc[0]:loc[1]], match)
		secret := match
		if groups := r.Regex.FindStringSubmatch(match); len(groups) >= 2 {
			if r.SecretGroup > 0 {
				if r.SecretGroup >= len(groups) {
					continue
				}
				secret = groups[r.SecretGroup]
			} else {
				for _, g := range groups[1:] {
					if g != "" {
						secret = g
						break
					}
				}
			}
		}
		entropy := shannon(secret)
		if r.Entropy != 0 && entropy <= r.Entropy {
			continue
		}
		li := sort.SearchInts(starts, start+1) - 1
		le := sort.SearchInts(starts, start+len(match)) - 1
		if le < li {
			le = li
		}
		lineEnd := len(text)
		if li+1 < len(starts) {
			lineEnd = starts[li+1] - 1
		}
		lineText := text[starts[li]:lineEnd]
		// gitleaks tests a "line" allowlist against the text from the
		// match's line start to its end (or the match's end, if later).
		allowLine := text[starts[li]:max(lineEnd, start+len(match))]
		if k := [2]int{starts[li], len(allowLine)}; k != lineKey {
			lineKey = k
			clear(lineOK)
		}
		if s.allowed(s.global, path, secret, match, allowLine, lineOK) || s.allowed(r.Allowlists, path, secret, match, allowLine, lineOK) {
			continue
		}
		out = append(out, Finding{
			RuleID: r.RuleID, Description: r.Description,
			Line: nums[li], EndLine: nums[le], Column: start - starts[li] + 1,
			Secret: secret, Excerpt: excerpt(lineText, start-starts[li], start-starts[li]+len(match), secret), Entropy: entropy,
		})
	}
	return out
}

// allowed reports whether one of the allowlists exempts a finding, with
// gitleaks' semantics: a list's regexes test the secret, the match or the
// line (its RegexTarget), its stop words the secret; with condition OR any
// of regexes or stop words suffices, with AND every criterion the list has
// (paths included; commits never match, there is no commit here).
// lineOK holds the verdicts of "line" lists' regexes on line.
func (s *Scanner) allowed(lists []*config.Allowlist, path, secret, match, line string, lineOK map[*config.Allowlist]bool) bool {
	for _, a := range lists {
		var regexOK bool
		switch a.RegexTarget {
		case "match":
			regexOK = a.RegexAllowed(match)
		case "line":
			ok, seen := lineOK[a]
			if !seen {
				ok = a.RegexAllowed(line)
				lineOK[a] = ok
			}
			regexOK = ok
		default:
			regexOK = a.RegexAllowed(secret)
		}
		stopOK := s.stops[a].in(secret)
		if a.MatchCondition != config.AllowlistMatchAnd {
			if regexOK || stopOK {
				return true
			}
			continue
		}
		ok := true
		if len(a.Commits) > 0 {
			ok = false
		}
		if len(a.Paths) > 0 && !a.PathAllowed(path) {
			ok = false
		}
		if len(a.Regexes) > 0 && !regexOK {
			ok = false
		}
		if len(a.StopWords) > 0 && !stopOK {
			ok = false
		}
		if ok {
			return true
		}
	}
	return false
}

// ruleExemptsPath reports whether a rule's own allowlists exempt a path
// (condition OR, or AND with nothing but paths).
func ruleExemptsPath(r *rule, path string) bool {
	for _, a := range r.Allowlists {
		if len(a.Paths) == 0 || !a.PathAllowed(path) {
			continue
		}
		if a.MatchCondition != config.AllowlistMatchAnd || len(a.Regexes) == 0 && len(a.StopWords) == 0 && len(a.Commits) == 0 {
			return true
		}
	}
	return false
}

// shannon is the Shannon entropy of s in bits per character, with
// gitleaks' normalisation (character counts over the length in bytes), so
// that its entropy thresholds mean the same.
func shannon(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h
}

func dedupe(fs []Finding) []Finding {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Line != fs[j].Line {
			return fs[i].Line < fs[j].Line
		}
		return fs[i].Column < fs[j].Column
	})
	seen := map[string]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := fmt.Sprintf("%s\x00%d\x00%d\x00%s", f.RuleID, f.Line, f.Column, f.Secret)
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// dropGenericDuplicates drops a generic rule's finding when a specific
// rule found a secret containing it on the same line, as gitleaks does.
func dropGenericDuplicates(fs []Finding) []Finding {
	out := fs[:0:0]
	var specific []Finding // a long line's thousands of generic findings are not compared with each other
	for _, g := range fs {
		if !strings.Contains(strings.ToLower(g.RuleID), "generic") {
			specific = append(specific, g)
		}
	}
	for _, f := range fs {
		keep := true
		if strings.Contains(strings.ToLower(f.RuleID), "generic") {
			for _, g := range specific {
				if g.Line == f.Line && g.RuleID != f.RuleID && strings.Contains(g.Secret, f.Secret) {
					keep = false
					break
				}
			}
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

func lowerASCII(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// PathSecrets returns the values gitleaks' rules find in a file's path
// itself (a file named config/AKIA….txt or ghp_….json), nil for an
// ordinary path: whatever prints the path of a secret finding, or of a
// file it could not scan, masks them (sast.MaskValues). Dismissed matches
// do not count; path-only rules (a .p12 file) name a file type, not a
// value, and are not applied.
func (s *Scanner) PathSecrets(path string) []string {
	// Remembered: each gate that prints paths asks about every changed
	// path, and the scan of one costs about 10 µs.
	s.pathMu.Lock()
	v, ok := s.pathSecrets[path]
	s.pathMu.Unlock()
	if ok {
		return slices.Clone(v)
	}
	found, _, _ := s.ScanLines("", []Line{{N: 1, Text: path}})
	var out []string
	for _, f := range found {
		if f.Secret != "" {
			out = append(out, f.Secret)
		}
	}
	s.pathMu.Lock()
	if s.pathSecrets == nil || len(s.pathSecrets) >= maxPathVerdicts {
		s.pathSecrets = map[string][]string{}
	}
	s.pathSecrets[path] = out
	s.pathMu.Unlock()
	return slices.Clone(out)
}
