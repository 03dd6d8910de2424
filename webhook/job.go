// Package webhook is swarm-gate's GitHub App server: it takes GitHub's
// webhook deliveries at POST /webhook, verifies and de-duplicates them,
// turns the ones it acts on into Jobs, and runs them on a bounded worker
// pool with per-pull-request serialisation and coalescing. What a Job does
// (fetch the commits, run the gates, post the check runs) is an Evaluator's.
package webhook

import (
	"context"
	"time"
)

// Job is one unit of work taken from one delivery.
type Job struct {
	// Delivery is the X-GitHub-Delivery GUID; Event the X-GitHub-Event
	// name (pull_request, check_suite, check_run, merge_group,
	// issue_comment) and Action the payload's action field.
	Delivery, Event, Action string
	// Repo is the repository's full name, "owner/name".
	Repo string
	// Installation is the GitHub App installation id from the payload.
	Installation int64
	// PR is the pull request number; 0 when the delivery names none (a
	// merge group, a check suite without pull requests).
	PR int
	// HeadSHA is the commit the checks go on (40 hex digits), when the
	// payload gives one.
	HeadSHA string
	// Key serialises work: never two jobs with the same key at once
	// ("owner/name#12" for a pull request, "owner/name@<sha>" otherwise).
	Key string
	// Updated is the pull request's updated_at from a pull_request
	// payload (RFC 3339, GitHub's clock), zero for other events. Of two
	// pull_request jobs for one key, the one with the older Updated is the
	// stale one, whichever arrived last (see queue.offer). check_suite and
	// check_run jobs leave it zero: their check suite's updated_at moves
	// when a re-run is requested, so it does not order pushes.
	Updated time.Time
	// Coalesce is true when a newer job with the same Key makes this one
	// pointless while it still waits in the queue (a new push supersedes
	// an evaluation of the old head); false for jobs that must each run
	// (comment commands).
	Coalesce bool
	// Payload is the delivery's raw JSON body, as GitHub sent it.
	Payload []byte
	// Received is when the delivery arrived.
	Received time.Time
}

// Evaluator does a Job's work. Evaluate is called from a worker with a
// context that carries the job's deadline and is cancelled on shutdown;
// when the context ends mid-way, the Evaluator must still leave no check
// run in progress (complete them as failure, saying why). The returned
// error is logged and counted; it is never sent back to GitHub.
type Evaluator interface {
	Evaluate(ctx context.Context, job Job) error
}

// Abandoner is implemented by an Evaluator that can tell GitHub about a
// job it will never evaluate: one answered 202 and still waiting for a
// worker when the shutdown deadline passed (Server.Shutdown). Abandon is
// called once for each such job, from Shutdown, with a context of its own
// that carries a short deadline (Config.AbandonTimeout); it should leave a
// completed check run saying that the job was not evaluated and how to
// have it evaluated again, so that no required check waits forever for
// a delivery GitHub considers delivered. Its errors are its own to log.
type Abandoner interface {
	Abandon(ctx context.Context, job Job, reason string)
}

// EvaluatorFunc adapts a function to an Evaluator.
type EvaluatorFunc func(ctx context.Context, job Job) error

// Evaluate calls f.
func (f EvaluatorFunc) Evaluate(ctx context.Context, job Job) error { return f(ctx, job) }
