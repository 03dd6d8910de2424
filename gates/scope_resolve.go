package gates

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/editdist"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// ScopeSource is where a task's effective scope comes from, in the plugin's
// order of precedence (resolveCoderScopeSources, spec section 5).
type ScopeSource string

// Scope sources, highest precedence first.
const (
	ScopeFromDeclaration  ScopeSource = "declared"      // .swarm/scopes/scope-{id}.json or a v2 binding
	ScopeFromFilesTouched ScopeSource = "files_touched" // the plan's task.files_touched
	ScopeFromNone         ScopeSource = "none"
)

// taskScope is one task's effective scope.
type taskScope struct {
	task    *swarm.Task
	source  ScopeSource
	entries []string // normalised, sorted, deduplicated
	files   []string // the declaration files it came from (for summaries)
	// newInPR says the declaration is absent or different at the merge
	// base: the agent's claim, made in this pull request.
	newInPR bool
}

// scopeIndex answers "which tasks cover this path" with one map lookup per
// path segment.
type scopeIndex struct {
	owners map[string][]string // entry -> ids of the tasks whose scope holds it
	// near maps a directory ("" for the root) to up to nearCap entries
	// beneath it, for "did you mean" suggestions.
	near map[string][]string
}

const nearCap = 64

func newScopeIndex(scopes []*taskScope) *scopeIndex {
	x := &scopeIndex{owners: map[string][]string{}, near: map[string][]string{}}
	for _, ts := range scopes {
		for _, e := range ts.entries {
			if !slices.Contains(x.owners[e], ts.task.ID) {
				x.owners[e] = append(x.owners[e], ts.task.ID)
			}
		}
	}
	entries := make([]string, 0, len(x.owners))
	for e := range x.owners {
		entries = append(entries, e)
	}
	sort.Strings(entries)
	for _, e := range entries {
		for d := parentDir(e); ; d = parentDir(d) {
			if len(x.near[d]) < nearCap {
				x.near[d] = append(x.near[d], e)
			}
			if d == "" {
				break
			}
		}
	}
	return x
}

func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// covering returns the entries that cover the clean path p (p itself or an
// ancestor directory), deepest first.
func (x *scopeIndex) covering(p string) []string {
	var out []string
	for {
		if _, ok := x.owners[p]; ok {
			out = append(out, p)
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return out
		}
		p = p[:i]
	}
}

// tasksFor returns the ids of the tasks whose scope covers p, sorted.
func (x *scopeIndex) tasksFor(p string) []string {
	var ids []string
	for _, e := range x.covering(p) {
		for _, id := range x.owners[e] {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.SortFunc(ids, compareTaskIDs)
	return ids
}

// nearest suggests the scope entry closest to an uncovered path, or "":
// among the entries under the path's deepest ancestor directory that has
// any, the one whose name at that depth is within a small edit distance of
// the path's (a typo, "api2" for "api", "utils.ts" for "util.ts").
func (x *scopeIndex) nearest(p string) string {
	d := parentDir(p)
	for {
		if cands := x.near[d]; len(cands) > 0 {
			comp := segmentAfter(p, d)
			best, bestD := "", 0
			for _, e := range cands {
				ec := segmentAfter(e, d)
				if len(comp) > 64 || len(ec) > 64 {
					continue // too long to be a typo worth suggesting
				}
				dist := editdist.Levenshtein(comp, ec)
				if dist > 2 || dist*3 > max(len(comp), len(ec)) {
					continue
				}
				if best == "" || dist < bestD || (dist == bestD && e < best) {
					best, bestD = e, dist
				}
			}
			return best
		}
		if d == "" {
			return ""
		}
		d = parentDir(d)
	}
}

// segmentAfter is the path segment of p right under directory dir ("" for
// the root).
func segmentAfter(p, dir string) string {
	if dir != "" {
		p = strings.TrimPrefix(p, dir+"/")
	}
	seg, _, _ := strings.Cut(p, "/")
	return seg
}

// phaseOwners indexes the files_touched and declarations of the plan's
// other phases, to say which phase a stray file belongs to.
type phaseOwners struct {
	x     *scopeIndex
	phase map[string]int // task id -> phase id
}

func otherPhases(plan *swarm.Plan, under []*swarm.Phase) *phaseOwners {
	var scopes []*taskScope
	po := &phaseOwners{phase: map[string]int{}}
	for i := range plan.Phases {
		ph := &plan.Phases[i]
		if slices.ContainsFunc(under, func(u *swarm.Phase) bool { return u.ID == ph.ID }) {
			continue
		}
		for j := range ph.Tasks {
			t := &ph.Tasks[j]
			var entries []string
			for _, e := range t.FilesTouched {
				if n, err := NormalizeScopeEntry(e); err == nil {
					entries = append(entries, n)
				}
			}
			scopes = append(scopes, &taskScope{task: t, entries: entries})
			po.phase[t.ID] = ph.ID
		}
	}
	po.x = newScopeIndex(scopes)
	return po
}

// ownerText names the other phase's task that lists p, or "".
func (po *phaseOwners) ownerText(p string) string {
	ids := po.x.tasksFor(p)
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("task %s of phase %d lists it", ids[0], po.phase[ids[0]])
}

// compareTaskIDs orders task ids numerically by dotted part ("1.10" after
// "1.9"), falling back to string order.
func compareTaskIDs(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if len(pa[i]) != len(pb[i]) && isDigits(pa[i]) && isDigits(pb[i]) {
			return len(pa[i]) - len(pb[i])
		}
		if c := strings.Compare(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return len(pa) - len(pb)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// LockfileManifests maps a lockfile's name to the manifests it follows: a
// changed lockfile is in scope when one of its manifests in the same
// directory is (scope.lockfiles in the config, on by default).
var LockfileManifests = map[string][]string{
	"go.sum":              {"go.mod"},
	"go.work.sum":         {"go.work"},
	"package-lock.json":   {"package.json"},
	"npm-shrinkwrap.json": {"package.json"},
	"pnpm-lock.yaml":      {"package.json"},
	"yarn.lock":           {"package.json"},
	"bun.lock":            {"package.json"},
	"bun.lockb":           {"package.json"},
	"Cargo.lock":          {"Cargo.toml"},
	"poetry.lock":         {"pyproject.toml"},
	"uv.lock":             {"pyproject.toml"},
	"pdm.lock":            {"pyproject.toml"},
	"Pipfile.lock":        {"Pipfile"},
	"Gemfile.lock":        {"Gemfile"},
	"composer.lock":       {"composer.json"},
}

// lockfileManifest returns the in-scope manifest a lockfile path follows,
// or "".
func (x *scopeIndex) lockfileManifest(p string) string {
	dir, name := path.Split(p)
	for _, m := range LockfileManifests[name] {
		if len(x.covering(dir+m)) > 0 {
			return dir + m
		}
	}
	return ""
}

// resolveTaskScope applies the plugin's precedence to one task: a
// declaration (v1 scope-{id}.json, or v2 bindings for the head plan's
// structure hash) over files_touched over nothing. It returns the scope and
// the findings its sources give (invalid entries, SCOPE_CONFLICT).
func resolveTaskScope(in *Input, t *swarm.Task, structureHash string) (*taskScope, []Finding, error) {
	ts := &taskScope{task: t, source: ScopeFromNone}
	var findings []Finding
	// norm applies normalizeScopeFiles to one source: like the plugin, one
	// invalid entry makes the whole list invalid (the task has no scope from
	// that source). Entries are literal paths: '*', '?' and '[' are parts
	// of names (app/[slug]/page.tsx), never patterns.
	norm := func(raw []string, from string, line int, what string) []string {
		set := map[string]bool{}
		for _, e := range raw {
			n, err := NormalizeScopeEntry(e)
			if err != nil {
				findings = append(findings, Finding{Path: from, Line: line, EndLine: line, Rule: RuleInvalidEntry, Severity: SeverityWarning,
					Message: fmt.Sprintf("task %s's %s is invalid as a whole, as in the plugin (normalizeScopeFiles), because of the entry %q: %v; the task has no scope from it. Fix or remove the entry", t.ID, what, e, err)})
				return nil
			}
			if strings.Contains(n, "*") {
				findings = append(findings, Finding{Path: from, Line: line, EndLine: line, Rule: RuleInvalidEntry, Severity: SeverityWarning,
					Message: fmt.Sprintf("scope entry %q of task %s contains '*': scope entries are literal paths (the plugin has no globs), so it covers only a file or folder named exactly so; put glob patterns in the base branch's .github/swarm-gate.yml scope.extras", e, t.ID)})
			}
			set[n] = true
		}
		return sortedKeys(set)
	}

	var declared []string
	sc := in.Head.Scopes
	v1 := swarm.ScopesDir + "/scope-" + t.ID + ".json"
	if err := sc.Broken[v1]; err != nil {
		return nil, nil, err
	}
	for p, err := range sc.Broken {
		if bindingTask(p) == t.ID {
			return nil, nil, err
		}
	}
	if sf := sc.Declared[t.ID]; sf != nil {
		declared = append(declared, norm(sf.Files, sf.Path, 0, "declaration "+sf.Path)...)
		ts.files = append(ts.files, sf.Path)
		if bf := in.Base.Scopes.Declared[t.ID]; bf == nil || !slices.Equal(bf.Files, sf.Files) {
			ts.newInPR = true
		}
	}
	for _, b := range sc.Bindings {
		if b.TaskID != t.ID {
			continue
		}
		if b.PlanStructureHash != structureHash {
			findings = append(findings, Finding{Path: b.Path, Rule: RuleStaleBinding, Severity: SeverityNotice,
				Message: fmt.Sprintf("scope binding for task %s ignored: it is bound to plan structure hash %s, not the head plan's %s", t.ID, shortHash(b.PlanStructureHash), shortHash(structureHash))})
			continue
		}
		declared = append(declared, norm(b.Files, b.Path, 0, "binding "+b.Path)...)
		ts.files = append(ts.files, b.Path)
		ts.newInPR = true // bindings are session-bound runtime state: always the agent's
	}
	planned := norm(t.FilesTouched, swarm.PlanPath, t.Line, "files_touched")
	doneAtBase := false
	if bp := in.Base.Plan; bp != nil {
		if bt, _ := bp.FindTask(t.ID); bt != nil && bt.Status == "completed" {
			doneAtBase = true
		}
	}
	switch {
	case len(declared) > 0:
		ts.source = ScopeFromDeclaration
		ts.entries = dedupe(declared)
		covered := toSet(ts.entries)
		var extra []string
		for _, e := range planned {
			if !InScope(covered, e) {
				extra = append(extra, e)
			}
		}
		if len(extra) > 0 {
			sev, note := SeverityError, " the plugin refuses to dispatch a coder with conflicting scopes. Make files_touched a subset of the declaration, or declare the missing files"
			if doneAtBase {
				sev, note = SeverityNotice, " the task was already completed at the merge base, so this is earlier work, not this pull request's"
			}
			findings = append(findings, Finding{Path: swarm.PlanPath, Line: t.Line, EndLine: t.Line, Rule: RuleScopeConflict, Severity: sev,
				Key:     fkey(RuleScopeConflict, append([]string{t.ID, strings.Join(ts.files, ",")}, extra...)...),
				Message: fmt.Sprintf("SCOPE_CONFLICT: task %s's files_touched lists %s outside its declared scope (%s), which takes precedence;%s", t.ID, listSome(quoteAll(extra), 5), strings.Join(ts.files, ", "), note)})
		}
		// Whatever the task's files_touched (none) or status (completed on
		// the merge base): a declaration this pull request adds or changes
		// is this pull request's widening.
		if ts.newInPR {
			var wider []string
			plannedSet := toSet(planned)
			for _, e := range ts.entries {
				if !InScope(plannedSet, e) {
					wider = append(wider, e)
				}
			}
			if len(wider) > 0 {
				sev := SeverityWarning
				if in.config().Scope.FailWidenedByPR {
					sev = SeverityError
				}
				have := listSome(quoteAll(planned), 5)
				if len(planned) == 0 {
					have = "none"
				}
				if doneAtBase {
					have += "; the task was completed on the merge base"
				}
				findings = append(findings, Finding{Path: ts.files[0], Rule: RuleWidenedByPR, Severity: sev,
					Message: fmt.Sprintf("a scope declaration added or changed by this pull request gives task %s %s beyond its files_touched (%s): the agent widened its own scope (the plugin's declare_scope allows it; a reviewer should confirm)", t.ID, listSome(quoteAll(wider), 5), have)})
			}
		}
	case len(planned) > 0:
		ts.source = ScopeFromFilesTouched
		ts.entries = planned
	}
	return ts, findings, nil
}

// bindingTask is the task id in a v2 binding file's name
// (binding-{taskId}-{bindingId}-{generationId}.json), or "".
func bindingTask(p string) string {
	name := strings.TrimPrefix(p, swarm.ScopesDir+"/binding-")
	if name == p {
		return ""
	}
	id, _, _ := strings.Cut(name, "-")
	return id
}

func dedupe(items []string) []string {
	set := toSet(items)
	return sortedKeys(set)
}

func toSet(items []string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
	}
	return m
}

func quoteAll(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func shortHash(h string) string {
	if h == "" {
		return "(none)"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// sortTaskIDs sorts task ids with compareTaskIDs.
func sortTaskIDs(ids []string) { slices.SortFunc(ids, compareTaskIDs) }

func codeAll(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = mdtext.Code(s)
	}
	return out
}
