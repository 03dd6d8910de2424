package actionrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// postStatus says how posting check runs went.
type postStatus int

const (
	posted    postStatus = iota // the check runs are on the commit
	noToken                     // no token
	forbidden                   // the token may not create check runs (a fork's read-only token)
	postError                   // the API failed; runs started were completed as failure
)

// checkSet is one evaluation's check runs on one commit.
type checkSet struct {
	ses    *session
	sha    string
	names  []string
	runs   map[string]*ghapi.CheckRun
	fin    *ghapi.Finaliser
	status postStatus
	// err is the first API error; failed are the checks whose report did
	// not get through, with why.
	err    error
	failed map[string]error
	// cancelled is set when close completed the runs left as cancelled
	// (the job was cancelled).
	cancelled bool
	// late, set by lateBy, is why reporting stopped: the report-timeout
	// ran out; deadline is when close must be done by.
	late     error
	deadline time.Time
	// stuck counts the runs still in progress after close could not
	// complete them either (the post step or a re-run retries).
	stuck int
	// deferred, with Runner.DeferGateRuns, are the gates' checks, whose
	// runs are posted completed when their results are known (deferred.go).
	deferred *deferredSet
}

// startChecks puts the named check runs in progress on sha (a full commit
// SHA). It never fails: when runs cannot be created the set records why,
// and the caller reports another way.
func (ses *session) startChecks(ctx context.Context, sha string, names []string, kind string) *checkSet {
	cs := &checkSet{ses: ses, sha: sha, names: names, runs: map[string]*ghapi.CheckRun{}, failed: map[string]error{}}
	if ses.api == nil {
		cs.status, cs.err = noToken, ses.apiErr
		return cs
	}
	cs.fin = ghapi.NewFinaliser(ses.api, ses.logger)
	if ses.beginDeferred(ctx, cs, names, kind) {
		return cs
	}
	runs, err := ses.api.StartChecks(ctx, ses.repo, sha, names, ses.externalID(kind))
	cs.fin.Track(runs...)
	for _, run := range runs {
		cs.runs[run.Name] = run
	}
	ses.started = append(ses.started, runs...)
	ses.saveState()
	switch {
	case err == nil:
		ses.logger.Info("check runs started", "sha", sha, "checks", len(runs), "external_id", ses.externalID(kind))
	case ghapi.IsForbidden(err) && len(runs) == 0:
		cs.status, cs.err = forbidden, err
	default:
		cs.status, cs.err = postError, err
	}
	return cs
}

// complete reports a result on its run (no-op when the set is not posted).
func (cs *checkSet) complete(ctx context.Context, res gates.Result) {
	cs.record(res.Name, cs.send(ctx, res))
}

// sent is what send did: the run a deferred check created, and the error.
type sent struct {
	run *ghapi.CheckRun
	err error
}

// send reports a result on its run, changing nothing of the set but the
// run itself, so that several can be sent at once (completeAll); record
// applies what it returns. Nothing is sent when the set is not posted or
// ctx is done: close completes what is left, with the reason.
func (cs *checkSet) send(ctx context.Context, res gates.Result) sent {
	run := cs.runs[res.Name]
	if cs.status == posted && run == nil && cs.deferred != nil && cs.deferred.names[res.Name] && ctx.Err() == nil {
		d := cs.deferred
		run, err := d.api.PostCheck(ctx, cs.ses.repo, cs.sha, d.extID, d.earlier[res.Name], res.Name, cs.ses.checkOutput(res))
		return sent{run: run, err: err}
	}
	if cs.status != posted || run == nil || ctx.Err() != nil {
		return sent{}
	}
	return sent{err: cs.ses.api.Complete(ctx, run, cs.ses.checkOutput(res))}
}

// record applies what send did to the set: a deferred check's new run, a
// failure (the first one, in the order of the checks, is the set's err).
func (cs *checkSet) record(name string, s sent) {
	if s.run != nil {
		cs.runs[name] = s.run
		cs.fin.Track(s.run)
		if s.run.InProgress() {
			cs.ses.started = append(cs.ses.started, s.run)
		}
	}
	if s.err != nil {
		cs.failed[name] = s.err
		if cs.err == nil {
			cs.err = s.err
		}
		cs.ses.logger.Error("reporting a check run", "check", name, "error", s.err)
	}
}

// reportConcurrency is how many check runs completeAll reports at once: a
// slow API then takes a quarter of the time, while staying well within
// GitHub's secondary rate limits (which frown on bursts of writes).
const reportConcurrency = 4

// completeAll reports results on their runs, reportConcurrency at a time,
// and records what happened in the order of results (so that the set's
// first error does not depend on which request came back first). A panic
// in a goroutine is re-raised here, on the caller's goroutine, with the
// goroutine's stack, so that Run's crash recovery (crash.go) handles it.
func (cs *checkSet) completeAll(ctx context.Context, results []gates.Result) {
	out := make([]sent, len(results))
	panics := make([]*goroutinePanic, len(results))
	slots := make(chan struct{}, reportConcurrency)
	var wg sync.WaitGroup
	for i, res := range results {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() {
				if v := recover(); v != nil {
					panics[i] = &goroutinePanic{value: v, stack: debug.Stack()}
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

// goroutinePanic is a panic recovered in a goroutine and raised again on
// the goroutine that waited for it, with the stack where it happened.
type goroutinePanic struct {
	value any
	stack []byte
}

func (p *goroutinePanic) String() string {
	return fmt.Sprintf("%v (in a goroutine: %s)", p.value, p.stack)
}

// close completes every run still in progress as failure, with cause (the
// first API error, or the context's), bounded by FinaliseTimeout once the
// context is done. When the context was cancelled (SIGINT or SIGTERM: how
// the runner cancels a job) rather than timed out, they are completed as
// cancelled instead: the job carries no verdict, and saying failure would
// claim one. It marks the set failed when anything was left.
func (cs *checkSet) close(ctx context.Context) {
	defer cs.ses.saveState()
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
	cause := cs.err
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
		cs.fin.Timeout = cs.ses.r.FinaliseTimeout
		if cs.fin.Timeout <= 0 {
			cs.fin.Timeout = 6 * time.Second
		}
	} else if !cs.deadline.IsZero() {
		// What is left of report-timeout: at least its last fifth.
		cs.fin.Timeout = max(time.Until(cs.deadline), time.Millisecond)
	}
	var err error
	if cs.cancelled = errors.Is(ctx.Err(), context.Canceled) && !cs.ses.r.CancelledAsFailure; cs.cancelled {
		err = cs.fin.Cancel(ctx, fmt.Sprintf("the job was cancelled before swarm-gate reported this check (%v)", context.Cause(ctx)))
	} else {
		err = cs.fin.Close(ctx, cause)
	}
	if err != nil {
		cs.ses.logger.Error("completing left-over check runs", "error", err)
	}
	cs.stuck = 0
	for _, run := range cs.runs {
		if run.InProgress() {
			cs.stuck++
		}
	}
	cs.ses.stuck += cs.stuck
	if cs.status == posted {
		cs.status = postError
	}
	cs.err = cause
}

// lateBy records that reporting ran out of its report-timeout (timeout,
// ending at deadline) with runs left: close completes them, within what is
// left of it, with that as the reason.
func (cs *checkSet) lateBy(timeout time.Duration, deadline time.Time) {
	cs.deadline = deadline
	cs.late = fmt.Errorf("the report-timeout (%s) ran out before this check was reported: GitHub's API did not answer in time", timeout)
	if cs.err == nil {
		cs.err = cs.late
	}
}

// url is the run's page, "" when there is none.
func (cs *checkSet) url(name string) string {
	if run := cs.runs[name]; run != nil && cs.status == posted {
		return run.HTMLURL
	}
	return ""
}

// why explains, for logs and summaries, why the set was not posted.
func (cs *checkSet) why() string {
	switch cs.status {
	case noToken:
		return noTokenChecks
	case forbidden:
		return "check runs were not posted: the token may not create check runs (a pull request from a fork gets a read-only GITHUB_TOKEN, or the workflow lacks `permissions: checks: write`); the findings are annotations of this step, and the workflow_run poster (see the README) posts the checks of pull requests from forks"
	case postError:
		switch {
		case len(cs.runs) == 0:
			return fmt.Sprintf("check runs could not be started: %v", cs.err)
		case cs.stuck > 0:
			return fmt.Sprintf("check runs could not be reported, and %d of them could not be completed as failure either: they stay in progress until the post step or a re-run completes them: %v", cs.stuck, cs.err)
		}
		if cs.cancelled {
			return fmt.Sprintf("the job was cancelled before the check runs were reported, so those left were completed as cancelled: %v", cs.err)
		}
		return fmt.Sprintf("check runs could not be reported, so those left were completed as failure: %v", cs.err)
	}
	return ""
}

// checkRunState is what the main step saves for the post step: the check
// runs it started, so that the post step can complete any left in
// progress.
type checkRunState struct {
	Repo string          `json:"repo"`
	Runs []stateCheckRun `json:"runs"`
}

type stateCheckRun struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// stateName is the name of the saved state (STATE_check_runs).
const stateName = "check_runs"

// saveState records the runs still in progress for the post step ("" when
// none). Without GITHUB_STATE (a docker:// step has no post step) it does
// nothing.
func (ses *session) saveState() {
	if ses.r.Env.Get("GITHUB_STATE") == "" {
		return
	}
	st := checkRunState{Repo: ses.repo.String()}
	for _, run := range ses.started {
		if run.InProgress() {
			st.Runs = append(st.Runs, stateCheckRun{ID: run.ID, Name: run.Name})
		}
	}
	value := ""
	if len(st.Runs) > 0 {
		b, _ := json.Marshal(st)
		value = string(b)
	}
	if err := ses.r.Env.SaveState(stateName, value); err != nil {
		ses.logger.Warn("saving the check runs for the post step", "error", err)
	}
}

// checkOutput renders res for its check run.
func (ses *session) checkOutput(res gates.Result) ghapi.CheckOutput {
	return report.CheckOutput(res, ses.checkReport)
}
