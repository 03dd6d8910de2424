// Package actionrun is swarm-gate's GitHub Action, a thin adapter of the
// Actions runner: it reads the runner's environment, inputs and event,
// has internal/evaluate evaluate and post the check runs (or answer a
// comment command), and writes what the step shows (outputs, step
// summary, report files, the log).
//
// Everything the runner provides arrives through a Runner (environment
// lookup, log writer, HTTP client), so a whole run can be tested in
// process against internal/ghfake.
package actionrun

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// Runner is what the runner gives one run of the action.
type Runner struct {
	// Env is the step's environment (actions.NewEnv(nil) in the action).
	Env actions.Env
	// Stdout is the step's log; the runner reads workflow commands from it.
	Stdout io.Writer
	// Logger receives progress and API diagnostics (stderr in the action);
	// nil means slog.Default().
	Logger *slog.Logger
	// Overrides are command-line values of inputs, by input name (e.g.
	// "mode", "report"); they win over INPUT_* variables.
	Overrides map[string]string
	// Version is swarm-gate's version, for the reports.
	Version string
	// HTTPClient sends the API requests (nil: http.DefaultTransport);
	// ClientOptions configure the GitHub client (tests: no waiting).
	HTTPClient    *http.Client
	ClientOptions []ghapi.Option
	// BotLogin is the login the token posts as, the only author whose
	// override records are read back; "" means the bot-login input, else
	// evaluate.DefaultBotLogin.
	BotLogin string
	// FinaliseTimeout bounds completing left-over check runs after the
	// context was cancelled (a cancelled job: the runner sends SIGINT, then
	// SIGTERM 7.5 s later and SIGKILL 2.5 s after that). 0 means 6 s.
	FinaliseTimeout time.Duration
}

// API is what the action needs from GitHub: evaluate's ports;
// *ghapi.Client implements it.
type API = evaluate.API

// Exit codes, as the CLI's (DESIGN.md section 5).
const (
	exitPassed = report.ExitPassed
	exitError  = report.ExitError
	exitUsage  = report.ExitUsage
)

// step is one run of the Action step: what it resolved from the runner's
// environment, and what it has done so far that its end must account for.
type step struct {
	r *Runner
	console
	// s are the inputs (nil in the post step and until they are read).
	s         *Settings
	repo      ghapi.Repo
	workspace string
	// api is nil when there is no token; apiErr says why.
	api    API
	apiErr error
	// runURL is this workflow run's page; workflowKey identifies the
	// workflow and job in external ids; fullReport names where the
	// untruncated report is, for the last line of a cut check-run summary.
	runURL, workflowKey, fullReport string
	// d are what the evaluations post with (once the inputs are read).
	d *evaluate.Deps
	// started are the check runs started so far, for the post step and
	// for crashed.
	started []*ghapi.CheckRun
	// stuck counts check runs left in progress that could not be completed.
	stuck int
	// misconfigured is set when an evaluation failed because of the
	// workflow's own settings (a config input naming a missing file).
	misconfigured error
	// postStep is true in the post step (mode cleanup).
	postStep bool
	// reported is true once the step outputs were written.
	reported bool
}

// Run does what the event (or the mode) asks and returns the exit code: 0
// passed (or nothing to do), 1 a gate failed, 2 could not evaluate or
// report, 3 the action is misconfigured. With fail-on: never, 1 and 2
// become 0 (the check runs still carry the verdict).
//
// A run that stops before reporting an evaluation (exit 2 or 3) still sets
// the conclusion output to failure and says why in the step summary. A
// panic is recovered (crash.go): every check run started is completed as
// failure, the conclusion output is failure, and the exit code is 2.
func (r *Runner) Run(ctx context.Context) (code int) {
	st := &step{r: r, console: console{log: actions.NewLog(r.Stdout), logger: r.Logger}}
	if st.logger == nil {
		st.logger = slog.Default()
	}
	defer func() {
		if v := recover(); v != nil {
			code = st.crashed(ctx, v, debug.Stack())
		}
	}()
	token := r.Env.Token()
	if err := st.log.AddMask(token); err != nil {
		st.logger.Error("writing to the log", "error", err)
		return exitError
	}
	return st.conclude(st.run(ctx, token))
}

// conclude turns what a run did into its exit code, saying why in the log
// and the step summary when it stopped.
func (st *step) conclude(code int, err error) int {
	if err != nil {
		st.errorf("%v", err)
		if errors.Is(err, errUsage) {
			code = exitUsage
		}
		code = max(code, exitError)
		st.reportStop(code, err)
		if code == exitUsage {
			return exitUsage
		}
	}
	if st.misconfigured != nil {
		st.errorf("swarm-gate: the action is misconfigured: %v", st.misconfigured)
		return exitUsage
	}
	if st.stuck > 0 {
		// Check runs hang in progress: they do not carry the verdict, so
		// fail-on: never must not hide it.
		return max(code, exitError)
	}
	if st.s != nil && st.s.FailOn == FailOnNever && code != exitUsage && code != exitPassed {
		st.noticef("swarm-gate: the verdict would fail this step (exit code %d); fail-on: never keeps it green (the check runs still carry the verdict)", code)
		return exitPassed
	}
	return code
}

// run reads the runner's environment and makes the GitHub client, then
// does the post step's work, or what the inputs and the event ask.
func (st *step) run(ctx context.Context, token string) (int, error) {
	r := st.r
	repoOwner, repoName, err := r.Env.Repository()
	if err != nil {
		return exitUsage, fmt.Errorf("%w: %v", errUsage, err)
	}
	st.repo = ghapi.Repo{Owner: repoOwner, Name: repoName}
	if st.workspace, err = r.Env.Workspace(); err != nil {
		return exitUsage, fmt.Errorf("%w: %v", errUsage, err)
	}
	if server, err := r.Env.ServerURL(); err == nil {
		if id := r.Env.Get("GITHUB_RUN_ID"); id != "" {
			st.runURL = server + "/" + st.repo.String() + "/actions/runs/" + id
		}
	}
	st.postStep = Mode(strings.ToLower(r.input("mode"))) == ModeCleanup
	apiURL, err := apiURL(r.Env)
	if err != nil {
		return exitUsage, err
	}
	st.fullReport = fullReport(st.runURL)
	st.api, st.apiErr = newClient(r, st.logger, token, apiURL, st.runURL)
	st.workflowKey = evaluate.WorkflowKey(r.Env.Workflow(), r.Env.Job())
	if st.postStep {
		// The post step: it needs no other input, and a bad one must not
		// keep it from completing what the main step left in progress.
		return st.cleanup(ctx)
	}
	if st.s, err = r.settings(st.workspace); err != nil {
		return exitUsage, err
	}
	ev, err := r.Env.Event()
	if err != nil {
		return exitUsage, fmt.Errorf("%w: %v", errUsage, err)
	}
	w := route(ev, st.s, st.repo.String())
	st.logger.Info("swarm-gate action", "event", ev.Name, "action", ev.Action, "mode", st.s.Mode, "job", w.Kind.String())
	st.d = st.deps()
	es := evalSettings(st.s)
	switch w.Kind {
	case event.Check:
		res, err := evaluate.Check(ctx, st.d, es, w.Target)
		return st.checked(res, err, w.Target)
	case event.PhaseWrap:
		// On the checkout's commit (GITHUB_SHA, or the head input) and on
		// the open phase pull requests; the step's outputs, report files
		// and conclusion are the checkout's commit's.
		head := cmp.Or(st.s.Head, r.Env.Get("GITHUB_SHA"), "HEAD")
		return evaluate.PhaseWrap(ctx, st.d, es, evaluate.Wrap{Base: st.s.Base, Head: head, HeadBranch: st.s.HeadBranch, Ref: r.Env.Ref()})
	case event.Publish:
		// The checks of a pull request from a fork, whose own run had a
		// read-only token, from the report input.
		return evaluate.Publish(ctx, st.d, es, ev, st.s.Report)
	case event.Command:
		return evaluate.Command(ctx, st.d, es, ev)
	case event.Usage:
		return exitUsage, fmt.Errorf("%w: %s", errUsage, w.Reason)
	}
	st.noticef("swarm-gate: %s", w.Reason)
	return exitPassed, nil
}

// deps are what the step's evaluations post with: its client, its check
// runs tracked for the post step, its conversations, and its reporting
// (Checked and Also report to the step; warnings and notices are
// annotations).
func (st *step) deps() *evaluate.Deps {
	talk := &evaluate.Conversation{BotLogin: st.s.BotLogin, RunURL: st.runURL}
	if st.r.BotLogin != "" {
		talk.BotLogin = st.r.BotLogin
	}
	if st.runURL != "" {
		talk.CommentReport = "the `swarm-gate-report` artifact of [this workflow run](" + st.runURL + ")"
	}
	return &evaluate.Deps{
		API:             st.api,
		NoAPI:           st.apiErr,
		Repo:            st.repo,
		Logger:          st.logger,
		WorkflowKey:     st.workflowKey,
		FullReport:      st.fullReport,
		FinaliseTimeout: st.r.FinaliseTimeout,
		Track: func(runs ...*ghapi.CheckRun) {
			st.started = append(st.started, runs...)
			st.saveState()
		},
		Checkout: evaluate.Checkout{
			Dir: st.workspace,
			// A pull request to the owner's .github repository may
			// change the owner's policy: validated like the repository's.
			OrgPolicyRepo: strings.EqualFold(st.repo.Name, evaluate.OrgPolicyRepo),
			Version:       st.r.Version,
		},
		Conversation: talk,
		Checked:      st.checked,
		Also:         st.phaseWrapPR,
		Warn:         func(msg string) { st.warnf("%s", msg) },
		Notice:       func(msg string) { st.noticef("%s", msg) },
	}
}

// evalSettings are the inputs evaluate takes.
func evalSettings(s *Settings) evaluate.Settings {
	timeout := DefaultReportTimeout
	if s.ReportTimeout > 0 {
		timeout = s.ReportTimeout
	}
	return evaluate.Settings{Gates: s.Gates, Phase: s.Phase, Config: s.Config, SARIF: s.SARIF, ReportTimeout: timeout}
}
