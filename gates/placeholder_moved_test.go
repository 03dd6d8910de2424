package gates

import (
	"slices"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// placeholdersBase runs the gate with head and merge-base contents (base
// nil: none at all), as placeholders does.
func placeholdersBase(t *testing.T, head, base map[string]string, files ...changeset.File) (Result, []string) {
	t.Helper()
	in := &Input{Head: empty(), Changes: &changeset.ChangeSet{Files: files}, HeadFile: headFS(t, head)}
	if base != nil {
		in.BaseFile = func(p string) ([]byte, bool) { c, ok := base[p]; return []byte(c), ok }
	}
	r := eval(Placeholders{}, in)
	return r, placeholderFindings(t, r)
}

// TestPlaceholderMovedLines: an added line whose finding (rule and trimmed
// line) is also in the file's merge-base version, and not all of those
// are still on unchanged lines, was moved or re-added: it is pre-existing,
// a warning ("!"). The rows are the moves a pull request makes.
func TestPlaceholderMovedLines(t *testing.T) {
	cases := []struct {
		name       string
		file       changeset.File
		head, base string // "" base: the path is not at the merge base
		want       []string
		pre, intro int
	}{
		{"a TODO moved within its file",
			modifiedAt("a.go", "package a\n\nfunc A() {}\n\n// TODO: retry on 503\n", 5),
			"package a\n\nfunc A() {}\n\n// TODO: retry on 503\n", "package a\n\n// TODO: retry on 503\nfunc A() {}\n",
			[]string{"comment-todo!@5:4"}, 1, 0},
		{"re-indented, the same trimmed line",
			modifiedAt("b.py", "class A:\n    def f(self):\n        x = 1  # TODO: tune\n", 3),
			"class A:\n    def f(self):\n        x = 1  # TODO: tune\n", "def f():\n    x = 1  # TODO: tune\n",
			[]string{"comment-todo!@3:18"}, 1, 0},
		{"copied: once at the base, twice at head, so one is new",
			modifiedAt("c.go", "// TODO: x\nfunc A() {}\n// TODO: x\n", 3),
			"// TODO: x\nfunc A() {}\n// TODO: x\n", "// TODO: x\nfunc A() {}\n",
			[]string{"comment-todo@3:4"}, 0, 1},
		{"an edited line with a new marker",
			modifiedAt("d.go", "x := 1 // TODO: why\n", 1),
			"x := 1 // TODO: why\n", "x := 1\n",
			[]string{"comment-todo@1:11"}, 0, 1},
		{"a whole-body stub moved below another function",
			modifiedAt("e.ts", "function g() { return 1; }\nfunction f() {\n  return null;\n}\n", 2, 3, 4),
			"function g() { return 1; }\nfunction f() {\n  return null;\n}\n", "function f() {\n  return null;\n}\nfunction g() { return 1; }\n",
			[]string{"code-stub-return!@3:3"}, 1, 0},
		{"a guard that became a stub is new",
			modifiedAt("f.ts", "function f() {\n  return null;\n}\n", 2),
			"function f() {\n  return null;\n}\n", "function f() {\n  if (!x) return null;\n  return null;\n  run();\n}\n",
			[]string{"code-stub-return@2:3"}, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := map[string]string{}
			if c.base != "" {
				base[c.file.OldPath] = c.base
			}
			r, got := placeholdersBase(t, map[string]string{c.file.NewPath: c.head}, base, c.file)
			if !slices.Equal(got, c.want) {
				t.Errorf("findings %v, want %v", got, c.want)
			}
			if r.Delta == nil || r.Delta.PreExisting != c.pre || r.Delta.Introduced != c.intro {
				t.Fatalf("delta %+v, want %d pre-existing and %d introduced", r.Delta, c.pre, c.intro)
			}
			for _, f := range r.Findings {
				if pre := f.Delta == DeltaPreExisting; pre != strings.HasPrefix(f.Message, PreExistingPrefix+"moved or re-added") || pre != (f.Severity == SeverityWarning) {
					t.Errorf("finding %+v", f)
				}
			}
			if c.intro == 0 && (r.Outcome != Passed || !strings.HasPrefix(r.Title, PreExistingPrefix)) {
				t.Errorf("only pre-existing findings: %s %q", r.Outcome, r.Title)
			}
		})
	}
}

// TestPlaceholderMovedRename: a rename's findings are matched against its
// old path at the merge base.
func TestPlaceholderMovedRename(t *testing.T) {
	head := "import os\nx = 1  # TODO: tune\n"
	f := changeset.File{Status: changeset.Renamed, OldPath: "old/a.py", NewPath: "new/a.py", Size: int64(len(head)),
		Added: []changeset.AddedLine{{Line: 1, Text: "import os"}, {Line: 2, Text: "x = 1  # TODO: tune"}}}
	r, got := placeholdersBase(t, map[string]string{"new/a.py": head}, map[string]string{"old/a.py": "x = 1  # TODO: tune\n"}, f)
	if !slices.Equal(got, []string{"comment-todo!@2:10"}) || !strings.Contains(r.Findings[0].Message, "the merge-base version of old/a.py") {
		t.Errorf("findings %v %+v", got, r.Findings)
	}
}

// TestPlaceholderMovedUnreadableBase: a file that existed at the merge base
// but cannot be read there is not compared: its findings are introduced,
// and the summary says so. A new file has nothing to compare.
func TestPlaceholderMovedUnreadableBase(t *testing.T) {
	head := map[string]string{"a.go": "x := 1\n// TODO: moved\n"}
	files := []changeset.File{modifiedAt("a.go", head["a.go"], 2), added("b.go", "// TODO: new")}
	r, got := placeholdersBase(t, head, map[string]string{}, files...)
	if !slices.Equal(got, []string{"comment-todo@2:4", "comment-todo@1:4"}) || r.Delta == nil || r.Delta.Introduced != 2 || r.Delta.BaseError != "" {
		t.Errorf("findings %v, delta %+v", got, r.Delta)
	}
	if s := "1 file could not be compared with the merge base, so all their findings count as introduced: `a.go` (it could not be read at the merge base)."; !strings.Contains(r.Summary, s) {
		t.Errorf("summary lacks %q:\n%s", s, r.Summary)
	}
}

// TestPlaceholderMovedCopy: a copy's lines are matched against its source,
// which still holds them at head unless the pull request removed them
// there: copied, the TODO is new; moved by the copy, it is not.
func TestPlaceholderMovedCopy(t *testing.T) {
	todo := "def a():\n    # TODO: remove this hack\n    return 1\n"
	copied := added("src/b.py", "def a():", "    # TODO: remove this hack", "    return 1")
	copied.Status, copied.OldPath = changeset.Copied, "src/a.py"
	base := map[string]string{"src/a.py": todo}
	_, got := placeholdersBase(t, map[string]string{"src/a.py": todo + "x = 2\n", "src/b.py": todo}, base, copied)
	if !slices.Equal(got, []string{"comment-todo@2:7"}) {
		t.Errorf("copied: findings %v", got)
	}
	_, got = placeholdersBase(t, map[string]string{"src/a.py": "x = 2\n", "src/b.py": todo}, base, copied)
	if !slices.Equal(got, []string{"comment-todo!@2:7"}) {
		t.Errorf("moved by the copy: findings %v", got)
	}
}
