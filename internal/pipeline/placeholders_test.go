package pipeline

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/gates"
)

// TestHeadFileReader: Input.HeadFile reads regular files of the head
// snapshot, up to the placeholder scan's 1 MiB, into a reused buffer. (The
// snapshot itself refuses symlinks and submodules on Open.)
func TestHeadFileReader(t *testing.T) {
	fsys := fstest.MapFS{
		"a.go":     {Data: []byte("package a\n// TODO\n")},
		"b.go":     {Data: []byte("b")},
		"empty.go": {Data: []byte{}},
		"max.txt":  {Data: make([]byte, gates.MaxPlaceholderScanSize)},
		"big.txt":  {Data: make([]byte, gates.MaxPlaceholderScanSize+1)},
		"dir/c.go": {Data: []byte("c")},
	}
	read := headFileReader(fsys)
	for _, c := range []struct {
		name string
		want string
		ok   bool
	}{
		{"a.go", "package a\n// TODO\n", true},
		{"b.go", "b", true},
		{"empty.go", "", true},
		{"missing.go", "", false},
		{"big.txt", "", false},
		{"dir", "", false},
	} {
		got, ok := read(c.name)
		if ok != c.ok || string(got) != c.want {
			t.Errorf("HeadFile(%q) = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	if got, ok := read("max.txt"); !ok || len(got) != gates.MaxPlaceholderScanSize {
		t.Errorf("HeadFile(max.txt) = %d bytes, %v", len(got), ok)
	}
}

// TestCheckPlaceholdersWholeFile: the pipeline gives the placeholder gate
// the head contents, so a TODO added inside an existing block comment is
// found, and a "# TODO" added inside an existing string is not (repro
// /tmp/pt/e).
func TestCheckPlaceholdersWholeFile(t *testing.T) {
	r := newRepo(t)
	plan := strings.Replace(miniPlan, `"files_touched":["b/"]`, `"files_touched":["b/","src/"]`, 1)
	base := map[string]string{
		".swarm/plan.json": plan,
		"src/a.go":         "package a\n\n/*\nExisting block comment\nline two\n*/\nfunc A() {}\n",
		"src/b.py":         "x = \"\"\"\ndata\n\"\"\"\n",
	}
	r.commit("", base)
	r.commit("swarm/phase-2", map[string]string{
		"src/a.go": "package a\n\n/*\nExisting block comment\nline two\nTODO: middle line added\n*/\nfunc A() {}\n",
		"src/b.py": "x = \"\"\"\ndata\n# TODO inside string data\n\"\"\"\n",
	})
	for _, engine := range []string{"git", "go-git"} {
		rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: "swarm/phase-2", DiffEngine: engine,
			Gates: []gates.Gate{gates.Placeholders{}}})
		if err != nil {
			if engine == "git" && strings.Contains(err.Error(), "executable file not found") {
				continue
			}
			t.Fatal(err)
		}
		g := rep.Gates[0]
		if len(g.Findings) != 1 || g.Findings[0].Path != "src/a.go" || g.Findings[0].Line != 6 || g.Findings[0].Rule != gates.RuleCommentTodo {
			t.Errorf("%s: %s %+v, want one comment-todo at src/a.go:6", engine, g.Outcome, g.Findings)
		}
		if !strings.Contains(g.Summary, "each file is lexed from its first line at head") {
			t.Errorf("%s: summary %s", engine, g.Summary)
		}
	}
}

// TestCheckOnlyNeededInputs: gates that judge only the .swarm/ artifacts
// (swarm/plan-freeze, swarm/critic, ...) get no diff: the change set is
// not computed (here it could not be: the diff engine is unknown), while a
// gate that reads the changed files still fails on it.
func TestCheckOnlyNeededInputs(t *testing.T) {
	r := newRepo(t)
	r.commit("", map[string]string{".swarm/plan.json": miniPlan})
	r.commit("swarm/phase-2", map[string]string{"b/x.go": "package b\n"})
	for _, tt := range []struct {
		gates   []gates.Gate
		wantErr bool
	}{
		{[]gates.Gate{gates.PlanFreeze{}}, false},
		{[]gates.Gate{gates.PlanFreeze{}, gates.Critic{}, gates.Evidence{}, gates.Drift{}, gates.PhaseWrap{}, gates.PlanLint{}}, false},
		{[]gates.Gate{gates.PlanFreeze{}, gates.Scope{}}, true},
	} {
		_, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: "swarm/phase-2", DiffEngine: "no-such-engine", Gates: tt.gates})
		if (err != nil) != tt.wantErr || err != nil && !strings.Contains(err.Error(), "unknown diff engine") {
			t.Errorf("gates %v: err = %v, want an error about the diff engine: %v", tt.gates, err, tt.wantErr)
		}
	}
	if gates.NeedsChanges([]gates.Gate{gates.PlanFreeze{}}) || !gates.NeedsChanges([]gates.Gate{gates.PlanFreeze{}, gates.Placeholders{}}) || !gates.NeedsChanges(gates.Registry()) {
		t.Error("NeedsChanges is wrong")
	}
}
