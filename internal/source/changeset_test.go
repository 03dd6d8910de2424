package source

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

const (
	modeRegular    = 0o100644
	modeExecutable = 0o100755
	modeSymlink    = 0o120000
	modeSubmodule  = 0o160000
)

type added = changeset.AddedLine

// changeSetCases are the repositories both engines must read the same way:
// one base commit, one head commit, and the exact ChangeSet between them.
var changeSetCases = []struct {
	name       string
	base, head tree
	want       []changeset.File
}{
	{
		name: "paths with spaces and unicode",
		base: tree{"docs/café.md": {content: "# Menu\n"}, "notes/meeting notes.txt": {content: "agenda\n"}},
		head: tree{"docs/café.md": {content: "# Menu\nTODO: prices\n"}, "notes/meeting notes.txt": {content: "agenda\nFIXME: room\n"},
			"notes/ünïcode and space.md": {content: "new\n"}},
		want: []changeset.File{
			{Status: changeset.Modified, OldPath: "docs/café.md", NewPath: "docs/café.md", OldMode: modeRegular, NewMode: modeRegular,
				Added: []added{{Line: 2, Text: "TODO: prices"}}},
			{Status: changeset.Modified, OldPath: "notes/meeting notes.txt", NewPath: "notes/meeting notes.txt", OldMode: modeRegular, NewMode: modeRegular,
				Added: []added{{Line: 2, Text: "FIXME: room"}}},
			{Status: changeset.Added, NewPath: "notes/ünïcode and space.md", NewMode: modeRegular,
				Added: []added{{Line: 1, Text: "new"}}},
		},
	},
	{
		name: "file without final newline gains lines",
		base: tree{"config/app.yaml": {content: "name: app\ndebug: false"}},
		head: tree{"config/app.yaml": {content: "name: app\ndebug: false\n# TODO: enable tracing"}},
		want: []changeset.File{
			{Status: changeset.Modified, OldPath: "config/app.yaml", NewPath: "config/app.yaml", OldMode: modeRegular, NewMode: modeRegular,
				Added: []added{{Line: 2, Text: "debug: false"}, {Line: 3, Text: "# TODO: enable tracing"}}},
		},
	},
	{
		name: "CRLF file",
		base: tree{"win.txt": {content: "one\r\ntwo\r\nthree\r\n"}},
		head: tree{"win.txt": {content: "one\r\nTWO TODO\r\nthree\r\nfour\r\n"}},
		want: []changeset.File{
			{Status: changeset.Modified, OldPath: "win.txt", NewPath: "win.txt", OldMode: modeRegular, NewMode: modeRegular,
				Added: []added{{Line: 2, Text: "TWO TODO"}, {Line: 4, Text: "four"}}},
		},
	},
	{
		// The removed "-- ..." line is directly followed by the added "++..."
		// line and, further down, another change: the shape go-diff reads as a
		// file header when a hunk ends right after them.
		name: "added lines starting with ++ and deleted lines starting with --",
		base: tree{"db/migrate.sql": {content: "SELECT 1;\n-- old note\nSELECT 2;\nSELECT 3;\n-- second note\n"},
			"src/loop.c": {content: "int i = 0;\n}\n"}},
		head: tree{"db/migrate.sql": {content: "SELECT 1;\n++counter; -- TODO\nSELECT 2;\nSELECT 3 FIXED;\n+++ not a header\n"},
			"src/loop.c": {content: "int i = 0;\n++i; /* XXX */\n}\n"}},
		want: []changeset.File{
			{Status: changeset.Modified, OldPath: "db/migrate.sql", NewPath: "db/migrate.sql", OldMode: modeRegular, NewMode: modeRegular,
				Added: []added{{Line: 2, Text: "++counter; -- TODO"}, {Line: 4, Text: "SELECT 3 FIXED;"}, {Line: 5, Text: "+++ not a header"}}},
			{Status: changeset.Modified, OldPath: "src/loop.c", NewPath: "src/loop.c", OldMode: modeRegular, NewMode: modeRegular,
				Added: []added{{Line: 2, Text: "++i; /* XXX */"}}},
		},
	},
	{
		name: "binary files",
		base: tree{"assets/logo.png": {content: "\x89PNG\r\n\x1a\n\x00\x00"}, "assets/gone.bin": {content: "\x00\x01"}},
		head: tree{"assets/logo.png": {content: "\x89PNG\r\n\x1a\n\x00\x01"}, "assets/new.bin": {content: "TODO\x00"}},
		want: []changeset.File{
			{Status: changeset.Deleted, OldPath: "assets/gone.bin", OldMode: modeRegular, Binary: true},
			{Status: changeset.Modified, OldPath: "assets/logo.png", NewPath: "assets/logo.png", OldMode: modeRegular, NewMode: modeRegular, Binary: true},
			{Status: changeset.Added, NewPath: "assets/new.bin", NewMode: modeRegular, Binary: true},
		},
	},
	{
		name: "mode-only change",
		base: tree{"scripts/deploy.sh": {content: "#!/bin/sh\necho deploy\n"}},
		head: tree{"scripts/deploy.sh": {content: "#!/bin/sh\necho deploy\n", exec: true}},
		want: []changeset.File{
			{Status: changeset.Modified, OldPath: "scripts/deploy.sh", NewPath: "scripts/deploy.sh", OldMode: modeRegular, NewMode: modeExecutable},
		},
	},
	{
		name: "renames, pure and with edits",
		base: tree{"docs/old-name.md": {content: "same text\n"}, "src/old.go": {content: "package src\n\nfunc A() {}\nfunc B() {}\nfunc C() {}\n"}},
		head: tree{"docs/new-name.md": {content: "same text\n"}, "src/new.go": {content: "package src\n\nfunc A() {}\nfunc B() {} // HACK\nfunc C() {}\n"}},
		want: []changeset.File{
			{Status: changeset.Renamed, OldPath: "docs/old-name.md", NewPath: "docs/new-name.md", OldMode: modeRegular, NewMode: modeRegular, Similarity: 100},
			{Status: changeset.Renamed, OldPath: "src/old.go", NewPath: "src/new.go", OldMode: modeRegular, NewMode: modeRegular, Similarity: 64,
				Added: []added{{Line: 4, Text: "func B() {} // HACK"}}},
		},
	},
	{
		name: "empty file renamed",
		base: tree{"a/empty": {content: ""}},
		head: tree{"b/empty": {content: ""}},
		want: []changeset.File{
			{Status: changeset.Renamed, OldPath: "a/empty", NewPath: "b/empty", OldMode: modeRegular, NewMode: modeRegular, Similarity: 100},
		},
	},
	{
		name: "rename that also makes the file executable",
		base: tree{"run.sh": {content: "#!/bin/sh\necho hi\n"}},
		head: tree{"bin/run": {content: "#!/bin/sh\necho hi\n", exec: true}},
		want: []changeset.File{
			{Status: changeset.Renamed, OldPath: "run.sh", NewPath: "bin/run", OldMode: modeRegular, NewMode: modeExecutable, Similarity: 100},
		},
	},
	{
		name: "copy of a file changed in the same diff",
		base: tree{"src/a.go": {content: "package src\n\nfunc A() {}\n"}},
		head: tree{"src/a.go": {content: "package src\n\nfunc A() { /* TODO */ }\n"}, "src/a_copy.go": {content: "package src\n\nfunc A() {}\n"}},
		want: []changeset.File{
			{Status: changeset.Modified, OldPath: "src/a.go", NewPath: "src/a.go", OldMode: modeRegular, NewMode: modeRegular,
				Added: []added{{Line: 3, Text: "func A() { /* TODO */ }"}}},
			// A copy's lines all count as added (expandCopies).
			{Status: changeset.Copied, OldPath: "src/a.go", NewPath: "src/a_copy.go", OldMode: modeRegular, NewMode: modeRegular, Similarity: 100,
				Added: []added{{Line: 1, Text: "package src"}, {Line: 2, Text: ""}, {Line: 3, Text: "func A() {}"}}},
		},
	},
	{
		// `git diff -C` only looks for copy sources among changed files.
		name: "copy of an unchanged file is an addition",
		base: tree{"src/b.go": {content: "package src\n// TODO: b\n"}},
		head: tree{"src/b.go": {content: "package src\n// TODO: b\n"}, "src/b_copy.go": {content: "package src\n// TODO: b\n"}},
		want: []changeset.File{
			{Status: changeset.Added, NewPath: "src/b_copy.go", NewMode: modeRegular,
				Added: []added{{Line: 1, Text: "package src"}, {Line: 2, Text: "// TODO: b"}}},
		},
	},
	{
		name: "delete and empty new file",
		base: tree{"old/gone.txt": {content: "bye\n"}, "keep.txt": {content: "k\n"}},
		head: tree{"keep.txt": {content: "k\n"}, "new/empty.txt": {content: ""}},
		want: []changeset.File{
			{Status: changeset.Added, NewPath: "new/empty.txt", NewMode: modeRegular},
			{Status: changeset.Deleted, OldPath: "old/gone.txt", OldMode: modeRegular},
		},
	},
	{
		name: "symlinks: added, retargeted, and a file replaced by one",
		base: tree{"target.txt": {content: "t\n"}, "moving": {link: "target.txt"}, "was-file": {content: "plain\n"}},
		head: tree{"target.txt": {content: "t\n"}, "moving": {link: "elsewhere.txt"}, "was-file": {link: "target.txt"}, "link": {link: "../outside"}},
		want: []changeset.File{
			{Status: changeset.Added, NewPath: "link", NewMode: modeSymlink, Added: []added{{Line: 1, Text: "../outside"}}},
			{Status: changeset.Modified, OldPath: "moving", NewPath: "moving", OldMode: modeSymlink, NewMode: modeSymlink,
				Added: []added{{Line: 1, Text: "elsewhere.txt"}}},
			{Status: changeset.Deleted, OldPath: "was-file", OldMode: modeRegular},
			{Status: changeset.Added, NewPath: "was-file", NewMode: modeSymlink, Added: []added{{Line: 1, Text: "target.txt"}}},
		},
	},
	{
		name: "submodules: added and moved to another commit",
		base: tree{"a.txt": {content: "a\n"}, "vendor/lib": {gitlink: strings.Repeat("1", 40)}},
		head: tree{"a.txt": {content: "a\n"}, "vendor/lib": {gitlink: strings.Repeat("2", 40)}, "vendor/new": {gitlink: strings.Repeat("3", 40)}},
		want: []changeset.File{
			{Status: changeset.Modified, OldPath: "vendor/lib", NewPath: "vendor/lib", OldMode: modeSubmodule, NewMode: modeSubmodule,
				Added: []added{{Line: 1, Text: "Subproject commit " + strings.Repeat("2", 40)}}},
			{Status: changeset.Added, NewPath: "vendor/new", NewMode: modeSubmodule,
				Added: []added{{Line: 1, Text: "Subproject commit " + strings.Repeat("3", 40)}}},
		},
	},
}

// TestChangeSetEngines checks the exact ChangeSet of each case with both
// engines, which therefore agree.
func TestChangeSetEngines(t *testing.T) {
	for _, tt := range changeSetCases {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRepo(t)
			base := r.commit(tt.base, "base")
			head := r.commit(tt.head, "head")
			for _, engine := range []DiffEngine{DiffEngineGoGit, DiffEngineGit} {
				t.Run(string(engine), func(t *testing.T) {
					if engine == DiffEngineGit {
						needGit(t)
					}
					g := r.open()
					g.Engine = engine
					cs, err := g.ChangeSet(context.Background(), base, head)
					if err != nil {
						t.Fatalf("ChangeSet: %v", err)
					}
					if got := checkSizes(t, cs.Files, tt.head); !reflect.DeepEqual(got, tt.want) {
						t.Errorf("ChangeSet with %s:\n got %s\nwant %s", engine, dump(got), dump(tt.want))
					}
				})
			}
		})
	}
}

// dump shows files one per line, modes in octal.
func dump(files []changeset.File) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "\n  %s %q -> %q modes %o -> %o binary=%v similarity=%d size=%d added=%+v",
			f.Status, f.OldPath, f.NewPath, f.OldMode, f.NewMode, f.Binary, f.Similarity, f.Size, f.Added)
	}
	return b.String()
}

// checkSizes checks each file's Size against the head tree (the content's
// length for a file, the target's for a symlink, -1 without a head blob:
// deleted files and submodules) and returns copies with Size cleared, for
// comparing with tables that leave sizes out.
func checkSizes(t *testing.T, files []changeset.File, head tree) []changeset.File {
	t.Helper()
	out := make([]changeset.File, len(files))
	for i, f := range files {
		want := int64(-1)
		if hf, ok := head[f.NewPath]; ok && f.NewPath != "" && hf.gitlink == "" {
			want = int64(len(hf.content))
			if hf.link != "" {
				want = int64(len(hf.link))
			}
		}
		if f.Size != want {
			t.Errorf("%s %q: Size %d, want %d", f.Status, f.Path(), f.Size, want)
		}
		f.Size = 0
		out[i] = f
	}
	return out
}

// withoutSizes returns copies of files with Size cleared.
func withoutSizes(files []changeset.File) []changeset.File {
	out := make([]changeset.File, len(files))
	for i, f := range files {
		f.Size = 0
		out[i] = f
	}
	return out
}

// TestChangeSetAttributesInHeadCheckout checks that a .gitattributes in the
// checked-out head (the pull request's own files) cannot make the git engine
// report a text file as binary and so hide its added lines.
func TestChangeSetAttributesInHeadCheckout(t *testing.T) {
	needGit(t)
	r := newTestRepo(t)
	base := r.commit(tree{"main.go": {content: "package main\n"}}, "base")
	head := r.commit(tree{"main.go": {content: "package main\n// TODO: hidden?\n"}, ".gitattributes": {content: "*.go -diff\n"}}, "head")
	want := []changeset.File{
		{Status: changeset.Added, NewPath: ".gitattributes", NewMode: modeRegular, Added: []added{{Line: 1, Text: "*.go -diff"}}},
		{Status: changeset.Modified, OldPath: "main.go", NewPath: "main.go", OldMode: modeRegular, NewMode: modeRegular,
			Added: []added{{Line: 2, Text: "// TODO: hidden?"}}},
	}
	g := r.open()
	g.Engine = DiffEngineGit
	cs, err := g.ChangeSet(context.Background(), base, head)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutSizes(cs.Files), want) {
		t.Errorf("ChangeSet:\n got %s\nwant %s", dump(cs.Files), dump(want))
	}
}

// TestChangeSetIgnoresLocalAttributes checks that attributes and config
// that live outside the commits (.git/info/attributes, core.attributesFile,
// a diff driver in .git/config) cannot make the git engine hide added
// lines: both engines must report the same lines.
func TestChangeSetIgnoresLocalAttributes(t *testing.T) {
	needGit(t)
	r := newTestRepo(t)
	base := r.commit(tree{"main.py": {content: "x = 1\n"}}, "base")
	head := r.commit(tree{"main.py": {content: "x = 1\n# TODO: hidden?\n"}}, "head")
	gitDir := filepath.Join(r.dir, ".git")
	if err := os.MkdirAll(filepath.Join(gitDir, "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gitDir, "info", "attributes"), []byte("* binary\n*.py -diff\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	attrs := filepath.Join(t.TempDir(), "attrs")
	if err := os.WriteFile(attrs, []byte("*.py diff=hide\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.OpenFile(filepath.Join(gitDir, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(cfg, "[core]\n\tattributesFile = %s\n[diff \"hide\"]\n\tbinary = true\n", attrs)
	cfg.Close()
	want := []changeset.File{{Status: changeset.Modified, OldPath: "main.py", NewPath: "main.py", OldMode: modeRegular, NewMode: modeRegular,
		Added: []added{{Line: 2, Text: "# TODO: hidden?"}}}}
	for _, engine := range []DiffEngine{DiffEngineGit, DiffEngineGoGit} {
		g := r.open()
		g.Engine = engine
		cs, err := g.ChangeSet(context.Background(), base, head)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(withoutSizes(cs.Files), want) {
			t.Errorf("%s: ChangeSet:\n got %s\nwant %s", engine, dump(cs.Files), dump(want))
		}
	}
}

// TestChangeSetAutoFallsBack checks that the auto engine uses go-git, and
// says so at Info, when the git CLI fails (here a fake git that fails like
// git does on a repository owned by another user).
func TestChangeSetAutoFallsBack(t *testing.T) {
	r := newTestRepo(t)
	base := r.commit(tree{"a.txt": {content: "a\n"}}, "base")
	head := r.commit(tree{"a.txt": {content: "a\nb\n"}}, "head")

	bin := t.TempDir()
	fake := "#!/bin/sh\necho \"fatal: detected dubious ownership in repository at '$PWD'\" >&2\nexit 128\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)

	want := []changeset.File{{Status: changeset.Modified, OldPath: "a.txt", NewPath: "a.txt", OldMode: modeRegular, NewMode: modeRegular,
		Added: []added{{Line: 2, Text: "b"}}}}
	tests := []struct {
		engine    DiffEngine
		wantErr   string // "" for success
		wantLog   bool
		wantFiles []changeset.File
	}{
		{engine: DiffEngineAuto, wantLog: true, wantFiles: want},
		{engine: "", wantLog: true, wantFiles: want},
		{engine: DiffEngineGit, wantErr: "dubious ownership"},
		{engine: DiffEngineGoGit, wantFiles: want},
		{engine: "svn", wantErr: `unknown diff engine "svn"`},
	}
	for _, tt := range tests {
		t.Run(string(tt.engine), func(t *testing.T) {
			var logs bytes.Buffer
			g := r.open()
			g.Engine = tt.engine
			g.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			cs, err := g.ChangeSet(context.Background(), base, head)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(withoutSizes(cs.Files), tt.wantFiles) {
				t.Errorf("ChangeSet:\n got %s\nwant %s", dump(cs.Files), dump(tt.wantFiles))
			}
			logged := strings.Contains(logs.String(), "level=INFO") && strings.Contains(logs.String(), "dubious ownership")
			if logged != tt.wantLog {
				t.Errorf("fallback logged = %v, want %v; logs: %s", logged, tt.wantLog, logs.String())
			}
		})
	}
}

// TestChangeSetRelativeDir checks the git engine on a repository opened by
// a relative path (git runs in another directory).
func TestChangeSetRelativeDir(t *testing.T) {
	needGit(t)
	r := newTestRepo(t)
	base := r.commit(tree{"a.txt": {content: "a\n"}}, "base")
	head := r.commit(tree{"a.txt": {content: "a\nb\n"}}, "head")
	t.Chdir(filepath.Dir(r.dir))
	g, err := OpenGit(filepath.Base(r.dir))
	if err != nil {
		t.Fatal(err)
	}
	g.Engine = DiffEngineGit
	cs, err := g.ChangeSet(context.Background(), base, head)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Files) != 1 || !reflect.DeepEqual(cs.Files[0].Added, []added{{Line: 2, Text: "b"}}) {
		t.Errorf("ChangeSet = %s", dump(cs.Files))
	}
}

// TestChangeSetGitNotOnPath checks the engines when PATH has no git.
func TestChangeSetGitNotOnPath(t *testing.T) {
	r := newTestRepo(t)
	base := r.commit(tree{"a.txt": {content: "a\n"}}, "base")
	head := r.commit(tree{"a.txt": {content: "a\nb\n"}}, "head")
	t.Setenv("PATH", t.TempDir())

	g := r.open()
	g.Engine = DiffEngineGit
	if _, err := g.ChangeSet(context.Background(), base, head); err == nil || !strings.Contains(err.Error(), "go-git engine") {
		t.Errorf("git engine without git: err = %v, want one suggesting the go-git engine", err)
	}
	g.Engine = DiffEngineAuto
	cs, err := g.ChangeSet(context.Background(), base, head)
	if err != nil {
		t.Fatalf("auto engine without git: %v", err)
	}
	if len(cs.Files) != 1 || len(cs.Files[0].Added) != 1 {
		t.Errorf("auto engine without git: got %s", dump(cs.Files))
	}
}

// TestChangeSetCanceled checks that a canceled context stops both engines
// and that the auto engine does not fall back on it.
func TestChangeSetCanceled(t *testing.T) {
	r := newTestRepo(t)
	base := r.commit(tree{"a.txt": {content: "a\n"}}, "base")
	head := r.commit(tree{"a.txt": {content: "a\nb\n"}}, "head")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, engine := range []DiffEngine{DiffEngineGoGit, DiffEngineGit, DiffEngineAuto} {
		g := r.open()
		g.Engine = engine
		var logs bytes.Buffer
		g.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		cs, err := g.ChangeSet(ctx, base, head)
		if err == nil {
			t.Errorf("%s: ChangeSet with a canceled context = %s, want an error", engine, dump(cs.Files))
		}
		if logs.Len() > 0 {
			t.Errorf("%s: logged %q; a canceled diff is not a reason to fall back", engine, logs.String())
		}
	}
}

// TestChangeSetUnknownCommit checks the error for a commit not in the
// repository.
func TestChangeSetUnknownCommit(t *testing.T) {
	r := newTestRepo(t)
	base := r.commit(tree{"a.txt": {content: "a\n"}}, "base")
	missing := base
	missing[0] ^= 0xff
	for _, engine := range []DiffEngine{DiffEngineGoGit, DiffEngineGit} {
		g := r.open()
		g.Engine = engine
		_, err := g.ChangeSet(context.Background(), base, missing)
		if err == nil || !strings.Contains(err.Error(), "reading commit "+short(missing)) {
			t.Errorf("%s: err = %v, want one naming commit %s", engine, err, short(missing))
		}
	}
}

// TestAddedLinesLimits: the go-git line diff refuses inputs that would make
// diffmatchpatch panic or run for minutes (the git engine has no limit), and
// a new file needs no diff at all.
func TestAddedLinesLimits(t *testing.T) {
	big := strings.Repeat("x\n", maxDiffLines)
	if _, err := addedLines("a\n", big+"y\n"); err == nil || !strings.Contains(err.Error(), "install git") {
		t.Errorf("oversized diff: err = %v", err)
	}
	lines, err := addedLines("", big)
	if err != nil || len(lines) != maxDiffLines || lines[maxDiffLines-1].Line != maxDiffLines {
		t.Errorf("new file: %d lines, err %v", len(lines), err)
	}
	if got := AllLines("a\r\nb\nc"); len(got) != 3 || got[0].Text != "a" || got[2].Text != "c" {
		t.Errorf("AllLines = %+v", got)
	}
}
