package evaluate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// Deps are what an evaluation posts with, and how: the front door's
// choices, the same for every evaluation of a run.
type Deps struct {
	// API posts the check runs and comments; nil when there is none (no
	// token), NoAPI says why.
	API   API
	NoAPI error
	Repo  ghapi.Repo
	// Logger receives progress and API diagnostics (nil: slog.Default()).
	Logger *slog.Logger
	// WorkflowKey is the key of the check runs' external ids.
	WorkflowKey string
	// FullReport names where the untruncated report is, for the last line
	// of a cut check-run summary ("": report.DefaultFullReport).
	FullReport string
	// DeferGateRuns puts only the aggregate in progress at the start and
	// posts each gate's run, completed, once its result is known: one
	// request per gate instead of two (the App's API budget).
	DeferGateRuns bool
	// FinaliseTimeout bounds completing left-over check runs after the
	// context was cancelled (0: 6 s).
	FinaliseTimeout time.Duration
	// CancelledAsFailure completes the runs of a cancelled evaluation as
	// failure instead of cancelled (the App: its shutdown is no one's
	// cancellation).
	CancelledAsFailure bool
	// Track, when set, is told of the runs as they are started, and called
	// with none when a set was closed: the Action saves the runs left in
	// progress for its post step.
	Track func(started ...*ghapi.CheckRun)
	// Checkout is the repository Check and Run read.
	Checkout Checkout
	// Conversation is the run's pull request conversations: Check reads
	// the override records and posts the summary comment there (nil:
	// neither; Command makes one).
	Conversation *Conversation
	// Checked, when set, reports to the front door an evaluation a command
	// ran (the Action's step outputs and summary) and gives its exit code
	// and error; nil: Result.Verdict.
	Checked func(res Result, err error, t event.Target) (int, error)
	// Also, when set, reports to the front door an evaluation besides the
	// run's own (a phase pull request's phase-wrap) and gives its exit
	// code; nil: the report's, report.ExitError when its runs could not be
	// posted.
	Also func(res Result, t event.Target) int
	// Warn and Notice, when set, receive what the run should warn or tell
	// of (the Action: ::warning:: and ::notice:: lines); else it is logged.
	Warn, Notice func(msg string)
}

func (d *Deps) noticef(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if d.Notice == nil {
		d.logger().Info(msg)
		return
	}
	d.Notice(msg)
}

func (d *Deps) warnf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if d.Warn == nil {
		d.logger().Warn(msg)
		return
	}
	d.Warn(msg)
}

func (d *Deps) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}

func (d *Deps) track(runs ...*ghapi.CheckRun) {
	if d.Track != nil {
		d.Track(runs...)
	}
}

// finaliseTimeout is FinaliseTimeout, 6 s when unset.
func (d *Deps) finaliseTimeout() time.Duration {
	if d.FinaliseTimeout > 0 {
		return d.FinaliseTimeout
	}
	return 6 * time.Second
}

// ExternalIDOf is the external id of an evaluation of kind by d's workflow.
func (d *Deps) ExternalIDOf(kind string) string {
	return ExternalID(kind, d.WorkflowKey)
}

// CheckOutput renders res for its check run.
func (d *Deps) CheckOutput(res gates.Result) ghapi.CheckOutput {
	return report.CheckOutput(res, d.FullReport)
}

// NoTokenChecks is what an evaluation without a client says of its check
// runs.
const NoTokenChecks = "no token: the checks could not be posted; pass github-token or give the workflow a GITHUB_TOKEN"

// PostStatus says how posting check runs went.
type PostStatus int

const (
	Posted    PostStatus = iota // the check runs are on the commit
	NoToken                     // no client (no token)
	Forbidden                   // the token may not create check runs (a fork's read-only token)
	PostError                   // the API failed; runs started were completed as failure
)

// Runs is one evaluation's check runs on one commit.
type Runs struct {
	deps   *Deps
	SHA    string
	Names  []string
	runs   map[string]*ghapi.CheckRun
	fin    *ghapi.Finaliser
	Status PostStatus
	// Err is the first API error; Failed are the checks whose report did
	// not get through, with why.
	Err    error
	Failed map[string]error
	// cancelled is set when Close completed the runs left as cancelled
	// (the job was cancelled).
	cancelled bool
	// late, set by LateBy, is why reporting stopped: the report-timeout
	// ran out; deadline is when Close must be done by.
	late     error
	deadline time.Time
	// Stuck counts the runs still in progress after Close could not
	// complete them either (the post step or a re-run retries).
	Stuck int
	// deferred, with Deps.DeferGateRuns, are the gates' checks, whose
	// runs are posted completed when their results are known (deferred.go).
	deferred *deferredSet
}

// Started is how many of the set's runs were created.
func (cs *Runs) Started() int { return len(cs.runs) }

// Start puts the named check runs in progress on sha (a full commit SHA)
// for an evaluation of kind. It never fails: when runs cannot be created
// the set records why, and the caller reports another way.
func Start(ctx context.Context, d *Deps, sha string, names []string, kind string) *Runs {
	cs := &Runs{deps: d, SHA: sha, Names: names, runs: map[string]*ghapi.CheckRun{}, Failed: map[string]error{}}
	if d.API == nil {
		cs.Status, cs.Err = NoToken, d.NoAPI
		return cs
	}
	cs.fin = ghapi.NewFinaliser(d.API, d.logger())
	if cs.beginDeferred(ctx, names, kind) {
		return cs
	}
	extID := d.ExternalIDOf(kind)
	runs, err := d.API.StartChecks(ctx, d.Repo, sha, names, extID)
	cs.fin.Track(runs...)
	for _, run := range runs {
		cs.runs[run.Name] = run
	}
	d.track(runs...)
	switch {
	case err == nil:
		d.logger().Info("check runs started", "sha", sha, "checks", len(runs), "external_id", extID)
	case ghapi.IsForbidden(err) && len(runs) == 0:
		cs.Status, cs.Err = Forbidden, err
	default:
		cs.Status, cs.Err = PostError, err
	}
	return cs
}

// Complete reports a result on its run (no-op when the set is not posted).
func (cs *Runs) Complete(ctx context.Context, res gates.Result) {
	cs.record(res.Name, cs.send(ctx, res))
}

// sent is what send did: the run a deferred check created, and the error.
type sent struct {
	run *ghapi.CheckRun
	err error
}

// send reports a result on its run, changing nothing of the set but the
// run itself, so that several can be sent at once (CompleteAll); record
// applies what it returns. Nothing is sent when the set is not posted or
// ctx is done: Close completes what is left, with the reason.
func (cs *Runs) send(ctx context.Context, res gates.Result) sent {
	run := cs.runs[res.Name]
	if cs.Status == Posted && run == nil && cs.deferred != nil && cs.deferred.names[res.Name] && ctx.Err() == nil {
		d := cs.deferred
		run, err := cs.deps.API.PostCheck(ctx, cs.deps.Repo, cs.SHA, d.extID, d.earlier[res.Name], res.Name, cs.deps.CheckOutput(res))
		return sent{run: run, err: err}
	}
	if cs.Status != Posted || run == nil || ctx.Err() != nil {
		return sent{}
	}
	return sent{err: cs.deps.API.Complete(ctx, run, cs.deps.CheckOutput(res))}
}

// record applies what send did to the set: a deferred check's new run, a
// failure (the first one, in the order of the checks, is the set's Err).
func (cs *Runs) record(name string, s sent) {
	if s.run != nil {
		cs.runs[name] = s.run
		cs.fin.Track(s.run)
		if s.run.InProgress() {
			cs.deps.track(s.run)
		}
	}
	if s.err != nil {
		cs.Failed[name] = s.err
		if cs.Err == nil {
			cs.Err = s.err
		}
		cs.deps.logger().Error("reporting a check run", "check", name, "error", s.err)
	}
}

// reportConcurrency is how many check runs CompleteAll reports at once: a
// slow API then takes a quarter of the time, while staying well within
// GitHub's secondary rate limits (which frown on bursts of writes).
const reportConcurrency = 4

// CompleteAll reports results on their runs, reportConcurrency at a time,
// and records what happened in the order of results (so that the set's
// first error does not depend on which request came back first). A panic
// in a goroutine is re-raised here, on the caller's goroutine, with the
// goroutine's stack, so that the caller's crash recovery handles it.
func (cs *Runs) CompleteAll(ctx context.Context, results []gates.Result) {
	out := make([]sent, len(results))
	panics := make([]*GoroutinePanic, len(results))
	slots := make(chan struct{}, reportConcurrency)
	var wg sync.WaitGroup
	for i, res := range results {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() {
				if v := recover(); v != nil {
					panics[i] = &GoroutinePanic{Value: v, Stack: debug.Stack()}
				}
				<-slots
				wg.Done()
			}()
			out[i] = cs.send(ctx, res)
		}()
	}
	wg.Wait()
	for i, res := range results {
		if panics[i] != nil {
			panic(panics[i])
		}
		cs.record(res.Name, out[i])
	}
}

// GoroutinePanic is a panic recovered in a goroutine and raised again on
// the goroutine that waited for it, with the stack where it happened.
type GoroutinePanic struct {
	Value any
	Stack []byte
}

func (p *GoroutinePanic) String() string {
	return fmt.Sprintf("%v (in a goroutine: %s)", p.Value, p.Stack)
}

// Close completes every run still in progress as failure, with cause (the
// first API error, or the context's), bounded by FinaliseTimeout once the
// context is done. When the context was cancelled (SIGINT or SIGTERM: how
// the runner cancels a job) rather than timed out, they are completed as
// cancelled instead (unless CancelledAsFailure): the job carries no
// verdict, and saying failure would claim one. It marks the set failed
// when anything was left.
func (cs *Runs) Close(ctx context.Context) {
	defer cs.deps.track()
	if cs.fin == nil {
		return
	}
	cs.postLeftOver(ctx)
	left := false
	for _, run := range cs.runs {
		left = left || run.InProgress()
	}
	if !left {
		return
	}
	cause := cs.Err
	if cs.late != nil {
		cause = cs.late
	}
	if ctx.Err() != nil {
		cause = fmt.Errorf("the job was cancelled or timed out (%w)", context.Cause(ctx))
	}
	if cause == nil {
		cause = errors.New("swarm-gate did not complete this check")
	}
	if ctx.Err() != nil {
		cs.fin.Timeout = cs.deps.finaliseTimeout()
	} else if !cs.deadline.IsZero() {
		// What is left of report-timeout: at least its last fifth.
		cs.fin.Timeout = max(time.Until(cs.deadline), time.Millisecond)
	}
	var err error
	if cs.cancelled = errors.Is(ctx.Err(), context.Canceled) && !cs.deps.CancelledAsFailure; cs.cancelled {
		err = cs.fin.Cancel(ctx, fmt.Sprintf("the job was cancelled before swarm-gate reported this check (%v)", context.Cause(ctx)))
	} else {
		err = cs.fin.Close(ctx, cause)
	}
	if err != nil {
		cs.deps.logger().Error("completing left-over check runs", "error", err)
	}
	cs.Stuck = 0
	for _, run := range cs.runs {
		if run.InProgress() {
			cs.Stuck++
		}
	}
	if cs.Status == Posted {
		cs.Status = PostError
	}
	cs.Err = cause
}

// LateBy records that reporting ran out of its report-timeout (timeout,
// ending at deadline) with runs left: Close completes them, within what is
// left of it, with that as the reason.
func (cs *Runs) LateBy(timeout time.Duration, deadline time.Time) {
	cs.deadline = deadline
	cs.late = fmt.Errorf("the report-timeout (%s) ran out before this check was reported: GitHub's API did not answer in time", timeout)
	if cs.Err == nil {
		cs.Err = cs.late
	}
}

// URL is the run's page, "" when there is none.
func (cs *Runs) URL(name string) string {
	if run := cs.runs[name]; run != nil && cs.Status == Posted {
		return run.HTMLURL
	}
	return ""
}

// Why explains, for logs and summaries, why the set was not posted.
func (cs *Runs) Why() string {
	switch cs.Status {
	case NoToken:
		return NoTokenChecks
	case Forbidden:
		return "check runs were not posted: the token may not create check runs (a pull request from a fork gets a read-only GITHUB_TOKEN, or the workflow lacks `permissions: checks: write`); the findings are annotations of this step, and the workflow_run poster (see the README) posts the checks of pull requests from forks"
	case PostError:
		switch {
		case len(cs.runs) == 0:
			return fmt.Sprintf("check runs could not be started: %v", cs.Err)
		case cs.Stuck > 0:
			return fmt.Sprintf("check runs could not be reported, and %d of them could not be completed as failure either: they stay in progress until the post step or a re-run completes them: %v", cs.Stuck, cs.Err)
		}
		if cs.cancelled {
			return fmt.Sprintf("the job was cancelled before the check runs were reported, so those left were completed as cancelled: %v", cs.Err)
		}
		return fmt.Sprintf("check runs could not be reported, so those left were completed as failure: %v", cs.Err)
	}
	return ""
}

// CouldNotEvaluate is the result of a check swarm-gate could not evaluate.
func CouldNotEvaluate(name, why string) gates.Result {
	return gates.CouldNotEvaluate(name, errors.New(why))
}
