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

// Close completes every tracked run still in progress as failure, with
// the title "could not evaluate: swarm-gate stopped before reporting this
// check: " and the first line of cause (cause may be nil: a run left in
// progress without an error is still a failure); the summary holds all of
// cause.
//
// Close works on a context of its own, derived from ctx without its
// cancellation (ctx is often the one that was cancelled) and bounded by
// Timeout. It tries every run, logs each failure, and returns them joined;
// a nil return means no tracked run is in progress.
func (f *Finaliser) Close(ctx context.Context, cause error) error {
	f.mu.Lock()
	runs := append([]*CheckRun(nil), f.runs...)
	f.mu.Unlock()
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultFinaliserTimeout
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	reason := "swarm-gate stopped before reporting this check"
	if cause != nil {
		reason += ": " + cause.Error()
	}
	var errs []error
	for _, run := range runs {
		if !run.InProgress() {
			continue
		}
		f.log.WarnContext(ctx, "completing a check run left in progress as failure", "check", run.Name, "id", run.ID, "reason", reason)
		if err := f.checks.Fail(cctx, run, reason); err != nil {
			f.log.ErrorContext(ctx, "could not complete a check run left in progress", "check", run.Name, "id", run.ID, "error", err)
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("finalising check runs: %w", errors.Join(errs...))
	}
	return nil
}
