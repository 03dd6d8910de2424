package webhook

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Defaults for the zero fields of a Config.
const (
	// DefaultQueueSize is how many jobs may wait for a worker.
	DefaultQueueSize = 256
	// DefaultJobTimeout bounds one evaluation.
	DefaultJobTimeout = 10 * time.Minute
	// DefaultMaxBody is GitHub's own cap on a webhook payload, 25 MiB.
	DefaultMaxBody = 25 << 20
	// DefaultDedupeSize is how many delivery ids are remembered.
	DefaultDedupeSize = 10_000
	// DefaultRetryAfter is the Retry-After sent with a 503.
	DefaultRetryAfter = 60 * time.Second
	// DefaultBodyBudget is how many body bytes may be read at once.
	DefaultBodyBudget = 128 << 20
	// DefaultBodyWait is how long a body waits for room in the budget.
	DefaultBodyWait = time.Second
	// DefaultBodyTimeout is how long a whole body may take to arrive.
	// GitHub sends a delivery at once and gives up on an answer after 10 s,
	// so a body still arriving after 5 s is not a delivery worth waiting for.
	DefaultBodyTimeout = 5 * time.Second
	// DefaultBodyStallTimeout is how long a body may go without a byte
	// arriving (its first byte, and between reads): GitHub sends the whole
	// body at once.
	DefaultBodyStallTimeout = time.Second
	// DefaultHeaderTimeout is how long a request's headers may take to
	// arrive (HTTPServer's ReadHeaderTimeout).
	DefaultHeaderTimeout = 2 * time.Second
	// DefaultMaxPerSource is how many requests from one source (an IPv4
	// address, an IPv6 /64) may be read at once, before their signatures
	// are checked.
	DefaultMaxPerSource = 16
	// DefaultMaxUnverified is how many connections may be open at once
	// before a verified delivery arrives on them.
	DefaultMaxUnverified = 1024
	// DefaultMaxUnverifiedPerSource is how many of those one source (an
	// IPv4 address, an IPv6 /64) may hold.
	DefaultMaxUnverifiedPerSource = 64
	// DefaultAbandonTimeout bounds each Abandoner.Abandon call.
	DefaultAbandonTimeout = 10 * time.Second
)

// Config configures a Server. Only Secret and Evaluator are required.
type Config struct {
	// Secret is the GitHub App's webhook secret: every delivery's
	// X-Hub-Signature-256 must be the HMAC-SHA256 of its body keyed with it.
	// Required; New fails without it.
	Secret []byte
	// Evaluator does the work of each queued Job. Required.
	Evaluator Evaluator
	// Workers is how many jobs run at once (jobs with different keys);
	// default 2*GOMAXPROCS.
	Workers int
	// QueueSize is how many jobs may wait for a worker; a delivery that
	// would exceed it gets 503 with Retry-After. Default DefaultQueueSize.
	QueueSize int
	// JobTimeout is the deadline of each evaluation's context, counted from
	// when a worker starts it. Default DefaultJobTimeout (10 minutes).
	JobTimeout time.Duration
	// MaxBody is the largest request body accepted, in bytes; larger gets
	// 413. Default DefaultMaxBody (25 MiB, GitHub's own cap).
	MaxBody int64
	// DedupeSize is how many delivery ids (X-GitHub-Delivery) are
	// remembered to answer redeliveries as duplicates; the least recently
	// seen are forgotten first. Default DefaultDedupeSize.
	DedupeSize int
	// RetryAfter is the Retry-After sent with a 503 (queue full, shutting
	// down), rounded up to whole seconds. Default DefaultRetryAfter.
	RetryAfter time.Duration
	// BodyBudget bounds the bytes of request bodies being read at once,
	// before their signatures are checked (anyone can send them): a body
	// draws on it only for bytes that have arrived (its buffer grows to at
	// most twice what has arrived, and at most its Content-Length), so a
	// connection that declares a large body and sends nothing holds
	// nothing. An eighth of it is kept for
	// bodies under 1 MiB, so GitHub's usual deliveries never wait behind
	// large ones; the rest must hold at least one MaxBody body. A body
	// that finds no room within BodyWait is refused with 503 and
	// Retry-After. Default DefaultBodyBudget (128 MiB).
	BodyBudget int64
	// BodyWait is how long a body may wait for room in BodyBudget.
	// Default DefaultBodyWait (1 s).
	BodyWait time.Duration
	// BodyTimeout is how long a request's body may take to arrive, counted
	// from when its headers were read; a slower one gets 408 and gives its
	// budget back. Default DefaultBodyTimeout (5 s).
	BodyTimeout time.Duration
	// BodyStallTimeout is how long a body may go without a byte arriving,
	// from its headers to its first byte and between reads; a stalled one
	// gets 408 and gives its budget back. Default DefaultBodyStallTimeout
	// (1 s).
	BodyStallTimeout time.Duration
	// HeaderTimeout is how long a request's headers may take to arrive,
	// HTTPServer's ReadHeaderTimeout. Default DefaultHeaderTimeout (2 s).
	HeaderTimeout time.Duration
	// MaxPerSource is how many requests from one source may be read at
	// once before their signatures are checked; one more gets 429 with
	// Retry-After. A source is the connection's remote IP (never
	// X-Forwarded-For, which anyone can write): an IPv4 address (an
	// IPv4-mapped IPv6 address counts as IPv4), or an IPv6 address's /64,
	// which one host usually has to itself. Default DefaultMaxPerSource
	// (16); negative: no limit (behind a proxy, where every request comes
	// from the proxy's address, limit there instead).
	MaxPerSource int
	// MaxUnverified is how many connections may be open at once before a
	// delivery with a valid signature arrives on them (counted through
	// ConnState, which HTTPServer sets); one more closes the oldest
	// unverified connection, not the new one, since GitHub's deliveries
	// are done in milliseconds. Default DefaultMaxUnverified (1024);
	// negative: no cap.
	MaxUnverified int
	// MaxUnverifiedPerSource is how many of those connections one source
	// (the same source as MaxPerSource's: an IPv4 address, an IPv6 /64) may
	// hold; one more closes that source's oldest, so that one address
	// opening thousands of empty connections a second sheds only its own,
	// never another source's (GitHub's) deliveries. Default
	// DefaultMaxUnverifiedPerSource (64); negative: no cap (behind a
	// proxy, where every connection comes from the proxy's address).
	MaxUnverifiedPerSource int
	// AbandonTimeout bounds each call of the Evaluator's Abandon (when it
	// is an Abandoner) for the jobs Shutdown drops. Default
	// DefaultAbandonTimeout (10 s).
	AbandonTimeout time.Duration
	// Logger receives the server's logs (a JSON handler in production).
	// Default slog.Default().
	Logger *slog.Logger
	// Registerer is where the swarm_gate_* metrics are registered, and
	// Gatherer what GET /metrics serves. When both are nil the Server uses
	// a registry of its own (never the global one). When only Registerer is
	// set it must also be a prometheus.Gatherer (a *prometheus.Registry is).
	// Registering fails, and so does New, if the names are already taken.
	Registerer prometheus.Registerer
	Gatherer   prometheus.Gatherer
	// Now is the clock that stamps Job.Received; default time.Now.
	Now func() time.Time
}

// Server is the GitHub App's webhook intake and worker pool. Create it with
// New, serve Handler, call Start to run jobs and Shutdown to stop.
type Server struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics
	handler http.Handler

	// base is the parent of every job's context; cancelBase ends the
	// running jobs when Shutdown's deadline passes.
	base       context.Context
	cancelBase context.CancelFunc

	q      *queue
	budget *byteBudget
	// sources counts the requests being read per remote IP (MaxPerSource).
	sourcesMu sync.Mutex
	sources   map[string]int
	// conns counts the connections not yet verified (MaxUnverified,
	// MaxUnverifiedPerSource).
	conns *connTracker
	// unready is set by Unready: GET /readyz answers 503 while deliveries
	// are still taken.
	unready atomic.Bool
	workers sync.WaitGroup
	// done is closed when every worker has returned after Shutdown.
	done chan struct{}
}

// New checks cfg, fills in its defaults and registers the metrics. The
// Server accepts deliveries as soon as its Handler is served; jobs run once
// Start is called. Errors: a missing (or only white space) Secret or
// Evaluator, a negative size or duration, a BodyBudget too small for a
// MaxBody body, metrics that cannot be registered.
func New(cfg Config) (*Server, error) {
	if len(bytes.TrimSpace(cfg.Secret)) == 0 {
		return nil, errors.New("webhook: Config.Secret is empty or only white space: set it to the GitHub App's webhook secret (App settings > Webhook secret)")
	}
	if cfg.Evaluator == nil {
		return nil, errors.New("webhook: Config.Evaluator is nil: the server needs something to run its jobs")
	}
	if cfg.Workers < 0 || cfg.QueueSize < 0 || cfg.JobTimeout < 0 || cfg.MaxBody < 0 || cfg.DedupeSize < 0 || cfg.RetryAfter < 0 ||
		cfg.BodyBudget < 0 || cfg.BodyWait < 0 || cfg.AbandonTimeout < 0 || cfg.BodyTimeout < 0 || cfg.BodyStallTimeout < 0 || cfg.HeaderTimeout < 0 {
		return nil, fmt.Errorf("webhook: Config has a negative value (Workers %d, QueueSize %d, JobTimeout %s, MaxBody %d, DedupeSize %d, RetryAfter %s, BodyBudget %d, BodyWait %s, AbandonTimeout %s, BodyTimeout %s, BodyStallTimeout %s, HeaderTimeout %s): use 0 for the default",
			cfg.Workers, cfg.QueueSize, cfg.JobTimeout, cfg.MaxBody, cfg.DedupeSize, cfg.RetryAfter, cfg.BodyBudget, cfg.BodyWait, cfg.AbandonTimeout, cfg.BodyTimeout, cfg.BodyStallTimeout, cfg.HeaderTimeout)
	}
	if cfg.Workers == 0 {
		cfg.Workers = 2 * runtime.GOMAXPROCS(0)
	}
	if cfg.QueueSize == 0 {
		cfg.QueueSize = DefaultQueueSize
	}
	if cfg.JobTimeout == 0 {
		cfg.JobTimeout = DefaultJobTimeout
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.DedupeSize == 0 {
		cfg.DedupeSize = DefaultDedupeSize
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = DefaultRetryAfter
	}
	if cfg.BodyBudget == 0 {
		cfg.BodyBudget = DefaultBodyBudget
	}
	if cfg.BodyTimeout == 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.MaxPerSource == 0 {
		cfg.MaxPerSource = DefaultMaxPerSource
	}
	if cfg.BodyStallTimeout == 0 {
		cfg.BodyStallTimeout = DefaultBodyStallTimeout
	}
	if cfg.HeaderTimeout == 0 {
		cfg.HeaderTimeout = DefaultHeaderTimeout
	}
	if cfg.MaxUnverified == 0 {
		cfg.MaxUnverified = DefaultMaxUnverified
	}
	if cfg.MaxUnverifiedPerSource == 0 {
		cfg.MaxUnverifiedPerSource = DefaultMaxUnverifiedPerSource
	}
	if cfg.BodyWait == 0 {
		cfg.BodyWait = DefaultBodyWait
	}
	if cfg.AbandonTimeout == 0 {
		cfg.AbandonTimeout = DefaultAbandonTimeout
	}
	small := cfg.BodyBudget / 8
	if cfg.BodyBudget-small < cfg.MaxBody {
		return nil, fmt.Errorf("webhook: Config.BodyBudget %d leaves %d bytes for large bodies (an eighth is kept for small ones), less than one MaxBody body (%d bytes): raise BodyBudget to at least %d",
			cfg.BodyBudget, cfg.BodyBudget-small, cfg.MaxBody, cfg.MaxBody+cfg.MaxBody/7+1)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	switch {
	case cfg.Registerer == nil && cfg.Gatherer == nil:
		reg := prometheus.NewRegistry()
		cfg.Registerer, cfg.Gatherer = reg, reg
	case cfg.Registerer == nil:
		return nil, errors.New("webhook: Config.Gatherer is set but Config.Registerer is nil: the metrics would not be registered where /metrics reads them; set both (a *prometheus.Registry is both)")
	case cfg.Gatherer == nil:
		g, ok := cfg.Registerer.(prometheus.Gatherer)
		if !ok {
			return nil, fmt.Errorf("webhook: Config.Registerer (%T) is not a prometheus.Gatherer and Config.Gatherer is nil: set Config.Gatherer for GET /metrics", cfg.Registerer)
		}
		cfg.Gatherer = g
	}
	m, err := newMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     cfg,
		log:     cfg.Logger,
		metrics: m,
		q:       newQueue(cfg.QueueSize, cfg.DedupeSize),
		budget:  newByteBudget(small, cfg.BodyBudget-small),
		done:    make(chan struct{}),
	}
	s.conns = newConnTracker(cfg.MaxUnverified, cfg.MaxUnverifiedPerSource, m.connsShed.Inc, m.connsShedSource.Inc)
	s.q.depthGauge, s.q.runningGauge = m.queueDepth, m.jobsRunning
	s.base, s.cancelBase = context.WithCancel(context.Background())
	s.handler = s.routes()
	return s, nil
}

// Handler serves:
//
//	POST /webhook  GitHub's deliveries: 202 queued; 200 duplicate, ping,
//	               the second delivery of one push, or older than the one
//	               waiting for its pull request; 204 ignored; 400, 401,
//	               405, 413; 503 with Retry-After (queue full, no room to
//	               read the body, shutting down). The steps are in
//	               intake.go, serveWebhook.
//	GET /healthz   200 while the process is up
//	GET /readyz    200 once Start has run, 503 before, after Unready and
//	               while shutting down
//
// GET /metrics is not among them: MetricsHandler serves it, on a listener
// of its own, since the metrics name installations and repositories.
func (s *Server) Handler() http.Handler { return s.handler }

// MetricsHandler serves GET /metrics (the Gatherer, in Prometheus' text
// format) and GET /healthz. With a non-empty token, /metrics answers 401
// unless the request carries "Authorization: Bearer <token>".
func (s *Server) MetricsHandler(token string) http.Handler {
	mux := http.NewServeMux()
	prom := promhttp.HandlerFor(s.cfg.Gatherer, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelError),
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		if token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="swarm-gate metrics"`)
				writeText(w, http.StatusUnauthorized, "a bearer token is required")
				return
			}
		}
		prom.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeText(w, http.StatusOK, "ok")
	})
	return mux
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/webhook", s.serveWebhook)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeText(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", s.serveReady)
	return mux
}

func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	switch started, closing := s.q.state(); {
	case closing:
		writeText(w, http.StatusServiceUnavailable, "shutting down")
	case s.unready.Load():
		writeText(w, http.StatusServiceUnavailable, "stopping: deliveries are still taken until the shutdown delay ends; route new ones elsewhere")
	case !started:
		writeText(w, http.StatusServiceUnavailable, "not started: workers are not running")
	default:
		writeText(w, http.StatusOK, "ready")
	}
}

// Start starts the workers. Calling it again, or after Shutdown, does
// nothing.
func (s *Server) Start() {
	if !s.q.start() {
		return
	}
	s.workers.Add(s.cfg.Workers)
	for range s.cfg.Workers {
		go s.work()
	}
	go func() {
		s.workers.Wait()
		close(s.done)
	}()
	s.log.Info("webhook workers started", "workers", s.cfg.Workers, "queue_size", s.cfg.QueueSize, "job_timeout", s.cfg.JobTimeout.String())
}

// Unready makes GET /readyz answer 503 while POST /webhook keeps taking
// deliveries: the first step of stopping, so that a load balancer stops
// routing to this replica before Shutdown refuses deliveries. Shutdown
// follows it after a delay (serve's SWARM_GATE_SHUTDOWN_DELAY).
func (s *Server) Unready() {
	if !s.unready.Swap(true) {
		s.log.Info("webhook server unready: /readyz answers 503, deliveries are still taken")
	}
}

// Shutdown stops taking deliveries (POST /webhook and GET /readyz answer
// 503 from now on) and lets the workers finish the running and queued jobs.
// If ctx ends first, the jobs still waiting are dropped (logged, counted in
// swarm_gate_jobs_dropped_total and handed to the Evaluator's Abandon when
// it is an Abandoner), the running jobs' contexts are cancelled, and
// Shutdown waits for their Evaluators and the Abandon calls to return. It
// returns nil when every queued job ran; otherwise an error that says how
// many jobs were dropped and, when the deadline passed, wraps ctx's error
// (the running jobs were cancelled then). Shutdown does not close the HTTP
// listener: call http.Server.Shutdown after it. Safe to call more than
// once.
func (s *Server) Shutdown(ctx context.Context) error {
	started := s.q.close()
	s.log.Info("webhook server shutting down: no new deliveries", "queued", s.q.depth())
	if !started {
		// No worker will ever run what waits: drop it now.
		n := s.abandon(s.q.drain(), "server was never started")
		s.cancelBase()
		if n > 0 {
			return fmt.Errorf("webhook: %d queued jobs were dropped: the workers were never started", n)
		}
		return nil
	}
	select {
	case <-s.done:
		s.cancelBase()
		s.log.Info("webhook server drained: every queued job ran")
		return nil
	case <-ctx.Done():
	}
	running := s.q.runningCount()
	s.log.Warn("webhook shutdown deadline passed: dropping the waiting jobs, cancelling the running ones", "running", running, "err", ctx.Err().Error())
	dropped := s.q.drain() // before the cancelled workers could take them
	abandoned := make(chan int, 1)
	go func() { abandoned <- s.abandon(dropped, "shutdown deadline passed before a worker took the job") }()
	s.cancelBase()
	<-s.done
	n := <-abandoned
	return fmt.Errorf("webhook: shutdown deadline passed: %d running jobs cancelled (their check runs are completed as failure), %d waiting jobs dropped: %w", running, n, ctx.Err())
}

// abandonConcurrency bounds the Abandon calls made at once.
const abandonConcurrency = 8

// abandon counts and logs the dropped jobs, hands each to the Evaluator's
// Abandon (when it is an Abandoner; up to abandonConcurrency at once, each
// with a context bounded by AbandonTimeout), and returns how many.
func (s *Server) abandon(jobs []Job, why string) int {
	ab, _ := s.cfg.Evaluator.(Abandoner)
	slots := make(chan struct{}, abandonConcurrency)
	var wg sync.WaitGroup
	for _, j := range jobs {
		s.metrics.jobsDropped.Inc()
		if ab == nil {
			s.log.Warn("job dropped at shutdown: "+why+"; redeliver it from the App's Advanced settings", jobAttrs(j)...)
			continue
		}
		s.log.Warn("job dropped at shutdown: "+why+"; telling GitHub it was not evaluated", jobAttrs(j)...)
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					s.log.Error("abandoning a dropped job panicked", append(jobAttrs(j), "panic", fmt.Sprint(p))...)
				}
				<-slots
				wg.Done()
			}()
			ctx, cancel := context.WithTimeout(context.Background(), s.cfg.AbandonTimeout)
			defer cancel()
			ab.Abandon(ctx, j, "the swarm-gate server shut down ("+why+")")
		}()
	}
	wg.Wait()
	return len(jobs)
}

// writeText answers with a short plain-text body.
func writeText(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	if code != http.StatusNoContent {
		io.WriteString(w, msg+"\n")
	}
}

// jobAttrs are the attributes of every log line about a job.
func jobAttrs(j Job) []any {
	return []any{"delivery", j.Delivery, "event", j.Event, "action", j.Action, "repo", j.Repo, "pr", j.PR, "head_sha", j.HeadSHA}
}
