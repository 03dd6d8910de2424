package gates

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// link is a symlink the pull request adds at p, pointing at target.
func link(p, target string) changeset.File {
	f := added(p, target)
	f.NewMode = 0o120000
	return f
}

// submodule is a gitlink the pull request adds at p.
func submodule(p string) changeset.File {
	f := added(p, "Subproject commit 0123456789abcdef0123456789abcdef01234567")
	f.NewMode = 0o160000
	return f
}

// TestSymlinkedCodeNotScanned: a symlink with a source file's name whose
// target is prose, data or a .swarm/ file is code a build compiles (go
// build follows cmd/export/impl.go -> ../../.swarm/impl.txt) that neither
// swarm/placeholders nor swarm/sast scanned as code: both fail closed. A
// tester hid `exec.Command("sh", "-c", ...)` and a TODO in .swarm/impl.txt
// (scope-exempt, scanned as prose) behind such a link, and every gate
// passed.
func TestSymlinkedCodeNotScanned(t *testing.T) {
	warn := DefaultConfig()
	warn.Limits.WarnUnscanned = true
	cases := []struct {
		name       string
		cfg        *Config
		files      []changeset.File
		ph, sast   Outcome
		phTitle    string
		sastSubstr string
	}{
		{"a .go link into .swarm/ prose", nil, []changeset.File{link("cmd/export/impl.go", "../../.swarm/impl.txt"), added("cmd/export/main.go", "package main")},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "could not be scanned: 1 symlink whose target is not scanned as code"},
		{"a .go link to a .txt beside it", nil, []changeset.File{link("cmd/export/impl.go", "impl.txt")},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "zero files were scanned"},
		{"a .js link to a .json", nil, []changeset.File{link("src/a.js", "../data/a.json")},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "zero files were scanned"},
		{"a .go link out of the repository", nil, []changeset.File{link("a.go", "../../etc/x.go")},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "zero files were scanned"},
		{"a .py link to a .go file", nil, []changeset.File{link("a.py", "b.go")},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "zero files were scanned"},
		{"limits.unscanned: warn: a warning", warn, []changeset.File{link("cmd/export/impl.go", "impl.txt"), added("b.go", "package b")},
			Passed, Passed, "no placeholders in 2 added lines (1 symlink or submodule not scanned)", "not scanned (1 symlink whose target is not scanned as code, limits.unscanned: warn)"},
		// A submodule the pull request adds or bumps: its commit's files
		// (any repository's) are built from a recursive clone, unread.
		{"a submodule added in scope", nil, []changeset.File{submodule("cmd/export/sub"), added("b.go", "package b")},
			Failed, Failed, "1 changed source file could not be scanned (a git submodule)", "could not be scanned: 1 git submodule"},
		{"a submodule with limits.unscanned: warn", warn, []changeset.File{submodule("cmd/export/sub"), added("b.go", "package b")},
			Passed, Passed, "no placeholders in 2 added lines (1 symlink or submodule not scanned)", "not scanned (1 git submodule, limits.unscanned: warn)"},
		// A link named as a build file or script, not as source: make,
		// docker or the shell runs its target's content, which the gates
		// judged by the target's name as prose, data or .swarm/ state.
		{"Makefile -> notes.txt", nil, []changeset.File{link("Makefile", "notes.txt")},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "zero files were scanned"},
		{"bin/run -> ../docs/run.md", nil, []changeset.File{link("bin/run", "../docs/run.md"), added("b.go", "package b")},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "could not be scanned: 1 symlink whose target is not scanned as code"},
		{"run.bat -> .swarm/ state", nil, []changeset.File{link("tools/run.bat", "../.swarm/context.md")},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "zero files were scanned"},
		{"Dockerfile -> a CSV", nil, []changeset.File{link("Dockerfile", "data/rows.csv")},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "zero files were scanned"},
		{"bin/run out of the repository", nil, []changeset.File{link("bin/run", "/usr/local/bin/x")},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "zero files were scanned"},
		{"a renamed Makefile link: its target is unknown", nil, []changeset.File{{Status: changeset.Renamed, OldPath: "x", NewPath: "Makefile", OldMode: 0o120000, NewMode: 0o120000}},
			Failed, Failed, "1 changed source file could not be scanned (a symlink to what is not scanned as code)", "zero files were scanned"},
		// ... but not one whose target is scanned as code or text on its
		// own, nor a document linked to anything (read, never run).
		{"bin/run -> ../scripts/run.sh", nil, []changeset.File{link("bin/run", "../scripts/run.sh")},
			Passed, NotApplicable, "no placeholders in 1 added line", ""},
		{"Makefile -> build/common.mk", nil, []changeset.File{link("Makefile", "build/common.mk")},
			Passed, NotApplicable, "no placeholders in 1 added line", ""},
		{"README -> docs/notes.txt", nil, []changeset.File{link("README", "docs/notes.txt")},
			Passed, NotApplicable, "no placeholders in 1 added line", ""},
		// Legitimate links stay clean: a doc linked to a doc, code to code
		// of its language (the target is scanned on its own).
		{"CLAUDE.md -> AGENTS.md", nil, []changeset.File{link("CLAUDE.md", "AGENTS.md")},
			Passed, NotApplicable, "no placeholders in 1 added line", ""},
		{"a.go -> b.go", nil, []changeset.File{link("cmd/a.go", "../pkg/b.go")},
			Passed, NotApplicable, "no placeholders in 1 added line", ""},
		{"a.ts -> b.tsx", nil, []changeset.File{link("src/a.ts", "b.tsx")},
			Passed, NotApplicable, "no placeholders in 1 added line", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := eval(Placeholders{}, &Input{Head: empty(), Config: c.cfg, Changes: &changeset.ChangeSet{Files: c.files}})
			if r.Outcome != c.ph || r.Title != c.phTitle {
				t.Errorf("placeholders: %s %q, want %s %q\n%s", r.Outcome, r.Title, c.ph, c.phTitle, findingsText(r))
			}
			head := map[string]string{}
			for _, f := range c.files {
				if f.NewMode == 0 {
					head[f.NewPath] = f.Added[0].Text
				}
			}
			s := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), SAST: sastScan(t, nil, head), Changes: &changeset.ChangeSet{Files: c.files}, Config: c.cfg})
			if s.Outcome != c.sast || !strings.Contains(s.Title, c.sastSubstr) {
				t.Errorf("sast: %s %q, want %s with %q\n%s", s.Outcome, s.Title, c.sast, c.sastSubstr, findingsText(s))
			}
		})
	}
}

// TestLFSPointerNotScanned: a source file committed as a Git LFS pointer
// holds three lines of pointer; the code a checkout with LFS builds is not
// in the repository, so neither gate read it: both fail closed, named.
func TestLFSPointerNotScanned(t *testing.T) {
	warn := DefaultConfig()
	warn.Limits.WarnUnscanned = true
	pointer := []string{"version https://git-lfs.github.com/spec/v1", "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393", "size 12345"}
	// A pointer the pull request points at another object: only its oid
	// and size lines are added.
	bumped := changeset.File{Status: changeset.Modified, OldPath: "src/impl.go", NewPath: "src/impl.go",
		Added: []changeset.AddedLine{{Line: 2, Text: pointer[1]}, {Line: 3, Text: "size 999"}}}
	// One renamed to a source name: no added lines (so too once the
	// streamed scan released them), its head content tells.
	renamed := changeset.File{Status: changeset.Renamed, OldPath: "src/model.bin", NewPath: "src/model.go", Size: 130}
	headFiles := map[string]string{"src/impl.go": strings.Join(pointer, "\n") + "\n", "src/model.go": strings.Join(pointer, "\n") + "\n"}
	cases := []struct {
		name       string
		cfg        *Config
		files      []changeset.File
		ph, sast   Outcome
		phTitle    string
		sastSubstr string
	}{
		{"an added .go file that is an LFS pointer", nil, []changeset.File{added("src/impl.go", pointer...), added("b.go", "package b")},
			Failed, Failed, "1 changed source file could not be scanned (Git LFS pointer: content not in the repository)", "could not be scanned: 1 Git LFS pointer (content not in the repository)"},
		{"a pointer pointed at another object", nil, []changeset.File{bumped, added("b.go", "package b")},
			Failed, Failed, "1 changed source file could not be scanned (Git LFS pointer: content not in the repository)", "could not be scanned: 1 Git LFS pointer"},
		{"a pointer renamed to a source name", nil, []changeset.File{renamed, added("b.go", "package b")},
			Failed, Failed, "1 changed source file could not be scanned (Git LFS pointer: content not in the repository)", "could not be scanned: 1 Git LFS pointer"},
		{"beside a placeholder: counted apart", nil, []changeset.File{added("src/impl.go", pointer...), added("b.go", "// TODO: x")},
			Failed, Failed, "1 placeholder on added lines, 1 file not scanned (Git LFS pointer: content not in the repository)", "could not be scanned: 1 Git LFS pointer"},
		{"limits.unscanned: warn: a warning", warn, []changeset.File{added("src/impl.go", pointer...), added("b.go", "package b")},
			Passed, Passed, "no placeholders in 4 added lines (1 Git LFS pointer not scanned)", "not scanned (1 Git LFS pointer (content not in the repository), limits.unscanned: warn)"},
		// Not a pointer: a Go file that mentions the spec further down.
		{"a .go file quoting the pointer format", nil, []changeset.File{added("src/lfs.go", "package lfs", "const v = `"+pointer[0]+"`")},
			Passed, NotApplicable, "no placeholders in 2 added lines", ""},
		// An image through LFS is data: nothing a build runs.
		{"a .png pointer", nil, []changeset.File{added("logo.png", pointer...)},
			Passed, NotApplicable, "no placeholders in 3 added lines", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hf := func(p string) ([]byte, bool) { s, ok := headFiles[p]; return []byte(s), ok }
			r := eval(Placeholders{}, &Input{Head: empty(), Config: c.cfg, HeadFile: hf, Changes: &changeset.ChangeSet{Files: c.files}})
			if r.Outcome != c.ph || r.Title != c.phTitle {
				t.Errorf("placeholders: %s %q, want %s %q\n%s", r.Outcome, r.Title, c.ph, c.phTitle, findingsText(r))
			}
			head := map[string]string{}
			for _, f := range c.files {
				var lines []string
				for _, l := range f.Added {
					lines = append(lines, l.Text)
				}
				head[f.NewPath] = strings.Join(lines, "\n") + "\n"
			}
			s := eval(SAST{}, &Input{Phase: 1, Head: load(fstest.MapFS{}), HeadFile: hf, SAST: sastScan(t, nil, head), Changes: &changeset.ChangeSet{Files: c.files}, Config: c.cfg})
			if c.sastSubstr != "" && (s.Outcome != c.sast || !strings.Contains(s.Title, c.sastSubstr)) {
				t.Errorf("sast: %s %q, want %s with %q\n%s", s.Outcome, s.Title, c.sast, c.sastSubstr, findingsText(s))
			}
			if c.sastSubstr == "" && c.sast == NotApplicable && s.Outcome == Failed {
				t.Errorf("sast: %s %q\n%s", s.Outcome, s.Title, findingsText(s))
			}
		})
	}
}
