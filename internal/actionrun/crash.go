package actionrun

import (
	"context"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
)

// crashed handles a panic recovered by Run: evaluate.Deps.Crashed logs
// the panic value and the stack at error level and completes as failure
// every check run this step started that is still in progress
// ("swarm-gate crashed: <value>; this is a bug, please report it"); then
// the step saves what is left for the post step, sets the conclusion
// output to failure, says so in the step summary, and returns exit code
// 2 whatever fail-on says (the checks do not carry a verdict). A second
// panic while doing so is logged and otherwise ignored.
func (st *step) crashed(ctx context.Context, v any, stack []byte) (code int) {
	code = exitError
	d := st.d
	if d == nil { // before the inputs were read, or in the post step
		d = &evaluate.Deps{API: st.api, Logger: st.logger, FinaliseTimeout: st.r.FinaliseTimeout}
	}
	reason := d.Crashed(ctx, st.started, v, stack, func(msg string) { st.errorf("%s", msg) })
	defer func() {
		if v2 := recover(); v2 != nil {
			st.logger.Error("swarm-gate crashed again while completing its check runs", "panic", v2)
		}
	}()
	if st.api != nil && !st.postStep {
		st.saveState()
	}
	if !st.postStep && !st.reported && st.r.Env.OutputPath() != "" {
		st.reported = true
		if err := st.r.Env.SetOutput("conclusion", "failure"); err != nil {
			st.logger.Error("setting the conclusion output", "error", err)
		}
	}
	st.summaryNote("swarm-gate crashed", reason, code)
	return code
}

// reportStop reports a run that stopped with err before reporting an
// evaluation (a misconfigured action, a missing event, a head the checkout
// lacks): the conclusion output is failure, and the step summary says why.
// It does nothing once the outputs were written, and in the post step.
func (st *step) reportStop(code int, err error) {
	if st.reported || st.postStep {
		return
	}
	st.reported = true
	if st.r.Env.OutputPath() != "" {
		if serr := st.r.Env.SetOutput("conclusion", "failure"); serr != nil {
			st.warnf("swarm-gate: %v", serr)
		}
	}
	title := "swarm-gate could not run"
	if code == exitUsage {
		title = "swarm-gate: the action is misconfigured"
	}
	st.summaryNote(title, strings.TrimPrefix(err.Error(), errUsage.Error()+": "), code)
}

// summaryNote appends a short section to the step summary: a title, the
// reason in a code block, and the exit code.
func (st *step) summaryNote(title, why string, code int) {
	if st.postStep || st.r.Env.SummaryPath() == "" {
		return
	}
	body := fmt.Sprintf("## %s\n\n%s\nThe step exits with code %d; no check run carries a verdict from this run.\n\n", title, mdtext.CodeBlock(why), code)
	if err := st.r.Env.AppendSummary(body); err != nil {
		st.logger.Warn("writing the step summary", "error", err)
	}
}
