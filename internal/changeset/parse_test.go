package changeset

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

const (
	regular    = 0o100644
	executable = 0o100755
)

// TestParseEdgeCases checks the cases of ../shared/cases/edge-cases.md with
// expectations written out from the case text (the goldens are regenerated
// by -update; these are not).
func TestParseEdgeCases(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []File
	}{
		{
			name: "B01 blank line before the diff and a context line with its space stripped",
			file: "b01_blank_lines.diff",
			want: []File{
				{Status: Modified, OldPath: "app/handler.go", NewPath: "app/handler.go", OldMode: regular, NewMode: regular,
					Added: []AddedLine{{Line: 13, Text: "\t// TODO: wire the retry policy"}}},
				{Status: Modified, OldPath: "app/other.go", NewPath: "app/other.go", OldMode: regular, NewMode: regular,
					Added: []AddedLine{{Line: 2, Text: "// FIXME: second file"}}},
			},
		},
		{
			name: "B01 blank lines between file entries, also after entries without hunks",
			file: "b01_blank_lines_between.diff",
			want: b04Files,
		},
		{
			name: "B03 removed line starting with -- and added line starting with ++",
			file: "b03_dash_dash_plus_plus.diff",
			want: []File{
				{Status: Modified, OldPath: "db/migrate.sql", NewPath: "db/migrate.sql", OldMode: regular, NewMode: regular,
					Added: []AddedLine{{Line: 2, Text: "-- TODO: add index on orders.created_at"}}},
				{Status: Modified, OldPath: "src/loop.c", NewPath: "src/loop.c", OldMode: regular, NewMode: regular,
					Added: []AddedLine{{Line: 3, Text: "++i; /* XXX: bounds not checked */"}}},
			},
		},
		{
			name: "B04 binary, pure rename and mode change without hunks",
			file: "b04_hunkless_entries.diff",
			want: b04Files,
		},
		{
			name: "B05 quoted octal-escaped path and unquoted path with a space and a trailing TAB",
			file: "b05_quoted_and_spaced_paths.diff",
			want: []File{
				{Status: Modified, OldPath: "docs/café.md", NewPath: "docs/café.md", OldMode: regular, NewMode: regular,
					Added: []AddedLine{{Line: 2, Text: "TODO: prices"}}},
				{Status: Added, NewPath: "notes/meeting notes.txt", NewMode: regular,
					Added: []AddedLine{{Line: 1, Text: "FIXME agenda"}}},
			},
		},
		{
			name: "B07 no-newline markers are not lines",
			file: "b07_no_newline_markers.diff",
			want: []File{
				{Status: Modified, OldPath: "config/app.yaml", NewPath: "config/app.yaml", OldMode: regular, NewMode: regular,
					Added: []AddedLine{{Line: 2, Text: "debug: false"}, {Line: 3, Text: "# TODO: enable tracing"}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			cs, err := Parse(bytes.NewReader(in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			for i := range cs.Files {
				if cs.Files[i].Size != -1 {
					t.Errorf("%s: Size %d, want -1 (a diff does not give sizes)", cs.Files[i].Path(), cs.Files[i].Size)
				}
				cs.Files[i].Size = 0 // the table leaves sizes out
				if b := cs.Files[i].NewBlob; b != "" && !isHex(b) {
					t.Errorf("%s: NewBlob %q is not an object name", cs.Files[i].Path(), b)
				}
				cs.Files[i].NewBlob = "" // and blob names (TestParseNewBlob checks them)
			}
			if !reflect.DeepEqual(cs.Files, tt.want) {
				t.Errorf("Parse(%s):\n got %+v\nwant %+v", tt.file, cs.Files, tt.want)
			}
		})
	}
}

var b04Files = []File{
	{Status: Modified, OldPath: "assets/logo.png", NewPath: "assets/logo.png", OldMode: regular, NewMode: regular, Binary: true},
	{Status: Renamed, OldPath: "docs/old-name.md", NewPath: "docs/new-name.md", Similarity: 100},
	{Status: Modified, OldPath: "scripts/deploy.sh", NewPath: "scripts/deploy.sh", OldMode: regular, NewMode: executable},
	{Status: Modified, OldPath: "src/main.go", NewPath: "src/main.go", OldMode: regular, NewMode: regular,
		Added: []AddedLine{{Line: 2, Text: "// HACK: temporary"}}},
}

// TestEdgeCaseInputsPinned checks that the pinned testdata inputs are the
// exact bytes edge-cases.md gives, read in place from ../shared.
func TestEdgeCaseInputsPinned(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "cases", "edge-cases.md"))
	if err != nil {
		sharedtest.Skip(t, "../shared/cases/edge-cases.md not available (%v); the pinned copies in testdata are used as they are", err)
	}
	for id, file := range map[string]string{
		"B01": "b01_blank_lines.diff",
		"B03": "b03_dash_dash_plus_plus.diff",
		"B04": "b04_hunkless_entries.diff",
		"B05": "b05_quoted_and_spaced_paths.diff",
		"B07": "b07_no_newline_markers.diff",
	} {
		t.Run(id, func(t *testing.T) {
			want, err := edgeCaseInput(string(md), id)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("testdata/%s differs from the input of %s in edge-cases.md:\n got %q\nwant %q", file, id, got, want)
			}
		})
	}
}

// edgeCaseInput extracts the input of one case: a ```diff block, or the
// argument of a `printf '...'` in a ```sh block.
func edgeCaseInput(md, id string) (string, error) {
	start := strings.Index(md, "## "+id+" ")
	if start < 0 {
		return "", fmt.Errorf("case %s not found", id)
	}
	section := md[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	if m := regexp.MustCompile("(?s)```diff\n(.*?)```").FindStringSubmatch(section); m != nil {
		return m[1], nil
	}
	m := regexp.MustCompile("(?s)```sh\nprintf '(.*?)'\n```").FindStringSubmatch(section)
	if m == nil {
		return "", fmt.Errorf("case %s has no diff or printf input", id)
	}
	r := strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t")
	return r.Replace(m[1]), nil
}

// TestParseLineText checks the text of added lines: one "\r" is removed
// with the "\n", everything else is kept byte for byte.
func TestParseLineText(t *testing.T) {
	in := "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1,5 @@\n-old\n+crlf\r\n+two cr\r\r\n+inner\rcr\n+\n+\xff\xfe invalid\n"
	cs, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []AddedLine{{1, "crlf"}, {2, "two cr\r"}, {3, "inner\rcr"}, {4, ""}, {5, "\xff\xfe invalid"}}
	if got := cs.Files[0].Added; !reflect.DeepEqual(got, want) {
		t.Errorf("added lines:\n got %#v\nwant %#v", got, want)
	}
}

// TestParseErrors checks that malformed or truncated diffs fail with an error
// that says what is wrong and where, instead of a partial change set.
func TestParseErrors(t *testing.T) {
	const head = "diff --git a/x.go b/x.go\nindex 1111111..2222222 100644\n--- a/x.go\n+++ b/x.go\n"
	tests := []struct {
		name  string
		in    string
		wants []string // substrings of the error
	}{
		{"hunk body shorter than its header (truncated)", head + "@@ -1,3 +1,3 @@\n a\n-b\n",
			[]string{`"x.go"`, `"@@ -1,3 +1,3 @@"`, "3 old and 3 new lines", "2 and 1"}},
		{"hunk body longer than its header", head + "@@ -1 +1 @@\n-a\n+b\n+c\n",
			[]string{`"x.go"`, `"@@ -1 +1 @@"`, "more lines", `"+c"`}},
		{"a lone space after the hunk's counts (a fuzzing find: go-diff added it to the last line)", head + "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n \n",
			[]string{`"x.go"`, `"@@ -1 +1 @@"`, "more lines", `" "`}},
		{"two no-newline markers after a hunk (a fuzzing find: go-diff added the second to the last line)", head + "@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n\\ No newline at end of file\n",
			[]string{`"x.go"`, `"@@ -1 +1 @@"`, "more than one"}},
		{"diff cut after the --- line", "diff --git a/x.go b/x.go\nindex 1111111..2222222 100644\n--- a/x.go\n",
			[]string{`"x.go"`, `"---" line is not followed by a "+++" line`, "line 3"}},
		{"diff cut after the diff --git line", head + "@@ -1 +1 @@\n-a\n+b\ndiff --git a/y.go b/y.go\n",
			[]string{`"y.go"`, "truncated"}},
		{"text before the first file", "hello\n" + head + "@@ -1 +1 @@\n-a\n+b\n",
			[]string{`unexpected line "hello"`}},
		{"text after the last file", head + "@@ -1 +1 @@\n-a\n+b\ntrailing words\n",
			[]string{`line 8, after file "x.go"`, `"trailing words"`}},
		{"not a diff at all", "hello world\n",
			[]string{`"hello world"`}},
		{"unknown extended header", "diff --git a/x.go b/x.go\nfrobnicated 1\n",
			[]string{`unrecognized extended header line "frobnicated 1"`}},
		{"bad mode", "diff --git a/x.go b/x.go\nold mode 100644\nnew mode 10x755\n",
			[]string{`"new mode 10x755"`, "bad file mode"}},
		{"bad hunk header", head + "@@ -a +b @@\n-a\n+b\n",
			[]string{"hunk header"}},
		{"paths without a/ and b/ prefixes", "--- x.go\n+++ x.go\n@@ -1 +1 @@\n-a\n+b\n",
			[]string{`"x.go"`, `"a/" prefix`}},
		{"diff --git names two paths but no rename", "diff --git a/x.go b/y.go\nindex 1111111..2222222 100644\n--- a/x.go\n+++ b/y.go\n@@ -1 +1 @@\n-a\n+b\n",
			[]string{`"x.go" and "y.go"`, "not a rename"}},
		{"rename without its target", "diff --git a/x.go b/y.go\nsimilarity index 100%\nrename from x.go\n",
			[]string{"rename", "lacks one of its paths"}},
		{"hunk header out of range", head + "@@ -1 +0,1 @@\n-a\n+b\n",
			[]string{"bad line range"}},
		{"line with an unknown prefix inside the counts", head + "@@ -1,2 +1,2 @@\n a\n*b\n",
			[]string{`"@@ -1,2 +1,2 @@"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := Parse(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("Parse succeeded with %+v, want an error", cs)
			}
			if cs != nil {
				t.Errorf("Parse returned a change set with its error: %+v", cs)
			}
			for _, want := range tt.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestParseOneByteReads parses every testdata diff one byte per Read, which
// moves every buffer boundary across the header counting.
func TestParseOneByteReads(t *testing.T) {
	diffs, _ := filepath.Glob(filepath.Join("testdata", "*.diff"))
	for _, path := range diffs {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Parse(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, err := Parse(iotest.OneByteReader(bytes.NewReader(in)))
		if err != nil {
			t.Fatalf("%s one byte at a time: %v", path, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: one byte at a time gives %+v, want %+v", path, got, want)
		}
	}
}

// TestParseReadError checks that an I/O error is returned, not a short diff.
func TestParseReadError(t *testing.T) {
	in := strings.NewReader("diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
	_, err := Parse(iotest.TimeoutReader(iotest.HalfReader(in)))
	if err == nil || !strings.Contains(err.Error(), iotest.ErrTimeout.Error()) {
		t.Fatalf("Parse with a failing reader: err = %v, want one naming %q", err, iotest.ErrTimeout)
	}
}

func TestParseGitHeaderPaths(t *testing.T) {
	tests := []struct {
		args, old, new string
	}{
		{"a/x.go b/x.go", "x.go", "x.go"},
		{"a/old.go b/new.go", "old.go", "new.go"},
		{"a/meeting notes.txt b/meeting notes.txt", "meeting notes.txt", "meeting notes.txt"},
		{"a/x b/y b/x b/y", "x b/y", "x b/y"},
		{`"a/caf\303\251.md" "b/caf\303\251.md"`, "café.md", "café.md"},
		{`"a/tab\there" b/plain`, "tab\there", "plain"},
		{`a/plain "b/quote\"d"`, "plain", `quote"d`},
		{"a/old name.md b/new name.md", "", ""}, // ambiguous: comes from rename from/to
		{"x.go y.go", "", ""},
		{`"a/unterminated b/x`, "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		old, new := parseGitHeaderPaths(tt.args)
		if old != tt.old || new != tt.new {
			t.Errorf("parseGitHeaderPaths(%q) = %q, %q; want %q, %q", tt.args, old, new, tt.old, tt.new)
		}
	}
}

// TestParseOtherNoNewlineMarker checks that a "\" marker worded by another
// tool (GNU diff translates it) is not content either, even after the last
// line of the hunk.
func TestParseOtherNoNewlineMarker(t *testing.T) {
	in := "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-a\n\\ Kein Zeilenumbruch am Dateiende.\n+a\n+b\n\\ Kein Zeilenumbruch am Dateiende.\n"
	cs, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []AddedLine{{1, "a"}, {2, "b"}}
	if got := cs.Files[0].Added; !reflect.DeepEqual(got, want) {
		t.Errorf("added lines = %#v, want %#v", got, want)
	}
}

// TestParseNewBlob: the head blob's object name comes from the "index"
// line, for the size lookup; a deletion, a pure rename and an all-zero name
// have none.
func TestParseNewBlob(t *testing.T) {
	diff := "diff --git a/x.go b/x.go\nindex 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/gone.go b/gone.go\ndeleted file mode 100644\nindex 3333333..0000000\n--- a/gone.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n" +
		"diff --git a/old.md b/new.md\nsimilarity index 100%\nrename from old.md\nrename to new.md\n"
	cs, err := Parse(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range cs.Files {
		got[f.Path()] = f.NewBlob
	}
	want := map[string]string{"x.go": "2222222222222222222222222222222222222222", "gone.go": "", "new.md": ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("blobs %q, want %q", got, want)
	}
}

// TestParseOverlappingHunks: hunks that overlap (git never writes them)
// are an error, not added lines numbered twice (a fuzzing find).
func TestParseOverlappingHunks(t *testing.T) {
	in := "diff --git a/o b/o\n--- a/o\n+++ b/o\n@@ -2,3 +2,3 @@\n x\n-y\n+z\n x\n@@ -2,3 +2,3 @@\n x\n-y\n+z\n x\n"
	cs, err := Parse(strings.NewReader(in))
	if err == nil || cs != nil || !strings.Contains(err.Error(), `hunk @@ -2,3 +2,3 @@ overlaps or precedes the hunk before it`) {
		t.Fatalf("Parse = %v, %v", cs, err)
	}
}

// TestParseU0DashDashPlusPlus: real `git diff -U0` output where a removed
// line starting with "--" is directly followed by an added line starting
// with "++" and the next hunk's header. go-diff took the pair for a new
// file's header (Parse then failed); read by the hunk's counts, both are
// content.
func TestParseU0DashDashPlusPlus(t *testing.T) {
	in := "diff --git a/m.sql b/m.sql\nindex 2aff6bb..e26bff9 100644\n--- a/m.sql\n+++ b/m.sql\n" +
		"@@ -2 +2 @@ SELECT 1;\n--- old note\n+++counter; -- TODO\n@@ -4,2 +4,2 @@ SELECT 2;\n-SELECT 3;\n--- second note\n+SELECT 3 FIXED;\n++++ not a header\n"
	cs, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []AddedLine{{2, "++counter; -- TODO"}, {4, "SELECT 3 FIXED;"}, {5, "+++ not a header"}}
	if len(cs.Files) != 1 || !reflect.DeepEqual(cs.Files[0].Added, want) {
		t.Errorf("files %+v, want one with added lines %+v", cs.Files, want)
	}
}

// TestParseMatchesGoDiff parses every testdata diff with Parse and with
// go-diff's reader (the parser before ours): the change sets must be equal.
func TestParseMatchesGoDiff(t *testing.T) {
	diffs, _ := filepath.Glob(filepath.Join("testdata", "*.diff"))
	for _, path := range diffs {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want, err := parseGoDiff(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("%s with go-diff: %v", path, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Parse gives %+v, go-diff %+v", path, got, want)
		}
	}
}

// TestStream checks that Stream hands over the files in diff order, one
// call each, and stops at fn's error, returning it as is.
func TestStream(t *testing.T) {
	in := "diff --git a/z b/z\nindex 1..2 100644\n--- a/z\n+++ b/z\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/a b/a\nnew file mode 100644\nindex 0..3\n--- /dev/null\n+++ b/a\n@@ -0,0 +1,2 @@\n+x\n+y\n" +
		"diff --git a/m b/m\nold mode 100644\nnew mode 100755\n"
	var got []string
	if err := Stream(strings.NewReader(in), func(f *File) error {
		got = append(got, fmt.Sprintf("%s %s %d", f.Path(), f.Status, len(f.Added)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"z modified 1", "a added 2", "m modified 0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Stream gave %q, want %q", got, want)
	}
	stop := fmt.Errorf("stop")
	calls := 0
	err := Stream(strings.NewReader(in), func(*File) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("Stream = %v after %d calls, want fn's error after 1", err, calls)
	}
}

// TestParseLongLine: a line longer than the reader's buffer is read whole.
func TestParseLongLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	in := "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-a\n+" + long + "\r\n+b\n"
	cs, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if a := cs.Files[0].Added; len(a) != 2 || a[0].Text != long || a[1] != (AddedLine{2, "b"}) {
		t.Errorf("added lines: %d, first %d bytes", len(a), len(a[0].Text))
	}
}
