// Command swarm-gate is swarm-gate's one binary: it re-checks
// opencode-swarm's gates for a pull request from the git history of a
// local repository (check, phase-wrap, plan hash, ledger verify, config
// validate), and runs as the GitHub Action (action) and as the GitHub App
// server (serve). Run `swarm-gate help` for the commands.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
)

const usage = `swarm-gate re-checks opencode-swarm's gates where it counts: in CI.

Usage:
  swarm-gate check --base REF [--head REF] [--repo DIR] [--phase N] [--format text|json|markdown|sarif]
  swarm-gate demo [--format text|json|markdown|sarif] [--keep]
  swarm-gate action [--mode MODE] [--INPUT VALUE ...]    (the GitHub Action; reads the runner's environment)
  swarm-gate serve [--listen ADDR] [--app-id ID] ...      (the GitHub App server; see swarm-gate serve -h)
  swarm-gate phase-wrap [--phase N] [--dir DIR] [--format text|json]      (can phase N close? a folder on disk)
  swarm-gate phase-wrap --base REF [--head REF] [--repo DIR] [--phase N]  (the same, from git)
  swarm-gate plan hash [FILE]          (default .swarm/plan.json)
  swarm-gate ledger verify [DIR]       (DIR holds .swarm/, default .)
  swarm-gate config validate [FILE]    (default .github/swarm-gate.yml; every problem, with line and column)
  swarm-gate version

Run swarm-gate <command> -h for a command's flags.
Exit codes: 0 all gates passed, 1 a gate failed, 2 could not evaluate, 3 usage error.
Set SWARM_GATE_LOG=debug for progress logs on stderr.
`

func main() {
	// SIGTERM too: a cancelled Actions job gets SIGINT, then SIGTERM, and
	// the action must complete its check runs before SIGKILL.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := startCPUProfile()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stopProfile()
	stop()
	os.Exit(code)
}

// run dispatches a command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel()})))
	if v := os.Getenv("SWARM_GATE_LOG"); v != "" && !validLogLevel(v) && (len(args) == 0 || args[0] != "serve") {
		// serve refuses the value itself (exit 3); the others say so and go on.
		fmt.Fprintf(stderr, "swarm-gate: SWARM_GATE_LOG=%q is not a log level (debug, info, warn or error); logging at warn\n", v)
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "check":
		return runCheck(ctx, args[1:], stdout, stderr)
	case "action":
		return runAction(ctx, args[1:], stdout, stderr)
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case evaluatorSubcommand: // hidden: the child of serve with SWARM_GATE_EVALUATOR=process
		return runEvaluatorChild(stderr)
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	case "phase-wrap":
		return runPhaseWrap(ctx, args[1:], stdout, stderr)
	case "plan":
		if len(args) > 1 && args[1] == "hash" {
			return runPlanHash(args[2:], os.Stdin, stdout, stderr)
		}
		return subcommandHint(args, "swarm-gate plan: the subcommand is hash: swarm-gate plan hash [FILE]\n", stdout, stderr)
	case "ledger":
		if len(args) > 1 && args[1] == "verify" {
			return runLedgerVerify(args[2:], stdout, stderr)
		}
		return subcommandHint(args, "swarm-gate ledger: the subcommand is verify: swarm-gate ledger verify [DIR]\n", stdout, stderr)
	case "config":
		if len(args) > 1 && args[1] == "validate" {
			return runConfigValidate(args[2:], os.Stdin, stdout, stderr)
		}
		return subcommandHint(args, "swarm-gate config: the subcommand is validate: swarm-gate config validate [FILE]\n", stdout, stderr)
	case "version", "--version":
		if len(args) == 2 && (args[1] == "-h" || args[1] == "--help" || args[1] == "-help") {
			fmt.Fprintln(stdout, "usage: swarm-gate version\nPrints the version, and the commit and build date when the binary records them.")
			return 0
		}
		if len(args) > 1 {
			fmt.Fprintf(stderr, "swarm-gate: version takes no arguments (got %q)\n", strings.Join(args[1:], " "))
			return exitUsage
		}
		fmt.Fprintln(stdout, versionLine())
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	if a := args[0]; len(a) > 1 && a[0] == '-' {
		fmt.Fprintf(stderr, "swarm-gate: unknown flag %s: flags go after the command (swarm-gate check %s ...)\n\n%s", a, a, usage)
		return exitUsage
	}
	fmt.Fprintf(stderr, "swarm-gate: unknown command %q\n\n%s", strings.Join(args, " "), usage)
	return exitUsage
}

// subcommandHint answers `swarm-gate plan` or `swarm-gate ledger` without a
// known subcommand: with -h or --help on stdout (exit 0), else on stderr
// (exit 3).
func subcommandHint(args []string, hint string, stdout, stderr io.Writer) int {
	if len(args) > 1 && (args[1] == "-h" || args[1] == "--help" || args[1] == "help") {
		fmt.Fprint(stdout, hint)
		return 0
	}
	fmt.Fprint(stderr, hint)
	return exitUsage
}

// validLogLevel reports whether v is a level logLevel reads.
func validLogLevel(v string) bool {
	var l slog.Level
	return l.UnmarshalText([]byte(v)) == nil
}

func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("SWARM_GATE_LOG"))); err != nil {
		return slog.LevelWarn
	}
	return l
}

// startCPUProfile writes a CPU profile of the whole command to the file
// SWARM_GATE_CPUPROFILE names (a hidden switch for bench/README.md's
// profiling); the function it returns stops it.
func startCPUProfile() func() {
	path := os.Getenv("SWARM_GATE_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "swarm-gate: SWARM_GATE_CPUPROFILE:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "swarm-gate: SWARM_GATE_CPUPROFILE:", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
