package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// TestCheckReleasesAddedLines: with the git engine the change set the gates
// get holds no added text of a streamed file, only its count
// (changeset.File.Released): the streaming readers (the placeholder
// Prescan, the secret scan) were its last readers. The verdicts are the
// go-git engine's, whose change set keeps every line; a copy, whose lines
// the source sets again after the diff, keeps them.
func TestCheckReleasesAddedLines(t *testing.T) {
	r := newRepo(t)
	plan := strings.Replace(miniPlan, `"files_touched":["b/"]`, `"files_touched":["b/","src/"]`, 1)
	var long strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&long, "func f%d() int { return %d }\n", i, i)
	}
	r.commit("", map[string]string{".swarm/plan.json": plan, "src/old.go": "package src\n\nfunc Old() {}\n"})
	key := "AKIA" + "QYLPMN5H" + "FIQR7XYA" // assembled: no credential in the source
	r.commit("swarm/phase-2", map[string]string{
		"src/a.go":    "package src\n\n// TODO: write it\nfunc A() {}\n",
		"src/keys.go": "package src\n\nconst awsKey = \"" + key + "\"\n",
		"src/long.go": "package src\n\n" + long.String(),
		"src/old.go":  "package src\n\nfunc Old() {}\n\n// FIXME: and this\nfunc New() {}\n",
	})
	reports := map[string][]byte{}
	for _, engine := range []string{"git", "go-git"} {
		var files []changeset.File
		rep, err := Check(context.Background(), Options{RepoDir: r.dir, Base: "main", Head: "swarm/phase-2", DiffEngine: engine,
			OnInput: func(in *gates.Input) { files = in.Changes.Files }})
		if err != nil {
			t.Fatalf("%s: %v", engine, err)
		}
		want := map[string]int{"src/a.go": 4, "src/keys.go": 3, "src/long.go": 3002, "src/old.go": 3}
		for _, f := range files {
			n, ok := want[f.NewPath]
			if !ok {
				continue
			}
			delete(want, f.NewPath)
			switch {
			case f.AddedCount() != n:
				t.Errorf("%s: %s has %d added lines, want %d", engine, f.NewPath, f.AddedCount(), n)
			case engine == "git" && (f.Added != nil || f.Released != n):
				t.Errorf("%s: %s keeps %d added lines in the change set (released %d), want all %d released", engine, f.NewPath, len(f.Added), f.Released, n)
			case engine == "go-git" && f.Released != 0:
				t.Errorf("%s: %s released %d lines; the go-git engine does not stream", engine, f.NewPath, f.Released)
			}
		}
		if len(want) > 0 {
			t.Errorf("%s: not in the change set: %v", engine, want)
		}
		for _, g := range rep.Gates {
			switch g.Name {
			case "swarm/placeholders":
				if len(g.Findings) != 2 || !strings.Contains(g.Summary, "Scanned 3,012 added lines") && !strings.Contains(g.Summary, "Scanned 3012 added lines") {
					t.Errorf("%s: placeholders %s, %d findings: %s", engine, g.Outcome, len(g.Findings), g.Summary)
				}
			case "swarm/sast":
				if !strings.Contains(fmt.Sprint(g.Findings), "src/keys.go") {
					t.Errorf("%s: sast found no secret in src/keys.go: %s %+v", engine, g.Outcome, g.Findings)
				}
			}
		}
		data, err := json.Marshal(rep.Gates)
		if err != nil {
			t.Fatal(err)
		}
		reports[engine] = data
	}
	if string(reports["git"]) != string(reports["go-git"]) {
		t.Errorf("the gates' results differ between the streaming git engine and go-git:\ngit:    %s\ngo-git: %s", reports["git"], reports["go-git"])
	}
}

// TestAddedHold: the streaming readers hold at most the budget of added
// text, or one file when it alone is larger; a file is released when the
// last of its readers is done with it, and the diff's reader waits until
// then.
func TestAddedHold(t *testing.T) {
	file := func(n int) *changeset.File {
		return &changeset.File{NewPath: "f", Added: []changeset.AddedLine{{Line: 1, Text: strings.Repeat("x", n)}}}
	}
	a, b, big := file(100), file(100), file(1000)
	w := addedWeight(a)
	h := newAddedHold(w + w/2) // room for one of a and b, not both
	h.take(a, 2)
	taken := make(chan struct{})
	go func() {
		h.take(b, 2)
		close(taken)
	}()
	wait := func(what string, want bool) {
		t.Helper()
		select {
		case <-taken:
			if !want {
				t.Fatalf("%s: b was let through", what)
			}
		case <-time.After(50 * time.Millisecond):
			if want {
				t.Fatalf("%s: b is still waiting", what)
			}
		}
	}
	wait("a held by two readers", false)
	h.done(a)
	wait("a held by one reader", false)
	h.done(a)
	wait("a released", true)
	h.done(b)
	h.done(b)
	if h.held != 0 || len(h.files) != 0 {
		t.Errorf("after every reader is done: %d bytes held, %d files", h.held, len(h.files))
	}
	h.take(big, 1) // over the budget alone: let through, nothing else held
	if h.held != addedWeight(big) {
		t.Errorf("a file over the budget: %d held, want %d", h.held, addedWeight(big))
	}
	h.done(big)
	h.done(big) // more than its readers: ignored
	if h.held != 0 || h.peak != addedWeight(big) {
		t.Errorf("held %d, peak %d; want 0 and %d", h.held, h.peak, addedWeight(big))
	}
}
