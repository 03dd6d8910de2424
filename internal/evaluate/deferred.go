package evaluate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// deferredSet is the part of a Runs whose runs are created when their
// results are known (Deps.DeferGateRuns): the gates' runs, while the
// aggregate is put in progress at the start.
type deferredSet struct {
	// names are the deferred checks; earlier their runs left by an earlier
	// attempt with the same external id, to update instead of duplicating.
	names   map[string]bool
	earlier map[string]*ghapi.CheckRun
	extID   string
}

// beginDeferred starts the aggregate (names[0]) and looks up the earlier
// runs of the gates (names[1:]), whose runs are posted by Complete. It
// reports whether it applies: DeferGateRuns is set and the set has an
// aggregate and gates.
func (cs *Runs) beginDeferred(ctx context.Context, names []string, kind string) bool {
	deps := cs.deps
	if !deps.DeferGateRuns || len(names) < 2 || names[0] != AggregateCheck {
		return false
	}
	d := &deferredSet{names: map[string]bool{}, extID: deps.ExternalIDOf(kind)}
	for _, n := range names[1:] {
		d.names[n] = true
	}
	runs, earlier, err := deps.API.BeginChecks(ctx, deps.Repo, cs.SHA, names[:1], names[1:], d.extID)
	d.earlier = earlier
	cs.deferred = d
	cs.fin.Track(runs...)
	for _, run := range runs {
		cs.runs[run.Name] = run
	}
	deps.track(runs...)
	switch {
	case err == nil:
		deps.logger().Info("check runs started", "sha", cs.SHA, "checks", len(runs), "deferred", len(d.names), "earlier", len(earlier), "external_id", d.extID)
	case ghapi.IsForbidden(err) && len(runs) == 0:
		cs.Status, cs.Err = Forbidden, err
	default:
		cs.Status, cs.Err = PostError, err
	}
	return true
}

// postLeftOver creates, completed as failure with the cause, every
// deferred check whose run was never posted (the evaluation stopped, or
// its post failed), so that a required check never waits forever; bounded
// by FinaliseTimeout when ctx is done.
func (cs *Runs) postLeftOver(ctx context.Context) {
	d := cs.deferred
	if d == nil || cs.Status == Forbidden || cs.Status == NoToken || len(cs.runs) == 0 {
		// Nothing was started (as with StartChecks failing in the
		// Action): there is no run to keep company.
		return
	}
	var left []string
	for _, name := range cs.Names {
		if d.names[name] && cs.runs[name] == nil {
			left = append(left, name)
		}
	}
	if len(left) == 0 {
		return
	}
	cause := cs.Err
	if ctx.Err() != nil {
		cause = fmt.Errorf("the job was cancelled or timed out (%w)", context.Cause(ctx))
	}
	if cause == nil {
		cause = errors.New("swarm-gate did not complete this check")
	}
	pctx := ctx
	if ctx.Err() != nil {
		timeout := cs.deps.finaliseTimeout()
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
			cs.deps.logger().Warn("posting a check run that was never reported as failure", "check", name, "reason", why)
			runs[i], errs[i] = cs.deps.API.PostCheck(pctx, cs.deps.Repo, cs.SHA, d.extID, d.earlier[name], name, cs.deps.CheckOutput(CouldNotEvaluate(name, why)))
		}()
	}
	wg.Wait()
	for i, name := range left {
		if run := runs[i]; run != nil {
			cs.runs[name] = run
			cs.fin.Track(run)
		}
		if err := errs[i]; err != nil {
			if cs.Failed[name] == nil {
				cs.Failed[name] = err
			}
			cs.deps.logger().Error("could not post a check run as failure", "check", name, "error", err)
		}
	}
}
