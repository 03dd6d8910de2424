package webhook

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Delivery outcomes, the outcome label of swarm_gate_deliveries_total.
const (
	outcomeQueued           = "queued"               // 202: a job was queued (or replaced a waiting one)
	outcomeDuplicate        = "duplicate"            // 200: the delivery id was queued before
	outcomeIgnored          = "ignored"              // 204: an event or action swarm-gate does not act on
	outcomePing             = "ping"                 // 200: GitHub's ping
	outcomeUnauthorized     = "unauthorized"         // 401: bad or missing signature
	outcomeTooLarge         = "too_large"            // 413: body over MaxBody
	outcomeQueueFull        = "queue_full"           // 503: QueueSize jobs already wait
	outcomeBadRequest       = "bad_request"          // 400: missing headers, invalid JSON, missing fields
	outcomeShuttingDown     = "shutting_down"        // 503: Shutdown has begun
	outcomeMethodNotAllowed = "method_not_allowed"   // 405: not a POST
	outcomeBusy             = "busy"                 // 503: no room in BodyBudget to read the body
	outcomeSlowBody         = "slow_body"            // 408: the body stalled (BodyStallTimeout) or did not arrive within BodyTimeout
	outcomeTooManyFromSrc   = "too_many_from_source" // 429: MaxPerSource requests from the address are being read
	outcomeStale            = "stale"                // 200: older than the delivery waiting for its pull request
	outcomeSameCommit       = "same_commit"          // 200: the other delivery of the same push was queued
)

// metrics are the server's Prometheus collectors.
type metrics struct {
	deliveries      *prometheus.CounterVec   // event, outcome
	queueDepth      prometheus.Gauge         //
	jobsRunning     prometheus.Gauge         //
	coalesced       prometheus.Counter       //
	jobsDropped     prometheus.Counter       //
	evalDuration    *prometheus.HistogramVec // event, result
	evaluations     *prometheus.CounterVec   // event, result
	queueWait       *prometheus.HistogramVec // event
	connsShed       prometheus.Counter       //
	connsShedSource prometheus.Counter       //
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swarm_gate_deliveries_total",
			Help: "Webhook deliveries received at POST /webhook, by X-GitHub-Event (\"unknown\" before the signature is checked, \"other\" for events swarm-gate does not know) and outcome (queued, duplicate, stale, same_commit, ignored, ping, unauthorized, too_large, busy, queue_full, bad_request, shutting_down, method_not_allowed).",
		}, []string{"event", "outcome"}),
		queueDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "swarm_gate_queue_depth",
			Help: "Jobs waiting for a worker.",
		}),
		jobsRunning: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "swarm_gate_jobs_running",
			Help: "Jobs being evaluated.",
		}),
		coalesced: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "swarm_gate_jobs_coalesced_total",
			Help: "Jobs superseded before they ran by a newer delivery for the same key: a waiting job replaced by a newer push to the same pull request, or a pull_request delivery older (pull_request.updated_at) than the one waiting, not queued.",
		}),
		jobsDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "swarm_gate_jobs_dropped_total",
			Help: "Queued jobs never run because the shutdown deadline passed first (each is handed to the Evaluator's Abandon, when it has one).",
		}),
		evalDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "swarm_gate_evaluation_duration_seconds",
			Help:    "Time the Evaluator took for one job, in seconds, by event and result (ok, error, timeout, canceled).",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"event", "result"}),
		evaluations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swarm_gate_evaluations_total",
			Help: "Jobs evaluated, by event and result (ok, error, timeout, canceled).",
		}, []string{"event", "result"}),
		queueWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "swarm_gate_queue_wait_seconds",
			Help:    "Time from a delivery's arrival to the start of its evaluation, in seconds, by event.",
			Buckets: []float64{0.001, 0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 600},
		}, []string{"event"}),
		connsShed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "swarm_gate_connections_shed_total",
			Help: "Connections closed because more than MaxUnverified were open before a delivery with a valid signature arrived on them (the oldest is closed).",
		}),
		connsShedSource: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "swarm_gate_connections_shed_per_source_total",
			Help: "Connections closed because their source (an IPv4 address, an IPv6 /64) had more than MaxUnverifiedPerSource open before a delivery with a valid signature arrived on them (that source's oldest is closed).",
		}),
	}
	for _, c := range []prometheus.Collector{m.deliveries, m.queueDepth, m.jobsRunning, m.coalesced, m.jobsDropped, m.evalDuration, m.evaluations, m.queueWait, m.connsShed, m.connsShedSource} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				return nil, fmt.Errorf("webhook: registering metrics: %w (one Registerer per Server: give each Server its own prometheus.NewRegistry())", err)
			}
			return nil, fmt.Errorf("webhook: registering metrics: %w", err)
		}
	}
	return m, nil
}

// knownEvents are the X-GitHub-Event values used as metric labels; others
// count as "other", so that a sender cannot grow the label set.
var knownEvents = map[string]bool{
	"pull_request": true, "check_suite": true, "check_run": true, "merge_group": true,
	"issue_comment": true, "installation": true, "installation_repositories": true, "ping": true,
}

func eventLabel(event string) string {
	if knownEvents[event] {
		return event
	}
	return "other"
}
