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
func (ses *session) cleanup(ctx context.Context) (int, error) {
	raw := ses.r.Env.State(stateName)
	if raw == "" {
		ses.logger.Info("post step: no check run was left in progress")
		return exitPassed, nil
	}
	var st checkRunState
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return exitError, fmt.Errorf("post step: reading the saved check runs: %w", err)
	}
	if st.Repo != ses.repo.String() {
		return exitError, fmt.Errorf("post step: the saved check runs are of %q, not of %s", st.Repo, ses.repo)
	}
	if len(st.Runs) > MaxCleanupRuns {
		st.Runs = st.Runs[:MaxCleanupRuns]
	}
	if ses.api == nil {
		return exitError, fmt.Errorf("post step: %d check runs may be left in progress, and there is no client to complete them: %v", len(st.Runs), ses.apiErr)
	}
	var errs []error
	completed := 0
	for _, saved := range st.Runs {
		run, err := ses.api.CheckRun(ctx, ses.repo, saved.ID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !run.InProgress() {
			continue
		}
		ses.started = append(ses.started, run) // for crashed, should Fail panic
		if err := ses.api.Fail(ctx, run, cleanupReason); err != nil {
			errs = append(errs, err)
			continue
		}
		completed++
		ses.warnf("swarm-gate: completed check run %s (%d) as failure: %s", run.Name, run.ID, cleanupReason)
	}
	ses.logger.Info("post step", "saved", len(st.Runs), "completed_as_failure", completed)
	if len(errs) > 0 {
		return exitError, fmt.Errorf("post step: completing the check runs left in progress: %w", errors.Join(errs...))
	}
	return exitPassed, nil
}
