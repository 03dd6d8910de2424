package actionrun

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// crashed handles a panic recovered by Run: it logs the panic value and
// the stack at error level, completes as failure every check run this
// step started that is still in progress ("swarm-gate crashed: <value>;
// this is a bug, please report it"), sets the conclusion output to
// failure, and returns exit code 2 whatever fail-on says (the checks do
// not carry a verdict). A second panic while doing so is logged and
// otherwise ignored.
func (ses *session) crashed(ctx context.Context, v any, stack []byte) (code int) {
	code = exitError
	if gp, ok := v.(*evaluate.GoroutinePanic); ok {
		// Raised again by CompleteAll: the stack that matters is the
		// goroutine's.
		v, stack = gp.Value, gp.Stack
	}
	reason := fmt.Sprintf("swarm-gate crashed: %v; this is a bug, please report it", v)
	defer func() {
		if v2 := recover(); v2 != nil {
			ses.logger.Error("swarm-gate crashed again while completing its check runs", "panic", v2)
		}
	}()
	ses.logger.Error("swarm-gate crashed; this is a bug, please report it (with this log)", "panic", fmt.Sprint(v), "stack", string(stack))
	ses.errorf("%s", reason)
	if ses.api != nil {
		fin := ghapi.NewFinaliser(ses.api, ses.logger)
		fin.Timeout = ses.finaliseTimeout(ctx)
		left := 0
		for _, run := range ses.started {
			if run.InProgress() {
				fin.Track(run)
				left++
			}
		}
		if left > 0 {
			if err := fin.CloseWithReason(ctx, reason); err != nil {
				ses.errorf("swarm-gate: %v", err)
			}
		}
		if !ses.postStep {
			ses.saveState()
		}
	}
	if !ses.postStep && !ses.reported && ses.r.Env.OutputPath() != "" {
		ses.reported = true
		if err := ses.r.Env.SetOutput("conclusion", "failure"); err != nil {
			ses.logger.Error("setting the conclusion output", "error", err)
		}
	}
	ses.summaryNote("swarm-gate crashed", reason, code)
	return code
}

// finaliseTimeout bounds completing left-over check runs: FinaliseTimeout
// (6 s by default) once ctx is done, else ghapi.DefaultFinaliserTimeout.
func (ses *session) finaliseTimeout(ctx context.Context) time.Duration {
	if ctx.Err() == nil {
		return ghapi.DefaultFinaliserTimeout
	}
	if ses.r.FinaliseTimeout > 0 {
		return ses.r.FinaliseTimeout
	}
	return 6 * time.Second
}

// reportStop reports a run that stopped with err before reporting an
// evaluation (a misconfigured action, a missing event, a head the checkout
// lacks): the conclusion output is failure, and the step summary says why.
// It does nothing once the outputs were written, and in the post step.
func (ses *session) reportStop(code int, err error) {
	if ses.reported || ses.postStep {
		return
	}
	ses.reported = true
	if ses.r.Env.OutputPath() != "" {
		if serr := ses.r.Env.SetOutput("conclusion", "failure"); serr != nil {
			ses.warnf("swarm-gate: %v", serr)
		}
	}
	title := "swarm-gate could not run"
	if code == exitUsage {
		title = "swarm-gate: the action is misconfigured"
	}
	ses.summaryNote(title, strings.TrimPrefix(err.Error(), errUsage.Error()+": "), code)
}

// summaryNote appends a short section to the step summary: a title, the
// reason in a code block, and the exit code.
func (ses *session) summaryNote(title, why string, code int) {
	if ses.postStep || ses.r.Env.SummaryPath() == "" {
		return
	}
	body := fmt.Sprintf("## %s\n\n%s\nThe step exits with code %d; no check run carries a verdict from this run.\n\n", title, codeBlock(why), code)
	if err := ses.r.Env.AppendSummary(body); err != nil {
		ses.logger.Warn("writing the step summary", "error", err)
	}
}
