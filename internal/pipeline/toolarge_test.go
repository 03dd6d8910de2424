package pipeline

import (
	"bufio"
	"context"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// TestTooLargeToScan: a changed file over the policy's limits.max_file_bytes
// (lowered here to its 1 MiB minimum) is marked TooLarge by both diff
// engines, its content unread, and fails swarm/placeholders and swarm/sast
// closed with one swarm-gate/too-large-to-scan finding each; with
// limits.unscanned: warn the findings are warnings and swarm/sast passes.
func TestTooLargeToScan(t *testing.T) {
	const size = 1<<20 + 4096
	// huge.md too: the secret scan reads every changed text file, so a
	// text file too large to read is not scanned by swarm/sast either.
	for _, tc := range []struct{ policy, huge string }{
		{"limits:\n  max_file_bytes: 1048576\n", "huge.go"}, {"limits:\n  max_file_bytes: 1048576\n  unscanned: warn\n", "huge.go"},
		{"limits:\n  max_file_bytes: 1048576\n", "huge.md"}, {"limits:\n  max_file_bytes: 1048576\n  unscanned: warn\n", "huge.md"},
	} {
		policy, huge := tc.policy, tc.huge
		warn := strings.Contains(policy, "warn")
		base, head := demoTrees(t)
		base[".github/swarm-gate.yml"] = file(policy)
		head[".github/swarm-gate.yml"] = base[".github/swarm-gate.yml"]
		g := newHostileGit(t)
		// Text a scan would fail on, had it been read: a TODO and a shell
		// injection on every line.
		big := g.blobFrom(func(w *bufio.Writer) {
			w.WriteString("package main\n\nimport \"os/exec\"\n\n")
			line := "func f(s string) { exec.Command(\"sh\", \"-c\", s).Run() } // TODO: later\n"
			for n := 0; n < size; n += len(line) {
				w.WriteString(line)
			}
		})
		head[huge] = blobRef(modeFile, big)
		bc := g.commit("main", g.writeTree(base), "")
		g.commit("swarm/phase-1", g.writeTree(head), bc)
		for _, engine := range []string{"git", "go-git"} {
			var marked *changeset.File
			r, err := Check(context.Background(), Options{RepoDir: g.dir, Base: "main", Head: "swarm/phase-1", DiffEngine: engine,
				OnInput: func(in *gates.Input) {
					for i := range in.Changes.Files {
						if f := &in.Changes.Files[i]; f.NewPath == huge {
							c := *f
							marked = &c
						}
					}
				}})
			if err != nil {
				t.Fatalf("%s engine: %v", engine, err)
			}
			if marked == nil || !marked.TooLarge || marked.Size <= 1<<20 || len(marked.Added) != 0 || marked.Status != changeset.Added {
				t.Fatalf("%s engine: %s in the change set: %+v, want added, TooLarge, over 1 MiB, no lines", engine, huge, marked)
			}
			for _, name := range []string{"swarm/placeholders", "swarm/sast"} {
				var res *gates.Result
				for i := range r.Gates {
					if r.Gates[i].Name == name {
						res = &r.Gates[i]
					}
				}
				if res == nil {
					t.Fatalf("%s engine: no %s in the report", engine, name)
				}
				var too []gates.Finding
				for _, f := range res.Findings {
					if f.Path == huge {
						too = append(too, f)
					}
				}
				want := gates.SeverityError
				if warn {
					want = gates.SeverityWarning
				}
				if len(too) != 1 || too[0].Rule != gates.RuleTooLargeToScan || too[0].Severity != want || !strings.Contains(too[0].Message, "too large to scan: ") {
					t.Errorf("%s engine, warn %v: %s findings on %s %+v, want one %s %s", engine, warn, name, huge, too, want, gates.RuleTooLargeToScan)
				}
				if name == "swarm/sast" {
					wantOutcome := gates.Failed
					if warn {
						wantOutcome = gates.Passed
					}
					if res.Outcome != wantOutcome || !strings.Contains(res.Title, "too large to scan") {
						t.Errorf("%s engine, warn %v: swarm/sast %s %q, want %s naming the file too large to scan", engine, warn, res.Outcome, res.Title, wantOutcome)
					}
				}
			}
		}
	}
}
