package gates

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Scope is swarm/scope: every file the pull request changes must lie inside
// the union of the phase's task scopes (task files_touched plus
// .swarm/scopes/scope-{taskId}.json declarations), by the plugin's rule: a
// file is in scope when it equals an entry or lies under an entry treated as
// a directory (spec section 5). .swarm/ itself is exempt.
type Scope struct{}

// Name implements Gate.
func (Scope) Name() string { return "swarm/scope" }

// Rule ids of swarm/scope findings.
const (
	RuleOutOfScope       = "scope/out-of-scope"
	RuleScopeNotDeclared = "scope/SCOPE_NOT_DECLARED"
	RuleInvalidEntry     = "scope/invalid-entry"
	RuleUncleanPath      = "scope/unclean-path"
)

// Evaluate implements Gate.
func (g Scope) Evaluate(_ context.Context, in *Input) Result {
	_, phase, err := headPhase(in)
	if err != nil {
		return errorResult(g.Name(), err)
	}
	if in.Head.Scopes.DirErr != nil {
		return errorResult(g.Name(), in.Head.Scopes.DirErr)
	}
	var findings []Finding
	entries := map[string]bool{}
	for _, t := range phase.Tasks {
		add := func(raw []string, from string, line int) {
			for _, e := range raw {
				n, err := NormalizeScopeEntry(e)
				if err == nil && strings.ContainsAny(n, "*?[") {
					err = errors.New("glob patterns are not supported in plan scopes (the plugin matches entries literally, as a file or a directory)")
				}
				if err != nil {
					findings = append(findings, Finding{Path: from, Line: line, EndLine: line, Rule: RuleInvalidEntry, Severity: SeverityWarning,
						Message: fmt.Sprintf("scope entry %q of task %s ignored: %v", e, t.ID, err)})
					continue
				}
				entries[n] = true
			}
		}
		add(t.FilesTouched, swarm.PlanPath, t.Line)
		p := swarm.ScopesDir + "/scope-" + t.ID + ".json"
		if err := in.Head.Scopes.Broken[p]; err != nil {
			return errorResult(g.Name(), err)
		}
		if sf := in.Head.Scopes.Declared[t.ID]; sf != nil {
			add(sf.Files, sf.Path, 0)
		}
	}
	var paths []scopePath
	exempt := 0
	for i := range in.Changes.Files {
		f := &in.Changes.Files[i]
		for _, p := range scopePaths(f) {
			if isSwarmPath(p) {
				exempt++
				continue
			}
			paths = append(paths, scopePath{f, p})
		}
	}
	if len(paths) == 0 {
		return Result{Outcome: NotApplicable, Title: "no changed files outside .swarm/",
			Summary: fmt.Sprintf("Nothing to check against the scope of phase %d: the pull request changes only %s under .swarm/, which is exempt.", phase.ID, plural(exempt, "path", "paths")), Findings: findings}
	}
	if len(entries) == 0 {
		findings = append(findings, Finding{Path: swarm.PlanPath, Line: phase.Line, EndLine: phase.Line, Rule: RuleScopeNotDeclared, Severity: SeverityError,
			Message: fmt.Sprintf("SCOPE_NOT_DECLARED: no task of phase %d declares files_touched or a .swarm/scopes/scope-{taskId}.json, so the %s this pull request changes cannot be checked against a scope", phase.ID, plural(len(paths), "file", "files"))})
		return Result{Outcome: Failed, Title: fmt.Sprintf("phase %d declares no scope", phase.ID), Findings: findings}
	}
	outside := 0
	for _, sp := range paths {
		if !IsCleanPath(sp.path) {
			outside++
			findings = append(findings, Finding{Path: sp.path, Rule: RuleUncleanPath, Severity: SeverityError,
				Message: fmt.Sprintf("%q is not a clean repository path (it has a backslash, a . or .. segment, or an empty segment), so it cannot be matched against the scope of phase %d; rename it", sp.path, phase.ID)})
			continue
		}
		if InScope(entries, sp.path) {
			continue
		}
		outside++
		findings = append(findings, Finding{Path: sp.path, Rule: RuleOutOfScope, Severity: SeverityError, Message: outOfScopeMessage(sp.file, sp.path, phase)})
	}
	checked := len(paths)
	scope := sortedKeys(entries)
	summary := fmt.Sprintf("Scope of phase %d (tasks %s): %s.", phase.ID, listSome(codes(taskIDs(phase.Tasks)), 20), listSome(codes(scope), 30))
	if exempt > 0 {
		summary += fmt.Sprintf(" %s under .swarm/ exempt.", plural(exempt, "changed path", "changed paths"))
	}
	if outside > 0 {
		return Result{Outcome: Failed, Title: fmt.Sprintf("%s outside the scope of phase %d", plural(outside, "changed file", "changed files"), phase.ID), Summary: summary, Findings: findings}
	}
	return Result{Outcome: Passed, Title: fmt.Sprintf("all %s inside the scope of phase %d", plural(checked, "changed file", "changed files"), phase.ID), Summary: summary, Findings: findings}
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

func outOfScopeMessage(f *changeset.File, p string, phase *swarm.Phase) string {
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
	case f.Status == changeset.Modified && f.ModeChanged() && len(f.Added) == 0:
		what = fmt.Sprintf("mode changed %o → %o", f.OldMode, f.NewMode)
	}
	return fmt.Sprintf("%s (%s) is outside the scope of phase %d: no task of the phase lists it in files_touched or in a scope declaration", p, what, phase.ID)
}

// isSwarmPath reports whether p is the plugin's own state, exempt from
// scope and placeholder checks: a clean path under .swarm/. A name such as
// `.swarm/..\x` or `.swarm/../x` is not clean and gets no exemption.
func isSwarmPath(p string) bool {
	return IsCleanPath(p) && (p == swarm.Dir || strings.HasPrefix(p, swarm.Dir+"/"))
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
// reject empty entries, NUL and other control characters, absolute and
// drive-letter paths, clean the path
// ("src/../README.md" becomes "README.md"), strip "./" and a trailing '/',
// and reject anything that leaves the repository ("..", "../x").
func NormalizeScopeEntry(s string) (string, error) {
	s = jsjson.Trim(s)
	s = strings.ReplaceAll(s, `\`, "/")
	switch {
	case s == "":
		return "", errors.New("empty path")
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", errors.New("contains a control character")
	case strings.HasPrefix(s, "/"):
		return "", errors.New("absolute path")
	case len(s) >= 2 && s[1] == ':' && (s[0]|0x20) >= 'a' && (s[0]|0x20) <= 'z':
		return "", errors.New("drive-letter path")
	}
	s = path.Clean(s)
	if s == "." || s == ".." || strings.HasPrefix(s, "../") {
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
