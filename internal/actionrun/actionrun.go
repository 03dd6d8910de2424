// Package actionrun is swarm-gate's GitHub Action: from the runner's
// environment and event payload it decides what to do, has
// internal/evaluate evaluate and post the check runs (or answer a comment
// command), and reports to the step (outputs, step summary, report files,
// the log).
//
// Everything the runner provides arrives through a Runner (environment
// lookup, log writer, HTTP client), so a whole run can be tested in
// process against internal/ghfake.
package actionrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/internal/source"
)

// Runner is one run of the action.
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
	// Commands handles comment commands (issue_comment) when set; nil
	// means swarm-gate's own handler (command.go).
	Commands CommandHandler
	// BotLogin is the login the token posts as, the only author whose
	// override records are read back; "" means the bot-login input, else
	// DefaultBotLogin.
	BotLogin string
	// FinaliseTimeout bounds completing left-over check runs after the
	// context was cancelled (a cancelled job: the runner sends SIGINT, then
	// SIGTERM 7.5 s later and SIGKILL 2.5 s after that). 0 means 6 s.
	FinaliseTimeout time.Duration
	// DeferGateRuns puts only the aggregate swarm-gate check run in
	// progress when an evaluation starts and creates each gate's run when
	// its result is known, already completed: one request per gate instead
	// of two. A gate whose run was never posted (the evaluation stopped) is
	// posted as failure at the end. The GitHub App sets it to stay within
	// its API budget; the Action leaves it off, so that every check shows
	// in progress while it runs. See evaluate.Deps.
	DeferGateRuns bool
	// OrgPolicy, when set, reads the owner's policy when a base commit has
	// no .github/swarm-gate.yml: swarm-gate.yml in the default branch of
	// the owner's `.github` repository (policy-bot's convention), through
	// the API with the run's token, kept in this cache. The GitHub App sets
	// it; the Action leaves it nil (GITHUB_TOKEN cannot read another
	// repository).
	OrgPolicy *OrgPolicyCache
	// SourceError, when not nil, is why the commits to evaluate could not
	// be put in the workspace (the App's fetch failed): every evaluation
	// reports "could not evaluate" with it, on every check run, instead of
	// running the pipeline.
	SourceError error
	// Repo, when not nil, is the workspace's git repository, already open
	// (the App's fetch opened it, at the path GITHUB_WORKSPACE gives): the
	// pipeline reads through it (pipeline.Options.Repo), with its object
	// cache and open pack files, instead of opening the workspace again.
	// Nil: the pipeline opens the workspace itself, as in the Action. The
	// caller closes it after Run returns.
	Repo *source.Git
	// NoReportFiles skips writing report.json and report.sarif into the
	// workspace (the report-dir input is still checked); the report-json
	// and sarif outputs are then empty. The GitHub App sets it: nobody
	// reads its temporary workspace. The Action leaves it off.
	NoReportFiles bool
	// CancelledAsFailure completes the check runs of an evaluation whose
	// context was cancelled as failure ("could not evaluate"), as after
	// any other stop. Off (the Action), they are completed as cancelled:
	// the runner cancels a job with SIGINT or SIGTERM, and a cancelled job
	// has no verdict. The GitHub App sets it: its shutdown is no one's
	// cancellation.
	CancelledAsFailure bool
	// Event is the event, already read (with its Name), for a caller that
	// parsed GITHUB_EVENT_PATH's payload itself (the GitHub App); nil
	// means read it from the Env. The run does not change it.
	Event *actions.Event
	// Work, when not nil, is what the caller routed Event to
	// (event.Route by the App door); nil means route Event in the mode.
	Work *event.Work
	// MergeBase, when its SHA is set, is the merge base of two commits
	// as GitHub's compare API gave it, for a caller whose workspace holds
	// the head's history down to it but not the base's (the GitHub App,
	// when the base branch moved on far since the pull request branched;
	// not an Action input). An evaluation of exactly those two commits
	// measures the changes from it (pipeline.Options.MergeBase, which
	// fails the evaluation when it is not an ancestor of the head);
	// others find their merge base in the workspace as usual.
	MergeBase KnownMergeBase
}

// DefaultBotLogin is the login of the workflow's GITHUB_TOKEN.
const DefaultBotLogin = evaluate.DefaultBotLogin

// OrgPolicyCache keeps each owner's policy (evaluate.OrgPolicyCache).
type OrgPolicyCache = evaluate.OrgPolicyCache

// KnownMergeBase is a merge base a trusted source gave
// (evaluate.KnownMergeBase).
type KnownMergeBase = evaluate.KnownMergeBase

// CommandHandler handles an issue_comment event in ModeCommand and returns
// the exit code. It is the hook where comment commands (issue 9) plug in.
type CommandHandler func(ctx context.Context, ev *actions.Event) int

// Exit codes, as the CLI's (DESIGN.md section 5).
const (
	exitPassed = report.ExitPassed
	exitFailed = report.ExitFailed
	exitError  = report.ExitError
	exitUsage  = report.ExitUsage
)

// stepLog is where a run writes what the step's log shows: *actions.Log.
type stepLog interface {
	Annotate(a actions.Annotation) error
	AddMask(secret string) error
	Group(name string) error
	EndGroup() error
	PrintUntrusted(text string) error
}

var _ stepLog = (*actions.Log)(nil)

// session is what a run resolved at its start.
type session struct {
	r         *Runner
	s         *Settings
	ev        *actions.Event
	log       stepLog
	logger    *slog.Logger
	repo      ghapi.Repo
	workspace string
	// api is nil when there is no token; apiErr says why.
	api    API
	apiErr error
	// checkReport names where the untruncated report is, for the last
	// line of a cut check-run summary ("": report.DefaultFullReport).
	checkReport string
	// runURL is this workflow run's page; workflowKey identifies the
	// workflow and job in external ids.
	runURL      string
	workflowKey string
	// started are the check runs started so far, for the post step.
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
	// talk is what the run knows of pull request conversations.
	talk *evaluate.Conversation
	// org reads the owner's policy, once (orgPolicy).
	org     pipeline.OrgPolicy
	orgRead bool
}

// API is what the action needs from GitHub: evaluate's ports;
// *ghapi.Client implements it.
type API = evaluate.API

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
	ses := &session{r: r, log: actions.NewLog(r.Stdout), logger: r.Logger}
	if ses.logger == nil {
		ses.logger = slog.Default()
	}
	defer func() {
		if v := recover(); v != nil {
			code = ses.crashed(ctx, v, debug.Stack())
		}
	}()
	return ses.main(ctx)
}

// main is Run without the recovery.
func (ses *session) main(ctx context.Context) int {
	r := ses.r
	token := r.Env.Token()
	if err := ses.log.AddMask(token); err != nil {
		ses.logger.Error("writing to the log", "error", err)
		return exitError
	}
	return ses.conclude(ses.run(ctx, token))
}

// conclude turns what a run did into its exit code, saying why in the log
// and the step summary when it stopped.
func (ses *session) conclude(code int, err error) int {
	if err != nil {
		ses.errorf("%v", err)
		if errors.Is(err, errUsage) {
			code = exitUsage
		}
		code = max(code, exitError)
		ses.reportStop(code, err)
		if code == exitUsage {
			return exitUsage
		}
	}
	if ses.misconfigured != nil {
		ses.errorf("swarm-gate: the action is misconfigured: %v", ses.misconfigured)
		return exitUsage
	}
	if ses.stuck > 0 {
		// Check runs hang in progress: they do not carry the verdict, so
		// fail-on: never must not hide it.
		return max(code, exitError)
	}
	if ses.s != nil && ses.s.FailOn == FailOnNever && code != exitUsage && code != exitPassed {
		ses.noticef("swarm-gate: the verdict would fail this step (exit code %d); fail-on: never keeps it green (the check runs still carry the verdict)", code)
		return exitPassed
	}
	return code
}

func (ses *session) run(ctx context.Context, token string) (int, error) {
	r := ses.r
	repoOwner, repoName, err := r.Env.Repository()
	if err != nil {
		return exitUsage, fmt.Errorf("%w: %v", errUsage, err)
	}
	ses.repo = ghapi.Repo{Owner: repoOwner, Name: repoName}
	if ses.workspace, err = r.Env.Workspace(); err != nil {
		return exitUsage, fmt.Errorf("%w: %v", errUsage, err)
	}
	if server, err := r.Env.ServerURL(); err == nil {
		if id := r.Env.Get("GITHUB_RUN_ID"); id != "" {
			ses.runURL = server + "/" + ses.repo.String() + "/actions/runs/" + id
		}
	}
	ses.postStep = Mode(strings.ToLower(r.input("mode"))) == ModeCleanup
	apiURL, err := ses.apiURL()
	if err != nil {
		return exitUsage, err
	}
	ses.api, ses.apiErr = ses.client(token, apiURL)
	ses.workflowKey = workflowKey(r.Env.Workflow(), r.Env.Job())
	if ses.postStep {
		// The post step: it needs no other input, and a bad one must not
		// keep it from completing what the main step left in progress.
		return ses.cleanup(ctx)
	}
	return ses.dispatch(ctx)
}

// dispatch reads the settings and the event (Runner.Event, else the
// runner's) and does what the event asks.
func (ses *session) dispatch(ctx context.Context) (int, error) {
	r := ses.r
	var err error
	if ses.s, err = r.settings(ses.workspace); err != nil {
		return exitUsage, err
	}
	if r.Event != nil {
		ses.ev = r.Event
	} else if ses.ev, err = r.Env.Event(); err != nil {
		return exitUsage, fmt.Errorf("%w: %v", errUsage, err)
	}
	var w event.Work
	if r.Work != nil {
		w = *r.Work
	} else {
		w = route(ses.ev, ses.s, ses.repo.String())
	}
	ses.logger.Info("swarm-gate action", "event", ses.ev.Name, "action", ses.ev.Action, "mode", ses.s.Mode, "job", w.Kind.String())
	switch w.Kind {
	case event.Check:
		return ses.check(ctx, w.Target)
	case event.PhaseWrap:
		return ses.phaseWrap(ctx)
	case event.Publish:
		return ses.publish(ctx)
	case event.Command:
		if r.Commands == nil {
			return evaluate.Command(ctx, ses.deps(), ses.evalSettings(), ses.ev)
		}
		return r.Commands(ctx, ses.ev), nil
	case event.Usage:
		return exitUsage, fmt.Errorf("%w: %s", errUsage, w.Reason)
	}
	ses.noticef("swarm-gate: %s", w.Reason)
	return exitPassed, nil
}

// apiURL is GITHUB_API_URL (default https://api.github.com), checked as
// the GitHub client will use it: a URL that is not GitHub's REST API root
// (the web site https://github.com, another path, another scheme, a query)
// is a usage error that names the variable and says why.
func (ses *session) apiURL() (string, error) {
	raw := ses.r.Env.Get("GITHUB_API_URL")
	u, err := ses.r.Env.APIURL()
	if err == nil {
		err = ghapi.CheckBaseURL(u)
	} else if berr := ghapi.CheckBaseURL(raw); berr != nil {
		err = berr
	}
	if err == nil {
		return u, nil
	}
	why := err.Error()
	var be *ghapi.BaseURLError
	if errors.As(err, &be) {
		why = be.Why
	}
	return "", fmt.Errorf("%w: GITHUB_API_URL %q is not the URL of GitHub's REST API: %s; want %s. The runner sets it; a workflow or container that sets it itself must give the API's root, not the web site", errUsage, raw, why, ghapi.WantBaseURL)
}

// client makes the GitHub client for the API at apiURL, or says why there
// is none (no token).
func (ses *session) client(token, apiURL string) (API, error) {
	if token == "" {
		return nil, errNoToken
	}
	// The job summary is cut at 100 findings per gate; report.json in the
	// artifact the README's workflow uploads has them all.
	full := "report.json of the `swarm-gate-report` artifact of this workflow run"
	var opts []ghapi.Option
	if ses.runURL != "" {
		full += " (" + ses.runURL + ")"
		// details_url: this run's page, of this attempt when the runner
		// says which (a re-run's logs are the attempt's).
		details := ses.runURL
		if a := ses.r.Env.Get("GITHUB_RUN_ATTEMPT"); a != "" {
			details += "/attempts/" + url.PathEscape(a)
		}
		opts = append(opts, ghapi.WithDetailsURL(details))
	}
	ses.checkReport = full
	opts = append(append(opts, ghapi.WithLogger(ses.logger)), ses.r.ClientOptions...)
	c, err := ghapi.NewClient(apiURL, token, ses.r.HTTPClient, opts...)
	if err != nil {
		// Never a nil *Client in the interface: callers test api == nil.
		return nil, err
	}
	return c, nil
}

// errNoToken is why there is no client when there is no token.
var errNoToken = errors.New("no GitHub token: pass github-token or give the workflow a GITHUB_TOKEN")

// workflowKey is evaluate.WorkflowKey.
var workflowKey = evaluate.WorkflowKey

// externalID is the check runs' external_id for an evaluation of kind
// (evaluate.ExternalID).
func (ses *session) externalID(kind string) string {
	return evaluate.ExternalID(kind, ses.workflowKey)
}

// noticef writes a ::notice:: line.
func (ses *session) noticef(format string, args ...any) {
	ses.annotate(actions.LevelNotice, fmt.Sprintf(format, args...))
}

// warnf writes a ::warning:: line.
func (ses *session) warnf(format string, args ...any) {
	ses.annotate(actions.LevelWarning, fmt.Sprintf(format, args...))
}

// errorf writes an ::error:: line.
func (ses *session) errorf(format string, args ...any) {
	ses.annotate(actions.LevelError, fmt.Sprintf(format, args...))
}

func (ses *session) annotate(level actions.Level, msg string) {
	if err := ses.log.Annotate(actions.Annotation{Level: level, Message: strings.TrimSpace(msg)}); err != nil {
		ses.logger.Error("writing to the log", "error", err)
	}
}
