package ghapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// DefaultFinaliserTimeout bounds a Finaliser's Close.
const DefaultFinaliserTimeout = 30 * time.Second

// Finaliser makes sure that no check run is left in progress: Close
// completes every tracked run still in progress as failure, with the
// reason. Use it as
//
//	fin := ghapi.NewFinaliser(client, logger)
//	defer func() { _ = fin.Close(ctx, err) }() // err: the function's named error result
//	runs, err := client.StartChecks(ctx, repo, sha, names, externalID)
//	fin.Track(runs...) // also on error: runs holds those started
//
// Note the closure: "defer fin.Close(ctx, err)" would read err when the
// defer statement runs, before any error happens. A caller that recovers a
// panic should turn it into err before the deferred Close runs (defers run
// last-in first-out: recover in a defer registered after this one).
type Finaliser struct {
	checks Checks
	log    *slog.Logger
	// Timeout bounds Close (default DefaultFinaliserTimeout).
	Timeout time.Duration

	mu   sync.Mutex
	runs []*CheckRun
}

// NewFinaliser returns a Finaliser that completes runs through checks; log
// may be nil (slog.Default()).
func NewFinaliser(checks Checks, log *slog.Logger) *Finaliser {
	if log == nil {
		log = slog.Default()
	}
	return &Finaliser{checks: checks, log: log, Timeout: DefaultFinaliserTimeout}
}

// Track adds runs to those Close will look at; nil runs are ignored.
func (f *Finaliser) Track(runs ...*CheckRun) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range runs {
		if r != nil {
			f.runs = append(f.runs, r)
		}
	}
}

// FinaliserConcurrency bounds how many runs a Finaliser completes at once.
const FinaliserConcurrency = 8

// Close completes every tracked run still in progress as failure, with
// the title "could not evaluate: swarm-gate stopped before reporting this
// check: " and the first line of cause (cause may be nil: a run left in
// progress without an error is still a failure); the summary holds all of
// cause.
//
// Close works on a context of its own, derived from ctx without its
// cancellation (ctx is often the one that was cancelled) and bounded by
// Timeout, and completes up to FinaliserConcurrency runs at once, so that
// a slow API completes them all within the one budget rather than a few
// one after another. It tries every run, logs each failure, and returns
// them joined; a nil return means no tracked run is in progress. A panic
// while completing a run is recovered and returned as that run's error.
func (f *Finaliser) Close(ctx context.Context, cause error) error {
	reason := "swarm-gate stopped before reporting this check"
	if cause != nil {
		reason += ": " + cause.Error()
	}
	return f.CloseWithReason(ctx, reason)
}

// CloseWithReason is Close with the whole reason given: the title is
// "could not evaluate: " and its first line.
func (f *Finaliser) CloseWithReason(ctx context.Context, reason string) error {
	return f.closeWith(ctx, reason, false)
}

// Cancel is CloseWithReason for a job that was cancelled: each run left is
// completed as cancelled (Canceller.Cancel; title "cancelled: " and the
// first line of reason), or as failure when the Checks cannot cancel.
func (f *Finaliser) Cancel(ctx context.Context, reason string) error {
	return f.closeWith(ctx, reason, true)
}

func (f *Finaliser) closeWith(ctx context.Context, reason string, cancelled bool) error {
	canceller, canCancel := f.checks.(Canceller)
	cancelled = cancelled && canCancel
	f.mu.Lock()
	runs := append([]*CheckRun(nil), f.runs...)
	f.mu.Unlock()
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultFinaliserTimeout
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	seen := map[*CheckRun]bool{}
	var left []*CheckRun
	for _, run := range runs {
		if run.InProgress() && !seen[run] {
			seen[run] = true
			left = append(left, run)
		}
	}
	errs := make([]error, len(left))
	slots := make(chan struct{}, FinaliserConcurrency)
	var wg sync.WaitGroup
	for i, run := range left {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() {
				if v := recover(); v != nil {
					errs[i] = fmt.Errorf("completing check %s (run %d): panic: %v", run.Name, run.ID, v)
				}
				<-slots
				wg.Done()
			}()
			if cancelled {
				f.log.WarnContext(ctx, "completing a check run left in progress as cancelled", "check", run.Name, "id", run.ID, "reason", reason)
				errs[i] = canceller.Cancel(cctx, run, reason)
				return
			}
			f.log.WarnContext(ctx, "completing a check run left in progress as failure", "check", run.Name, "id", run.ID, "reason", reason)
			errs[i] = f.checks.Fail(cctx, run, reason)
		}()
	}
	wg.Wait()
	var failed []error
	for i, err := range errs {
		if err != nil {
			f.log.ErrorContext(ctx, "could not complete a check run left in progress", "check", left[i].Name, "id", left[i].ID, "error", err)
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("finalising check runs: %w", errors.Join(failed...))
	}
	return nil
}
