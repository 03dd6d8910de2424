package actionrun

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/source"
)

// InProcess is an evaluation for a caller that is not a workflow step
// (the GitHub App): it brings its own client, the repository it fetched
// and the event it parsed. Nothing is read from a runner's environment
// and nothing is written for a runner (no outputs, step summary, state,
// report files or workflow commands): what a step would annotate becomes
// records of Logger.
type InProcess struct {
	// API is the client the check runs and comments are posted with (nil:
	// none, as without a token).
	API API
	// Repo is the repository; Workspace the path of its local clone, which
	// Git (when not nil) is already open on.
	Repo      ghapi.Repo
	Workspace string
	Git       *source.Git
	// Event is the event, with its Name; Work what event.Route made of it
	// (nil: route it as the Action does in mode auto).
	Event *actions.Event
	Work  *event.Work
	// WorkflowKey is the key of the check runs' external ids
	// (evaluate.WorkflowKey).
	WorkflowKey string
	// FullReport names where the untruncated report is, for the last line
	// of a cut check-run summary ("": report.DefaultFullReport).
	FullReport string
	// Logger receives progress, API diagnostics and what a step would
	// have annotated (nil: slog.Default()).
	Logger *slog.Logger
	// Version, BotLogin, FinaliseTimeout, OrgPolicy, SourceError and
	// MergeBase are as the Runner's fields of the same names.
	Version         string
	BotLogin        string
	FinaliseTimeout time.Duration
	OrgPolicy       *OrgPolicyCache
	SourceError     error
	MergeBase       KnownMergeBase
}

// Evaluate does what in.Event asks, as Run does for a workflow run in mode
// auto with no inputs, but with the gates' check runs deferred
// (Runner.DeferGateRuns), no report files, and a cancelled context
// reported as failure (Runner.CancelledAsFailure): the GitHub App's
// settings. It returns the exit code (as Run's) and the last error it
// logged ("" when none).
func Evaluate(ctx context.Context, in InProcess) (code int, lastError string) {
	logger := in.Logger
	if logger == nil {
		logger = slog.Default()
	}
	r := &Runner{
		// A runner environment with nothing set: no inputs, no outputs.
		Env:                actions.NewEnv(func(string) (string, bool) { return "", false }),
		Logger:             logger,
		Version:            in.Version,
		BotLogin:           in.BotLogin,
		FinaliseTimeout:    in.FinaliseTimeout,
		DeferGateRuns:      true,
		OrgPolicy:          in.OrgPolicy,
		SourceError:        in.SourceError,
		Repo:               in.Git,
		NoReportFiles:      true,
		CancelledAsFailure: true,
		Event:              in.Event,
		Work:               in.Work,
		MergeBase:          in.MergeBase,
	}
	rec := &recordLog{log: logger}
	ses := &session{r: r, log: rec, logger: logger, repo: in.Repo, workspace: in.Workspace, workflowKey: in.WorkflowKey, checkReport: in.FullReport}
	if in.API != nil {
		ses.api = in.API
	} else {
		ses.apiErr = errNoToken
	}
	defer func() {
		if v := recover(); v != nil {
			code = ses.crashed(ctx, v, debug.Stack())
		}
		lastError = rec.lastError()
	}()
	return ses.conclude(ses.dispatch(ctx)), ""
}

// stepLog is where a run writes what the step's log shows: *actions.Log
// in a workflow step, a recordLog in process.
type stepLog interface {
	Annotate(a actions.Annotation) error
	AddMask(secret string) error
	Group(name string) error
	EndGroup() error
	PrintUntrusted(text string) error
}

var _ stepLog = (*actions.Log)(nil)

// recordLog is the step log of an evaluation in process: annotations
// become log records at the matching level (their message only); masks,
// groups and the text report (the repository's own text) are dropped.
type recordLog struct {
	log *slog.Logger

	mu   sync.Mutex
	last string
}

func (l *recordLog) Annotate(a actions.Annotation) error {
	level := slog.LevelInfo
	switch a.Level {
	case actions.LevelError:
		level = slog.LevelError
		l.mu.Lock()
		l.last = a.Message
		l.mu.Unlock()
	case actions.LevelWarning:
		level = slog.LevelWarn
	}
	l.log.Log(context.Background(), level, a.Message, "source", "evaluation")
	return nil
}

func (*recordLog) AddMask(string) error        { return nil }
func (*recordLog) Group(string) error          { return nil }
func (*recordLog) EndGroup() error             { return nil }
func (*recordLog) PrintUntrusted(string) error { return nil }

// lastError is the message of the last error annotation ("" when none).
func (l *recordLog) lastError() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}
