package actionrun

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// deferredSet is the part of a checkSet whose runs are created when their
// results are known (Runner.DeferGateRuns): the gates' runs, while the
// aggregate is put in progress at the start.
type deferredSet struct {
	api ghapi.DeferredChecks
	// names are the deferred checks; earlier their runs left by an earlier
	// attempt with the same external id, to update instead of duplicating.
	names   map[string]bool
	earlier map[string]*ghapi.CheckRun
	extID   string
}

// beginDeferred starts the aggregate (names[0]) and looks up the earlier
// runs of the gates (names[1:]), whose runs are posted by complete. It
// reports whether it applies: DeferGateRuns is set and the set has an
// aggregate and gates.
func (ses *session) beginDeferred(ctx context.Context, cs *checkSet, names []string, kind string) bool {
	api := ses.api
	if !ses.r.DeferGateRuns || len(names) < 2 || names[0] != aggregateName {
		return false
	}
	d := &deferredSet{api: api, names: map[string]bool{}, extID: ses.externalID(kind)}
	for _, n := range names[1:] {
		d.names[n] = true
	}
	runs, earlier, err := api.BeginChecks(ctx, ses.repo, cs.sha, names[:1], names[1:], d.extID)
	d.earlier = earlier
	cs.deferred = d
	cs.fin.Track(runs...)
	for _, run := range runs {
		cs.runs[run.Name] = run
	}
	ses.started = append(ses.started, runs...)
	ses.saveState()
	switch {
	case err == nil:
		ses.logger.Info("check runs started", "sha", cs.sha, "checks", len(runs), "deferred", len(d.names), "earlier", len(earlier), "external_id", d.extID)
	case ghapi.IsForbidden(err) && len(runs) == 0:
		cs.status, cs.err = forbidden, err
	default:
		cs.status, cs.err = postError, err
	}
	return true
}

// postLeftOver creates, completed as failure with the cause, every
// deferred check whose run was never posted (the evaluation stopped, or
// its post failed), so that a required check never waits forever; bounded
// by FinaliseTimeout when ctx is done.
func (cs *checkSet) postLeftOver(ctx context.Context) {
	d := cs.deferred
	if d == nil || cs.status == forbidden || cs.status == noToken || len(cs.runs) == 0 {
		// Nothing was started (as with StartChecks failing in the
		// Action): there is no run to keep company.
		return
	}
	var left []string
	for _, name := range cs.names {
		if d.names[name] && cs.runs[name] == nil {
			left = append(left, name)
		}
	}
	if len(left) == 0 {
		return
	}
	cause := cs.err
	if ctx.Err() != nil {
		cause = fmt.Errorf("the job was cancelled or timed out (%w)", context.Cause(ctx))
	}
	if cause == nil {
		cause = errors.New("swarm-gate did not complete this check")
	}
	pctx := ctx
	if ctx.Err() != nil {
		timeout := cs.ses.r.FinaliseTimeout
		if timeout <= 0 {
			timeout = 6 * time.Second
		}
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
	}
	// Concurrently, as the Finaliser does, so that a slow API posts them
	// all within the one budget.
	why := fmt.Sprintf("swarm-gate stopped before reporting this check: %v", cause)
	runs := make([]*ghapi.CheckRun, len(left))
	errs := make([]error, len(left))
	slots := make(chan struct{}, ghapi.FinaliserConcurrency)
	var wg sync.WaitGroup
	for i, name := range left {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() {
				if v := recover(); v != nil {
					errs[i] = fmt.Errorf("posting check %s: panic: %v", name, v)
				}
				<-slots
				wg.Done()
			}()
			cs.ses.logger.Warn("posting a check run that was never reported as failure", "check", name, "reason", why)
			runs[i], errs[i] = d.api.PostCheck(pctx, cs.ses.repo, cs.sha, d.extID, d.earlier[name], name, cs.ses.checkOutput(couldNotEvaluate(name, why)))
		}()
	}
	wg.Wait()
	for i, name := range left {
		if run := runs[i]; run != nil {
			cs.runs[name] = run
			cs.fin.Track(run)
		}
		if err := errs[i]; err != nil {
			if cs.failed[name] == nil {
				cs.failed[name] = err
			}
			cs.ses.logger.Error("could not post a check run as failure", "check", name, "error", err)
		}
	}
}
