//go:build benchprofile

// Command profile splits `swarm-gate check --gates swarm/placeholders` into
// its stages and times each one on a repository made by bench/gen, with
// optional CPU and heap profiles. It imports internal packages, so it is
// built only with -tags benchprofile (go vet ./... and go test ./... skip
// it; an internal API change cannot break the build through it):
//
//	go run -tags benchprofile ./bench/profile -repo /tmp/swarm-gate-bench/repo -cpuprofile /tmp/cpu.out
//	go tool pprof -top -cum /tmp/cpu.out
//
// Stages: (1) open the repository, resolve the refs, find the merge base
// (go-git); (2) the whole ChangeSet as the check computes it
// (internal/source); then the same ChangeSet again in two parts: (3) only
// running git diff with swarm-gate's options into memory, (4) only
// changeset.Parse of that text; and (5) the placeholder gate's scan
// (gates.Placeholders.Evaluate); (6) the secret scan of swarm/sast
// (internal/secrets, gitleaks' default rules) over the same added lines,
// rules loaded included.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/secrets"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/source"
)

func main() {
	repoDir := flag.String("repo", "", "repository made by bench/gen")
	base := flag.String("base", "main", "base ref")
	head := flag.String("head", "swarm/phase-1", "head ref")
	cpuOut := flag.String("cpuprofile", "", "write a CPU profile of stages 2 to 5 here")
	memOut := flag.String("memprofile", "", "write a heap profile (allocations) here, taken after stage 5")
	split := flag.Bool("split", true, "run stages 3 and 4; false profiles only what the check does (stages 2 and 5)")
	flag.Parse()
	if err := run(*repoDir, *base, *head, *cpuOut, *memOut, *split); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
}

func stage(name string, start time.Time) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Printf("%-44s %7.3f s   heap in use %5d MB   allocated so far %6d MB   sys %5d MB\n",
		name, time.Since(start).Seconds(), m.HeapInuse>>20, m.TotalAlloc>>20, m.Sys>>20)
}

func run(repoDir, baseRef, headRef, cpuOut, memOut string, split bool) error {
	ctx := context.Background()
	t := time.Now()
	repo, err := source.OpenGit(repoDir)
	if err != nil {
		return err
	}
	base, err := repo.ResolveCommit(baseRef)
	if err != nil {
		return err
	}
	head, err := repo.ResolveCommit(headRef)
	if err != nil {
		return err
	}
	mb, err := repo.MergeBase(base, head)
	if err != nil {
		return err
	}
	stage("1 open, resolve, merge base", t)

	if cpuOut != "" {
		f, err := os.Create(cpuOut)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	t = time.Now()
	repo.Engine = source.DiffEngineGit
	cs, err := repo.ChangeSet(ctx, mb, head)
	if err != nil {
		return err
	}
	stage(fmt.Sprintf("2 ChangeSet (%d files, %d added lines)", len(cs.Files), cs.AddedLineCount()), t)
	if split {
		if cs, err = splitStages(repoDir, mb.String(), head.String()); err != nil {
			return err
		}
	}

	t = time.Now()
	r := gates.Placeholders{}.Evaluate(ctx, &gates.Input{Changes: cs})
	stage(fmt.Sprintf("5 placeholder scan (%d findings)", len(r.Findings)), t)

	t = time.Now()
	sc, err := secrets.Default()
	if err != nil {
		return err
	}
	found := 0
	for i := range cs.Files {
		f := &cs.Files[i]
		lines := make([]secrets.Line, len(f.Added))
		for k, l := range f.Added {
			lines[k] = secrets.Line{N: l.Line, Text: l.Text}
		}
		fs, _, _ := sc.ScanLines(f.NewPath, lines)
		found += len(fs)
	}
	stage(fmt.Sprintf("6 secret scan (%d findings)", found), t)
	runtime.KeepAlive(cs)

	if memOut != "" {
		f, err := os.Create(memOut)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			return err
		}
	}
	return nil
}

// splitStages computes the ChangeSet again, first running git diff into
// memory (stage 3), then parsing it (stage 4).
func splitStages(repoDir, from, to string) (*changeset.ChangeSet, error) {
	runtime.GC()
	t := time.Now()
	cmd := exec.Command("git", "-C", repoDir, "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff",
		"--no-textconv", "--no-relative", "-M", "-C", "--full-index", "-U1", "--src-prefix=a/", "--dst-prefix=b/",
		"--diff-algorithm=myers", from, to, "--")
	var text bytes.Buffer
	cmd.Stdout = &text
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git diff: %w", err)
	}
	stage(fmt.Sprintf("3 git diff into memory (%d MB of text)", text.Len()>>20), t)

	t = time.Now()
	cs, err := changeset.Parse(bytes.NewReader(text.Bytes()))
	if err != nil {
		return nil, err
	}
	stage("4 changeset.Parse of that text", t)
	text = bytes.Buffer{}
	runtime.GC()
	stage("  after GC: the ChangeSet alone", time.Now())
	return cs, nil
}
