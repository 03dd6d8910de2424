package gates

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/sast"
	"github.com/swarm-gate/swarm-gate/internal/secrets"
)

// SASTScan is what the pipeline computed for swarm/sast, where files can be
// read (gates read no files): findings in the changed files at head and at
// the merge base, SARIF results, and the phase's baseline file on both
// sides (.swarm/evidence/{phase}/sast-baseline.json, the plugin's
// src/tools/sast-baseline.ts).
type SASTScan struct {
	// Head: Tier A findings in the changed files at head, fingerprinted
	// against head content, then the SARIF findings in changed files.
	Head []sast.Finding
	// MergeBase: Tier A findings in the same files at the merge base (a
	// renamed file under its new name), fingerprinted.
	MergeBase []sast.Finding
	// Scanned counts files the rules ran on; Skipped counts the others by
	// reason (too large, binary, empty, non-code, unreadable); TooLarge
	// lists the code files skipped for size (over 512 KiB, as the plugin);
	// NotScanned lists files over the per-run limit.
	Scanned    int
	Skipped    map[string]int
	TooLarge   []string
	NotScanned []string
	// BinaryCode lists the changed code files (of a language the rules
	// cover) the scanner
	// skipped as binary (more than 10% NUL bytes in the first 8 KiB, as the
	// plugin): NUL bytes in a comment do not stop JavaScript or Python from
	// running the rest, so such a file fails the gate closed as unscanned.
	BinaryCode []string
	// TooLargeToScan lists the changed code files the change set did not
	// read (changeset.File.TooLarge, over limits.max_file_bytes).
	TooLargeToScan []string
	// Unreadable lists the changed files the head commit has that could not
	// be read, with why: the gate cannot evaluate them, so it fails closed.
	Unreadable []SkippedFile
	// Generated lists the changed code files not scanned because they are
	// generated, vendored or minified (GeneratedReason), with the reason.
	Generated []SkippedFile
	// Dismissed are the head findings sast.Refine set aside (a method
	// named eval, text in a docstring, ...), each with its Note: listed,
	// never gating.
	Dismissed []sast.Finding
	// SARIFFiles are the logs read (--sarif); SARIFKept counts their
	// results in changed files, SARIFOther the rest (ignored); SARIFErr is
	// why a log could not be read.
	SARIFFiles            []string
	SARIFKept, SARIFOther int
	SARIFErr              error
	// The baseline file at the merge base and at head (nil when absent),
	// with why it could not be read.
	BaseBaseline, HeadBaseline       *sast.Baseline
	BaseBaselineErr, HeadBaselineErr error
	// Secrets are the credentials gitleaks' default rules found on added
	// lines (rule secret/<gitleaks id>, excerpt masked, Engine "gitleaks"):
	// new, high severity, or low under a test path with the reason in
	// Note. SecretsPre are those whose value the merge base's version of
	// the file already holds: shown, never gating. Their dismissed false
	// alarms are in Dismissed. SecretFiles and SecretLines count the
	// files and added lines scanned; SecretsOmitted the findings over the
	// caps (100 a file, 1000 a run); SecretsErr is why the rules could not
	// be loaded (the gate then fails closed).
	Secrets, SecretsPre      []sast.Finding
	SecretFiles, SecretLines int
	SecretsOmitted           int
	SecretsErr               error
	// SecretWhole are the changed files git diffs as binary (a stray NUL
	// or control byte, UTF-16) whose whole content was scanned for
	// secrets, since git gives no added lines for them.
	SecretWhole []string
	// AddedRuns are, by head path, the runs of consecutive line numbers
	// added to the changed files whose added lines the source released
	// (changeset.File.Released), for the SARIF results, which are new on
	// an added line: first and last line of each run, ascending. Only
	// kept when SARIF logs are read.
	AddedRuns map[string][][2]int
}

// SkippedFile is a changed file swarm/sast did not scan, and why.
type SkippedFile struct{ Path, Reason string }

// SAST is swarm/sast: a security finding the pull request introduces fails
// the gate; findings that were already there do not (spec section 7). The
// baseline comes from the merge base, never from the pull request: the
// phase's sast-baseline.json there, else the same rules run on the merge
// base's version of each changed file (as semgrep's baseline-commit does);
// base config sast.baseline forces either. Head findings are split with the
// plugin's fingerprints into pre-existing, moved (the same line elsewhere:
// never gating) and new; a new finding at or above
// sast.severity_threshold (default medium) fails. SARIF results from other
// scanners are new when they sit on a line the pull request adds.
// Fingerprints the pull request adds to its own baseline file are listed
// and, unless the policy accepts agent triage, do not clear anything.
type SAST struct{}

// Name implements Gate.
func (SAST) Name() string { return "swarm/sast" }

// Rule ids of swarm/sast's own findings (a security finding keeps its
// scanner's rule id, e.g. sast/go-shell-injection or G204).
const (
	RuleSASTTriageWithoutRationale = "sast/triage-without-rationale"
	RuleSASTBaselineAddedByPR      = "sast/baseline-added-by-pull-request"
	RuleSASTNotScanned             = "sast/not-scanned"
	RuleSecretsNotShown            = "secret/more-not-shown"
)

// Evaluate implements Gate. A secret-looking value in a file's path (a
// file named config/AKIA….txt) is masked wherever the result prints it.
func (g SAST) Evaluate(ctx context.Context, in *Input) Result {
	r := g.evaluate(ctx, in)
	maskSecretPaths(in, &r)
	return r
}

// maskSecretPaths is MaskSecretPaths with the paths of in's changed files
// and of the files the SAST scan lists (too large, not scanned,
// unreadable, generated), besides r's findings' own.
func maskSecretPaths(in *Input, r *Result) {
	var paths []string
	if in.Changes != nil {
		for i := range in.Changes.Files {
			paths = append(paths, in.Changes.Files[i].NewPath, in.Changes.Files[i].OldPath)
		}
	}
	if s := in.SAST; s != nil {
		for _, l := range [][]string{s.TooLarge, s.TooLargeToScan, s.NotScanned} {
			paths = append(paths, l...)
		}
		for _, l := range [][]SkippedFile{s.Unreadable, s.Generated} {
			for _, f := range l {
				paths = append(paths, f.Path)
			}
		}
	}
	MaskSecretPaths(r, paths...)
}

// MaskSecretPaths masks, in r's title, summary and findings (paths and
// messages), the values gitleaks' rules find in paths and in the paths of
// r's findings (a file named config/AKIA….txt): each becomes
// sast.MaskValue's form ("AK…(20)"), in the summary also where it is
// Markdown-escaped. Paths without one are left as they are, and masking
// twice changes nothing more. When the rules cannot be loaded nothing is
// masked: swarm/sast has already failed closed on that. The one masking of
// secret-looking paths, for every place that prints them (swarm/sast,
// swarm/scope, swarm/placeholders, the SARIF report).
func MaskSecretPaths(r *Result, paths ...string) {
	sc, err := secrets.Default()
	if err != nil {
		return
	}
	seen := map[string]bool{}
	var values []string
	look := func(p string) {
		if p == "" || seen[p] {
			return
		}
		seen[p] = true
		values = append(values, sc.PathSecrets(p)...)
	}
	for _, p := range paths {
		look(p)
	}
	for i := range r.Findings {
		look(r.Findings[i].Path)
	}
	for i := range r.Suppressions {
		look(r.Suppressions[i].Path)
	}
	if len(values) == 0 {
		return
	}
	md := slices.Clone(values)
	for _, v := range values {
		if e := mdtext.Inline(v); e != v {
			md = append(md, e)
		}
	}
	r.Title = sast.MaskValues(r.Title, values)
	r.Summary = sast.MaskValues(r.Summary, md)
	for i := range r.Findings {
		f := &r.Findings[i]
		f.Path = sast.MaskValues(f.Path, values)
		f.Message = sast.MaskValues(f.Message, values)
	}
	for i := range r.Suppressions {
		r.Suppressions[i].Path = sast.MaskValues(r.Suppressions[i].Path, values)
	}
}

// MaskSecretText masks, in r's title, summary, findings and suppression
// reasons, the values gitleaks' rules find in that text itself (a key in a
// task description that plan-freeze quotes), as sast.MaskValue does: the
// text outlives the commit that held the key (check runs, the summary
// comment). When the rules cannot be loaded nothing is masked: swarm/sast
// has already failed closed on that.
func MaskSecretText(r *Result) {
	sc, err := secrets.Default()
	if err != nil {
		return
	}
	var lines []secrets.Line
	add := func(s string) {
		for l := range strings.Lines(s) {
			lines = append(lines, secrets.Line{N: len(lines) + 1, Text: strings.TrimSuffix(l, "\n")})
		}
	}
	add(r.Title)
	add(r.Summary)
	for i := range r.Findings {
		add(r.Findings[i].Message)
	}
	for i := range r.Suppressions {
		add(r.Suppressions[i].Reason)
	}
	found, _, _ := sc.ScanLines("", lines)
	var values []string
	for _, f := range found {
		if f.Secret != "" {
			values = append(values, f.Secret)
		}
	}
	if len(values) == 0 {
		return
	}
	r.Title = sast.MaskValues(r.Title, values)
	r.Summary = sast.MaskValues(r.Summary, values)
	for i := range r.Findings {
		r.Findings[i].Message = sast.MaskValues(r.Findings[i].Message, values)
	}
	for i := range r.Suppressions {
		r.Suppressions[i].Reason = sast.MaskValues(r.Suppressions[i].Reason, values)
	}
}

func (g SAST) evaluate(_ context.Context, in *Input) Result {
	if reason, off := in.QAGateOff("sast_enabled"); off {
		return Result{Outcome: NotApplicable, Title: "SAST is off: " + reason, Findings: []Finding{},
			Summary: mdtext.Inline(reason) + ": the plugin runs no sast_scan for this plan (pre_check_batch), so swarm-gate does not either."}
	}
	s := in.SAST
	if s == nil {
		return CouldNotEvaluate(g.Name(), fmt.Errorf("the SAST scan was not computed for this run"))
	}
	if s.SARIFErr != nil {
		// %v: the SARIF log is a file of the runner, not of the repository.
		return CouldNotEvaluate(g.Name(), fmt.Errorf("%v; fix the scanner step that wrote it, or drop the --sarif flag (the Action's sarif input)", s.SARIFErr))
	}
	if s.BaseBaselineErr != nil {
		return CouldNotEvaluate(g.Name(), fmt.Errorf("the merge base's %v; the baseline comes from the base branch, so repair it there (or recapture it with the plugin's sast_scan)", s.BaseBaselineErr))
	}
	if s.SecretsErr != nil {
		return CouldNotEvaluate(g.Name(), fmt.Errorf("the secret rules could not be loaded: %v", s.SecretsErr))
	}
	if len(s.Unreadable) > 0 {
		r := CouldNotEvaluate(g.Name(), fmt.Errorf("%s could not be read for scanning: %s: %s", plural(len(s.Unreadable), "changed file", "changed files"), s.Unreadable[0].Path, s.Unreadable[0].Reason))
		for _, u := range s.Unreadable {
			r.Findings = append(r.Findings, Finding{Path: u.Path, Rule: RuleUnreadable, Severity: SeverityError, Message: "could not evaluate: the file could not be read for scanning: " + u.Reason})
		}
		return r
	}
	cfg := in.config().SAST
	var findings []Finding
	if s.HeadBaselineErr != nil {
		findings = append(findings, Finding{Path: sast.BaselinePath(in.Phase), Rule: RuleUnreadable, Severity: SeverityWarning,
			Message: fmt.Sprintf("the pull request's baseline file cannot be read (%v); it is not used (the baseline comes from the merge base), but the plugin will not read it either", s.HeadBaselineErr)})
	}
	unscanned := sastUnscanned(in, s, in.config())
	if s.Scanned == 0 && s.SARIFKept == 0 && len(s.NotScanned) == 0 && len(unscanned) > 0 && len(s.Secrets) == 0 {
		findings = append(findings, unscanned...)
		if unscannedSeverity(in.config()) == SeverityError {
			return Result{Outcome: Failed, Title: "zero files were scanned: " + unscannedTitle(in, s), Findings: findings,
				Summary: "SAST requires at least one file to scan; zero files were scanned (the plugin's sast_scan fails the same way, failure_kind coverage). Split the file, or scan it with another tool and pass its SARIF log (--sarif; the Action's sarif input); limits.unscanned: warn in the base branch's policy lets such files pass as warnings."}
		}
		return Result{Outcome: Passed, Title: "nothing scanned: " + unscannedTitle(in, s) + " (limits.unscanned: warn)", Findings: findings,
			Summary: "The built-in rules scanned no file (" + skippedText(s) + "): the changed files could not be scanned, which the policy lets pass as warnings (limits.unscanned: warn)."}
	}
	if s.Scanned == 0 && s.SARIFKept == 0 && len(s.NotScanned) == 0 && s.SecretFiles == 0 {
		title := "no code files among the changed files"
		if n := len(s.Generated); n > 0 {
			title = fmt.Sprintf("nothing scanned: the changed code is all generated, vendored or minified (%s not scanned)", plural(n, "file", "files"))
		}
		return Result{Outcome: NotApplicable, Title: title, Findings: findings,
			Summary: "The built-in rules found no file to scan (" + skippedText(s) + ") and no SARIF result lies in a changed file." + generatedText(s)}
	}

	mode := cfg.Baseline
	if mode == SASTBaselineAuto {
		mode = SASTBaselineMergeBase
		if s.BaseBaseline != nil {
			mode = SASTBaselineFile
		}
	}
	if mode == SASTBaselineFile && s.BaseBaseline == nil {
		return CouldNotEvaluate(g.Name(), fmt.Errorf("the policy (sast.baseline: file) requires %s at the merge base, and there is none; capture one with the plugin's sast_scan, or use sast.baseline: auto", sast.BaselinePath(in.Phase)))
	}

	var tierA, sarif []sast.Finding
	for _, f := range s.Head {
		if f.Engine == sast.EngineTierA {
			tierA = append(tierA, f)
		} else {
			sarif = append(sarif, f)
		}
	}
	var pre, moved, fresh []sast.Finding
	fallback := 0
	if mode == SASTBaselineFile {
		// The baseline file covers the files it indexed, under their
		// names: a file it does not index, or one the pull request renamed,
		// is compared with the merge base's version instead.
		indexed := map[string]bool{}
		for _, p := range s.BaseBaseline.FilesIndexed {
			indexed[p] = true
		}
		renamed := map[string]bool{}
		for _, f := range in.Changes.Files {
			if f.Status == changeset.Renamed || f.Status == changeset.Copied {
				renamed[f.NewPath] = true
			}
		}
		var viaFile, viaMB []sast.Finding
		for _, f := range tierA {
			if indexed[f.File] && !renamed[f.File] {
				viaFile = append(viaFile, f)
			} else {
				viaMB = append(viaMB, f)
			}
		}
		var mb []sast.Finding
		for _, f := range s.MergeBase {
			if !indexed[f.File] || renamed[f.File] {
				mb = append(mb, f)
			}
		}
		fallback = len(viaMB)
		p1, m1, n1 := sast.Partition(viaFile, s.BaseBaseline)
		p2, m2, n2 := sast.PartitionMergeBase(viaMB, mb)
		pre, moved, fresh = append(p1, p2...), append(m1, m2...), append(n1, n2...)
	} else {
		pre, moved, fresh = sast.PartitionMergeBase(tierA, s.MergeBase)
	}
	// Secrets were judged by value against the merge base when scanned.
	pre = append(pre, s.SecretsPre...)
	fresh = append(fresh, s.Secrets...)
	var added map[string]map[int]bool
	if len(sarif) > 0 {
		added = addedLines(in.Changes, s.AddedRuns)
	}
	for _, f := range sarif {
		switch {
		case s.BaseBaseline != nil && f.Stable && s.BaseBaseline.Has(f.Fingerprint):
			pre = append(pre, f)
		case added[f.File] != nil && touchesAdded(added[f.File], f.Line, f.EndLine):
			fresh = append(fresh, f)
		case f.Line == 0 && added[f.File] != nil:
			fresh = append(fresh, f) // no line: the file changed, so it may be new
		default:
			pre = append(pre, f)
		}
	}

	// What the pull request added to its own baseline.
	selfTriaged := map[string]*sast.AddedEntry{}
	entries := sast.AddedEntries(s.BaseBaseline, s.HeadBaseline)
	for i := range entries {
		e := &entries[i]
		selfTriaged[e.Fingerprint] = e
		path := sast.BaselinePath(in.Phase)
		line := 0
		if e.Triage != nil {
			line = e.Triage.Line
		}
		if e.Triage == nil || strings.TrimSpace(e.Triage.Rationale) == "" {
			findings = append(findings, Finding{Path: path, Line: line, EndLine: line, Rule: RuleSASTTriageWithoutRationale, Severity: SeverityError,
				Message: fmt.Sprintf("the pull request adds %s to the baseline without a triage rationale: every absorbed finding needs one (the plugin requires baseline_refresh_rationale)", e.Fingerprint)})
		}
	}
	var accepted []sast.Finding
	if cfg.AcceptTriage {
		var still []sast.Finding
		for _, f := range fresh {
			if e := selfTriaged[f.Fingerprint]; e != nil && e.Triage != nil && strings.TrimSpace(e.Triage.Rationale) != "" {
				accepted = append(accepted, f)
				continue
			}
			still = append(still, f)
		}
		fresh = still
	}

	// A new finding whose line is also one that was already there is a
	// copy the pull request adds (a helper duplicated into a new function):
	// new, but say where the original is, so that it does not read as a
	// move gone wrong.
	original := map[string]sast.Finding{}
	for _, f := range append(append([]sast.Finding(nil), pre...), moved...) {
		if _, ok := original[f.ReflowKey]; !ok && f.ReflowKey != "" {
			original[f.ReflowKey] = f
		}
	}

	threshold := cfg.Threshold
	failing := 0
	for _, f := range fresh {
		sev := SeverityWarning
		if f.Severity.Rank() >= threshold.Rank() {
			sev = SeverityError
			failing++
		}
		msg := fmt.Sprintf("%s (%s, new): %s", f.RuleID, f.Severity, strings.TrimRight(sast.MaskLine(f.Message), ". "))
		if ex := sast.MaskedExcerpt(f); ex != "" {
			msg += ": " + strings.TrimSpace(ex)
		}
		if f.Remediation != "" {
			msg += ". " + strings.TrimRight(f.Remediation, ". ")
		}
		if f.Note != "" {
			msg += "; " + f.Note
		}
		if o, ok := original[f.ReflowKey]; ok && f.ReflowKey != "" {
			msg += fmt.Sprintf("; the same line is at %s:%d, which was already there: this is a copy the pull request adds", o.File, o.Line)
		}
		if e := selfTriaged[f.Fingerprint]; e != nil {
			msg += "; the pull request added it to its own baseline"
			if e.Triage != nil {
				msg += fmt.Sprintf(" (triage by %s: %q)", e.Triage.Actor, clipN(e.Triage.Rationale, 200))
			}
			msg += ", which does not clear it (the baseline comes from the merge base)"
		}
		if f.SuppressedInSource {
			msg += "; its in-source suppression is on a line this pull request adds, so it does not count"
		}
		if sev == SeverityWarning {
			msg += fmt.Sprintf(" (below the %s threshold: not failing)", threshold)
		}
		findings = append(findings, Finding{Path: f.File, Line: f.Line, EndLine: f.Line, Column: f.Column, Rule: f.RuleID, Severity: sev, Message: msg})
	}
	findings = append(findings, unscanned...)
	if s.SecretsOmitted > 0 {
		// Findings not shown may be new ones: the gate fails closed.
		findings = append(findings, Finding{Rule: RuleSecretsNotShown, Severity: SeverityError,
			Message: fmt.Sprintf("%s more not shown: over the limits of 100 secret findings a file and 1000 a run", plural(s.SecretsOmitted, "secret finding", "secret findings"))})
	}
	if len(s.NotScanned) > 0 {
		findings = append(findings, Finding{Path: s.NotScanned[0], Rule: RuleSASTNotScanned, Severity: SeverityWarning,
			Message: fmt.Sprintf("%s not scanned: over the limit of %d files per run (%s)", plural(len(s.NotScanned), "changed file", "changed files"), s.Scanned, listSome(s.NotScanned, 5))})
	}
	sort.SliceStable(findings, func(i, j int) bool {
		if findings[i].Path != findings[j].Path {
			return findings[i].Path < findings[j].Path
		}
		return findings[i].Line < findings[j].Line
	})
	summary := sastSummary(in, s, mode, pre, moved, fresh, accepted, threshold)
	if fallback > 0 {
		summary += fmt.Sprintf("\n\n%s in files the baseline file does not index (or that the pull request renamed) were compared with the merge base's version of the file instead.", plural(fallback, "finding", "findings"))
	}
	switch {
	case failing > 0:
		title := fmt.Sprintf("%s at or above %s", plural(failing, "new security finding", "new security findings"), threshold)
		if below := len(fresh) - failing; below > 0 {
			title += fmt.Sprintf(" (+%d below)", below)
		}
		return Result{Outcome: Failed, Title: title, Summary: summary, Findings: findings}
	case s.SecretsOmitted > 0:
		return Result{Outcome: Failed, Title: fmt.Sprintf("%s over the limits not shown", plural(s.SecretsOmitted, "secret finding", "secret findings")), Summary: summary, Findings: findings}
	case len(failingFindings(findings)) > 0 && len(failingFindings(findings)) == len(failingFindings(unscanned)):
		return Result{Outcome: Failed, Title: fmt.Sprintf("%s could not be scanned: %s", plural(len(unscanned), "changed file", "changed files"), unscannedTitle(in, s)), Summary: summary, Findings: findings}
	case len(failingFindings(findings)) > 0:
		return Result{Outcome: Failed, Title: "the pull request edits its own SAST baseline without rationale", Summary: summary, Findings: findings}
	}
	title := fmt.Sprintf("no new security findings at or above %s in %s", threshold, plural(s.Scanned, "scanned file", "scanned files"))
	if s.SecretFiles > 0 {
		title += fmt.Sprintf(" and %s scanned for secrets", plural(s.SecretLines, "added line", "added lines"))
	}
	if n := len(unscanned); n > 0 {
		title += fmt.Sprintf("; %s not scanned (%s, limits.unscanned: warn)", plural(n, "code file", "code files"), unscannedTitle(in, s))
	}
	if n := len(s.Generated); n > 0 {
		title += fmt.Sprintf("; %s generated, vendored or minified not scanned by the built-in rules", plural(n, "file", "files"))
	}
	return Result{Outcome: Passed, Title: title, Summary: summary, Findings: findings}
}

// sastUnscanned are the findings of the changed code files the scan could
// not read: over the scanner's 512 KiB limit (as the plugin), or not read at
// all (limits.max_file_bytes). Errors, so that the gate fails closed, unless
// the policy has limits.unscanned: warn.
func sastUnscanned(in *Input, s *SASTScan, c *Config) []Finding {
	var out []Finding
	sev := unscannedSeverity(c)
	for _, p := range s.TooLarge {
		msg := p + " is over the scanner's 512 KiB limit (the plugin's), so it was not scanned"
		if sev == SeverityError {
			msg += ": split the file, or scan it with another tool and pass its SARIF log (--sarif; the Action's sarif input), or set limits.unscanned: warn in the base branch's policy"
		} else {
			msg += " (limits.unscanned: warn)"
		}
		out = append(out, Finding{Path: p, Rule: RuleSASTNotScanned, Severity: sev, Message: msg})
	}
	for _, p := range s.BinaryCode {
		msg := p + " is a source file (of a language the rules cover) that the scanner skipped as binary (more than 10% NUL bytes in its first 8 KiB, as the plugin's sast_scan does), so it was not scanned; NUL bytes in a comment do not stop the code around them from running"
		if sev == SeverityError {
			msg += ": remove the NUL bytes, or scan it with another tool and pass its SARIF log (--sarif), or set limits.unscanned: warn in the base branch's policy"
		} else {
			msg += " (limits.unscanned: warn)"
		}
		out = append(out, Finding{Path: p, Rule: RuleSASTNotScanned, Severity: sev, Message: msg})
	}
	if len(s.TooLargeToScan) > 0 {
		sizes := map[string]int64{}
		if in.Changes != nil {
			for i := range in.Changes.Files {
				sizes[in.Changes.Files[i].NewPath] = in.Changes.Files[i].Size
			}
		}
		for _, p := range s.TooLargeToScan {
			out = append(out, tooLargeFinding(c, p, sizes[p], "scan it with another tool and pass its SARIF log (--sarif)"))
		}
	}
	for _, l := range codeSymlinks(in.Changes, in.HeadFile) {
		out = append(out, Finding{Path: l.path, Line: 1, EndLine: 1, Rule: RuleSASTNotScanned, Severity: sev, Key: fkey(RuleSASTNotScanned, l.path, l.kind()), Message: symlinkMessage(l, sev)})
	}
	return out
}

// unscannedTitle says why the unscanned code files were not scanned.
func unscannedTitle(in *Input, s *SASTScan) string {
	var why []string
	if n := len(s.TooLarge); n > 0 {
		why = append(why, plural(n, "file", "files")+" over 512 KiB")
	}
	if n := len(s.TooLargeToScan); n > 0 {
		why = append(why, plural(n, "file", "files")+" too large to scan (limits.max_file_bytes)")
	}
	if n := len(s.BinaryCode); n > 0 {
		why = append(why, plural(n, "source file", "source files")+" skipped as binary (NUL bytes)")
	}
	links, subs, lfs := 0, 0, 0
	for _, l := range codeSymlinks(in.Changes, in.HeadFile) {
		switch {
		case l.submodule:
			subs++
		case l.lfs:
			lfs++
		default:
			links++
		}
	}
	if links > 0 {
		why = append(why, plural(links, "symlink", "symlinks")+" whose target is not scanned as code")
	}
	if subs > 0 {
		why = append(why, plural(subs, "git submodule", "git submodules"))
	}
	if lfs > 0 {
		why = append(why, plural(lfs, "Git LFS pointer", "Git LFS pointers")+" (content not in the repository)")
	}
	return strings.Join(why, ", ")
}

// touchesAdded reports whether lines line..end (end 0: line alone) include
// one the pull request adds; a region past the end of what was added is
// judged by its first line.
func touchesAdded(added map[int]bool, line, end int) bool {
	if end < line {
		end = line
	}
	if end-line > 10000 {
		end = line + 10000
	}
	for l := line; l <= end; l++ {
		if added[l] {
			return true
		}
	}
	return false
}

// addedLines maps each changed path to the set of head line numbers the
// pull request adds: from the file's added lines, or, for a file whose
// lines were released, from runs (SASTScan.AddedRuns).
func addedLines(cs *changeset.ChangeSet, runs map[string][][2]int) map[string]map[int]bool {
	out := map[string]map[int]bool{}
	for i := range cs.Files {
		f := &cs.Files[i]
		if f.NewPath == "" {
			continue
		}
		m := make(map[int]bool, f.AddedCount())
		for _, l := range f.Added {
			m[l.Line] = true
		}
		if f.Released > 0 {
			for _, r := range runs[f.NewPath] {
				for l := r[0]; l <= r[1]; l++ {
					m[l] = true
				}
			}
		}
		out[f.NewPath] = m
	}
	return out
}

func skippedText(s *SASTScan) string {
	if len(s.Skipped) == 0 && len(s.Generated) == 0 {
		return "nothing skipped"
	}
	keys := make([]string, 0, len(s.Skipped))
	for k := range s.Skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys)+1)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", s.Skipped[k], k))
	}
	if n := len(s.Generated); n > 0 {
		parts = append(parts, fmt.Sprintf("%d generated, vendored or minified, listed below", n))
	}
	return "skipped: " + strings.Join(parts, ", ")
}

// maxListedGenerated is how many skipped generated files the summary names.
const maxListedGenerated = 10

// generatedText lists the files not scanned as generated, vendored or
// minified, once, so that skipping one is never silent.
func generatedText(s *SASTScan) string {
	if len(s.Generated) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n**Not scanned by the built-in rules** (their added lines are still scanned for secrets): %s generated, vendored or minified (not the project's own source, so its findings would not be this pull request's to fix); check that each is what its reason says:\n\n",
		plural(len(s.Generated), "changed file is", "changed files are"))
	for i, g := range s.Generated {
		if i == maxListedGenerated {
			fmt.Fprintf(&b, "- … and %d more\n", len(s.Generated)-i)
			break
		}
		fmt.Fprintf(&b, "- %s: %s\n", mdtext.Code(g.Path), mdtext.Inline(g.Reason))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func sastSummary(in *Input, s *SASTScan, mode SASTBaselineMode, pre, moved, fresh, accepted []sast.Finding, threshold sast.Severity) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scanned %s with the plugin's Tier A rules (%s)", plural(s.Scanned, "changed file", "changed files"), skippedText(s))
	fmt.Fprintf(&b, "; %s of %s for secrets with gitleaks %s's default rules (secret/*, values masked)", plural(s.SecretLines, "added line", "added lines"), plural(s.SecretFiles, "text file", "text files"), secrets.GitleaksVersion)
	if n := len(s.SecretWhole); n > 0 {
		fmt.Fprintf(&b, " (%s git diffs as binary scanned whole: %s)", plural(n, "file", "files"), listSome(codeAll(s.SecretWhole), 5))
	}
	if len(s.SARIFFiles) > 0 {
		fmt.Fprintf(&b, "; read %s: %s in changed files, %s elsewhere ignored", plural(len(s.SARIFFiles), "SARIF log", "SARIF logs"), plural(s.SARIFKept, "result", "results"), plural(s.SARIFOther, "result", "results"))
	}
	b.WriteString(".")
	b.WriteString(generatedText(s))
	b.WriteString("\n\n")
	switch mode {
	case SASTBaselineFile:
		fmt.Fprintf(&b, "**Baseline**: %s at the merge base (schema %s, %s).", mdtext.Code(s.BaseBaseline.Path), mdtext.Inline(s.BaseBaseline.SchemaVersion), plural(len(s.BaseBaseline.Fingerprints), "fingerprint", "fingerprints"))
	default:
		fmt.Fprintf(&b, "**Baseline**: the same rules on the merge base's version of each changed file (%s there).", plural(len(s.MergeBase), "finding", "findings"))
	}
	fmt.Fprintf(&b, " Threshold: %s (sast.severity\\_threshold). SARIF results count as new when they sit on a line this pull request adds.\n\n", threshold)
	fmt.Fprintf(&b, "**New**: %d. **Moved** (same code, other line; never gating): %d. **Pre-existing**: %d.", len(fresh), len(moved), len(pre))
	if len(accepted) > 0 {
		fmt.Fprintf(&b, " **Accepted by agent triage** (sast.accept\\_triage): %d.", len(accepted))
	}
	list := func(title string, fs []sast.Finding) {
		if len(fs) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n\n<details><summary>%s (%d)</summary>\n\n", title, len(fs))
		for i, f := range fs {
			if i == 30 {
				fmt.Fprintf(&b, "- … and %d more\n", len(fs)-i)
				break
			}
			fmt.Fprintf(&b, "- %s:%d %s (%s)\n", mdtext.Code(f.File), f.Line, mdtext.Code(f.RuleID), f.Severity)
		}
		b.WriteString("\n</details>")
	}
	if len(s.Dismissed) > 0 {
		fmt.Fprintf(&b, " **Dismissed** (the rule's match is not what it means; never gating): %d.", len(s.Dismissed))
	}
	list("Pre-existing findings, for triage", pre)
	list("Moved findings", moved)
	list("Accepted by agent triage", accepted)
	if len(s.Dismissed) > 0 {
		fmt.Fprintf(&b, "\n\n<details><summary>Dismissed findings (%d)</summary>\n\n", len(s.Dismissed))
		for i, f := range s.Dismissed {
			if i == 30 {
				fmt.Fprintf(&b, "- … and %d more\n", len(s.Dismissed)-i)
				break
			}
			fmt.Fprintf(&b, "- %s:%d %s: %s\n", mdtext.Code(f.File), f.Line, mdtext.Code(f.RuleID), mdtext.Inline(f.Note))
		}
		b.WriteString("\n</details>")
	}
	return b.String()
}
