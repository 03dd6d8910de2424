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
