package gates

import (
	"fmt"
	"slices"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

func added(path string, lines ...string) changeset.File {
	f := changeset.File{Status: changeset.Added, NewPath: path}
	for i, l := range lines {
		f.Added = append(f.Added, changeset.AddedLine{Line: i + 1, Text: l})
	}
	return f
}

func TestPlaceholderRules(t *testing.T) {
	cases := []struct {
		name string
		path string
		line string
		want []string // "rule@column"
	}{
		{"go line comment TODO", "a.go", "\tx := 1 // TODO: remove", []string{RuleCommentTodo + "@12"}},
		{"shell FIXME", "run.sh", "# fixme later", []string{RuleCommentFixme + "@3"}},
		{"html comment XXX", "a.html", "<p>hi</p> <!-- XXX check -->", []string{RuleCommentOther + "@16"}},
		{"same-line block comment", "loop.c", "++i; /* XXX: bounds not checked */", []string{RuleCommentOther + "@9"}},
		{"line and block comment with different rules", "a.c", "x(); /* HACK */ // TODO", []string{RuleCommentTodo + "@20", RuleCommentOther + "@9"}},
		{"line and block with the same rule once", "a.c", "/* TODO */ // TODO", []string{RuleCommentTodo + "@15"}},
		{"first rule only per comment", "a.go", "// TODO FIXME", []string{RuleCommentTodo + "@4"}},
		{"identifier is not a marker", "a.go", "todoList := hackery // xxxHandler", nil},
		{"marker outside a comment", "a.go", `msg := "TODO"`, nil},
		{"markdown heading (plugin parity)", "README.md", "# TODO list", []string{RuleCommentTodo + "@3"}},
		{"URL fragment after // (plugin parity)", "a.txt", "see http://x/#TODO", []string{RuleCommentTodo + "@15"}},
		{"sentinel drops the finding", "a.go", "// TODO SC-PLACEHOLDER allowed", nil},
		{"sql comment", "db/migrate.sql", "-- TODO: add index on orders.created_at", []string{RuleCommentTodo + "@4"}},
		{"sql dashes only in sql", "a.txt", "-- TODO", nil},
		{"TBD", "a.py", "x = 1  # TBD", []string{RuleCommentOther + "@10"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := eval(Placeholders{}, &Input{Head: empty(), Changes: &changeset.ChangeSet{Files: []changeset.File{added(c.path, c.line)}}})
			var got []string
			for _, f := range r.Findings {
				got = append(got, fmt.Sprintf("%s@%d", f.Rule, f.Column))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("findings %v, want %v", got, c.want)
			}
			if want := Passed; len(c.want) > 0 {
				want = Failed
				if r.Outcome != want {
					t.Errorf("outcome %s, want %s", r.Outcome, want)
				}
			} else if r.Outcome != want {
				t.Errorf("outcome %s, want %s", r.Outcome, want)
			}
		})
	}
}

func TestPlaceholdersOnlyAddedLinesAndSkips(t *testing.T) {
	mod := changeset.File{Status: changeset.Modified, OldPath: "app/handler.go", NewPath: "app/handler.go",
		Added: []changeset.AddedLine{{Line: 13, Text: "\t// TODO: wire the retry policy"}}}
	files := []changeset.File{
		mod,
		added("src/app.test.ts", "// TODO in a test file"),
		added("src/__tests__/x.ts", "// TODO in a test folder"),
		added("templates/tests/gen.ts", "// TODO scaffold is still scanned"),
		added(".swarm/plan.md", "# TODO swarm files are not code"),
		added(`.swarm/..\evil.py`, "x = 1  # TODO not exempt: not a clean .swarm path"),
		{Status: changeset.Added, NewPath: "logo.png", Binary: true},
		{Status: changeset.Deleted, OldPath: "old.go"},
		added("nul.bin", "// TODO\x00"),
	}
	r := eval(Placeholders{}, &Input{Head: empty(), Changes: &changeset.ChangeSet{Files: files}})
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%s:%d", f.Path, f.Line))
	}
	want := []string{"app/handler.go:13", "templates/tests/gen.ts:1", `.swarm/..\evil.py:1`}
	if !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"src/a.test.ts": true, "src/a.spec.js": true, "tests/x.py": true, "pkg/test/x.go": true, "__mocks__/m.js": true,
		"specs/a.md": true, "contests/a.go": false, "src/attest/a.go": false, "src/app.go": false, "templates/tests/x.go": false,
		"gen/tests/x.go": true, "tests/gen-x.go": false, "tests/a.gen.go": false,
	} {
		if got := IsTestPath(p); got != want {
			t.Errorf("IsTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}
