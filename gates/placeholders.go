package gates

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/placeholder"
	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// Placeholders is swarm/placeholders: no placeholder on a line the pull
// request adds. It mirrors the plugin's placeholder_scan
// (src/tools/placeholder-scan.ts, spec section 6) with the plugin's rule
// ids, and goes beyond its line regexes:
//
//   - Rules: comment markers (TODO, FIXME, TBD, XXX, HACK: upper case, or
//     any case before ':' or '(', as the plugin's fix #2306 has them),
//     placeholder values in strings ("placeholder", "<stub>", "...; WIP")
//     and "not implemented", throw new Error("TODO"), stub returns and stub
//     bodies (raise NotImplementedError, throw new
//     NotImplementedException()) only as the whole body of a function
//     (B08), panic, raise or throw whose message says the code is not
//     written (B10), todo!(), and the template brackets of .swarm/plan.md.
//   - Comments and strings are told apart by a small lexer per language
//     family (internal/placeholder, the rule engine), so "TODO" in a
//     string or a URL is not a comment, and a multi-line /* ... */ or
//     docstring is one. A file is lexed from its first line at head
//     (Input.HeadFile) down to its last added line, so a comment or string
//     opened on an unchanged line above is known; without the head
//     content, each run of consecutive added lines is lexed on its own,
//     from the code state.
//   - Documents (Markdown, plain text) are prose: only a TODO: or FIXME:
//     starting a line is reported, as a warning; fenced code is a sample.
//     MDX's import/export blocks are JavaScript, with the code rules.
//   - Only added lines are looked at, so a TODO already on the base side
//     never fails the gate; an added line whose finding (rule and trimmed
//     line) is also in the file's merge-base version (Input.BaseFile; the
//     old path of a rename) was moved or re-added: it is pre-existing, a
//     warning (placeholder_moved.go).
//   - Files skipped as in the plugin: test files (scaffold paths excepted),
//     files over 1 MiB, binary files and files with NUL bytes; also
//     .swarm/'s files of the kinds the plugin writes (isSwarmPath; but
//     .swarm/plan.md gets its bracket rules), the policy's
//     allow globs, data files (.csv, .tsv) and generated, vendored or
//     minified files (GeneratedReason), listed in the summary. A finding
//     whose excerpt (the line's first 100 UTF-16 code units) holds
//     SC-PLACEHOLDER or a policy sentinel is dropped, and
//     `swarm-gate:allow placeholder <reason>` in a comment on a line
//     suppresses its findings.
//   - Columns count UTF-16 code units, as swarm/sast and GitHub do; what
//     looks like a credential is masked in messages (sast.MaskLine).
type Placeholders struct{}

// Name implements Gate.
func (Placeholders) Name() string { return "swarm/placeholders" }

// The placeholders gate's rule ids: the rule engine's
// (internal/placeholder), then the gate's own.
const (
	RuleCommentTodo         = placeholder.RuleCommentTodo
	RuleCommentFixme        = placeholder.RuleCommentFixme
	RuleCommentOther        = placeholder.RuleCommentOther // TBD, XXX, HACK
	RuleTextPlaceholder     = placeholder.RuleTextPlaceholder
	RuleCodeThrowTodo       = placeholder.RuleCodeThrowTodo
	RuleCodeStubReturn      = placeholder.RuleCodeStubReturn
	RulePlanBracketTask     = placeholder.RulePlanBracketTask
	RulePlanBracketProject  = placeholder.RulePlanBracketProject
	RulePlanBracketDate     = placeholder.RulePlanBracketDate
	RulePlanBracketReason   = placeholder.RulePlanBracketReason
	RulePlanBracketDesc     = placeholder.RulePlanBracketDesc
	RuleCodeStubBody        = placeholder.RuleCodeStubBody        // extension: panic("not implemented"), todo!(), ...
	RuleSuppressionNoReason = placeholder.RuleSuppressionNoReason // extension: swarm-gate:allow placeholder without a reason

	// RulePlaceholderNotScanned is a changed source file the scan could not
	// read as text: NUL bytes (an error: a source file has none, and the
	// plugin's scan skips such files, so they hide a placeholder), or over
	// 1 MiB (a warning, an error when no other file was scanned).
	RulePlaceholderNotScanned = "placeholder/not-scanned"
	// RulePlaceholderNotShown counts the findings past the limits of
	// maxPlaceholderFindingsFile a file and maxPlaceholderFindingsRun a
	// run; an error when one of them is.
	RulePlaceholderNotShown = "placeholder/more-not-shown"
)

// The findings kept one by one, as swarm/sast bounds its secrets: a 1 MiB
// file of TODO lines is 150,000 findings, and eight such files, a push of
// some KiB, took a gigabyte.
const (
	maxPlaceholderFindingsFile = 100
	maxPlaceholderFindingsRun  = 1000
)

// PlaceholderRules lists the rule ids the placeholders gate reports, the
// plugin's first; the policy's placeholders.disable takes any of them but
// placeholder/suppression-without-reason.
func PlaceholderRules() []string { return placeholder.Rules() }

// Suppression is one added line whose placeholder findings an inline
// `swarm-gate:allow placeholder <reason>` dropped: its rules and the
// reason as written (comment closers trimmed).
type Suppression struct {
	Path   string   `json:"path"`
	Line   int      `json:"line"`
	Rules  []string `json:"rules"`
	Reason string   `json:"reason"`
}

// MaxPlaceholderScanSize is the plugin's limit: bigger files are not scanned.
const MaxPlaceholderScanSize = 1 << 20

var (
	testPathPattern = regexp.MustCompile(`\.test\.|\.spec\.|\btests?/|\b__tests?__/|\bmocks?/|\b__mocks?__/|\bspecs?/|\b__specs?__/`)
	scaffoldDirs    = regexp.MustCompile(`\bgenerated/|\bscaffold/|\btemplates?/|\b__generated__/|\b__scaffold__/`)
	scaffoldNames   = regexp.MustCompile(`^gen-|^scaffold-|^template-|\.gen\.|\.scaffold\.|\.template\.`)
)

// placeholderStats counts what the scan did, for the summary.
type placeholderStats struct {
	lines, files, plan, docs  int
	tests, binary, swarmFiles int
	data                      int
	runs                      int // files lexed run by run, without their head content
	big, allowed              []string
	tooLarge                  []*changeset.File // not read: over limits.max_file_bytes
	nul                       []string          // source files with NUL bytes (or that git diffs as binary)
	generated                 []string          // "`path` (reason)"
	uncompared                []string          // "`path` (why)": not compared with the merge base
	preExisting, introduced   int
	warnings                  int
	unscanned                 int    // source files over 1 MiB, as warnings (limits.unscanned: warn)
	unscannedBig              int    // files too large to scan, as warnings (limits.unscanned: warn)
	noBase                    bool   // a file with findings had a merge-base version, but no merge-base contents were given
	notShownErr, notShown     int    // findings past the limits: failing ones, and all
	notShownAt                string // the first file with findings past the limits
}

// phScan is what placeholderFile scans with and adds to.
type phScan struct {
	sc      *placeholder.Scanner // the changed files' added lines
	scratch *placeholder.Scanner // the other contents of a file with findings
	prefix  []byte               // scratch space
	// out and suppressed are the findings and suppressed lines so far.
	out        []Finding
	suppressed []Suppression
	shown      int // findings kept so far, of every file scanned with it
}

// keep drops the findings of the file just scanned (ps.out[start:], moved
// lines already told) past the limits, counting them in st.
func (ps *phScan) keep(start int, st *placeholderStats) {
	room := max(min(maxPlaceholderFindingsFile, maxPlaceholderFindingsRun-ps.shown), 0)
	if fs := ps.out[start:]; len(fs) > room {
		if st.notShownAt == "" {
			st.notShownAt = fs[0].Path
		}
		for _, f := range fs[room:] {
			st.notShown++
			if f.Delta != DeltaPreExisting && f.Severity == SeverityError {
				st.notShownErr++
			}
		}
		// A fresh slice: the long one's findings must not stay reachable.
		ps.out = append(slices.Clone(ps.out[:start]), fs[:room]...)
	}
	ps.shown += len(ps.out) - start
}

func newPhScan(c PlaceholdersConfig) *phScan {
	opt := placeholder.Options{Sentinels: c.Sentinels, IgnoreMarkdownHeadings: c.IgnoreMarkdownHeadings, FailProse: c.FailProse, Disable: c.Disable}
	return &phScan{sc: placeholder.NewScanner(opt), scratch: placeholder.NewScanner(opt)}
}

// add adds the findings and suppressions of the scanner's current file,
// at path p, to ps.out and ps.suppressed.
func (ps *phScan) add(p string) {
	for _, fd := range ps.sc.Findings() {
		sev := SeverityError
		if fd.Warning {
			sev = SeverityWarning
		}
		ps.out = append(ps.out, Finding{Path: p, Line: fd.Line, EndLine: fd.Line, Column: fd.Column, Rule: fd.Rule, Severity: sev, Message: fd.Message, Key: fd.Key})
	}
	for _, s := range ps.sc.Suppressions() {
		ps.suppressed = append(ps.suppressed, Suppression{Path: p, Line: s.Line, Rules: s.Rules, Reason: s.Reason})
	}
}

// Evaluate implements Gate.
func (g Placeholders) Evaluate(ctx context.Context, in *Input) Result {
	r := g.evaluate(ctx, in)
	maskSecretPaths(in, &r)
	return r
}

func (g Placeholders) evaluate(ctx context.Context, in *Input) Result {
	cfg := in.config().Placeholders
	ps := newPhScan(cfg)
	var st placeholderStats
	for i := range in.Changes.Files {
		if err := ctx.Err(); err != nil {
			return CouldNotEvaluate(g.Name(), err)
		}
		f := &in.Changes.Files[i]
		if r := in.Prescan.placeholders(f); r != nil {
			if r.err != nil {
				return CouldNotEvaluate(g.Name(), r.err)
			}
			st.add(&r.st)
			ps.out = append(ps.out, r.out...)
			ps.suppressed = append(ps.suppressed, r.suppressed...)
			continue
		}
		if f.Released > 0 {
			// Its lines went to the Prescan alone, which has no result for
			// this file: nothing is left to scan.
			return CouldNotEvaluate(g.Name(), fmt.Errorf("the %s of %s were released after the streamed scan, which has no result for the file as the change set has it; please report this", plural(f.Released, "added line", "added lines"), f.NewPath))
		}
		if err := placeholderFile(ctx, in, cfg, f, ps, &st); err != nil {
			return CouldNotEvaluate(g.Name(), err)
		}
	}
	ps.out = append(ps.out, st.notScanned(in.config())...)
	if st.notShown > 0 {
		// The findings not shown may be new ones: the gate fails closed.
		sev := SeverityWarning
		if st.notShownErr > 0 {
			sev = SeverityError
		}
		ps.out = append(ps.out, Finding{Path: st.notShownAt, Line: 1, EndLine: 1, Rule: RulePlaceholderNotShown, Severity: sev, Key: fkey(RulePlaceholderNotShown),
			Message: fmt.Sprintf("%s more not shown (%d of them failing): over the limits of %d a file and %d a run; finish the work the findings shown mark, then see the rest", plural(st.notShown, "placeholder finding", "placeholder findings"), st.notShownErr, maxPlaceholderFindingsFile, maxPlaceholderFindingsRun)})
	}
	sev := unscannedSeverity(in.config())
	for _, l := range codeSymlinks(in.Changes, in.HeadFile) {
		ps.out = append(ps.out, Finding{Path: l.path, Line: 1, EndLine: 1, Rule: RulePlaceholderNotScanned, Severity: sev, Key: fkey(RulePlaceholderNotScanned, l.path, l.kind()), Message: symlinkMessage(l, sev)})
	}
	failing, unscannedLinks, unscannedLFS := 0, 0, 0 // as warnings: symlinks to what is not scanned as code, LFS pointers
	failing += st.notShownErr
	for _, fd := range ps.out {
		switch {
		case fd.Rule == RulePlaceholderNotShown: // counted above
		case fd.Delta == DeltaPreExisting:
			st.preExisting++
		case fd.Severity == SeverityError:
			failing++
		case fd.Severity == SeverityWarning && fd.Rule == RulePlaceholderNotScanned && (strings.HasSuffix(fd.Key, "\x00symlink") || strings.HasSuffix(fd.Key, "\x00submodule")):
			unscannedLinks++
		case fd.Severity == SeverityWarning && fd.Rule == RulePlaceholderNotScanned && strings.HasSuffix(fd.Key, "\x00lfs"):
			unscannedLFS++
		case fd.Severity == SeverityWarning && fd.Rule == RulePlaceholderNotScanned:
			st.unscanned++
		case fd.Severity == SeverityWarning && fd.Rule == RuleTooLargeToScan:
			st.unscannedBig++
		case fd.Severity == SeverityWarning:
			st.warnings++
		}
	}
	st.introduced = failing
	res := Result{Outcome: Passed, Summary: placeholderSummary(&st, cfg) + linguistNote(in.Linguist), Findings: ps.out}
	if failing+st.preExisting > 0 {
		res.Delta = &DeltaSummary{Introduced: failing, PreExisting: st.preExisting}
		if st.noBase {
			res.Delta.BaseError = "the merge-base contents of the changed files were not available"
		}
		res.Summary += "\n\n**Against the merge base**: " + deltaText(res.Delta)
	}
	switch {
	case failing > 0 && failing == notScannedErrors(ps.out):
		res.Outcome, res.Title = Failed, fmt.Sprintf("%s could not be scanned (%s)", plural(failing, "changed source file", "changed source files"), notScannedWhy(ps.out))
	case failing > 0:
		res.Outcome, res.Title = Failed, fmt.Sprintf("%s on added lines", plural(failing-notScannedErrors(ps.out), "placeholder", "placeholders"))
		if n := notScannedErrors(ps.out); n > 0 {
			// Each kind counted apart: a file no one read is no placeholder.
			res.Title += fmt.Sprintf(", %s not scanned (%s)", plural(n, "file", "files"), notScannedWhy(ps.out))
		}
		res.Summary += "\n\nNext step: finish the work each finding marks and remove the marker; a line that is meant to stay (a tracked follow-up, sample text) gets `swarm-gate:allow placeholder <reason>` in a comment on it, which the summary lists."
		if st.preExisting > 0 {
			res.Title += fmt.Sprintf(" (%s moved or already on the base branch)", plural(st.preExisting, "finding", "findings"))
		}
	case st.preExisting > 0:
		res.Title = PreExistingPrefix + fmt.Sprintf("%s on added lines, all on lines moved or re-added", plural(st.preExisting, "placeholder", "placeholders"))
	default:
		res.Title = fmt.Sprintf("no placeholders in %s", plural(st.lines, "added line", "added lines"))
	}
	if st.warnings > 0 && failing == 0 {
		res.Title += fmt.Sprintf(" (%s in documents, as warnings)", plural(st.warnings, "note", "notes"))
	}
	if st.unscanned > 0 && failing == 0 {
		res.Title += fmt.Sprintf(" (%s over 1 MiB not scanned)", plural(st.unscanned, "source file", "source files"))
	}
	if unscannedLinks > 0 && failing == 0 {
		res.Title += fmt.Sprintf(" (%s not scanned)", plural(unscannedLinks, "symlink or submodule", "symlinks or submodules"))
	}
	if unscannedLFS > 0 && failing == 0 {
		res.Title += fmt.Sprintf(" (%s not scanned)", plural(unscannedLFS, "Git LFS pointer", "Git LFS pointers"))
	}
	if st.unscannedBig > 0 && failing == 0 {
		res.Title += fmt.Sprintf(" (%s too large to scan, not read)", plural(st.unscannedBig, "file", "files"))
	}
	if n := len(st.generated); n > 0 { // a reviewer needs it most when the gate fails
		res.Title += fmt.Sprintf(" (%s not scanned as generated, vendored or minified)", plural(n, "file", "files"))
	}
	if n := len(ps.suppressed); n > 0 {
		res.Suppressions = ps.suppressed
		res.Title += fmt.Sprintf(" (%s suppressed with a reason)", plural(n, "line", "lines"))
		res.Summary += "\n\n" + suppressionList(ps.suppressed)
	}
	if res.Findings == nil {
		res.Findings = []Finding{}
	}
	return res
}

// placeholderFile scans one changed file for Evaluate: its findings go to
// ps.out and ps.suppressed, its counts to st. The error is ctx's.
func placeholderFile(ctx context.Context, in *Input, cfg PlaceholdersConfig, f *changeset.File, ps *phScan, st *placeholderStats) error {
	plan := false
	switch {
	case f.Status == changeset.Deleted || f.NewPath == "":
		return nil
	case IsPlanMarkdown(f.NewPath):
		plan = true
	case isSwarmPath(f.NewPath):
		st.swarmFiles++
		return nil
	}
	switch {
	case f.TooLarge:
		// Not read (limits.max_file_bytes): unless the policy or the
		// plugin's own skips exempt it by its path, it could not be
		// evaluated.
		switch {
		case allowedByGlobs(cfg.Allow, f.NewPath):
			st.allowed = append(st.allowed, f.NewPath)
		case !plan && st.skipGenerated(in, f):
		case isDataFile(f.NewPath):
			st.data++
		case IsTestPath(f.NewPath):
			st.tests++
		default:
			st.tooLarge = append(st.tooLarge, f)
		}
		return nil
	case f.Binary || hasNUL(f.Added):
		st.binaryFile(in, cfg, f)
		return nil
	case len(f.Added) == 0:
		return nil
	case allowedByGlobs(cfg.Allow, f.NewPath):
		st.allowed = append(st.allowed, f.NewPath)
		return nil
	case !plan && st.skipGenerated(in, f):
		return nil
	case isDataFile(f.NewPath):
		st.data++
		return nil
	case IsTestPath(f.NewPath):
		st.tests++
		return nil
	case overScanSize(f):
		st.big = append(st.big, f.NewPath)
		return nil
	}
	// A new file (or copy) is all added lines: it is lexed from its top
	// either way. Any other is lexed whole when its head content can be
	// read; but when no rule could match any of its added lines
	// however they are lexed, it has no findings: it is neither read
	// nor lexed (a new file neither: FuzzPlaceholderScanner checks that
	// such lines have no findings run by run and whole).
	complete := f.Added[0].Line == 1 && f.Added[len(f.Added)-1].Line == len(f.Added) &&
		(f.Status == changeset.Added || f.Status == changeset.Copied)
	quiet := !plan && !slices.ContainsFunc(f.Added, func(l changeset.AddedLine) bool { return placeholder.MayHit(l.Text) })
	var content []byte
	haveHead := false
	if !complete && !quiet && in.HeadFile != nil {
		content, haveHead = in.HeadFile(f.NewPath)
		switch {
		case haveHead && len(content) > MaxPlaceholderScanSize:
			st.big = append(st.big, f.NewPath)
			return nil
		case haveHead && bytes.IndexByte(content, 0) >= 0:
			st.binaryFile(in, cfg, f)
			return nil
		}
	}
	if complete {
		ps.prefix = addedPrefix(ps.prefix[:0], f.Added)
		content = ps.prefix
	}
	if !plan && (complete || haveHead) && st.skipGeneratedIn(in, f, content) {
		return nil
	}
	st.files++
	switch {
	case plan:
		st.plan++
	case placeholder.IsDocument(f.NewPath):
		st.docs++
	}
	st.lines += len(f.Added)
	if quiet {
		return nil
	}
	sc := ps.sc
	sc.File(f.NewPath, plan)
	head := ""
	if haveHead {
		head = string(content)
	}
	if !haveHead || !sc.Whole(head, f.Added) {
		haveHead = false
		if !complete {
			st.runs++
		}
		for k, al := range f.Added {
			if k&0xffff == 0xffff {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			sc.Line(al.Line, al.Text)
		}
		sc.Finish(complete)
	}
	start := len(ps.out)
	ps.add(f.NewPath)
	switch why := movedLines(in, f, ps.out[start:], head, haveHead, complete, ps.scratch); why {
	case "":
	case noMergeBase:
		st.noBase = true
	default:
		st.uncompared = append(st.uncompared, mdtext.Code(f.NewPath)+" ("+why+")")
	}
	ps.keep(start, st)
	return nil
}

// suppressionList is the summary's list of suppressed lines and reasons.
func suppressionList(sup []Suppression) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Suppressed** (`swarm-gate:allow placeholder <reason>` or a sentinel): %s.", plural(len(sup), "line", "lines"))
	for i, s := range sup {
		if i == maxListedChanges {
			fmt.Fprintf(&b, "\n- and %d more (all in the JSON report's suppressions)", len(sup)-i)
			break
		}
		fmt.Fprintf(&b, "\n- %s: %s: %s", mdtext.Code(fmt.Sprintf("%s:%d", s.Path, s.Line)), strings.Join(codes(s.Rules), ", "), mdtext.Inline(clipN(s.Reason, 200)))
	}
	return b.String()
}

// binaryFile records a changed file with NUL bytes: a source file (by its
// extension; not a test, allowed or generated file) is a finding, anything
// else is binary and skipped.
func (st *placeholderStats) binaryFile(in *Input, cfg PlaceholdersConfig, f *changeset.File) {
	p := f.NewPath
	if isSourceCode(p) && !allowedByGlobs(cfg.Allow, p) && !IsTestPath(p) && GeneratedReasonChanged(in.config().Limits, in.Linguist, f, nil) == "" {
		st.nul = append(st.nul, p)
		return
	}
	st.binary++
}

// notScanned are the findings of the files the scan could not read: NUL
// bytes in a source file always fail; a source file over 1 MiB and any
// file too large to read (limits.max_file_bytes) fail closed, or warn when
// the policy has limits.unscanned: warn. Lines no gate read must never look
// like a pass.
func (st *placeholderStats) notScanned(c *Config) []Finding {
	var out []Finding
	for _, f := range st.tooLarge {
		out = append(out, tooLargeFinding(c, f.NewPath, f.Size, "add it to placeholders.allow"))
	}
	for _, p := range st.nul {
		out = append(out, Finding{Path: p, Line: 1, EndLine: 1, Rule: RulePlaceholderNotScanned, Severity: SeverityError, Key: fkey(RulePlaceholderNotScanned, p, "nul"),
			Message: p + " is a source file (by its extension) with NUL bytes, so it is not scanned: the plugin's placeholder scan skips such files, which hides what they hold; remove the NUL bytes, or add the file to placeholders.allow in the base branch's policy if it is really binary"})
	}
	sev := unscannedSeverity(c)
	for _, p := range st.big {
		if !isSourceCode(p) {
			continue
		}
		msg := p + " is over 1 MiB, so it is not scanned (the plugin's limit)"
		if sev == SeverityError {
			msg += ", and its added lines were not checked: split the file, add it to placeholders.allow, or set limits.unscanned: warn in the base branch's policy"
		} else {
			msg += " (limits.unscanned: warn)"
		}
		out = append(out, Finding{Path: p, Line: 1, EndLine: 1, Rule: RulePlaceholderNotScanned, Severity: sev, Key: fkey(RulePlaceholderNotScanned, p, "big"), Message: msg})
	}
	return out
}

// moreSource are source extensions the plugin's SAST list (sast.LanguageOf)
// lacks, which this gate scans as code when they are small.
var moreSource = map[string]bool{
	".vue": true, ".svelte": true, ".scala": true, ".sc": true, ".groovy": true, ".gradle": true,
	".m": true, ".mm": true, ".ino": true, ".zig": true, ".sol": true, ".mts": true, ".cts": true,
	".pyi": true, ".ru": true, ".pl": true, ".pm": true, ".r": true, ".ex": true, ".exs": true,
	".coffee": true, ".cr": true, ".jl": true, ".zsh": true, ".ksh": true, ".fish": true, ".psd1": true,
	".tf": true, ".hcl": true, ".lua": true, ".hs": true, ".ml": true, ".mli": true, ".erl": true,
	".hrl": true, ".clj": true, ".cljs": true, ".cljc": true, ".nim": true, ".vb": true, ".fs": true,
	".fsx": true, ".elm": true, ".f90": true, ".ada": true, ".pas": true,
}

// isSourceCode reports whether p is source code, which must not go
// unscanned unseen (a file of another kind over 1 MiB is a skip).
func isSourceCode(p string) bool {
	if _, code := sast.LanguageOf(p); code {
		return true
	}
	return moreSource[strings.ToLower(path.Ext(p))]
}

// notScannedErrors counts the failing not-scanned findings.
func notScannedErrors(fs []Finding) int {
	n := 0
	for _, f := range fs {
		if (f.Rule == RulePlaceholderNotScanned || f.Rule == RuleTooLargeToScan) && f.Severity == SeverityError {
			n++
		}
	}
	return n
}

// notScannedWhy says why the failing not-scanned files were not scanned.
func notScannedWhy(fs []Finding) string {
	var why []string
	for _, f := range fs {
		if (f.Rule != RulePlaceholderNotScanned && f.Rule != RuleTooLargeToScan) || f.Severity != SeverityError {
			continue
		}
		w := "over 1 MiB"
		switch {
		case f.Rule == RuleTooLargeToScan:
			w = "too large to scan"
		case strings.Contains(f.Message, "NUL bytes"):
			w = "NUL bytes"
		case strings.HasSuffix(f.Key, "\x00symlink"):
			w = "a symlink to what is not scanned as code"
		case strings.HasSuffix(f.Key, "\x00submodule"):
			w = "a git submodule"
		case strings.HasSuffix(f.Key, "\x00lfs"):
			w = "Git LFS pointer: content not in the repository"
		}
		if !slices.Contains(why, w) {
			why = append(why, w)
		}
	}
	return strings.Join(why, ", ")
}

// skipGenerated records and reports whether changed file f is generated,
// vendored or minified by its path (GeneratedReasonChanged).
func (st *placeholderStats) skipGenerated(in *Input, f *changeset.File) bool {
	why := GeneratedReasonChanged(in.config().Limits, in.Linguist, f, nil)
	if why != "" {
		st.generated = append(st.generated, mdtext.Code(f.NewPath)+" ("+why+")")
	}
	return why != ""
}

// skipGeneratedIn is skipGenerated for a changed file whose content (head,
// its start) is read: a reason in the content counts only when the merge
// base's version has one too (GeneratedReasonIn).
func (st *placeholderStats) skipGeneratedIn(in *Input, f *changeset.File, head []byte) bool {
	var old []byte
	hasOld := false
	if f.Status != changeset.Added && f.Status != changeset.Copied && f.OldPath != "" && in.BaseFile != nil {
		old, hasOld = in.BaseFile(f.OldPath)
	}
	why := GeneratedReasonChangedIn(in.config().Limits, in.Linguist, f, head, old, hasOld)
	if why != "" {
		st.generated = append(st.generated, mdtext.Code(f.NewPath)+" ("+why+")")
	}
	return why != ""
}

// addedPrefix appends the first 4 KiB of a new file's content, its added
// lines, to buf, for GeneratedReason.
func addedPrefix(buf []byte, lines []changeset.AddedLine) []byte {
	for _, l := range lines {
		if len(buf) >= 4096 {
			break
		}
		buf = append(append(buf, l.Text...), '\n')
	}
	return buf
}

// isDataFile reports whether p is a data file (.csv, .tsv), whose cells are
// data, not code or prose to scan.
func isDataFile(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".csv" || ext == ".tsv"
}

// placeholderSummary says what was scanned and what was not, and why.
func placeholderSummary(st *placeholderStats, cfg PlaceholdersConfig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scanned %s in %s", plural(st.lines, "added line", "added lines"), plural(st.files, "file", "files"))
	if st.plan > 0 {
		b.WriteString(" (`.swarm/plan.md` for template brackets only)")
	}
	b.WriteString(".")
	var skipped []string
	if st.tests > 0 {
		skipped = append(skipped, plural(st.tests, "test file", "test files"))
	}
	if st.data > 0 {
		skipped = append(skipped, plural(st.data, "data file", "data files")+" (.csv, .tsv)")
	}
	if len(st.big) > 0 {
		skipped = append(skipped, fmt.Sprintf("%s over 1 MiB (%s)", plural(len(st.big), "file", "files"), listSome(codes(st.big), 5)))
	}
	if len(st.tooLarge) > 0 {
		var ps []string
		for _, f := range st.tooLarge {
			ps = append(ps, f.NewPath)
		}
		skipped = append(skipped, fmt.Sprintf("%s too large to scan, over limits.max_file_bytes, not read (%s)", plural(len(ps), "file", "files"), listSome(codes(ps), 5)))
	}
	if st.binary > 0 {
		skipped = append(skipped, plural(st.binary, "binary file", "binary files")+" (or with NUL bytes)")
	}
	if len(st.nul) > 0 {
		skipped = append(skipped, fmt.Sprintf("%s with NUL bytes (%s)", plural(len(st.nul), "source file", "source files"), listSome(codes(st.nul), 5)))
	}
	if len(st.allowed) > 0 {
		skipped = append(skipped, fmt.Sprintf("%s allowed by the policy (%s)", plural(len(st.allowed), "file", "files"), listSome(codes(st.allowed), 5)))
	}
	if st.swarmFiles > 0 {
		skipped = append(skipped, plural(st.swarmFiles, "file", "files")+" under `.swarm/`")
	}
	if len(skipped) > 0 {
		b.WriteString(" Not scanned: " + strings.Join(skipped, ", ") + ".")
	}
	if len(st.generated) > 0 {
		fmt.Fprintf(&b, " Not scanned as generated, vendored or minified code, %s: %s.", plural(len(st.generated), "file", "files"), listSome(st.generated, 10))
	}
	if st.docs > 0 {
		as := "as a warning (placeholders.prose: fail makes it fail)"
		if cfg.FailProse {
			as = "and fails (placeholders.prose: fail)"
		}
		fmt.Fprintf(&b, " In %s (Markdown, text) only a TODO: or FIXME: starting a line of prose counts, %s; fenced code is a sample and is not scanned.",
			plural(st.docs, "document", "documents"), as)
	}
	b.WriteString(" Only lines this pull request adds are checked")
	if st.runs == 0 {
		b.WriteString("; each file is lexed from its first line at head, so a comment or string opened above an added line is known.")
	} else {
		fmt.Fprintf(&b, "; %s lexed one run of added lines at a time (the head content could not be read, or did not hold the added lines): a comment or string opened on an unchanged line above a run is not known there, nor is a function's body that starts or ends outside the run.",
			plural(st.runs, "file was", "files were"))
	}
	b.WriteString(" A finding whose rule and line are also in the merge-base version of its file (a moved or re-added line) is pre-existing: a warning, not a failure")
	if st.preExisting > 0 {
		fmt.Fprintf(&b, " (%s)", plural(st.preExisting, "finding", "findings"))
	}
	b.WriteString(".")
	if len(st.uncompared) > 0 {
		fmt.Fprintf(&b, " %s could not be compared with the merge base, so all their findings count as introduced: %s.",
			plural(len(st.uncompared), "file", "files"), listSome(st.uncompared, 10))
	}
	var off []string
	for _, id := range cfg.Disable {
		if id != RuleSuppressionNoReason {
			off = append(off, id)
		}
	}
	if len(off) > 0 {
		b.WriteString(" Rules turned off by the policy: " + strings.Join(codes(off), ", ") + ".")
	}
	if len(cfg.Sentinels) > 0 {
		b.WriteString(" Sentinels besides `SC-PLACEHOLDER`: " + strings.Join(codes(cfg.Sentinels), ", ") + ".")
	}
	return b.String()
}

// IsPlanMarkdown reports whether the plugin scans path as its plan file
// (only for template brackets): .swarm/plan.md, compared as the plugin
// does, ignoring case and also under a subdirectory.
func IsPlanMarkdown(p string) bool {
	l := strings.ToLower(p)
	return l == ".swarm/plan.md" || strings.HasSuffix(l, "/.swarm/plan.md")
}

// IsTestPath reports whether the plugin's placeholder scan skips path as a
// test file: its lowercased path matches .test., .spec., tests/, __tests__/,
// mocks/, __mocks__/, specs/ or __specs__/, and it is not a scaffold file
// (a generated/, scaffold/, templates/ directory, or a name like gen-*,
// scaffold-*, template-*, *.gen.*, *.template.*), which is scanned anyway.
func IsTestPath(p string) bool {
	l := strings.ToLower(p)
	// Every alternative of testPathPattern holds test, spec or mock: a
	// path with none of them is not matched (the expression costs
	// microseconds a path).
	if !strings.Contains(l, "test") && !strings.Contains(l, "spec") && !strings.Contains(l, "mock") {
		return false
	}
	return testPathPattern.MatchString(l) && !scaffoldDirs.MatchString(l) && !scaffoldNames.MatchString(path.Base(p))
}

// allowedByGlobs reports whether a policy allow glob matches the path, its
// file name, or a directory the path is under.
func allowedByGlobs(globs []string, p string) bool {
	base := path.Base(p)
	for _, g := range globs {
		for _, name := range [...]string{p, base} {
			if ok, _ := doublestar.Match(g, name); ok {
				return true
			}
		}
		if ok, _ := doublestar.Match(g+"/**", p); ok {
			return true
		}
	}
	return false
}

// overScanSize reports whether a file is over the plugin's 1 MiB limit:
// by its head blob size, or, when that is unknown, by the bytes of its
// added lines (a lower bound; the whole file for an added file).
func overScanSize(f *changeset.File) bool {
	if f.Size > 0 || (f.Size == 0 && len(f.Added) == 0) {
		return f.Size > MaxPlaceholderScanSize
	}
	n := int64(len(f.Added) - 1) // newlines between the lines
	for _, l := range f.Added {
		if n += int64(len(l.Text)); n > MaxPlaceholderScanSize {
			return true
		}
	}
	return false
}

func hasNUL(lines []changeset.AddedLine) bool {
	for _, l := range lines {
		if strings.IndexByte(l.Text, 0) >= 0 {
			return true
		}
	}
	return false
}
