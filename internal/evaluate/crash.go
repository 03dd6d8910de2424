package evaluate

import (
	"context"
	"fmt"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// Crashed is what a front door does with a panic v, and its stack, that it
// recovered from an evaluation: it logs both at error level, says the
// reason through say ("swarm-gate crashed: <v>; this is a bug, please
// report it"), and completes as failure, with that reason, every run of
// started still in progress (within FinaliseTimeout once ctx is done,
// else ghapi.DefaultFinaliserTimeout), saying through say when it could
// not. It returns the reason. A second panic while doing so is logged and
// otherwise ignored.
func (d *Deps) Crashed(ctx context.Context, started []*ghapi.CheckRun, v any, stack []byte, say func(msg string)) (reason string) {
	if gp, ok := v.(*GoroutinePanic); ok {
		// Raised again by CompleteAll: the stack that matters is the
		// goroutine's.
		v, stack = gp.Value, gp.Stack
	}
	reason = fmt.Sprintf("swarm-gate crashed: %v; this is a bug, please report it", v)
	log := d.logger()
	defer func() {
		if v2 := recover(); v2 != nil {
			log.Error("swarm-gate crashed again while completing its check runs", "panic", v2)
		}
	}()
	log.Error("swarm-gate crashed; this is a bug, please report it (with this log)", "panic", fmt.Sprint(v), "stack", string(stack))
	say(reason)
	if d.API == nil {
		return reason
	}
	fin := ghapi.NewFinaliser(d.API, log)
	fin.Timeout = ghapi.DefaultFinaliserTimeout
	if ctx.Err() != nil {
		fin.Timeout = d.finaliseTimeout()
	}
	left := 0
	for _, run := range started {
		if run.InProgress() {
			fin.Track(run)
			left++
		}
	}
	if left > 0 {
		if err := fin.CloseWithReason(ctx, reason); err != nil {
			say("swarm-gate: " + err.Error())
		}
	}
	return reason
}
