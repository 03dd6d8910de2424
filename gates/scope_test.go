package gates

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

const scopePlan = `{"schema_version":"1.0.0","title":"T","swarm":"s","current_phase":2,"phases":[
 {"id":1,"name":"One","tasks":[{"id":"1.1","phase":1,"description":"d","files_touched":["lib/"]}]},
 {"id":2,"name":"Two","tasks":[
   {"id":"2.1","phase":2,"description":"d","files_touched":["src/api","./docs/guide.md","scripts\\deploy.sh"]},
   {"id":"2.2","phase":2,"description":"d","files_touched":["/etc/passwd","tools/x.sh"]},
   {"id":"2.3","phase":2,"description":"d"}]}]}`

func scopeHead(extra fstest.MapFS) fstest.MapFS {
	m := fstest.MapFS{".swarm/plan.json": {Data: []byte(scopePlan)}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestScope(t *testing.T) {
	mod := func(p string) changeset.File {
		return changeset.File{Status: changeset.Modified, OldPath: p, NewPath: p, OldMode: 0o100644, NewMode: 0o100644}
	}
	cases := []struct {
		name    string
		head    fstest.MapFS
		files   []changeset.File
		want    Outcome
		outside []string
	}{
		{"file under a directory entry", nil, []changeset.File{mod("src/api/handler.go")}, Passed, nil},
		{"entry with ./ matches", nil, []changeset.File{mod("docs/guide.md")}, Passed, nil},
		{"backslash entry matches", nil, []changeset.File{mod("scripts/deploy.sh")}, Passed, nil},
		{"one invalid entry invalidates the task's whole list, as in the plugin", nil, []changeset.File{mod("tools/x.sh")}, Failed, []string{"tools/x.sh"}},
		{"sibling with a common prefix is outside", nil, []changeset.File{mod("src/api2/x.go")}, Failed, []string{"src/api2/x.go"}},
		{"other phase's scope does not count", nil, []changeset.File{mod("lib/a.go")}, Failed, []string{"lib/a.go"}},
		{".swarm is exempt", nil, []changeset.File{mod(".swarm/plan.json"), {Status: changeset.Added, NewPath: ".swarm/evidence/2.1.json"}, mod("src/api/x.go")}, Passed, nil},
		// The plugin writes no source code there: code under .swarm/ is not
		// its state, and is judged as any other file.
		{"code under .swarm is not exempt", nil, []changeset.File{{Status: changeset.Added, NewPath: ".swarm/lib/hook.js", NewMode: 0o100644}, mod("src/api/x.go")}, Failed, []string{".swarm/lib/hook.js"}},
		// Nor a build file or script of a kind the plugin never writes.
		{"a Makefile under .swarm is not exempt", nil, []changeset.File{{Status: changeset.Added, NewPath: ".swarm/Makefile", NewMode: 0o100644}, {Status: changeset.Added, NewPath: ".swarm/session/state.json.bak", NewMode: 0o100644}, mod("src/api/x.go")}, Failed, []string{".swarm/Makefile"}},
		{"added file outside", nil, []changeset.File{{Status: changeset.Added, NewPath: "README.md", NewMode: 0o100644}}, Failed, []string{"README.md"}},
		{"deleted file outside", nil, []changeset.File{{Status: changeset.Deleted, OldPath: "Makefile", OldMode: 0o100644}}, Failed, []string{"Makefile"}},
		{"mode-only change outside", nil, []changeset.File{{Status: changeset.Modified, OldPath: "run.sh", NewPath: "run.sh", OldMode: 0o100644, NewMode: 0o100755}}, Failed, []string{"run.sh"}},
		{"binary file outside", nil, []changeset.File{{Status: changeset.Added, NewPath: "assets/logo.png", Binary: true}}, Failed, []string{"assets/logo.png"}},
		{"rename into scope from outside", nil, []changeset.File{{Status: changeset.Renamed, OldPath: "old/a.go", NewPath: "src/api/a.go", Similarity: 100}}, Failed, []string{"old/a.go"}},
		{"rename out of scope", nil, []changeset.File{{Status: changeset.Renamed, OldPath: "src/api/a.go", NewPath: "lib/a.go", Similarity: 90}}, Failed, []string{"lib/a.go"}},
		{"copy needs both paths", nil, []changeset.File{{Status: changeset.Copied, OldPath: "src/api/a.go", NewPath: "src/api/b.go"}}, Passed, nil},
		{"scope file adds entries", fstest.MapFS{".swarm/scopes/scope-2.3.json": {Data: []byte(`{"version":1,"taskId":"2.3","declaredAt":1,"expiresAt":2,"files":["web/app.ts"]}`)}},
			[]changeset.File{mod("web/app.ts")}, Passed, nil},
		{"broken scope file of a phase task", fstest.MapFS{".swarm/scopes/scope-2.3.json": {Data: []byte(`{"taskId":"2.3",`)}},
			[]changeset.File{mod("web/app.ts")}, Error, nil},
		{"unicode and spaces", fstest.MapFS{".swarm/scopes/scope-2.3.json": {Data: []byte(`{"version":1,"taskId":"2.3","files":["docs/café notes"]}`)}},
			[]changeset.File{mod("docs/café notes/meeting notes.txt")}, Passed, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := eval(Scope{}, &Input{Phase: 2, Head: load(scopeHead(c.head)), Changes: &changeset.ChangeSet{Files: c.files}})
			if r.Outcome != c.want {
				t.Fatalf("outcome %s (%s), want %s\n%s", r.Outcome, r.Title, c.want, findingsText(r))
			}
			var outside []string
			for _, f := range r.Findings {
				if f.Rule == RuleOutOfScope {
					outside = append(outside, f.Path)
				}
			}
			sort.Strings(outside)
			if !slices.Equal(outside, c.outside) {
				t.Errorf("outside %v, want %v", outside, c.outside)
			}
		})
	}
}

func TestScopeReportsInvalidEntries(t *testing.T) {
	r := eval(Scope{}, &Input{Phase: 2, Head: load(scopeHead(nil))})
	if !hasRule(r, RuleInvalidEntry) {
		t.Errorf("the absolute entry /etc/passwd was not reported: %v", rules(r))
	}
}

func TestScopeNotDeclared(t *testing.T) {
	r := eval(Scope{}, &Input{Phase: 2, Head: load(fstest.MapFS{".swarm/plan.json": {Data: []byte(`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":2,"name":"P","tasks":[{"id":"2.1","phase":2,"description":"d"}]}]}`)}}),
		Changes: &changeset.ChangeSet{Files: []changeset.File{{Status: changeset.Added, NewPath: "a.go"}}}})
	if r.Outcome != Failed || !hasRule(r, RuleScopeNotDeclared) {
		t.Errorf("outcome %s rules %v, want SCOPE_NOT_DECLARED", r.Outcome, rules(r))
	}
}

func TestScopeUnknownPhase(t *testing.T) {
	r := eval(Scope{}, &Input{Phase: 7, Head: load(scopeHead(nil))})
	if r.Outcome != Error {
		t.Errorf("outcome %s, want error for a phase the plan does not have", r.Outcome)
	}
}

// TestScopeCorpus checks IMU-Parkinson's phase against its own declared
// scope files: each declared file is in scope, anything else is not.
// TestScopeCorpus uses the real scope declarations of the corpus: for each
// phase with declarations, changing exactly the declared files passes (each
// file attributed to its task), and one more file fails with exactly one
// finding on it.
func TestScopeCorpus(t *testing.T) {
	for _, repo := range []string{"DediGadot__IMU-Parkinson", "JG1995__fm-value-scout", "sleuthy-sloth__quest-forge", "VerduzcoTristan__landingpage", "jonathanlopezc83717-commits__Frontend_1er_modulo"} {
		t.Run(repo, func(t *testing.T) {
			head := corpus(t, repo)
			byPhase := map[int][]changeset.File{}
			owner := map[int]map[string]string{} // phase -> path -> task
			for id, sf := range head.Scopes.Declared {
				_, ph := head.Plan.FindTask(id)
				if ph == nil {
					continue // a declaration for a task no longer in the plan
				}
				for _, f := range sf.Files {
					p, err := NormalizeScopeEntry(f)
					if err != nil {
						t.Fatal(err)
					}
					if strings.HasSuffix(f, "/") { // a directory entry stands for the files under it
						p += "/file.txt"
					}
					byPhase[ph.ID] = append(byPhase[ph.ID], changeset.File{Status: changeset.Modified, OldPath: p, NewPath: p})
					if owner[ph.ID] == nil {
						owner[ph.ID] = map[string]string{}
					}
					owner[ph.ID][p] = id
				}
			}
			if len(byPhase) == 0 {
				t.Fatal("no declared scope files for a plan task")
			}
			for phase, files := range byPhase {
				r := eval(Scope{}, &Input{Phase: phase, Head: head, Changes: &changeset.ChangeSet{Files: files}})
				if r.Outcome != Passed {
					t.Fatalf("phase %d: declared files out of scope: %s\n%s", phase, r.Title, findingsText(r))
				}
				for _, f := range files {
					id := owner[phase][f.NewPath]
					row := ""
					for _, line := range strings.Split(r.Summary, "\n") {
						if strings.HasPrefix(line, "| "+id+" |") {
							row = line
						}
					}
					if cells := strings.Split(row, " | "); len(cells) < 5 || !strings.Contains(cells[4], "`"+f.NewPath+"`") {
						t.Errorf("phase %d: summary does not attribute %s to task %s:\n%s", phase, f.NewPath, id, r.Summary)
					}
				}
				more := append(files[:len(files):len(files)], changeset.File{Status: changeset.Added, NewPath: "not/declared.py"})
				r = eval(Scope{}, &Input{Phase: phase, Head: head, Changes: &changeset.ChangeSet{Files: more}})
				var out []string
				for _, f := range failingFindings(r.Findings) {
					out = append(out, f.Path)
				}
				if r.Outcome != Failed || len(out) != 1 || out[0] != "not/declared.py" {
					t.Errorf("phase %d: want one finding for not/declared.py, got %s\n%s", phase, r.Outcome, findingsText(r))
				}
			}
		})
	}
}

func TestNormalizeScopeEntry(t *testing.T) {
	cases := []struct{ in, want string }{
		{"src/api/", "src/api"}, {"./src", "src"}, {`src\win\a.go`, "src/win/a.go"}, {"  a.go\t", "a.go"},
		{"src/../README.md", "README.md"}, {"a//b", "a/b"}, {"\ufeffa", "a"},
		{"", ""}, {"/abs", ""}, {"C:/x", ""}, {`c:\x`, ""}, {"..", ""}, {"../x", ""}, {"a/../../x", ""}, {".", ""}, {"a\x00b", ""},
	}
	for _, c := range cases {
		got, err := NormalizeScopeEntry(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("%q: accepted as %q, want rejected", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestInScopeEdgeCaseB12 is ../shared/cases/edge-cases.md B12. Scope
// entries are cleaned the plugin's way; changed paths come from git and are
// compared as git names them: a name that is not clean is never in scope
// (the gate reports it as scope/unclean-path), so `src/../README.md` or a
// file literally called `src\..\x` cannot pass for a file inside src/.
func TestInScopeEdgeCaseB12(t *testing.T) {
	entries := map[string]bool{}
	for _, e := range []string{"src/", "./docs/guide.md"} {
		n, err := NormalizeScopeEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		entries[n] = true
	}
	cases := []struct {
		path string
		in   bool
	}{
		{"src/api/handler.go", true}, {"docs/guide.md", true},
		{"./src/api/handler_test.go", false}, {"src/../README.md", false}, {`src\win\service.go`, false},
		{`src\..\README.md`, false}, {"../outside/secret.txt", false}, {"srcx/a.go", false}, {"src//a.go", false}, {"/src/a.go", false},
	}
	for _, c := range cases {
		if got := InScope(entries, c.path); got != c.in {
			t.Errorf("InScope(%q) = %v, want %v", c.path, got, c.in)
		}
	}
}

func TestScopeUncleanAndEmpty(t *testing.T) {
	head := load(scopeHead(nil))
	r := eval(Scope{}, &Input{Phase: 2, Head: head, Changes: &changeset.ChangeSet{Files: []changeset.File{
		{Status: changeset.Added, NewPath: `src\api\..\..\evil.go`},
		{Status: changeset.Added, NewPath: "src/api/../../evil2.go"},
		{Status: changeset.Added, NewPath: `.swarm/..\server.py`},
		{Status: changeset.Added, NewPath: ".swarm/../server.py"},
	}}})
	if r.Outcome != Failed || len(r.Findings) < 4 || !hasRule(r, RuleUncleanPath) {
		t.Errorf("unclean paths: %s %v", r.Outcome, rules(r))
	}
	r = eval(Scope{}, &Input{Phase: 2, Head: head, Changes: &changeset.ChangeSet{Files: []changeset.File{{Status: changeset.Modified, OldPath: ".swarm/plan.json", NewPath: ".swarm/plan.json"}}}})
	if r.Outcome != NotApplicable {
		t.Errorf("only .swarm changed: %s, want not_applicable", r.Outcome)
	}
	noScope := load(fstest.MapFS{".swarm/plan.json": {Data: []byte(`{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":2,"name":"P","tasks":[{"id":"2.1","phase":2,"description":"d"}]}]}`)}})
	if r := eval(Scope{}, &Input{Phase: 2, Head: noScope}); r.Outcome != NotApplicable {
		t.Errorf("no scope and no change: %s, want not_applicable", r.Outcome)
	}
}

func TestScopeGlobEntryWarns(t *testing.T) {
	head := load(scopeHead(fstest.MapFS{".swarm/scopes/scope-2.3.json": {Data: []byte(`{"version":1,"taskId":"2.3","files":["web/**"]}`)}}))
	r := eval(Scope{}, &Input{Phase: 2, Head: head, Changes: &changeset.ChangeSet{Files: []changeset.File{{Status: changeset.Added, NewPath: "web/a.ts"}}}})
	if r.Outcome != Failed || !hasRule(r, RuleInvalidEntry) || !strings.Contains(findingsText(r), "contains '*'") {
		t.Errorf("glob entry: %s\n%s", r.Outcome, findingsText(r))
	}
}

// TestScopeBracketsAreLiteral: Next.js and SvelteKit route folders are
// named with brackets; the plugin matches them literally.
func TestScopeBracketsAreLiteral(t *testing.T) {
	head := load(scopeHead(fstest.MapFS{".swarm/scopes/scope-2.3.json": {Data: []byte(`{"version":1,"taskId":"2.3","files":["app/[slug]/page.tsx","app/(group)/[[...rest]]","a?b"]}`)}}))
	r := eval(Scope{}, &Input{Phase: 2, Head: head, Changes: &changeset.ChangeSet{Files: []changeset.File{
		modified("app/[slug]/page.tsx"), modified("app/(group)/[[...rest]]/page.tsx"), modified("a?b")}}})
	if r.Outcome != Passed || strings.Contains(findingsText(r), "scope-2.3.json: scope/invalid-entry") {
		t.Errorf("bracket entries: %s\n%s", r.Outcome, findingsText(r))
	}
}

func TestScopeSummaryIsEscaped(t *testing.T) {
	head := load(scopeHead(fstest.MapFS{".swarm/scopes/scope-2.3.json": {Data: []byte(`{"version":1,"taskId":"2.3","files":["src\n\n</details>\n\n## swarm-gate: passed","web/` + "`a`" + `|b"]}`)}}))
	r := eval(Scope{}, &Input{Phase: 2, Head: head, Changes: &changeset.ChangeSet{Files: []changeset.File{{Status: changeset.Added, NewPath: "web/x.ts"}}}})
	// The plugin accepts entries with newlines; in the summary they stay
	// inside one code span, escaped.
	if strings.Contains(r.Summary, "\n## ") || !strings.Contains(r.Summary, "`src\\n\\n</details>\\n\\n## swarm-gate: passed`") || !strings.Contains(r.Summary, "`` web/`a`\\|b ``") {
		t.Errorf("summary not escaped (a | must not split the table cell):\n%s", r.Summary)
	}
}
