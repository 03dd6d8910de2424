package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
)

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("demo", args, stdout, stderr)
	var cf checkFlags
	cf.register(fs)
	keep := fs.Bool("keep", false, "keep the demo repository and print its path, to run swarm-gate check on it yourself")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if err := cf.validate(); err != nil {
		fmt.Fprintf(stderr, "swarm-gate demo: %v\n", err)
		return exitUsage
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "swarm-gate demo: unexpected argument %q\n", pos[0])
		return exitUsage
	}
	dir, err := os.MkdirTemp("", "swarm-gate-demo-")
	if err != nil {
		fmt.Fprintf(stderr, "swarm-gate demo: %v\n", err)
		return exitError
	}
	if !*keep {
		defer os.RemoveAll(dir)
	}
	if _, _, err := demo.Build(dir); err != nil {
		fmt.Fprintf(stderr, "swarm-gate demo: %v\n", err)
		return exitError
	}
	if cf.format == "text" {
		fmt.Fprintf(stdout, "Demo: a throwaway repository whose branch %s carries phase 1 of a critic-approved plan.\n", demo.HeadBranch)
		fmt.Fprintf(stdout, "It changes code in and out of scope, adds a TODO, and completes task 1.2 without evidence.\n")
		fmt.Fprintf(stdout, "Running: swarm-gate check --repo %s --base %s --head %s\n\n", shownDir(dir, *keep), demo.BaseBranch, demo.HeadBranch)
	}
	r, err := pipeline.Check(ctx, pipeline.Options{RepoDir: dir, Base: demo.BaseBranch, Head: demo.HeadBranch})
	if err != nil {
		return fail(stdout, stderr, "swarm-gate demo", err, cf)
	}
	if err := write(stdout, r, cf); err != nil {
		fmt.Fprintf(stderr, "swarm-gate demo: %v\n", err)
		return exitError
	}
	printCauses(stderr, "swarm-gate demo", r)
	if cf.format == "text" {
		fmt.Fprintf(stdout, "\n`swarm-gate check` would exit with code %d here; the demo itself exits 0 because it ran as intended.\n", r.ExitCode)
		if *keep {
			fmt.Fprintf(stdout, "The repository is kept at %s\n", dir)
		}
	}
	return 0
}

func shownDir(dir string, keep bool) string {
	if keep {
		return dir
	}
	return "<temporary directory>"
}
