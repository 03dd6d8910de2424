package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/internal/source"
)

const (
	exitError = report.ExitError
	exitUsage = report.ExitUsage
)

// errUsage marks a command-line mistake (exit code 3).
var errUsage = errors.New("usage")

// checkFlags are the flags shared by check and demo.
type checkFlags struct {
	format      string
	maxFindings int
}

func (c *checkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.format, "format", "text", "output format: text, json, markdown or sarif")
	fs.IntVar(&c.maxFindings, "max-findings", 50, "findings shown per gate in text and markdown (0 = all); json always has all")
}

func (c *checkFlags) validate() error {
	if c.maxFindings < 0 {
		return fmt.Errorf("%w: --max-findings must be 0 (all) or more", errUsage)
	}
	switch c.format {
	case "text", "json", "markdown", "sarif":
		return nil
	}
	return fmt.Errorf("%w: --format must be text, json, markdown or sarif, not %q", errUsage, c.format)
}

// parseExit is the exit code after a flag parsing error: 0 for -h/--help
// (the usage was printed), 3 otherwise.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return exitUsage
}

// newFlagSet is a subcommand's flag set. Its usage and errors go to
// stderr, except when args ask for help (-h, -help, --help before any
// "--"): the usage then goes to stdout, as asked for (exit code 0).
func newFlagSet(name string, args []string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("swarm-gate "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			fs.SetOutput(stdout)
			break
		}
	}
	return fs
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", args, stdout, stderr)
	var cf checkFlags
	cf.register(fs)
	opts := pipeline.Options{}
	fs.StringVar(&opts.RepoDir, "repo", ".", "path to the git repository")
	fs.StringVar(&opts.Base, "base", "", "base ref the pull request targets (branch, tag or SHA), e.g. origin/main (required)")
	fs.StringVar(&opts.Head, "head", "HEAD", "head ref of the pull request")
	fs.StringVar(&opts.HeadBranch, "head-branch", "", "the pull request's head branch name, for the swarm/phase-<N> rule when --head is a SHA (in Actions: ${{ github.head_ref }})")
	phase := fs.String("phase", "", "plan phase the pull request carries; empty or \"auto\": from a swarm/phase-<N> branch (the Action and the App also read a swarm:phase-<N> label), else the phase whose tasks the pull request changes the status of, else the first phase not complete")
	fs.StringVar(&opts.DiffEngine, "diff-engine", "auto", "how to diff: auto (git CLI if present), git, or go-git")
	only := fs.String("gates", "", "comma-separated check names to run, with or without swarm/ (e.g. swarm/placeholders,scope); default all but the on-demand swarm/phase-wrap")
	fs.Func("sarif", "a SARIF 2.1.0 log another scanner wrote (gosec, semgrep, CodeQL...), for swarm/sast; repeatable", func(p string) error {
		opts.SARIF = append(opts.SARIF, p)
		return nil
	})
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "swarm-gate check: unexpected argument %q\n", pos[0])
		return exitUsage
	}
	if err := cf.validate(); err != nil {
		fmt.Fprintf(stderr, "swarm-gate check: %v\n", err)
		return exitUsage
	}
	if *phase != "" && *phase != "auto" {
		n, err := strconv.Atoi(*phase)
		if err != nil || n < 1 {
			fmt.Fprintf(stderr, "swarm-gate check: --phase must be a phase number >= 1 or empty, not %q\n", *phase)
			return exitUsage
		}
		opts.Phase = n
	}
	switch opts.DiffEngine {
	case "auto", "git", "go-git":
	default:
		fmt.Fprintf(stderr, "swarm-gate check: --diff-engine must be auto, git or go-git, not %q\n", opts.DiffEngine)
		return exitUsage
	}
	gatesSet := false
	fs.Visit(func(f *flag.Flag) { gatesSet = gatesSet || f.Name == "gates" })
	if *only != "" || gatesSet { // --gates "" names no check: a usage error, not every gate
		gs, err := gates.Select(strings.Split(*only, ","))
		if err != nil {
			fmt.Fprintf(stderr, "swarm-gate check: --gates: %v\n", err)
			return exitUsage
		}
		opts.Gates = gs
	}
	if strings.TrimSpace(opts.Base) == "" {
		fmt.Fprintln(stderr, "swarm-gate check: --base is required: the ref the pull request targets, e.g. --base origin/main")
		return exitUsage
	}
	if strings.TrimSpace(opts.Head) == "" {
		// An empty expression in a workflow (${{ ... head.sha }}) must not
		// quietly check whatever HEAD is.
		fmt.Fprintln(stderr, "swarm-gate check: --head is empty: give the pull request's head ref or SHA, or leave the flag out for HEAD")
		return exitUsage
	}
	if opts.Head == "HEAD" {
		// Only commits are read; say so when the work tree has more.
		if n, err := source.UncommittedChanges(ctx, opts.RepoDir); err == nil && n > 0 {
			fmt.Fprintf(stderr, "swarm-gate check: note: the work tree has %d uncommitted %s, which %s not checked: only commits are (head is the commit HEAD names); commit them to include them\n",
				n, map[bool]string{true: "change", false: "changes"}[n == 1], map[bool]string{true: "is", false: "are"}[n == 1])
		}
	}
	r, err := pipeline.Check(ctx, opts)
	if err != nil {
		return fail(stdout, stderr, "swarm-gate", err, cf)
	}
	if err := write(stdout, r, cf); err != nil {
		fmt.Fprintf(stderr, "swarm-gate: writing the report: %v\n", err)
		return exitError
	}
	printCauses(stderr, "swarm-gate", r)
	return r.ExitCode
}

// printCauses writes one line on stderr for each distinct reason a gate could
// not be evaluated, with how to fix it when the reason is a .swarm/ file.
func printCauses(stderr io.Writer, cmd string, r *report.Report) {
	seen := map[string]bool{}
	for _, g := range r.Gates {
		if g.Outcome != gates.Error {
			continue
		}
		cause := strings.TrimPrefix(g.Title, "could not evaluate: ")
		if seen[cause] {
			continue
		}
		seen[cause] = true
		for _, f := range g.Findings {
			if f.Rule == gates.RuleUnreadable {
				cause += "; " + pipeline.RepairHint
				break
			}
		}
		fmt.Fprintf(stderr, "%s: could not evaluate: %s\n", cmd, mdtext.Printable(cause))
	}
}

// fail reports a check that could not start: one line on stderr, and for
// the machine-readable formats a report with outcome "error" on stdout.
func fail(stdout, stderr io.Writer, cmd string, err error, cf checkFlags) int {
	fmt.Fprintf(stderr, "%s: could not evaluate: %v\n", cmd, err)
	if cf.format != "text" {
		_ = write(stdout, report.Failure(err), cf)
	}
	return exitError
}

func write(w io.Writer, r *report.Report, cf checkFlags) error {
	r.Tool = report.Tool{Name: "swarm-gate", Version: version}
	switch cf.format {
	case "json":
		return report.WriteJSON(w, r)
	case "markdown":
		return report.WriteMarkdown(w, r, cf.maxFindings)
	case "sarif":
		return report.WriteSARIF(w, r, version)
	}
	return report.WriteText(w, r, cf.maxFindings)
}
