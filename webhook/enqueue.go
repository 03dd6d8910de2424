package webhook

import (
	"fmt"
	"time"
)

// EnqueueResult says what Server.Enqueue did with a job.
type EnqueueResult int

const (
	// Enqueued: the job waits for a worker.
	Enqueued EnqueueResult = iota
	// EnqueueBusy: a job with the same key is waiting or running on this
	// server; it will evaluate the pull request, so the job was not
	// queued.
	EnqueueBusy
	// EnqueueFull: QueueSize jobs already wait.
	EnqueueFull
	// EnqueueClosing: Shutdown has begun.
	EnqueueClosing
	// EnqueueDuplicate: a job with this Delivery was queued before.
	EnqueueDuplicate
)

func (r EnqueueResult) String() string {
	switch r {
	case Enqueued:
		return "queued"
	case EnqueueBusy:
		return "busy"
	case EnqueueFull:
		return "queue full"
	case EnqueueClosing:
		return "shutting down"
	case EnqueueDuplicate:
		return "duplicate"
	}
	return fmt.Sprintf("EnqueueResult(%d)", int(r))
}

// Enqueue queues a job that did not come from a delivery (the App's
// reconciler), through the same queue as the deliveries: its Key
// serialises it with them, so it never runs at once with an evaluation of
// the same pull request on this server. Unlike a delivery, it never
// supersedes nor waits behind a job of its key: when one is waiting or
// running, Enqueue leaves it to that job (EnqueueBusy). j.Delivery must be
// unique (it is de-duplicated like a delivery id) and j.Received is set
// when zero. Safe for concurrent use.
func (s *Server) Enqueue(j Job) EnqueueResult {
	if j.Received.IsZero() {
		j.Received = s.cfg.Now()
	}
	q := s.q
	q.mu.Lock()
	busy := q.running[j.Key]
	if !busy {
		for el := q.waiting.Front(); el != nil; el = el.Next() {
			if el.Value.(*Job).Key == j.Key {
				busy = true
				break
			}
		}
	}
	q.mu.Unlock()
	if busy {
		return EnqueueBusy
	}
	// Between the look and the offer a delivery of the same key may have
	// been queued: the offer then coalesces with it (same key), which is
	// what a delivery arriving a moment later would have done.
	switch out := q.offer(j, j.Received); out.res {
	case offerQueued:
		if out.superseded != nil {
			s.metrics.coalesced.Inc()
		}
		s.log.Info("job queued", append(jobAttrs(j), "source", "enqueue")...)
		return Enqueued
	case offerDuplicate, offerStale, offerSameCommit:
		return EnqueueDuplicate
	case offerFull:
		return EnqueueFull
	default:
		return EnqueueClosing
	}
}

// JobTimeout is the deadline of each evaluation (Config.JobTimeout, its
// default filled in): an evaluation whose check runs are still queued or
// in progress after it has ended without completing them.
func (s *Server) JobTimeout() time.Duration { return s.cfg.JobTimeout }
