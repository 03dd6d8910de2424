package gates

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// rulesPlan has a phase 1 whose tasks use each scope source; 1.3 is
// completed at head.
const rulesPlan = `{"schema_version":"1.0.0","title":"T","swarm":"s","current_phase":1,"phases":[
 {"id":1,"name":"One","tasks":[
   {"id":"1.1","phase":1,"description":"api","files_touched":["src/api","go.mod"]},
   {"id":"1.2","phase":1,"description":"web","files_touched":["web/app.ts","web/util.ts"]},
   {"id":"1.3","phase":1,"status":"completed","description":"docs","files_touched":["docs/guide.md"]},
   {"id":"1.4","phase":1,"description":"ui","files_touched":["ui/"]}]}]}`

func modified(p string) changeset.File {
	return changeset.File{Status: changeset.Modified, OldPath: p, NewPath: p, OldMode: 0o100644, NewMode: 0o100644}
}

func TestScopeRules(t *testing.T) {
	structure := func(t *testing.T) string {
		p, err := swarm.ParsePlan("plan.json", []byte(rulesPlan))
		if err != nil {
			t.Fatal(err)
		}
		return p.Digests.Structure
	}
	cfg := func(f func(*ScopeConfig)) *Config {
		c := DefaultConfig()
		f(&c.Scope)
		return c
	}
	cases := []struct {
		name     string
		files    func(t *testing.T) fstest.MapFS
		basePlan string // "" means no plan at the merge base
		changes  []string
		cfg      *Config
		want     Outcome
		rule     string
		sev      Severity
		mention  string
	}{
		{"declaration replaces files_touched", func(t *testing.T) fstest.MapFS {
			return fstest.MapFS{".swarm/scopes/scope-1.2.json": {Data: []byte(`{"version":1,"taskId":"1.2","declaredAt":1,"expiresAt":2,"files":["web/app.ts"]}`)}}
		}, "", []string{"web/util.ts", "docs/guide.md"}, nil, Failed, RuleOutOfScope, SeverityError, "web/util.ts (modified) is outside the scope of phase 1"},
		{"SCOPE_CONFLICT when files_touched is not a subset of the declaration", func(t *testing.T) fstest.MapFS {
			return fstest.MapFS{".swarm/scopes/scope-1.2.json": {Data: []byte(`{"version":1,"taskId":"1.2","files":["web/app.ts"]}`)}}
		}, "", []string{"web/app.ts", "docs/guide.md"}, nil, Failed, RuleScopeConflict, SeverityError, `SCOPE_CONFLICT: task 1.2's files_touched lists "web/util.ts" outside its declared scope`},
		{"a wider declaration is no conflict, and says it came from this pull request", func(t *testing.T) fstest.MapFS {
			return fstest.MapFS{".swarm/scopes/scope-1.2.json": {Data: []byte(`{"version":1,"taskId":"1.2","files":["web"]}`)}}
		}, "", []string{"web/new.ts", "docs/guide.md"}, nil, Passed, "", "", "(added or changed in this pull request)"},
		{"v2 binding for the head structure counts", func(t *testing.T) fstest.MapFS {
			return fstest.MapFS{".swarm/scopes/binding-1.4-b1-g1.json": {Data: []byte(fmt.Sprintf(`{"version":2,"planId":"s-T","planStructureHash":%q,"taskId":"1.4","files":["ui","ui-kit"]}`, structure(t)))}}
		}, "", []string{"ui-kit/button.tsx", "docs/guide.md"}, nil, Passed, "", "", "binding-1.4-b1-g1.json"},
		{"v2 binding for another structure is ignored", func(t *testing.T) fstest.MapFS {
			return fstest.MapFS{".swarm/scopes/binding-1.4-b1-g1.json": {Data: []byte(`{"version":2,"planStructureHash":"0000","taskId":"1.4","files":["ui-kit"]}`)}}
		}, "", []string{"ui-kit/button.tsx", "docs/guide.md"}, nil, Failed, RuleStaleBinding, SeverityNotice, "bound to plan structure hash 0000"},
		{"go.sum follows go.mod in scope", nil, "", []string{"go.sum", "docs/guide.md"}, nil, Passed, "", "", "`go.sum`"},
		{"a lockfile without its manifest in scope", nil, "", []string{"web/package-lock.json", "docs/guide.md"}, nil, Failed, RuleOutOfScope, SeverityError, "web/package-lock.json"},
		{"a CI file names scope.extras", nil, "", []string{".github/workflows/ci.yml", "docs/guide.md"}, nil, Failed, RuleOutOfScope, SeverityError, "a file that is no phase's work (CI, tooling) belongs in the base branch policy's scope.extras"},
		{"lockfiles: false", nil, "", []string{"go.sum", "docs/guide.md"}, cfg(func(s *ScopeConfig) { s.Lockfiles = false }), Failed, RuleOutOfScope, SeverityError, "go.sum (modified)"},
		{"extras glob", nil, "", []string{"dist/js/app.min.js", "docs/guide.md"}, cfg(func(s *ScopeConfig) { s.Extras = []string{"dist/**"} }), Passed, "", "", "Allowed by scope.extras `dist/**`"},
		{"extras: a folder covers what is under it", nil, "", []string{"dist/js/app.min.js", "docs/guide.md"}, cfg(func(s *ScopeConfig) { s.Extras = []string{"dist"} }), Passed, "", "", "Allowed by scope.extras `dist`"},
		{"extras: a pattern for files under folders", nil, "", []string{"pkg/gen/x.gen.go", "docs/guide.md"}, cfg(func(s *ScopeConfig) { s.Extras = []string{"**/*.gen.go"} }), Passed, "", "", "`**/*.gen.go`"},
		{"extras: ** allows everything, and the summary says so", nil, "", []string{"zzz.txt", "docs/guide.md"}, cfg(func(s *ScopeConfig) { s.Extras = []string{"docs/**", "**"} }), Passed, "", "", "**Scope not enforced**: the policy's scope.extras `**` allows every path"},
		{"did you mean: a sibling with a common prefix", nil, "", []string{"src/api2/x.go", "docs/guide.md"}, nil, Failed, RuleOutOfScope, SeverityError, `did you mean task 1.1's "src/api"?`},
		{"did you mean: a typo in a file name", nil, "", []string{"web/utils.ts", "docs/guide.md"}, nil, Failed, RuleOutOfScope, SeverityError, `did you mean task 1.2's "web/util.ts"?`},
		{"no suggestion when nothing is near", nil, "", []string{"zzz.txt", "docs/guide.md"}, nil, Failed, RuleOutOfScope, SeverityError, "no task of the phase covers it. Move the change"},
		{"completed but untouched: a warning", nil, "", []string{"src/api/x.go"}, nil, Passed, RuleUntouchedCompleted, SeverityWarning, "task 1.3 is marked completed in this pull request, but none of its files changed"},
		{"completed but untouched: a failure by config", nil, "", []string{"src/api/x.go"}, cfg(func(s *ScopeConfig) { s.FailUntouchedCompleted = true }), Failed, RuleUntouchedCompleted, SeverityError, "none of its files changed"},
		{"completed at the merge base already: not this pull request's claim", nil, rulesPlan, []string{"src/api/x.go"}, nil, Passed, "", "", "src/api/x.go"},
		{"only .swarm/ changes but a task is newly completed", nil, "", []string{".swarm/plan.json"}, nil, Passed, RuleUntouchedCompleted, SeverityWarning, "task 1.3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := fstest.MapFS{".swarm/plan.json": {Data: []byte(rulesPlan)}}
			if c.files != nil {
				for k, v := range c.files(t) {
					head[k] = v
				}
			}
			var files []changeset.File
			for _, p := range c.changes {
				files = append(files, modified(p))
			}
			in := &Input{Phase: 1, Head: load(head), Changes: &changeset.ChangeSet{Files: files}, Config: c.cfg}
			if c.basePlan != "" {
				in.Base = load(fstest.MapFS{".swarm/plan.json": {Data: []byte(c.basePlan)}})
			}
			r := eval(Scope{}, in)
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s\n%s", r.Outcome, r.Title, c.want, findingsText(r), r.Summary)
			}
			if c.rule != "" {
				ok := false
				for _, f := range r.Findings {
					ok = ok || (f.Rule == c.rule && f.Severity == c.sev)
				}
				if !ok {
					t.Errorf("no %s finding of severity %s:\n%s", c.rule, c.sev, findingsText(r))
				}
			} else if hasRule(r, RuleUntouchedCompleted) {
				t.Errorf("unexpected untouched warning:\n%s", findingsText(r))
			}
			if all := r.Title + "\n" + r.Summary + "\n" + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}

// TestScopeAttribution checks the summary table: each changed file is listed
// under the task whose scope covers it.
func TestScopeAttribution(t *testing.T) {
	head := fstest.MapFS{".swarm/plan.json": {Data: []byte(rulesPlan)}}
	r := eval(Scope{}, &Input{Phase: 1, Head: load(head), Changes: &changeset.ChangeSet{Files: []changeset.File{
		modified("src/api/a.go"), modified("web/app.ts"), modified("docs/guide.md")}}})
	if r.Outcome != Passed {
		t.Fatalf("outcome %s (%s)\n%s", r.Outcome, r.Title, findingsText(r))
	}
	for _, row := range []string{
		"| 1.1 | pending | files_touched | `go.mod`, `src/api` | `src/api/a.go` |",
		"| 1.2 | pending | files_touched | `web/app.ts`, `web/util.ts` | `web/app.ts` |",
		"| 1.3 | completed | files_touched | `docs/guide.md` | `docs/guide.md` |",
		"| 1.4 | pending | files_touched | `ui` |  |",
	} {
		if !strings.Contains(r.Summary, row) {
			t.Errorf("summary lacks %q:\n%s", row, r.Summary)
		}
	}
}

func TestScopeNotDeclaredWarn(t *testing.T) {
	plan := `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"A","tasks":[{"id":"1.1","phase":1,"description":"d"}]}]}`
	c := DefaultConfig()
	c.Scope.WarnNotDeclared = true
	r := eval(Scope{}, &Input{Phase: 1, Head: load(fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}}), Config: c,
		Changes: &changeset.ChangeSet{Files: []changeset.File{modified("a.go")}}})
	if r.Outcome != Passed || !hasRule(r, RuleScopeNotDeclared) || r.Findings[0].Severity != SeverityWarning {
		t.Fatalf("outcome %s, findings:\n%s", r.Outcome, findingsText(r))
	}
}

func TestCompareTaskIDs(t *testing.T) {
	ids := []string{"1.10", "1.9", "1.2.1", "1.2", "10.1", "2.1", "1.a"}
	want := "1.2 1.2.1 1.9 1.10 1.a 2.1 10.1"
	sorted := append([]string(nil), ids...)
	sortTaskIDs(sorted)
	if got := strings.Join(sorted, " "); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestScopeFromABreakingPass has a row per problem a tester found.
func TestScopeFromABreakingPass(t *testing.T) {
	plan := `{"schema_version":"1.0.0","title":"T","swarm":"s","current_phase":1,"phases":[
 {"id":1,"name":"One","tasks":[
   {"id":"1.1","phase":1,"description":"api","files_touched":["src/api/a.go","src/api/b.go"]},
   {"id":"1.2","phase":1,"status":"completed","description":"ctx","files_touched":[".swarm/context.md"]},
   {"id":"1.3","phase":1,"description":"root","files_touched":["."]}]},
 {"id":2,"name":"Two","tasks":[{"id":"2.1","phase":2,"description":"lib","files_touched":["lib"]}]}]}`
	basePlanDone := strings.Replace(plan, `"description":"api",`, `"status":"completed","description":"api",`, 1)
	narrow := fstest.MapFS{".swarm/scopes/scope-1.1.json": {Data: []byte(`{"version":1,"taskId":"1.1","files":["src/api/a.go"]}`)}}
	wide := fstest.MapFS{".swarm/scopes/scope-1.1.json": {Data: []byte(`{"version":1,"taskId":"1.1","files":["src","Makefile"]}`)}}
	cases := []struct {
		name     string
		head     fstest.MapFS
		basePlan string
		baseFS   fstest.MapFS
		files    []changeset.File
		want     Outcome
		rule     string
		sev      Severity
		mention  string
	}{
		{"a conflict fails even when only .swarm/ changes", narrow, "", nil, []changeset.File{modified(".swarm/scopes/scope-1.1.json")}, Failed, RuleScopeConflict, SeverityError, "SCOPE_CONFLICT"},
		{"a conflict inherited from a task completed at the merge base is a notice", narrow, basePlanDone, narrow, []changeset.File{modified("src/api/a.go"), modified(".swarm/context.md")}, Passed, RuleScopeConflict, SeverityNotice, "already completed at the merge base"},
		{"the pull request widens its own scope", wide, "", nil, []changeset.File{modified("src/lib/u.go"), modified("Makefile"), modified(".swarm/context.md")}, Passed, RuleWidenedByPR, SeverityWarning, `gives task 1.1 "Makefile", "src" beyond its files_touched`},
		{"a declaration already on the base side is not a widening", wide, "", wide, []changeset.File{modified("Makefile"), modified(".swarm/context.md")}, Passed, "", "", "Makefile"},
		{"a broken v2 binding of a phase task fails closed", fstest.MapFS{".swarm/scopes/binding-1.1-b-g.json": {Data: []byte("{broken")}}, "", nil, []changeset.File{modified("src/api/a.go")}, Error, RuleUnreadable, SeverityError, "binding-1.1-b-g.json"},
		{"a modified copy source is one finding", nil, "", nil, []changeset.File{modified("tmp/x.txt"), {Status: changeset.Copied, OldPath: "tmp/x.txt", NewPath: "src/api/a.go"}, modified(".swarm/context.md")}, Failed, RuleOutOfScope, SeverityError, "1 changed file outside"},
		{"a completed task whose file is under .swarm/ is touched", nil, "", nil, []changeset.File{modified("src/api/a.go"), modified(".swarm/context.md")}, Passed, "", "", "`.swarm/context.md`"},
		{"the root as an entry", nil, "", nil, []changeset.File{modified("src/api/a.go"), modified(".swarm/context.md")}, Passed, RuleInvalidEntry, SeverityWarning, "is the repository root itself"},
		{"a file of another phase names it", nil, "", nil, []changeset.File{modified("lib/x.go"), modified(".swarm/context.md")}, Failed, RuleOutOfScope, SeverityError, "task 2.1 of phase 2 lists it"},
		{"no far-fetched suggestion", nil, "", nil, []changeset.File{modified(`src/q"uote.go`), modified(".swarm/context.md")}, Failed, RuleOutOfScope, SeverityError, "no task of the phase covers it. Move"},
		{"a typo gets a suggestion", nil, "", nil, []changeset.File{modified("src/api/c.go"), modified(".swarm/context.md")}, Failed, RuleOutOfScope, SeverityError, `did you mean task 1.1's "src/api/a.go"?`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}}
			for k, v := range c.head {
				head[k] = v
			}
			in := &Input{Phase: 1, Head: load(head), Changes: &changeset.ChangeSet{Files: c.files}}
			base := fstest.MapFS{}
			for k, v := range c.baseFS {
				base[k] = v
			}
			if c.basePlan != "" {
				base[".swarm/plan.json"] = &fstest.MapFile{Data: []byte(c.basePlan)}
			}
			in.Base = load(base)
			r := eval(Scope{}, in)
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s\n%s", r.Outcome, r.Title, c.want, findingsText(r), r.Summary)
			}
			if c.rule != "" {
				ok := false
				for _, f := range r.Findings {
					ok = ok || (f.Rule == c.rule && f.Severity == c.sev)
				}
				if !ok {
					t.Errorf("no %s finding of severity %s:\n%s", c.rule, c.sev, findingsText(r))
				}
			}
			if all := r.Title + "\n" + r.Summary + "\n" + findingsText(r); !strings.Contains(all, c.mention) {
				t.Errorf("output does not mention %q:\n%s", c.mention, all)
			}
		})
	}
}

// TestScopeSelfApprovedWidening is issue 20 item 3: under the default
// plan_freeze.approval: any, a pull request that widens a task's
// files_touched, changes the newly covered file and appends its own
// critic_approved line passed every gate. Now swarm/scope fails.
func TestScopeSelfApprovedWidening(t *testing.T) {
	wide := edit(t, testPlan, `"files_touched": ["src/a.go"]`, `"files_touched": ["src/a.go", "src/db.go"]`)
	// A task the pull request adds widens the phase as surely (issue 20,
	// adversarial pass B1); one whose file another base task covers does not.
	added := edit(t, testPlan, `"files_touched": ["cmd/x.go"], "fr_refs": ["FR-002"]}`, `"files_touched": ["cmd/x.go"], "fr_refs": ["FR-002"]},
        {"id": "1.3", "phase": 1, "status": "pending", "size": "small", "description": "Store rows", "depends": [], "acceptance": "rows stored", "files_touched": ["src/db.go"], "fr_refs": ["FR-002"]}`)
	addedCovered := edit(t, added, `"files_touched": ["src/db.go"]`, `"files_touched": ["src/a.go"]`)
	// A task added to the current phase over a later phase's file, or the
	// later phase's task moved into it, widens the current phase as well.
	addedOther := edit(t, added, `"files_touched": ["src/db.go"]`, `"files_touched": ["README.md"]`)
	moved := edit(t, testPlan, `"files_touched": ["cmd/x.go"], "fr_refs": ["FR-002"]}
      ]`, `"files_touched": ["cmd/x.go"], "fr_refs": ["FR-002"]},
        {"id": "2.1", "phase": 1, "status": "pending", "size": "small", "description": "Document it", "depends": [], "files_touched": ["README.md"]}
      ]`)
	moved = edit(t, moved, `"tasks": [
        {"id": "2.1", "phase": 2, "status": "pending", "size": "small", "description": "Document it", "depends": [], "files_touched": ["README.md"]}
      ]`, `"tasks": []`)
	baseL := newLedger(t, testPlan).approve(testPlan)
	cases := []struct {
		name      string
		head      string
		approveIn bool // the pull request appends an approval of head
		override  bool
		cfg       func(*Config)
		changed   []string
		scopes    map[string]string // .swarm/scopes/ files of the head
		base      map[string]string // and of the base
		want      Outcome
		sev       Severity // "" = no finding
		path      string   // the finding's path, "" = src/db.go
	}{
		{name: "widened, changed, approved by the pull request", head: wide, approveIn: true, changed: []string{"src/db.go"}, want: Failed, sev: SeverityError},
		{name: "relaxed by policy", head: wide, approveIn: true, changed: []string{"src/db.go"}, cfg: func(c *Config) { c.Scope.WarnSelfApprovedWidening = true }, want: Passed, sev: SeverityWarning},
		{name: "a maintainer's override covers the plan", head: wide, approveIn: true, override: true, changed: []string{"src/db.go"}, want: Passed},
		{name: "widened but the new file is not changed", head: wide, approveIn: true, changed: []string{"src/a.go"}, want: Passed},
		{name: "not widened", head: testPlan, changed: []string{"src/a.go"}, want: Passed},
		{name: "a task added, its new file changed, approved by the pull request", head: added, approveIn: true, changed: []string{"src/db.go"}, want: Failed, sev: SeverityError},
		{name: "a task added over a file a base task covers", head: addedCovered, approveIn: true, changed: []string{"src/a.go"}, want: Passed},
		{name: "a task added over a later phase's file", head: addedOther, approveIn: true, changed: []string{"README.md"}, want: Failed, sev: SeverityError, path: "README.md"},
		{name: "a later phase's task moved into the current one", head: moved, approveIn: true, changed: []string{"README.md"}, want: Failed, sev: SeverityError, path: "README.md"},
		// The plugin's declare_scope: a .swarm/scopes/ declaration the pull
		// request adds or changes widens the scope like files_touched does.
		{name: "declaration added by the pull request, approved by it", head: testPlan, approveIn: true, changed: []string{"src/db.go"},
			scopes: map[string]string{"scope-1.1.json": `{"version":1,"taskId":"1.1","files":["src/a.go","src/db.go"]}`}, want: Failed, sev: SeverityError},
		{name: "declaration changed by the pull request, approved by it", head: testPlan, approveIn: true, changed: []string{"src/db.go"},
			base:   map[string]string{"scope-1.1.json": `{"version":1,"taskId":"1.1","files":["src/a.go"]}`},
			scopes: map[string]string{"scope-1.1.json": `{"version":1,"taskId":"1.1","files":["src/a.go","src/db.go"]}`}, want: Failed, sev: SeverityError},
		{name: "declaration widened, relaxed by policy", head: testPlan, approveIn: true, changed: []string{"src/db.go"}, cfg: func(c *Config) { c.Scope.WarnSelfApprovedWidening = true },
			scopes: map[string]string{"scope-1.1.json": `{"version":1,"taskId":"1.1","files":["src/a.go","src/db.go"]}`}, want: Passed, sev: SeverityWarning},
		{name: "declaration on the base branch already", head: testPlan, approveIn: true, changed: []string{"src/db.go"},
			base:   map[string]string{"scope-1.1.json": `{"version":1,"taskId":"1.1","files":["src/a.go","src/db.go"]}`},
			scopes: map[string]string{"scope-1.1.json": `{"version":1,"taskId":"1.1","files":["src/a.go","src/db.go"]}`}, want: Passed},
		{name: "declaration changed, the changed file was in the base's declaration", head: testPlan, approveIn: true, changed: []string{"src/db.go"},
			base:   map[string]string{"scope-1.1.json": `{"version":1,"taskId":"1.1","files":["src/a.go","src/db.go"]}`},
			scopes: map[string]string{"scope-1.1.json": `{"version":1,"taskId":"1.1","files":["src/a.go","src/db.go","src/x.go"]}`}, want: Passed},
		// No approval needed at all, as the plan is unchanged: the agent's
		// own declaration is all that covers the file (issue 20,
		// weaknesses item 1; TestScopeDeclaredWideningUnapproved).
		{name: "declaration widened, approval on the base branch", head: testPlan, changed: []string{"src/db.go"},
			scopes: map[string]string{"scope-1.1.json": `{"version":1,"taskId":"1.1","files":["src/a.go","src/db.go"]}`}, want: Failed, sev: SeverityError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLedger(t, testPlan).approve(testPlan)
			if c.head != testPlan {
				l = l.snapshot(c.head)
			}
			if c.approveIn {
				l = l.approve(c.head)
			}
			var files []changeset.File
			for _, p := range c.changed {
				files = append(files, modified(p))
			}
			cfg := DefaultConfig()
			if c.cfg != nil {
				c.cfg(cfg)
			}
			headFS, baseFS := l.fs(c.head), baseL.fs(testPlan)
			for name, data := range c.scopes {
				headFS[".swarm/scopes/"+name] = &fstest.MapFile{Data: []byte(data)}
			}
			for name, data := range c.base {
				baseFS[".swarm/scopes/"+name] = &fstest.MapFile{Data: []byte(data)}
			}
			in := &Input{Phase: 1, Head: load(headFS), Base: load(baseFS), Changes: &changeset.ChangeSet{Files: files}, Config: cfg}
			if c.override {
				in.Overrides = []Override{{Command: CommandApprovePlanCritic, Actor: "octocat", Reason: "checked the db task", RecordedAt: "2026-07-18T10:00:00Z", StructureHash: in.Head.Plan.Digests.Structure}}
			}
			r := eval(Scope{}, in)
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			var got *Finding
			for i := range r.Findings {
				if r.Findings[i].Rule == RuleSelfApprovedWidening {
					got = &r.Findings[i]
				}
			}
			switch {
			case c.sev == "" && got != nil:
				t.Fatalf("unexpected finding: %s", got.Message)
			case c.sev != "" && got == nil:
				t.Fatalf("no %s finding:\n%s", RuleSelfApprovedWidening, findingsText(r))
			case got != nil && c.path != "":
				if got.Severity != c.sev || got.Path != c.path {
					t.Errorf("finding %s %s: %s", got.Severity, got.Path, got.Message)
				}
			case got != nil && (got.Severity != c.sev || got.Path != "src/db.go" || !strings.Contains(got.Message, `widens task 1.1's scope to "src/db.go"`) && !strings.Contains(got.Message, `adds task 1.3 to phase 1 with the scope "src/db.go" (which no task of the merge base's phase 1 covers)`)):
				t.Errorf("finding %s %s: %s", got.Severity, got.Path, got.Message)
			}
		})
	}
}

// TestScopeDeclarationWidening: a .swarm/scopes/ declaration the pull
// request adds widens the scope even for a task with no files_touched (B2)
// or one completed on the merge base (B3); under scope.widened_by_pr: fail
// that fails the gate.
func TestScopeDeclarationWidening(t *testing.T) {
	empty := edit(t, testPlan, `"files_touched": ["cmd/x.go"]`, `"files_touched": []`)
	doneBase := edit(t, testPlan, `{"id": "1.1", "phase": 1, "status": "pending"`, `{"id": "1.1", "phase": 1, "status": "completed"`)
	for _, c := range []struct {
		name, plan, decl, changed string
	}{
		{"a task with no files_touched", empty, `{"version":1,"taskId":"1.2","files":["main.go"]}`, "main.go"},
		{"a task completed on the merge base", doneBase, `{"version":1,"taskId":"1.1","files":["src/a.go","main.go"]}`, "main.go"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newLedger(t, c.plan).approve(c.plan)
			headFS, baseFS := l.fs(c.plan), l.fs(c.plan)
			task := strings.TrimSuffix(strings.SplitAfter(c.decl, `"taskId":"`)[1][:3], `"`)
			headFS[".swarm/scopes/scope-"+task+".json"] = &fstest.MapFile{Data: []byte(c.decl)}
			for _, fail := range []bool{false, true} {
				cfg := DefaultConfig()
				cfg.Scope.FailWidenedByPR = fail
				// This test is about scope.widened_by_pr; the self-approved
				// widening a declaration past files_touched also is
				// (TestScopeDeclaredWideningUnapproved) is relaxed here.
				cfg.Scope.WarnSelfApprovedWidening = true
				in := &Input{Phase: 1, Head: load(headFS), Base: load(baseFS), Changes: &changeset.ChangeSet{Files: []changeset.File{modified(c.changed)}}, Config: cfg}
				r := eval(Scope{}, in)
				want, sev := Passed, SeverityWarning
				if fail {
					want, sev = Failed, SeverityError
				}
				var got *Finding
				for i := range r.Findings {
					if r.Findings[i].Rule == RuleWidenedByPR {
						got = &r.Findings[i]
					}
				}
				if r.Outcome != want || got == nil || got.Severity != sev || !strings.Contains(got.Message, `"main.go" beyond its files_touched`) {
					t.Errorf("widened_by_pr fail=%v: %s %q\n%s", fail, r.Outcome, r.Title, findingsText(r))
				}
			}
		})
	}
}

func TestBroadExtras(t *testing.T) {
	// "*" covers every top-level entry, and an extra covers what is under a
	// folder it names, so it allows everything too.
	got := BroadExtras([]string{"dist/**", "**", "**/*", "*", "**/*.go", "*/**", "*.md"})
	if want := []string{"**", "**/*", "*", "*/**"}; !slices.Equal(got, want) {
		t.Errorf("BroadExtras = %q, want %q", got, want)
	}
}

// TestScopeDeclaredWideningUnapproved is issue 20 (weaknesses, item 1): a
// .swarm/scopes/ declaration the pull request adds or changes that gives a
// task more than the files_touched the approved plan lists, with a change
// to a newly covered file, needs no new plan approval at all (the plan's
// structure is unchanged), so it only warned: the agent's cheaper route
// around scope/self-approved-widening. It fails as that rule now. A task
// whose files_touched is empty has its scope from declare_scope alone, as
// in every real .swarm/ of the corpus: that stays a warning.
func TestScopeDeclaredWideningUnapproved(t *testing.T) {
	empty := edit(t, testPlan, `"files_touched": ["src/a.go"]`, `"files_touched": []`)
	decl := `{"version":1,"taskId":"1.1","files":["src/a.go","src/db.go"]}`
	cases := []struct {
		name       string
		plan       string
		base, head string // scope-1.1.json on each side ("" = none)
		changed    string
		override   bool
		relax      bool
		want       Outcome
		sev        Severity // of the self-approved-widening finding, "" = none
	}{
		{name: "declaration added, newly covered file changed", plan: testPlan, head: decl, changed: "src/db.go", want: Failed, sev: SeverityError},
		{name: "declaration changed, newly covered file changed", plan: testPlan, base: `{"version":1,"taskId":"1.1","files":["src/a.go"]}`, head: decl, changed: "src/db.go", want: Failed, sev: SeverityError},
		{name: "relaxed by policy", plan: testPlan, head: decl, changed: "src/db.go", relax: true, want: Passed, sev: SeverityWarning},
		{name: "a maintainer's override", plan: testPlan, head: decl, changed: "src/db.go", override: true, want: Passed},
		{name: "the newly covered file is not changed", plan: testPlan, head: decl, changed: "src/a.go", want: Passed},
		{name: "declaration on the base branch", plan: testPlan, base: decl, head: decl, changed: "src/db.go", want: Passed},
		{name: "no files_touched: the declaration is the scope", plan: empty, head: decl, changed: "src/db.go", want: Passed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLedger(t, c.plan).approve(c.plan)
			headFS, baseFS := l.fs(c.plan), l.fs(c.plan)
			if c.head != "" {
				headFS[".swarm/scopes/scope-1.1.json"] = &fstest.MapFile{Data: []byte(c.head)}
			}
			if c.base != "" {
				baseFS[".swarm/scopes/scope-1.1.json"] = &fstest.MapFile{Data: []byte(c.base)}
			}
			cfg := DefaultConfig()
			cfg.Scope.WarnSelfApprovedWidening = c.relax
			in := &Input{Phase: 1, Head: load(headFS), Base: load(baseFS), Changes: &changeset.ChangeSet{Files: []changeset.File{modified(c.changed)}}, Config: cfg}
			if c.override {
				in.Overrides = []Override{{Command: CommandApprovePlanCritic, Actor: "octocat", Reason: "db access is part of 1.1", RecordedAt: "2026-07-18T10:00:00Z", StructureHash: in.Head.Plan.Digests.Structure}}
			}
			r := eval(Scope{}, in)
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			var got *Finding
			for i := range r.Findings {
				if r.Findings[i].Rule == RuleSelfApprovedWidening {
					got = &r.Findings[i]
				}
			}
			switch {
			case c.sev == "" && got != nil:
				t.Fatalf("unexpected finding: %s", got.Message)
			case c.sev != "" && got == nil:
				t.Fatalf("no %s finding:\n%s", RuleSelfApprovedWidening, findingsText(r))
			case got != nil:
				for _, want := range []string{`widens task 1.1's scope to "src/db.go"`, ".swarm/scopes/scope-1.1.json", `"src/a.go"`, "/swarm approve-plan-critic"} {
					if !strings.Contains(got.Message, want) {
						t.Errorf("message lacks %q: %s", want, got.Message)
					}
				}
				if got.Severity != c.sev || got.Path != "src/db.go" {
					t.Errorf("finding %s %s", got.Severity, got.Path)
				}
				if c.want == Failed && !strings.Contains(r.Title, "task 1.1") {
					t.Errorf("title does not name the widened task: %q", r.Title)
				}
			}
		})
	}
}
