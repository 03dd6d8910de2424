package gates

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Scope is swarm/scope: every file the pull request changes must lie inside
// the union of the phase's task scopes, by the plugin's rules (spec section
// 5): each task's effective scope is its declaration
// (.swarm/scopes/scope-{taskId}.json, or v2 bindings for the head plan's
// structure hash) if it has one, else its files_touched; a file is in scope
// when it equals an entry or lies under an entry treated as a directory.
// .swarm/ itself is exempt; the base config's scope.extras (globs) and, by
// default, lockfiles beside an in-scope manifest are allowed too. Each
// changed file is attributed to the tasks that cover it; each file outside
// is a finding naming the nearest task scope. A task the pull request marks
// completed although none of its files changed is a warning (or a failure,
// by config).
type Scope struct{}

// Name implements Gate.
func (Scope) Name() string { return "swarm/scope" }

// Rule ids of swarm/scope findings.
const (
	RuleOutOfScope         = "scope/out-of-scope"
	RuleScopeNotDeclared   = "scope/SCOPE_NOT_DECLARED"
	RuleScopeConflict      = "scope/SCOPE_CONFLICT"
	RuleInvalidEntry       = "scope/invalid-entry"
	RuleUncleanPath        = "scope/unclean-path"
	RuleStaleBinding       = "scope/stale-binding"
	RuleUntouchedCompleted = "scope/completed-but-untouched"
	RuleWidenedByPR        = "scope/widened-by-pull-request"
	// RuleSelfApprovedWidening: the pull request widens a task's scope to
	// cover a file it changes, and the only approval of the new plan is
	// one it adds itself (issue 20 item 3).
	RuleSelfApprovedWidening = "scope/self-approved-widening"
	// RuleScopeNotShown counts the changed files outside the scope (or
	// with unclean paths) past maxScopeFileFindings: an error, as each of
	// them is.
	RuleScopeNotShown = "scope/more-not-shown"
)

// maxSummaryTasks caps the per-task table of the summary.
const maxSummaryTasks = 40

// maxScopeFileFindings bounds the out-of-scope and unclean-path findings
// kept one by one: a pull request of 300,000 files outside the scope was
// 300,000 findings, each with a nearest-entry search (47 s, 554 MB); a
// reviewer needs the first ones and the count.
const maxScopeFileFindings = 1000

// Evaluate implements Gate. A secret-looking value in a file's path is
// masked wherever the result prints it, as swarm/sast does
// (maskSecretPaths): an out-of-scope file named config/AKIA….txt must not
// publish the key in an annotation or summary.
func (g Scope) Evaluate(ctx context.Context, in *Input) Result {
	r := g.evaluate(ctx, in)
	maskSecretPaths(in, &r)
	return r
}

func (g Scope) evaluate(_ context.Context, in *Input) Result {
	if r, ok := noPlan(g.Name(), in); ok {
		return r
	}
	plan, phase, err := headPhase(in)
	if err != nil {
		return CouldNotEvaluate(g.Name(), err)
	}
	if in.Head.Scopes.DirErr != nil {
		return CouldNotEvaluate(g.Name(), in.Head.Scopes.DirErr)
	}
	cfg := in.config().Scope
	phases := phasesUnderCheck(in, plan, phase)
	var findings []Finding
	var scopes []*taskScope
	// A phase none of whose tasks declares a scope leaves every file
	// unattributable: its work could be anywhere.
	var undeclared []*swarm.Phase
	for _, ph := range phases {
		declared := false
		for i := range ph.Tasks {
			ts, f, err := resolveTaskScope(in, &ph.Tasks[i], plan.Digests.Structure)
			if err != nil {
				return CouldNotEvaluate(g.Name(), err)
			}
			findings = append(findings, f...)
			scopes = append(scopes, ts)
			declared = declared || ts.source != ScopeFromNone
		}
		if !declared {
			undeclared = append(undeclared, ph)
		}
	}
	declaredAll := len(undeclared) == 0
	x := newScopeIndex(scopes)
	others := otherPhases(plan, phases)
	// One finding per phase, so that each is matched on the merge base
	// on its own.
	notDeclared := func(files int) []Finding {
		sev := SeverityError
		if cfg.WarnNotDeclared {
			sev = SeverityWarning
		}
		var out []Finding
		for _, ph := range undeclared {
			out = append(out, Finding{Path: swarm.PlanPath, Line: ph.Line, EndLine: ph.Line, Rule: RuleScopeNotDeclared, Severity: sev, Key: fkey(RuleScopeNotDeclared, fmt.Sprint(ph.ID)),
				Message: fmt.Sprintf("SCOPE_NOT_DECLARED: no task of phase %d has a valid scope (files_touched or a .swarm/scopes/scope-{taskId}.json), so the %s this pull request changes cannot be checked against a scope; list each task's files in files_touched (or declare_scope them)", ph.ID, plural(files, "file", "files"))})
		}
		return out
	}
	if in.AtMergeBase() {
		// Nothing changed on this side: only the plan's own state can
		// already hold here (a phase without a scope, a conflict).
		if !declaredAll {
			findings = append(findings, notDeclared(0)...)
		}
		return Result{Outcome: Failed, Findings: findings}
	}

	var paths []scopePath
	exempt := 0
	touched := map[string][]string{} // task id -> changed paths it covers
	seenPath := map[string]bool{}
	for i := range in.Changes.Files {
		f := &in.Changes.Files[i]
		for _, p := range scopePaths(f) {
			if seenPath[p] {
				continue // a type change (delete + add) or a modified copy source: one path, one verdict
			}
			seenPath[p] = true
			if isSwarmPath(p) {
				exempt++
				for _, id := range x.tasksFor(p) { // exempt, but it still shows the task's work
					touched[id] = append(touched[id], p)
				}
				continue
			}
			paths = append(paths, scopePath{f, p})
		}
	}
	var newlyDone []*swarm.Task
	for _, ph := range phases {
		newlyDone = append(newlyDone, newlyCompleted(in, ph)...)
	}
	if len(paths) == 0 && len(newlyDone) == 0 && len(failingFindings(findings)) == 0 {
		what := "no files"
		if exempt > 0 {
			what = "only " + plural(exempt, "path", "paths") + " under .swarm/, which is exempt,"
		}
		return Result{Outcome: NotApplicable, Title: "no changed files outside .swarm/",
			Summary: fmt.Sprintf("Nothing to check against the scope of %s: the pull request changes %s and marks no task completed.", phaseList(phases), what), Findings: findings}
	}
	if len(paths) > 0 && in.PhaseSource == PhaseFromCurrentPhase && planWorkDone(plan) && in.Base.Plan != nil && planWorkDone(in.Base.Plan) {
		return Result{Outcome: NotApplicable, Title: fmt.Sprintf("no open phase: the plan is complete and this pull request changes no task's status (%s outside .swarm/)", plural(len(paths), "changed file", "changed files")),
			Findings: findings,
			Summary: fmt.Sprintf("Every phase of the plan is complete and the pull request changes no task's status, so it carries no phase: there is no phase scope to check its %s against (the plan's current_phase %d is closed). Work after the plan is not phase work; start a new phase or plan for it, or name the phase (--phase N, a swarm/phase-<N> branch or a swarm:phase-<N> label) to check it against that phase's scope.",
				plural(len(paths), "changed file", "changed files"), phase.ID)}
	}
	if !declaredAll && len(paths) == 0 {
		return Result{Outcome: NotApplicable, Title: "no changed files outside .swarm/", Findings: findings,
			Summary: fmt.Sprintf("Nothing to check against a scope: the pull request changes only files under .swarm/ (exempt), and no task of %s declares a scope.", phaseList(phases))}
	}
	if !declaredAll {
		outcome := Failed
		if cfg.WarnNotDeclared {
			outcome = Passed
		}
		findings = append(findings, notDeclared(len(paths))...)
		summary := "No task of " + phaseList(undeclared) + " has a scope. Policy: scope.not_declared: " + map[bool]string{true: "warn", false: "fail"}[cfg.WarnNotDeclared] + "."
		if len(undeclared) < len(phases) {
			summary += " The pull request changes the status of tasks of " + phaseList(phases) + "; as long as one of them declares no scope, a changed file cannot be shown to be outside the work of all of them."
		}
		return Result{Outcome: outcome, Title: fmt.Sprintf("%s %s no scope", phaseList(undeclared), verbS(len(undeclared), "declares", "declare")), Findings: findings, Summary: summary}
	}

	other := map[string][]string{} // "scope.extras <pattern>" -> paths
	outside := 0
	notShown, notShownAt := 0, ""
	// shown says whether the next failing file gets its own finding.
	shown := func(p string) bool {
		if outside <= maxScopeFileFindings {
			return true
		}
		if notShown++; notShownAt == "" {
			notShownAt = p
		}
		return false
	}
	for _, sp := range paths {
		if !IsCleanPath(sp.path) {
			outside++
			if !shown(sp.path) {
				continue
			}
			findings = append(findings, Finding{Path: sp.path, Rule: RuleUncleanPath, Severity: SeverityError,
				Message: fmt.Sprintf("%q is not a clean repository path (%s), so it cannot be matched against the scope of phase %d; rename it", sp.path, uncleanReason(sp.path), phase.ID)})
			continue
		}
		if ids := x.tasksFor(sp.path); len(ids) > 0 {
			for _, id := range ids {
				touched[id] = append(touched[id], sp.path)
			}
			continue
		}
		if pat := matchExtra(cfg.Extras, sp.path); pat != "" {
			other["scope.extras "+mdtext.Code(pat)] = append(other["scope.extras "+mdtext.Code(pat)], sp.path)
			continue
		}
		if cfg.Lockfiles {
			if m := x.lockfileManifest(sp.path); m != "" {
				for _, id := range x.tasksFor(m) {
					touched[id] = append(touched[id], sp.path)
				}
				continue
			}
		}
		outside++
		if shown(sp.path) {
			findings = append(findings, Finding{Path: sp.path, Rule: RuleOutOfScope, Severity: SeverityError, Message: outOfScopeMessage(sp.file, sp.path, phases, x, others.ownerText(sp.path))})
		}
	}
	if notShown > 0 {
		// No Key, as the findings it counts: none can hold on the merge base.
		findings = append(findings, Finding{Path: notShownAt, Rule: RuleScopeNotShown, Severity: SeverityError,
			Message: fmt.Sprintf("%s more not shown, each outside the scope of %s or not a clean path (over the limit of %d findings a run); move those changes to the pull request of the phase that owns them, or add them to a task's scope, then see the rest", plural(notShown, "changed file", "changed files"), phaseList(phases), maxScopeFileFindings)})
	}
	for _, t := range newlyDone {
		ts := scopes[slices.IndexFunc(scopes, func(s *taskScope) bool { return s.task == t })]
		if len(ts.entries) == 0 || len(touched[t.ID]) > 0 {
			continue
		}
		sev := SeverityWarning
		if cfg.FailUntouchedCompleted {
			sev = SeverityError
		}
		findings = append(findings, Finding{Path: swarm.PlanPath, Line: t.Line, EndLine: t.Line, Rule: RuleUntouchedCompleted, Severity: sev,
			Message: fmt.Sprintf("task %s is marked completed in this pull request, but none of its files changed (%s: %s); the protocol warns that a coder may report done without producing a diff: check that the work is really in this pull request", t.ID, ts.source, listSome(quoteAll(ts.entries), 5))})
	}

	findings = append(findings, selfApprovedWidening(in, plan, scopes, touched)...)
	summary := scopeSummary(phases, scopes, touched, other, exempt)
	if broad := BroadExtras(cfg.Extras); len(broad) > 0 {
		summary = fmt.Sprintf("**Scope not enforced**: the policy's scope.extras %s allows every path, so no changed file can be outside the scope; narrow it (e.g. `dist/**`) in %s.\n\n", strings.Join(codeAll(broad), ", "), mdtext.Inline(in.config().Source)) + summary
	}
	failing := len(failingFindings(findings))
	switch {
	case outside > 0:
		title := fmt.Sprintf("%s outside the scope of %s", plural(outside, "changed file", "changed files"), phaseList(phases))
		if w := selfWidenedTitle(findings); w != "" {
			title += "; " + w
		}
		return Result{Outcome: Failed, Title: title, Summary: summary, Findings: findings}
	case failing > 0:
		title := fmt.Sprintf("the scope of %s is inconsistent", phaseList(phases))
		for _, f := range findings {
			if f.Severity == SeverityError && f.Rule == RuleUntouchedCompleted {
				title = "a task marked completed changed none of its files"
			}
		}
		if w := selfWidenedTitle(findings); w != "" {
			title = w
		}
		return Result{Outcome: Failed, Title: title, Summary: summary, Findings: findings}
	}
	if len(paths) == 0 {
		return Result{Outcome: Passed, Title: fmt.Sprintf("no changed files outside .swarm/; %s marked completed", plural(len(newlyDone), "task", "tasks")), Summary: summary, Findings: findings}
	}
	return Result{Outcome: Passed, Title: fmt.Sprintf("all %s inside the scope of %s", plural(len(paths), "changed file", "changed files"), phaseList(phases)), Summary: summary, Findings: findings}
}

// selfWidenedTitle names the tasks whose scope the agent widened itself
// (failing scope/self-approved-widening findings), or "".
func selfWidenedTitle(findings []Finding) string {
	var ids []string
	for _, f := range findings {
		if f.Rule != RuleSelfApprovedWidening || f.Severity != SeverityError {
			continue
		}
		if parts := strings.Split(f.Key, "\x00"); len(parts) > 1 && !slices.Contains(ids, parts[1]) {
			ids = append(ids, parts[1])
		}
	}
	if len(ids) == 0 {
		return ""
	}
	sortTaskIDs(ids)
	return fmt.Sprintf("the agent widened the scope of %s %s itself (self-approved widening)", map[bool]string{true: "task", false: "tasks"}[len(ids) == 1], listSome(ids, 5))
}

// newlyCompleted are the phase's tasks completed at head but not at the
// merge base (or absent there): the work this pull request claims.
func newlyCompleted(in *Input, phase *swarm.Phase) []*swarm.Task {
	var out []*swarm.Task
	for i := range phase.Tasks {
		t := &phase.Tasks[i]
		if t.Status != "completed" {
			continue
		}
		if bp := in.Base.Plan; bp != nil {
			if bt, _ := bp.FindTask(t.ID); bt != nil && bt.Status == "completed" {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// matchExtra returns the first configured pattern that matches p, or "". A
// pattern matches by doublestar rules, and, like a scope entry, also covers
// everything under it ("dist" covers "dist/app.js").
// BroadExtras are the scope.extras patterns that allow any path (such as
// "**" or "**/*"): with one, swarm/scope can never find a file outside the
// scope, so the gate says so in its summary and config validate warns.
func BroadExtras(patterns []string) []string {
	probes := []string{"a", "src/a.go", "deep/er/path/x.ts", ".hidden/y", "README.md"}
	var out []string
	for _, pat := range patterns {
		if !slices.ContainsFunc(probes, func(p string) bool { return matchExtra([]string{pat}, p) == "" }) {
			out = append(out, pat)
		}
	}
	return out
}

func matchExtra(patterns []string, p string) string {
	for _, pat := range patterns {
		if ok, err := doublestar.Match(pat, p); err == nil && ok {
			return pat
		}
		if ok, err := doublestar.Match(pat+"/**", p); err == nil && ok {
			return pat
		}
	}
	return ""
}

// scopeSummary is the per-task table: where each task's scope comes from,
// its entries, and the changed files attributed to it.
func scopeSummary(phases []*swarm.Phase, scopes []*taskScope, touched, other map[string][]string, exempt int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scope of %s, task by task (a declaration in .swarm/scopes/ takes precedence over files_touched, as in the plugin):\n\n", phaseList(phases))
	if len(phases) > 1 {
		fmt.Fprintf(&b, "The pull request changes the status of tasks of %s, so a changed file may lie in the scope of any of them.\n\n", phaseList(phases))
	}
	b.WriteString("| task | status | scope from | entries | changed files in it |\n|---|---|---|---|---|\n")
	for i, ts := range scopes {
		if i == maxSummaryTasks {
			fmt.Fprintf(&b, "| … | | | | %d more tasks |\n", len(scopes)-i)
			break
		}
		from := string(ts.source)
		if ts.source == ScopeFromDeclaration {
			from = strings.Join(codes(ts.files), ", ")
			if ts.newInPR {
				from += " (added or changed in this pull request)"
			}
		}
		files := slices.Clone(touched[ts.task.ID])
		slices.Sort(files)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(mdtext.Inline(ts.task.ID)), cell(ts.task.Status), cell(from),
			cell(listSome(codes(ts.entries), 8)), cell(listSome(codes(files), 8)))
	}
	keys := make([]string, 0, len(other))
	for k := range other {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "\nAllowed by %s: %s.", k, listSome(codes(other[k]), 10))
	}
	if exempt > 0 {
		fmt.Fprintf(&b, "\n%s under .swarm/ exempt.", plural(exempt, "changed path", "changed paths"))
	}
	return b.String()
}

// scopePath is one path a change must have in scope.
type scopePath struct {
	file *changeset.File
	path string
}

// scopePaths are the paths of a change that must be in scope: the new path,
// and for deletions, renames and copies the old path too.
func scopePaths(f *changeset.File) []string {
	switch f.Status {
	case changeset.Deleted:
		return []string{f.OldPath}
	case changeset.Renamed, changeset.Copied:
		return []string{f.OldPath, f.NewPath}
	}
	return []string{f.NewPath}
}

func outOfScopeMessage(f *changeset.File, p string, phases []*swarm.Phase, x *scopeIndex, owner string) string {
	what := string(f.Status)
	switch {
	case f.Status == changeset.Renamed && p == f.OldPath:
		what = "renamed away to " + f.NewPath
	case f.Status == changeset.Renamed:
		what = "renamed from " + f.OldPath
	case f.Status == changeset.Copied && p == f.OldPath:
		what = "copied to " + f.NewPath
	case f.Status == changeset.Copied:
		what = "copied from " + f.OldPath
	case f.Status == changeset.Modified && f.ModeChanged() && f.AddedCount() == 0:
		what = fmt.Sprintf("mode changed %o → %o", f.OldMode, f.NewMode)
	}
	msg := fmt.Sprintf("%s (%s) is outside the scope of %s: no task of %s covers it", p, what, phaseList(phases), map[bool]string{true: "the phase", false: "these phases"}[len(phases) == 1])
	if owner != "" {
		return msg + "; " + owner + ": move the change to that phase's pull request, or add the file to a task of this phase (files_touched, then `/swarm approve-plan-critic <reason>` for the bookkeeping change)."
	}
	if e := x.nearest(p); e != "" {
		msg += fmt.Sprintf("; did you mean task %s's %q?", strings.Join(x.owners[e], "/"), e)
	} else {
		msg += "."
	}
	return msg + " Move the change to the pull request of the phase that owns it, or add the file to a task's scope (files_touched, then `/swarm approve-plan-critic <reason>` for the bookkeeping change); a file that is no phase's work (CI, tooling) belongs in the base branch policy's scope.extras."
}

// uncleanReason says why IsCleanPath rejects p.
func uncleanReason(p string) string {
	switch {
	case !utf8.ValidString(p):
		return "its name is not valid UTF-8"
	case strings.Contains(p, `\`):
		return "it has a backslash"
	case strings.IndexByte(p, 0) >= 0:
		return "it has a NUL byte"
	}
	return "it has a ., .. or empty segment"
}

// isSwarmPath reports whether p is the plugin's own state, exempt from
// scope and placeholder checks: a clean path under .swarm/ of a kind the
// plugin writes there (isSwarmArtifact), not source code (IsSwarmCode). A
// name such as `.swarm/..\x` or `.swarm/../x` is not clean and gets no
// exemption.
func isSwarmPath(p string) bool {
	return IsCleanPath(p) && (p == swarm.Dir || strings.HasPrefix(p, swarm.Dir+"/") && isSwarmArtifact(p)) && !IsSwarmCode(p)
}

// swarmKinds are the extensions of the files the plugin writes under
// .swarm/ (spec: JSON state and evidence, JSONL ledgers and logs, Markdown
// plans and reports, pr-review's diff.txt, semgrep-rules YAML, swarm.db).
var swarmKinds = map[string]bool{".json": true, ".jsonl": true, ".md": true, ".txt": true, ".yml": true, ".yaml": true, ".db": true}

// swarmMarkers are the plugin's extensionless files under .swarm/, and
// the .gitignore that keeps its runtime files out of commits (the corpus
// has one; it runs nothing).
var swarmMarkers = map[string]bool{".first-run-complete": true, ".plan-write-marker": true, "plan-ledger.resetting": true, ".gitignore": true}

// isSwarmArtifact reports whether p (under .swarm/) is of a kind the
// plugin writes: an extension of swarmKinds, also as a backup (x.json.bak),
// a temporary (x.json.tmp.<time>.<id>) or a quarantined ledger
// (plan-ledger.quarantine.<...>), or a marker. Anything else (a Makefile,
// run.bat, a `#!` script without extension) is scanned and in scope like
// any file, or an agent could hide work a tool runs there.
func isSwarmArtifact(p string) bool {
	base := strings.ToLower(path.Base(p))
	if swarmMarkers[base] || strings.HasPrefix(base, "plan-ledger.quarantine.") {
		return true
	}
	base = strings.TrimSuffix(base, ".bak")
	if i := strings.Index(base, ".tmp."); i > 0 {
		base = base[:i]
	}
	return swarmKinds[path.Ext(base)]
}

// IsSwarmCode reports whether p is source code under .swarm/ (by its
// extension, isSourceCode): the plugin writes none there, so such a file
// is not its state and gets no exemption, or code could hide from the
// gates in it.
func IsSwarmCode(p string) bool {
	if !strings.HasPrefix(p, swarm.Dir+"/") {
		return false
	}
	return isSourceCode(p)
}

// InScope reports whether the repository-relative path p equals a scope
// entry or lies under one treated as a directory. entries must be
// normalised (NormalizeScopeEntry) and p clean (IsCleanPath): a changed path
// is compared as git names it, never rewritten, so that "src/../x" or
// `src\..\x` cannot pass for another file. The cost is one map lookup
// per path segment.
func InScope(entries map[string]bool, p string) bool {
	if !IsCleanPath(p) {
		return false
	}
	for {
		if entries[p] {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// IsCleanPath reports whether p is a repository path in canonical form:
// relative, '/'-separated, no empty, "." or ".." segment, no backslash and
// no NUL, valid UTF-8. Git can store other names (a tree entry may be called
// `x\..\y`); those are never taken to be in scope.
func IsCleanPath(p string) bool {
	return p != "" && utf8.ValidString(p) && !strings.ContainsAny(p, "\\\x00") && !strings.HasPrefix(p, "/") && path.Clean(p) == p && p != "." && p != ".." && !strings.HasPrefix(p, "../")
}

// NormalizeScopeEntry normalises a scope entry or a changed path the way the
// plugin's normalizeScopeFiles does: trim whitespace, turn '\' into '/',
// reject empty entries, NUL, absolute and drive-letter paths, the root
// itself, clean the path
// ("src/../README.md" becomes "README.md"), strip "./" and a trailing '/',
// and reject anything that leaves the repository ("..", "../x").
func NormalizeScopeEntry(s string) (string, error) {
	s = jsjson.Trim(s)
	s = strings.ReplaceAll(s, `\`, "/")
	switch {
	case s == "":
		return "", errors.New("empty path")
	case strings.IndexByte(s, 0) >= 0:
		return "", errors.New("contains a NUL character")
	case strings.HasPrefix(s, "/"):
		return "", errors.New("absolute path")
	case len(s) >= 2 && s[1] == ':' && (s[0]|0x20) >= 'a' && (s[0]|0x20) <= 'z':
		return "", errors.New("drive-letter path")
	}
	s = path.Clean(s)
	if s == "." {
		return "", errors.New("is the repository root itself; list the files or folders the task changes")
	}
	if s == ".." || strings.HasPrefix(s, "../") {
		return "", errors.New("points outside the repository")
	}
	return s, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// selfApprovedWidening finds the tasks whose scope this pull request widens
// (entries beyond the task's files_touched on the merge base, and beyond a
// declaration it does not add or change) to cover a file it changes, while
// the plan-critic approval of the head plan is one the pull request adds
// (agent-attested: not on the base branch, no human override for the
// structure). Under plan_freeze.approval: any that passes plan-freeze, so
// scope names it: the agent approved its own widening.
func selfApprovedWidening(in *Input, plan *swarm.Plan, scopes []*taskScope, touched map[string][]string) []Finding {
	ev := agentApprovalInPR(in, plan)
	if in.Base.Plan == nil || ev == nil && in.override(CommandApprovePlanCritic, plan.Digests.Structure) != nil {
		return nil
	}
	sev := SeverityError
	if in.config().Scope.WarnSelfApprovedWidening {
		sev = SeverityWarning
	}
	// What the merge base let each phase's tasks change: a task the pull
	// request adds, or moves in from another phase, widens its phase past
	// that as surely as a task it rewrites.
	baseUnion := map[int][]string{}
	for _, ph := range in.Base.Plan.Phases {
		for _, t := range ph.Tasks {
			for _, e := range t.FilesTouched {
				if n, err := NormalizeScopeEntry(e); err == nil {
					baseUnion[ph.ID] = append(baseUnion[ph.ID], n)
				}
			}
		}
	}
	for id, bf := range in.Base.Scopes.Declared {
		_, ph := in.Base.Plan.FindTask(id)
		if ph == nil {
			continue
		}
		for _, e := range bf.Files {
			if n, err := NormalizeScopeEntry(e); err == nil {
				baseUnion[ph.ID] = append(baseUnion[ph.ID], n)
			}
		}
	}
	var out []Finding
	for _, ts := range scopes {
		if len(ts.entries) == 0 {
			continue
		}
		bt, bph := in.Base.Plan.FindTask(ts.task.ID)
		_, hph := plan.FindTask(ts.task.ID)
		if bt != nil && (hph == nil || bph.ID != hph.ID) {
			bt = nil // moved from another phase: judged as a new task of this one
		}
		if ev == nil && (bt == nil || ts.source != ScopeFromDeclaration || !ts.newInPR || !hasEntry(bt.FilesTouched)) {
			// No approval in the pull request: only a declaration it adds
			// or changes can widen a task past the files_touched the
			// approved plan lists without a new approval. A task with no
			// files_touched has its scope from declare_scope alone (the
			// plugin's normal way; scope/widened-by-pull-request shows it).
			continue
		}
		var baseEntries []string
		if bt == nil {
			if hph != nil {
				baseEntries = baseUnion[hph.ID]
			}
		} else {
			for _, e := range bt.FilesTouched {
				if n, err := NormalizeScopeEntry(e); err == nil {
					baseEntries = append(baseEntries, n)
				}
			}
		}
		if ts.source == ScopeFromDeclaration && !ts.newInPR {
			baseEntries = append(baseEntries, ts.entries...)
		} else if bf := in.Base.Scopes.Declared[ts.task.ID]; bf != nil {
			// A declaration the pull request changes widens only past
			// what the base's declaration already gave.
			for _, e := range bf.Files {
				if n, err := NormalizeScopeEntry(e); err == nil {
					baseEntries = append(baseEntries, n)
				}
			}
		}
		base := toSet(baseEntries)
		var wider []string
		for _, e := range ts.entries {
			if !InScope(base, e) {
				wider = append(wider, e)
			}
		}
		if len(wider) == 0 {
			continue
		}
		widened := toSet(wider)
		var covered []string
		for _, p := range touched[ts.task.ID] {
			if InScope(widened, p) && !InScope(base, p) {
				covered = append(covered, p)
			}
		}
		if len(covered) == 0 {
			continue
		}
		what := fmt.Sprintf("widens task %s's scope to %s (not in its scope on the merge base: %s)", ts.task.ID, listSome(quoteAll(wider), 5), listSome(quoteAll(baseEntries), 5))
		if bt == nil {
			what = fmt.Sprintf("adds task %s with the scope %s (which no task of the merge base's plan covers)", ts.task.ID, listSome(quoteAll(wider), 5))
			if hph != nil {
				what = fmt.Sprintf("adds task %s to phase %d with the scope %s (which no task of the merge base's phase %d covers)", ts.task.ID, hph.ID, listSome(quoteAll(wider), 5), hph.ID)
			}
		}
		if ev == nil {
			out = append(out, Finding{Path: covered[0], Rule: RuleSelfApprovedWidening, Severity: sev, Key: fkey(RuleSelfApprovedWidening, append([]string{ts.task.ID}, wider...)...),
				Message: fmt.Sprintf("this pull request's scope declaration %s %s and changes %s under it: only the agent's own declaration covers that, since the approved plan's files_touched does not and a plan-critic approval never reviews .swarm/scopes/. Add the file to the task's files_touched and have the critic review the plan, or a maintainer comment `/swarm approve-plan-critic <reason>` (scope.self_approved_widening: warn relaxes this)",
					strings.Join(ts.files, ", "), what, listSome(quoteAll(covered), 5))})
			continue
		}
		out = append(out, Finding{Path: covered[0], Rule: RuleSelfApprovedWidening, Severity: sev, Key: fkey(RuleSelfApprovedWidening, append([]string{ts.task.ID}, wider...)...),
			Message: fmt.Sprintf("this pull request %s, changes %s under it, and the only approval of the new plan is the agent's own, added by this pull request (%s seq %d): the agent approved its own scope widening. Have the critic review the plan, or a maintainer comment `/swarm approve-plan-critic <reason>` (scope.self_approved_widening: warn relaxes this; plan_freeze.approval: human or base-anchored prevents it)",
				what, listSome(quoteAll(covered), 5), swarm.LedgerPath, ev.Seq)})
	}
	return out
}

// hasEntry reports whether a files_touched list has a valid entry.
func hasEntry(files []string) bool {
	return slices.ContainsFunc(files, func(e string) bool { _, err := NormalizeScopeEntry(e); return err == nil })
}

// agentApprovalInPR is the head plan's plan-critic approval when the pull
// request adds it itself (nil when there is none, it is on the base
// branch, or a human override covers the plan's structure).
func agentApprovalInPR(in *Input, plan *swarm.Plan) *swarm.LedgerEvent {
	l := in.Head.Ledger
	if l == nil || in.Head.LedgerErr != nil {
		return nil
	}
	ev, _ := l.LastPlanCriticApproval(plan.ID())
	if ev == nil || ev.Approval == nil || ev.Approval.Verdict != "APPROVED" || ev.Plan == nil || ev.Plan.Digests.Structure != plan.Digests.Structure {
		return nil
	}
	if baseAnchored(in.Base.Ledger, ev) || in.override(CommandApprovePlanCritic, plan.Digests.Structure) != nil {
		return nil
	}
	return ev
}
