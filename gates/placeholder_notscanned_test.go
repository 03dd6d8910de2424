package gates

import (
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// TestPlaceholdersNotScanned: a changed source file the scan cannot read
// never leaves a clean pass (a tester hid a TODO behind one NUL byte).
func TestPlaceholdersNotScanned(t *testing.T) {
	big := added("src/big.go", "// no markers")
	big.Size = 2 << 20
	tooLarge := changeset.File{Status: changeset.Added, NewPath: "src/huge.go", Size: 20 << 20, TooLarge: true}
	tooLargeText := changeset.File{Status: changeset.Modified, OldPath: "notes.txt", NewPath: "notes.txt", Size: 20 << 20, TooLarge: true}
	warn := DefaultConfig()
	warn.Limits.WarnUnscanned = true
	allow := DefaultConfig()
	allow.Placeholders.Allow = []string{"fixtures/**"}
	cases := []struct {
		name    string
		cfg     *Config
		files   []changeset.File
		outcome Outcome
		title   string
	}{
		{"a source file with a NUL byte", nil, []changeset.File{added("internal/a.ts", "// TODO: later", "\x00")},
			Failed, "1 changed source file could not be scanned (NUL bytes)"},
		{"a source file git diffs as binary", nil, []changeset.File{{Status: changeset.Added, NewPath: "internal/a.ts", Binary: true, Size: 90}},
			Failed, "1 changed source file could not be scanned (NUL bytes)"},
		{"NUL bytes beside a placeholder elsewhere: both count", nil, []changeset.File{added("internal/a.ts", "\x00"), added("b.go", "// TODO: x")},
			Failed, "1 placeholder on added lines, 1 file not scanned (NUL bytes)"},
		{"a symlink to prose beside two placeholders: each kind counted apart", nil, []changeset.File{added("b.go", "// TODO: x", "// FIXME: y"), link("impl.go", "notes.txt")},
			Failed, "2 placeholders on added lines, 1 file not scanned (a symlink to what is not scanned as code)"},
		{"only a source file over 1 MiB", nil, []changeset.File{big},
			Failed, "1 changed source file could not be scanned (over 1 MiB)"},
		{"a source file over 1 MiB beside one scanned: it still fails closed", nil, []changeset.File{big, added("b.go", "x := 1")},
			Failed, "1 changed source file could not be scanned (over 1 MiB)"},
		{"a source file over 1 MiB with limits.unscanned: warn: a warning", warn, []changeset.File{big, added("b.go", "x := 1")},
			Passed, "no placeholders in 1 added line (1 source file over 1 MiB not scanned)"},
		// Source the plugin's SAST list lacks is still scanned when small:
		// over 1 MiB it must not pass unseen.
		{"a Vue component over 1 MiB", nil, []changeset.File{sized(added("src/App.vue", "// TODO: x"), 2<<20)},
			Failed, "1 changed source file could not be scanned (over 1 MiB)"},
		{"a Lua file over 1 MiB", nil, []changeset.File{sized(added("src/init.lua", "-- TODO: x"), 2<<20)},
			Failed, "1 changed source file could not be scanned (over 1 MiB)"},
		{"a Vue component with a NUL byte", nil, []changeset.File{added("src/App.vue", "// TODO: later", "\x00")},
			Failed, "1 changed source file could not be scanned (NUL bytes)"},
		{"a JSON fixture over 1 MiB: data, skipped", nil, []changeset.File{sized(added("fixtures/big.json", `{"a": "TODO: x"}`), 2<<20)},
			Passed, "no placeholders in 0 added lines"},
		{"a file too large to scan", nil, []changeset.File{tooLarge},
			Failed, "1 changed source file could not be scanned (too large to scan)"},
		{"a text file too large to scan beside one scanned", nil, []changeset.File{tooLargeText, added("b.go", "x := 1")},
			Failed, "1 changed source file could not be scanned (too large to scan)"},
		{"a file too large to scan with limits.unscanned: warn: a warning", warn, []changeset.File{tooLarge, added("b.go", "x := 1")},
			Passed, "no placeholders in 1 added line (1 file too large to scan, not read)"},
		{"a file too large to scan the policy allows", allow, []changeset.File{{Status: changeset.Added, NewPath: "fixtures/huge.ts", Size: 20 << 20, TooLarge: true}},
			Passed, "no placeholders in 0 added lines"},
		{"an image: binary, skipped", nil, []changeset.File{{Status: changeset.Added, NewPath: "logo.png", Binary: true, Size: 90}},
			Passed, "no placeholders in 0 added lines"},
		{"a text file with a NUL byte: binary, skipped", nil, []changeset.File{added("notes.txt", "TODO\x00")},
			Passed, "no placeholders in 0 added lines"},
		{"a source file with NUL bytes the policy allows", allow, []changeset.File{added("fixtures/raw.ts", "\x00")},
			Passed, "no placeholders in 0 added lines"},
		{"a test file with NUL bytes", nil, []changeset.File{added("src/a.test.ts", "\x00")},
			Passed, "no placeholders in 0 added lines"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := placeholders(t, c.cfg, c.files...)
			if r.Outcome != c.outcome || r.Title != c.title {
				t.Fatalf("%s %q, want %s %q\n%s", r.Outcome, r.Title, c.outcome, c.title, findingsText(r))
			}
			if c.outcome == Passed && strings.Contains(c.name, "warning") && !strings.Contains(findingsText(r), "over 1 MiB, so it is not scanned") && !strings.Contains(findingsText(r), "too large to scan: 20971520 bytes") {
				t.Errorf("no warning for the file not scanned:\n%s", findingsText(r))
			}
		})
	}
}

// A file the pull request adds with a generated-code header of its own
// writing is skipped as generated (its content is all the evidence there
// is), but the title must say so: "no placeholders" alone reads as if its
// TODOs had been looked at (adversarial: a hand-written file that claims
// to be generated).
func TestPlaceholdersTitleNamesGeneratedSkips(t *testing.T) {
	r, _ := placeholders(t, nil, added("internal/a.go", "// Code generated by hand. DO NOT EDIT.", "package a", "// TODO: later"), added("b.go", "x := 1"))
	if r.Outcome != Passed || !strings.Contains(r.Title, "(1 file not scanned as generated, vendored or minified)") {
		t.Fatalf("%s %q: the title must count the file skipped as generated\n%s", r.Outcome, r.Title, findingsText(r))
	}
	// Also when another file fails the gate (new-user pass).
	r, _ = placeholders(t, nil, added("internal/a.go", "// Code generated by hand. DO NOT EDIT.", "package a", "// TODO: later"), added("b.go", "// TODO: now"))
	if r.Outcome != Failed || !strings.Contains(r.Title, "(1 file not scanned as generated, vendored or minified)") {
		t.Fatalf("%s %q: a failing title must count the file skipped as generated too", r.Outcome, r.Title)
	}
}

func sized(f changeset.File, n int64) changeset.File { f.Size = n; return f }
