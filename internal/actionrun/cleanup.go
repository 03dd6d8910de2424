package actionrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// cleanupReason is the title of a check run the post step completes.
const cleanupReason = "the swarm-gate step ended before completing this check (the job was cancelled, timed out, or the process was killed)"

// MaxCleanupRuns bounds how many saved check runs the post step reads.
const MaxCleanupRuns = 100

// cleanup is the action's post step (post-entrypoint): it reads the check
// runs the main step saved while they were in progress (STATE_check_runs)
// and completes as failure each that GitHub still has in progress. The
// main step saves an empty list once it has completed them all, so after a
// normal run this does nothing. It covers what the main step's own
// finaliser cannot: SIGKILL, a job timeout, a runner that lost the
// process.
func (st *step) cleanup(ctx context.Context) (int, error) {
	raw := st.r.Env.State(stateName)
	if raw == "" {
		st.logger.Info("post step: no check run was left in progress")
		return exitPassed, nil
	}
	var saved checkRunState
	if err := json.Unmarshal([]byte(raw), &saved); err != nil {
		return exitError, fmt.Errorf("post step: reading the saved check runs: %w", err)
	}
	if saved.Repo != st.repo.String() {
		return exitError, fmt.Errorf("post step: the saved check runs are of %q, not of %s", saved.Repo, st.repo)
	}
	if len(saved.Runs) > MaxCleanupRuns {
		saved.Runs = saved.Runs[:MaxCleanupRuns]
	}
	if st.api == nil {
		return exitError, fmt.Errorf("post step: %d check runs may be left in progress, and there is no client to complete them: %v", len(saved.Runs), st.apiErr)
	}
	var errs []error
	completed := 0
	for _, s := range saved.Runs {
		run, err := st.api.CheckRun(ctx, st.repo, s.ID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !run.InProgress() {
			continue
		}
		st.started = append(st.started, run) // for crashed, should Fail panic
		if err := st.api.Fail(ctx, run, cleanupReason); err != nil {
			errs = append(errs, err)
			continue
		}
		completed++
		st.warnf("swarm-gate: completed check run %s (%d) as failure: %s", run.Name, run.ID, cleanupReason)
	}
	st.logger.Info("post step", "saved", len(saved.Runs), "completed_as_failure", completed)
	if len(errs) > 0 {
		return exitError, fmt.Errorf("post step: completing the check runs left in progress: %w", errors.Join(errs...))
	}
	return exitPassed, nil
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
func (st *step) saveState() {
	if st.r.Env.Get("GITHUB_STATE") == "" {
		return
	}
	saved := checkRunState{Repo: st.repo.String()}
	for _, run := range st.started {
		if run.InProgress() {
			saved.Runs = append(saved.Runs, stateCheckRun{ID: run.ID, Name: run.Name})
		}
	}
	value := ""
	if len(saved.Runs) > 0 {
		b, _ := json.Marshal(saved)
		value = string(b)
	}
	if err := st.r.Env.SaveState(stateName, value); err != nil {
		st.logger.Warn("saving the check runs for the post step", "error", err)
	}
}
