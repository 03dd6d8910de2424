package actionrun

import (
	"context"

	"github.com/swarm-gate/swarm-gate/internal/evaluate"
)

// publish posts the checks of a pull request from a fork, whose own run
// had a read-only token (evaluate.Publish), from the report input.
func (ses *session) publish(ctx context.Context) (int, error) {
	return evaluate.Publish(ctx, ses.deps(), ses.evalSettings(), ses.ev, ses.s.Report)
}
