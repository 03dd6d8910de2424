package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/swarm-gate/swarm-gate/internal/actionrun"
	"github.com/swarm-gate/swarm-gate/internal/actions"
)

// actionInputs are the action's inputs that `swarm-gate action` also takes
// as flags (for a docker:// step, which has no action.yml); the token is
// only read from the environment.
var actionInputs = []struct{ name, usage string }{
	{"mode", "auto (from the event), check, command, phase-wrap, publish or cleanup"},
	{"base", "base ref or SHA (default: from the event)"},
	{"head", "head ref or SHA (default: from the event)"},
	{"head-branch", "head branch name, for the swarm/phase-<N> rule (default: from the event)"},
	{"phase", "plan phase (default: a swarm/phase-<N> head branch, else a swarm:phase-<N> label, else the phase whose tasks the pull request changes the status of, else the first phase not complete)"},
	{"config", "policy file path in the base commit (default .github/swarm-gate.yml)"},
	{"sarif", "SARIF logs of other scanners, comma- or newline-separated, for swarm/sast"},
	{"fail-on", "failure (default) or never"},
	{"checks", "checks to run, comma- or newline-separated (default: all but swarm/phase-wrap)"},
	{"report", "publish: the report.json of the pull request's own run"},
	{"report-dir", "where report.json and report.sarif are written, relative to the workspace (default swarm-gate-report)"},
	{"bot-login", "the login the token posts comments as, the only author of override records swarm-gate trusts (default github-actions[bot])"},
	{"report-timeout", "how long reporting the check runs may take in all, 1s to 14m (default 5m); the last fifth completes what could not be reported"},
}

func runAction(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("action", args, stdout, stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: swarm-gate action [--mode MODE] [--INPUT VALUE ...]

Runs as the GitHub Action: reads GITHUB_EVENT_NAME, GITHUB_EVENT_PATH,
GITHUB_REPOSITORY, GITHUB_WORKSPACE, GITHUB_API_URL, the github-token input
or GITHUB_TOKEN, and the INPUT_* variables; posts check runs and writes
GITHUB_OUTPUT and GITHUB_STEP_SUMMARY. Each flag overrides the input of the
same name.

`)
		fs.PrintDefaults()
	}
	overrides := map[string]string{}
	for _, in := range actionInputs {
		name := in.name
		fs.Func(name, in.usage, func(v string) error {
			if prev, ok := overrides[name]; ok && name == "sarif" {
				v = prev + "\n" + v
			}
			overrides[name] = v
			return nil
		})
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "swarm-gate action: unexpected argument %q\n", pos[0])
		return exitUsage
	}
	env := actions.NewEnv(nil)
	// Progress shows in the job log by default; SWARM_GATE_LOG sets the
	// level, and a re-run with debug logging (RUNNER_DEBUG=1) shows all.
	level := slog.LevelInfo
	if env.Get("SWARM_GATE_LOG") != "" {
		level = logLevel()
	}
	if env.IsDebug() {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	r := &actionrun.Runner{Env: env, Stdout: stdout, Logger: logger, Overrides: overrides, Version: version}
	return r.Run(ctx)
}
