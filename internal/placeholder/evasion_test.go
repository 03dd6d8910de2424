package placeholder

import (
	"strings"
	"testing"
)

// scanOne scans content as the whole added file path.
func scanOne(path, content string) []Finding {
	sc := NewScanner(Options{})
	sc.File(path, false)
	sc.All(content)
	return append([]Finding(nil), sc.Findings()...)
}

// TestPlaceholderEvasions is issue 20 (weaknesses, item 4): an invisible
// character inside TODO or FIXME in a comment hid the marker, and Rust's
// `todo !()` (white space before the `!`, which rustc accepts) was not
// taken for todo!(). A marker split by string concatenation ("TO" + "DO")
// is not a comment and stays unflagged (see docs/gates.md).
func TestPlaceholderEvasions(t *testing.T) {
	for _, c := range []struct {
		name, path, content string
		rule                string // "" = no finding
		col                 int
		mention             string
	}{
		{"zero-width space in TODO", "a.go", "package a\n// TO\u200bDO: implement the cache\n", "placeholder/comment-todo", 4, "U+200B"},
		{"zero-width joiner in FIXME", "a.ts", "const x = 1 /* FIX\u200dME later */\n", "placeholder/comment-fixme", 16, "U+200D"},
		{"word joiner in TODO, Python", "a.py", "x = 1  # T\u2060ODO\n", "placeholder/comment-todo", 10, "U+2060"},
		{"soft hyphen in TODO", "a.rs", "// TO\u00adDO(me): later\n", "placeholder/comment-todo", 4, "U+00AD"},
		{"a zero-width space beside the word is not inside it", "a.go", "// see the\u200b docs\n", "", 0, ""},
		{"a plain todo in prose is still no marker", "a.go", "// to\u200bdo list rendering\n", "", 0, ""},
		{"todo !() in Rust", "a.rs", "fn f() -> u32 {\n    todo !()\n}\n", "placeholder/code-stub-body", 5, "todo"},
		{"todo ! with a tab and a message", "a.rs", "fn f() -> u32 {\n    todo\t!(\"later\")\n}\n", "placeholder/code-stub-body", 5, "todo"},
		{"todo != x is a comparison", "a.rs", "fn f(todo: u32) -> bool {\n    todo != 3\n}\n", "", 0, ""},
		{"a placeholder value split by a zero-width space", "a.ts", "const name = \"place\u200bholder\";\n", "placeholder/text-placeholder", 15, "U+200B"},
		{"not implemented split by a soft hyphen", "a.py", "msg = \"not imple\u00admented\"\n", "placeholder/text-placeholder", 8, "U+00AD"},
		{"a string with a zero-width space and no placeholder", "a.ts", "const s = \"a\u200bb\";\n", "", 0, ""},
		{"concatenated TO + DO is not a comment", "a.js", "const s = \"TO\" + \"DO\";\n", "", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.rule != "" && !slicesMayHit(c.content) {
				t.Errorf("MayHit rules out %q: the gate would skip the file", c.content)
			}
			fs := scanOne(c.path, c.content)
			if c.rule == "" {
				if len(fs) != 0 {
					t.Fatalf("unexpected findings %+v", fs)
				}
				return
			}
			for _, f := range fs {
				if f.Rule == c.rule {
					if f.Column != c.col || !strings.Contains(f.Message, c.mention) {
						t.Errorf("finding at column %d (want %d): %s (want it to mention %q)", f.Column, c.col, f.Message, c.mention)
					}
					return
				}
			}
			t.Fatalf("no %s finding: %+v", c.rule, fs)
		})
	}
}

// slicesMayHit reports whether MayHit takes any line of content.
func slicesMayHit(content string) bool {
	for _, l := range strings.Split(content, "\n") {
		if MayHit(l) {
			return true
		}
	}
	return false
}
