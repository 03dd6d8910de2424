package actionrun

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
)

// Mode says what the action does; ModeAuto decides from the event.
type Mode string

// The modes (the `mode` input, or `swarm-gate action --mode`).
const (
	// ModeAuto picks the mode from GITHUB_EVENT_NAME (see docs/action.md).
	ModeAuto Mode = "auto"
	// ModeCheck evaluates a pull request, merge group or pushed range and
	// posts one check run per gate plus the aggregate swarm-gate.
	ModeCheck Mode = "check"
	// ModeCommand handles a comment command (issue_comment).
	ModeCommand Mode = "command"
	// ModePhaseWrap posts swarm/phase-wrap on the default branch's head and
	// on the open phase pull requests.
	ModePhaseWrap Mode = "phase-wrap"
	// ModePublish posts the checks of a pull request from a fork, from the
	// workflow_run that follows its read-only run.
	ModePublish Mode = "publish"
	// ModeCleanup is the action's post step: it completes, as failure, any
	// check run the main step left in progress.
	ModeCleanup Mode = "cleanup"
)

// Fail-on values: when the step fails.
const (
	FailOnFailure = "failure" // the aggregate (or a posted check) concluded failure
	FailOnNever   = "never"   // never because of the verdict (usage errors still fail)
)

// DefaultReportDir is where the report files go, relative to the workspace.
const DefaultReportDir = "swarm-gate-report"

// Settings are the action's inputs, validated.
type Settings struct {
	Mode Mode
	// Base, Head and HeadBranch override what the event says ("" = from
	// the event).
	Base, Head, HeadBranch string
	// Phase is the plan phase; 0 means from the branch or current_phase.
	Phase int
	// Config is the policy file's path in the base commit; "" is the
	// default .github/swarm-gate.yml.
	Config string
	// SARIF are absolute paths of other scanners' SARIF logs.
	SARIF []string
	// FailOn is FailOnFailure or FailOnNever.
	FailOn string
	// Gates are the gates to run: gates.Default() unless `checks` names
	// others.
	Gates []gates.Gate
	// Report is the absolute path of the report to publish (ModePublish).
	Report string
	// ReportDir is where report.json and report.sarif are written,
	// relative to the workspace ('/'-separated).
	ReportDir string
	// BotLogin is the login the github-token posts comments as (the
	// bot-login input; "" means evaluate.DefaultBotLogin): the only author whose
	// override records and replies swarm-gate reads back.
	BotLogin string
	// ReportTimeout bounds the whole of reporting an evaluation's check
	// runs (the report-timeout input; DefaultReportTimeout): the last fifth
	// of it is kept for completing those that could not be reported.
	ReportTimeout time.Duration
}

// DefaultReportTimeout is the report-timeout input's default, and
// MinReportTimeout and MaxReportTimeout bound what it accepts: under the
// 15 minutes the workflows in docs/action.md give the job (timeout-minutes: 15).
const (
	DefaultReportTimeout = evaluate.DefaultReportTimeout
	MinReportTimeout     = time.Second
	MaxReportTimeout     = 14 * time.Minute
)

// errUsage marks a misconfigured action: exit code 3 whatever fail-on says.
var errUsage = errors.New("usage")

// settings reads and checks the inputs; workspace is GITHUB_WORKSPACE.
// Errors wrap errUsage and name the input.
func (r *Runner) settings(workspace string) (*Settings, error) {
	s := &Settings{
		Mode:       Mode(strings.ToLower(r.input("mode"))),
		Base:       r.input("base"),
		Head:       r.input("head"),
		HeadBranch: r.input("head-branch"),
		Config:     r.input("config"),
		FailOn:     strings.ToLower(r.input("fail-on")),
		ReportDir:  r.input("report-dir"),
		BotLogin:   r.input("bot-login"),
	}
	bad := func(input, format string, args ...any) error {
		return fmt.Errorf("%w: input %s: %s", errUsage, input, fmt.Sprintf(format, args...))
	}
	switch s.Mode {
	case "":
		s.Mode = ModeAuto
	case ModeAuto, ModeCheck, ModeCommand, ModePhaseWrap, ModePublish, ModeCleanup:
	default:
		return nil, bad("mode", "%q is not one of auto, check, command, phase-wrap, publish, cleanup", s.Mode)
	}
	switch s.FailOn {
	case "":
		s.FailOn = FailOnFailure
	case FailOnFailure, FailOnNever:
	default:
		return nil, bad("fail-on", "%q is not failure or never", s.FailOn)
	}
	for _, in := range []struct{ name, value string }{{"base", s.Base}, {"head", s.Head}, {"head-branch", s.HeadBranch}} {
		if why := badRevision(in.value); why != "" {
			return nil, bad(in.name, "%q is not a commit SHA, branch, tag or revision such as origin/main or HEAD~1: %s", in.value, why)
		}
	}
	if p := r.input("phase"); p != "" && p != "auto" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, bad("phase", "%q is not a phase number >= 1 (leave it empty for the swarm/phase-<N> branch, else the plan's current_phase)", p)
		}
		s.Phase = n
	}
	s.ReportTimeout = DefaultReportTimeout
	if v := r.input("report-timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < MinReportTimeout || d > MaxReportTimeout {
			return nil, bad("report-timeout", "%q is not a duration from 1s to 14m (such as 90s or 5m), under the job's timeout-minutes", v)
		}
		s.ReportTimeout = d
	}
	if s.BotLogin != "" && !botLoginRE.MatchString(s.BotLogin) {
		return nil, bad("bot-login", "%q is not a GitHub login such as github-actions[bot] or my-app[bot] (letters, digits and hyphens, an App's ending in [bot])", s.BotLogin)
	}
	if s.Config != "" {
		c, err := repoPath(s.Config)
		if err != nil {
			return nil, bad("config", "%v", err)
		}
		s.Config = c
	}
	if s.ReportDir == "" {
		s.ReportDir = DefaultReportDir
	}
	dir, err := repoPath(s.ReportDir)
	if err == nil {
		err = reportDirOK(dir)
	}
	if err != nil {
		return nil, bad("report-dir", "%v", err)
	}
	s.ReportDir = dir
	for _, p := range r.listInput("sarif") {
		abs, err := inWorkspace(workspace, p)
		if err != nil {
			return nil, bad("sarif", "%v", err)
		}
		s.SARIF = append(s.SARIF, abs)
	}
	if p := r.input("report"); p != "" {
		if s.Report, err = inWorkspace(workspace, p); err != nil {
			return nil, bad("report", "%v", err)
		}
	}
	s.Gates = gates.Default()
	if names := r.listInput("checks"); len(names) > 0 {
		if s.Gates, err = gates.Select(names); err != nil {
			return nil, bad("checks", "%v", err)
		}
	}
	return s, nil
}

// botLoginRE is a GitHub login: a user's, or an App's bot ("slug[bot]").
var botLoginRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,98}[A-Za-z0-9])?(?:\[bot\])?$`)

// repoPath checks a repository-relative path: not empty, not absolute, no
// "..", no NUL; it returns it cleaned and '/'-separated.
func repoPath(p string) (string, error) {
	c := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	switch {
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("%q holds a NUL byte", p)
	case path.IsAbs(c) || filepath.IsAbs(p):
		return "", fmt.Errorf("%q is absolute; give a path relative to the repository", p)
	case c == "." || c == ".." || strings.HasPrefix(c, "../"):
		return "", fmt.Errorf("%q is not a path inside the repository", p)
	}
	return c, nil
}

// reportDirOK refuses a report directory (a clean repoPath) with a line
// break or another control character (the path goes into outputs and the
// log), or inside .git, where a report file could replace git's own.
func reportDirOK(dir string) error {
	if strings.ContainsFunc(dir, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%q holds a line break or another control character", dir)
	}
	first, _, _ := strings.Cut(dir, "/")
	if strings.EqualFold(strings.TrimRight(first, ". "), ".git") {
		return fmt.Errorf("%q is inside .git, git's own directory; write the report elsewhere (the default is %s)", dir, DefaultReportDir)
	}
	return nil
}

// badRevision says why an input cannot name a commit ("" when it may):
// white space or control characters, a leading '-' (an option to git), or
// characters git never allows in a ref and that would make the revision
// mean something else (':' names a file, "..", '?', '*', '[', '\\').
// "" is allowed (the event's).
func badRevision(v string) string {
	switch {
	case v == "":
		return ""
	case len(v) > 1024:
		return "it is longer than 1024 bytes"
	case strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "it holds white space or a control character"
	case strings.HasPrefix(v, "-"):
		return "it starts with '-'"
	case strings.Contains(v, ".."):
		return "it holds \"..\" (give one commit, not a range)"
	case strings.ContainsAny(v, ":?*[\\"):
		return "it holds one of : ? * [ \\"
	}
	return ""
}

// inWorkspace returns the absolute path of p (relative to the workspace,
// or absolute) and refuses a path outside the workspace: the container
// sees nothing else of the runner.
func inWorkspace(workspace, p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%q holds a NUL byte", p)
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(workspace, p)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(workspace, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%q is outside the workspace %s (a container action sees only the workspace)", p, workspace)
	}
	return abs, nil
}

// input is a command-line override, else the action input.
func (r *Runner) input(name string) string {
	if v, ok := r.Overrides[name]; ok {
		return strings.TrimSpace(v)
	}
	return r.Env.Input(name)
}

// listInput splits an input on commas and newlines.
func (r *Runner) listInput(name string) []string {
	var out []string
	for _, it := range strings.FieldsFunc(r.input(name), func(c rune) bool { return c == ',' || c == '\n' }) {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}
