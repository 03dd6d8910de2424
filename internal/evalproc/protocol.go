// Package evalproc runs a webhook.Evaluator in a long-lived child process,
// so that the evaluations' CPU bursts (fetching, the gates, JSON) run in
// another process, at a lower priority, and no longer keep the server's Go
// schedulers from reading the webhook connections.
//
// The parent (Evaluator) and the child (ServeChild) talk over the child's
// standard input and output, one JSON object a line: first an initMsg,
// then jobMsg and cancelMsg from the parent, resultMsg from the child,
// many jobs in flight at once. The child's standard error is its log.
package evalproc

import (
	"encoding/json"
	"time"

	"github.com/swarm-gate/swarm-gate/webhook"
)

// initMsg is the first line to a child: what its setup function needs
// (Config.Init, opaque here) and the nice value its threads take.
type initMsg struct {
	Init json.RawMessage `json:"init"`
	// Nice is the absolute nice value for every thread of the child
	// (Linux; nil: unchanged).
	Nice *int `json:"nice,omitempty"`
}

// toChild is a line from the parent: a job (Job set) or the cancel of
// one (Cancel set).
type toChild struct {
	ID  uint64       `json:"id"`
	Job *webhook.Job `json:"job,omitempty"`
	// Deadline is the job's context deadline in the parent (zero: none).
	Deadline time.Time `json:"deadline,omitzero"`
	// Cancel asks the child to cancel job ID's context.
	Cancel bool `json:"cancel,omitempty"`
}

// resultMsg is a line from the child: job ID ended, with Error ("" when
// Evaluate returned nil), and a snapshot of the child's metrics
// (protojson-encoded dto.MetricFamily values) at most every second; ID 0
// carries only metrics.
type resultMsg struct {
	ID      uint64            `json:"id"`
	Error   string            `json:"error,omitempty"`
	Metrics []json.RawMessage `json:"metrics,omitempty"`
}

// maxLine bounds one protocol line (a job carries its payload; GitHub's
// are at most 25 MiB).
const maxLine = 64 << 20
