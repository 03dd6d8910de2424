package app

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the App's Prometheus collectors (the webhook server has its
// own: deliveries, queue, evaluation latency).
type metrics struct {
	apiCalls      *prometheus.CounterVec // method
	cacheHits     prometheus.Counter
	rateRemaining *prometheus.GaugeVec // installation
	perEvaluation prometheus.Histogram
	fetches       *prometheus.CounterVec // mode
	fetchSeconds  prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		apiCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swarm_gate_api_calls_total",
			Help: "GitHub REST API requests sent (retries included, cache hits not), by HTTP method.",
		}, []string{"method"}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "swarm_gate_api_cache_hits_total",
			Help: "GitHub API GET requests answered from the per-evaluation cache instead of being sent.",
		}),
		rateRemaining: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "swarm_gate_rate_limit_remaining",
			Help: "The x-ratelimit-remaining header of the latest GitHub API response of each installation (its id; \"app\" for the App's own requests, signed with its JWT, installation tokens included): the requests left in that rate-limit window.",
		}, []string{"installation"}),
		perEvaluation: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "swarm_gate_evaluation_api_calls",
			Help:    "GitHub REST API requests sent for one evaluation (installation token included when it was minted for it).",
			Buckets: []float64{1, 5, 10, 15, 20, 30, 50, 100, 200},
		}),
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swarm_gate_fetches_total",
			Help: "Fetches of an evaluation's commits, by how they ended: shallow, merge-base (GitHub's compare API gave the merge base the first fetch did not reach), deepened, full, refs (the server would not serve the commits by SHA), failed.",
		}, []string{"mode"}),
		fetchSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "swarm_gate_fetch_duration_seconds",
			Help:    "Time to fetch an evaluation's commits over git's smart HTTP protocol, in seconds.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.apiCalls, m.cacheHits, m.rateRemaining, m.perEvaluation, m.fetches, m.fetchSeconds} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				return nil, fmt.Errorf("app: registering metrics: %w (one Registerer per App: give each its own prometheus.NewRegistry())", err)
			}
			return nil, fmt.Errorf("app: registering metrics: %w", err)
		}
	}
	return m, nil
}
