package main

import (
	"context"
	"crypto/rsa"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/swarm-gate/swarm-gate/internal/app"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// serveSetting is one setting of `swarm-gate serve`: an environment
// variable, and the flag that overrides it ("" for secrets, which are never
// taken on the command line, where other users of the machine can read
// them).
type serveSetting struct {
	env, flag, def, usage string
}

// switchSettings are the settings whose flag is a switch: --flag alone is
// true, --flag=false is false.
var switchSettings = map[string]bool{"SWARM_GATE_REDELIVER_FAILED": true, "SWARM_GATE_RECONCILE": true}

var serveSettings = []serveSetting{
	{"SWARM_GATE_APP_ID", "app-id", "", "the GitHub App's id (App settings > About > App ID); required"},
	{"SWARM_GATE_PRIVATE_KEY_PATH", "private-key-path", "", "the App's private key, a .pem file; or set SWARM_GATE_PRIVATE_KEY to its contents"},
	{"SWARM_GATE_PRIVATE_KEY", "", "", ""},
	{"SWARM_GATE_WEBHOOK_SECRET", "", "", ""},
	{"SWARM_GATE_GITHUB_API_URL", "github-api-url", "https://api.github.com/", "the GitHub API (GitHub Enterprise Server: https://HOST/api/v3/)"},
	{"SWARM_GATE_LISTEN", "listen", ":8080", "address to serve POST /webhook, /healthz and /readyz on"},
	{"SWARM_GATE_METRICS_LISTEN", "metrics-listen", "127.0.0.1:9090", "address to serve GET /metrics on (its own listener: the metrics name installations; \"off\": none); set SWARM_GATE_METRICS_TOKEN to require a bearer token"},
	{"SWARM_GATE_METRICS_TOKEN", "", "", ""},
	{"SWARM_GATE_WORKERS", "workers", strconv.Itoa(min(2*runtime.GOMAXPROCS(0), maxWorkers)), "evaluations run at once (by default twice the CPUs; 0: the same)"},
	{"SWARM_GATE_QUEUE_SIZE", "queue-size", strconv.Itoa(webhook.DefaultQueueSize), "deliveries that may wait for a worker before the server answers 503 (0: the default)"},
	{"SWARM_GATE_JOB_TIMEOUT", "job-timeout", "10m", "deadline of one evaluation"},
	{"SWARM_GATE_BODY_TIMEOUT", "body-timeout", "5s", "how long a delivery's body may take to arrive before the server answers 408 (GitHub sends it at once)"},
	{"SWARM_GATE_MAX_PER_SOURCE", "max-per-source", "16", "requests from one source (an IPv4 address, an IPv6 /64) read at once before their signatures are checked; one more gets 429 (-1: no limit, e.g. behind a proxy that limits per client)"},
	{"SWARM_GATE_MAX_UNVERIFIED_PER_SOURCE", "max-unverified-per-source", "64", "connections from one source open at once before a delivery with a valid signature arrives on them; one more closes that source's oldest (-1: no limit, e.g. behind a proxy)"},
	{"SWARM_GATE_SHUTDOWN_DELAY", "shutdown-delay", "5s", "on SIGTERM or SIGINT, how long deliveries are still taken while /readyz answers 503, so that a load balancer stops routing here first (0: none)"},
	{"SWARM_GATE_SHUTDOWN_TIMEOUT", "shutdown-timeout", "20s", "after the shutdown delay, how long the running and queued evaluations may take before they are cancelled or dropped (their check runs are then completed as failure)"},
	{"SWARM_GATE_EVALUATOR", "evaluator", "inprocess", "where evaluations run: inprocess (in the server's process) or process (in one child process at nice +10 on Linux, so that the intake answers GitHub at once while evaluations saturate the CPUs)"},
	{"SWARM_GATE_WORK_DIR", "work-dir", "", "where each evaluation's temporary clone goes (default: the system's temporary directory)"},
	{"SWARM_GATE_FETCH_DEPTH", "fetch-depth", "50", "history fetched first from the base and the head; deepened, then full, until their merge base is found"},
	{"SWARM_GATE_REDELIVER_FAILED", "redeliver-failed", "false", "at start-up, ask GitHub to redeliver the App's deliveries of the last hour that failed (the variable: true or false)"},
	{"SWARM_GATE_RECONCILE", "reconcile", "1", "re-evaluate, every reconcile interval, the open pull requests whose swarm-gate checks are missing or stuck past the job timeout (the variable: 1 or 0, true or false)"},
	{"SWARM_GATE_RECONCILE_INTERVAL", "reconcile-interval", "10m", "time between two reconcile passes (each within ±10%)"},
	{"SWARM_GATE_RECONCILE_MIN_BUDGET", "reconcile-min-budget", "500", "a reconcile pass skips an installation with fewer API requests left in its rate-limit hour (-1: never skip)"},
	{"SWARM_GATE_LOG", "", "info", ""},
}

// logLevels are the values of SWARM_GATE_LOG.
var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// boolSetting is a switch flag whose value is checked with the other
// settings: --flag alone sets "true"; --flag=VALUE sets VALUE.
type boolSetting struct{ v *string }

func (b boolSetting) String() string {
	if b.v == nil {
		return ""
	}
	return *b.v
}
func (b boolSetting) Set(s string) error { *b.v = s; return nil }
func (b boolSetting) IsBoolFlag() bool   { return true }

// serveUsage is `swarm-gate serve -h`.
// maxWorkers and maxQueueSize bound SWARM_GATE_WORKERS and
// SWARM_GATE_QUEUE_SIZE.
const (
	maxWorkers   = 4096
	maxQueueSize = 100_000
)

const serveUsage = `usage: swarm-gate serve [flags]

Runs the GitHub App: verifies and queues GitHub's webhook deliveries at
POST /webhook, evaluates pull requests and merge groups with the Action's
own pipeline (fetching their commits with the installation's token), and
posts the check runs. Settings come from the environment; each flag
overrides its variable. The private key and the webhook secret are read
from the environment only:

  SWARM_GATE_PRIVATE_KEY      the App's private key (PEM), instead of a file
  SWARM_GATE_WEBHOOK_SECRET   the App's webhook secret; required

Logs are JSON on stderr (SWARM_GATE_LOG: debug, info, warn or error).
SIGTERM or SIGINT: /readyz answers 503 at once while deliveries are still
taken for the shutdown delay; then no new deliveries, and the queue drains
until the shutdown timeout; what is still running is cancelled and what
still waits is dropped, each with its aggregate check run completed as
failure saying how to re-run it. Exit codes: 0 stopped cleanly, every
accepted delivery evaluated; 1 stopped, but evaluations were cancelled or
dropped at the shutdown timeout; 2 could not start (GitHub refused the
App's credentials, the address is taken) or stopped serving; 3 a setting is
missing or wrong (every such setting is listed).

`

// serveConfig is serve's configuration, checked.
type serveConfig struct {
	appID                                      int64
	privateKey                                 *rsa.PrivateKey
	secret                                     string
	apiURL, listen, workDir                    string
	metricsListen, metricsToken                string
	workers, queueSize, fetchDepth             int
	maxPerSource, maxUnverifiedPerSource       int
	jobTimeout, shutdownDelay, shutdownTimeout time.Duration
	bodyTimeout                                time.Duration
	redeliverFailed                            bool
	reconcile                                  bool
	reconcileInterval                          time.Duration
	reconcileMinBudget                         int
	logLevel                                   slog.Level
	// processEvaluator is SWARM_GATE_EVALUATOR=process.
	processEvaluator bool
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, code := serveFlags(args, stdout, stderr)
	if cfg == nil {
		return code
	}
	// One writer for the server's records and the evaluator child's.
	out := &lockedWriter{w: stderr}
	log := slog.New(slog.NewJSONHandler(out, &slog.HandlerOptions{Level: cfg.logLevel}))
	return serveWith(ctx, cfg, log, out)
}

// lockedWriter serialises Writes, so that two loggers' lines do not mix.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// serveFlags reads the settings: environment, then flags. On error or -h it
// returns nil and the exit code.
func serveFlags(args []string, stdout, stderr io.Writer) (*serveConfig, int) {
	fs := newFlagSet("serve", args, stdout, stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
	}
	values := map[string]*string{}
	for _, s := range serveSettings {
		v := os.Getenv(s.env)
		if v == "" {
			v = s.def
		}
		val := v
		values[s.env] = &val
		switch {
		case s.flag != "" && switchSettings[s.env]:
			fs.Var(boolSetting{values[s.env]}, s.flag, s.usage+" ("+s.env+")")
		case s.flag != "":
			fs.StringVar(values[s.env], s.flag, v, s.usage+" ("+s.env+")")
		}
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, exitUsage
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "swarm-gate serve: unexpected argument %q\n", pos[0])
		return nil, exitUsage
	}
	get := func(env string) string { return strings.TrimSpace(*values[env]) }
	cfg := &serveConfig{secret: *values["SWARM_GATE_WEBHOOK_SECRET"], apiURL: get("SWARM_GATE_GITHUB_API_URL"), listen: get("SWARM_GATE_LISTEN"),
		workDir: get("SWARM_GATE_WORK_DIR"), metricsListen: get("SWARM_GATE_METRICS_LISTEN"), metricsToken: *values["SWARM_GATE_METRICS_TOKEN"]}
	// Every setting is checked, and every problem reported, in one pass.
	var errs []string
	bad := func(env, format string, a ...any) {
		name := env
		for _, s := range serveSettings {
			if s.env == env && s.flag != "" {
				name = env + " (--" + s.flag + ")"
			}
		}
		errs = append(errs, name+": "+fmt.Sprintf(format, a...))
	}
	if strings.TrimSpace(cfg.secret) == "" {
		what := "not set"
		if cfg.secret != "" {
			what = "only white space"
		}
		bad("SWARM_GATE_WEBHOOK_SECRET", "%s: the server refuses to start without the App's webhook secret, since it could not tell GitHub's deliveries from anyone's; set it to the secret in the App's settings (Webhook secret)", what)
	}
	if v := get("SWARM_GATE_APP_ID"); v == "" {
		bad("SWARM_GATE_APP_ID", "not set: the GitHub App's id (App settings > About > App ID)")
	} else if n, err := strconv.ParseInt(v, 10, 64); err != nil || n <= 0 {
		bad("SWARM_GATE_APP_ID", "%q is not a positive number (App settings > About > App ID)", v)
	} else {
		cfg.appID = n
	}
	// LoadPrivateKey's errors name the variable.
	key, err := app.LoadPrivateKey(get("SWARM_GATE_PRIVATE_KEY_PATH"), *values["SWARM_GATE_PRIVATE_KEY"])
	if err != nil {
		errs = append(errs, err.Error())
	}
	cfg.privateKey = key
	if err := app.CheckAPIURL(cfg.apiURL); err != nil {
		errs = append(errs, err.Error())
	}
	// The upper bounds catch a typo (an extra zero or three) before it
	// costs memory: every worker may hold a clone, a git process and a
	// delivery's payload, every queued job its payload.
	ints := []struct {
		env      string
		dst      *int
		min, max int
	}{{"SWARM_GATE_WORKERS", &cfg.workers, 0, maxWorkers}, {"SWARM_GATE_QUEUE_SIZE", &cfg.queueSize, 0, maxQueueSize},
		{"SWARM_GATE_FETCH_DEPTH", &cfg.fetchDepth, 1, 0}, {"SWARM_GATE_MAX_PER_SOURCE", &cfg.maxPerSource, -1, 0},
		{"SWARM_GATE_MAX_UNVERIFIED_PER_SOURCE", &cfg.maxUnverifiedPerSource, -1, 0},
		{"SWARM_GATE_RECONCILE_MIN_BUDGET", &cfg.reconcileMinBudget, -1, 0}}
	for _, it := range ints {
		n, err := strconv.Atoi(get(it.env))
		switch {
		case err != nil || n < it.min:
			bad(it.env, "%q is not a whole number >= %d", get(it.env), it.min)
			continue
		case it.max > 0 && n > it.max:
			bad(it.env, "%d is more than %d", n, it.max)
			continue
		}
		*it.dst = n
	}
	if cfg.maxPerSource == 0 {
		bad("SWARM_GATE_MAX_PER_SOURCE", "0 would refuse every delivery: use a positive limit, or -1 for none")
	}
	if cfg.maxUnverifiedPerSource == 0 {
		bad("SWARM_GATE_MAX_UNVERIFIED_PER_SOURCE", "0 would close every connection: use a positive limit, or -1 for none")
	}
	durations := []struct {
		env      string
		dst      *time.Duration
		zeroOK   bool
		positive string
	}{{"SWARM_GATE_JOB_TIMEOUT", &cfg.jobTimeout, false, "positive"}, {"SWARM_GATE_SHUTDOWN_DELAY", &cfg.shutdownDelay, true, "non-negative"},
		{"SWARM_GATE_SHUTDOWN_TIMEOUT", &cfg.shutdownTimeout, false, "positive"}, {"SWARM_GATE_BODY_TIMEOUT", &cfg.bodyTimeout, false, "positive"},
		{"SWARM_GATE_RECONCILE_INTERVAL", &cfg.reconcileInterval, false, "positive"}}
	for _, it := range durations {
		d, err := time.ParseDuration(get(it.env))
		if err != nil || d < 0 || d == 0 && !it.zeroOK {
			bad(it.env, "%q is not a %s duration (e.g. 10m, 30s)", get(it.env), it.positive)
			continue
		}
		*it.dst = d
	}
	b, err := strconv.ParseBool(get("SWARM_GATE_REDELIVER_FAILED"))
	if err != nil {
		bad("SWARM_GATE_REDELIVER_FAILED", "%q is not true or false", get("SWARM_GATE_REDELIVER_FAILED"))
	}
	cfg.redeliverFailed = b
	if b, err := strconv.ParseBool(get("SWARM_GATE_RECONCILE")); err != nil {
		bad("SWARM_GATE_RECONCILE", "%q is not 1 or 0 (true or false)", get("SWARM_GATE_RECONCILE"))
	} else {
		cfg.reconcile = b
	}
	if cfg.reconcileMinBudget == 0 {
		cfg.reconcileMinBudget = -1 // 0: nothing is under it, as -1
	}
	switch v := strings.ToLower(get("SWARM_GATE_EVALUATOR")); v {
	case "inprocess":
	case "process":
		cfg.processEvaluator = true
	default:
		bad("SWARM_GATE_EVALUATOR", "%q is not inprocess or process", get("SWARM_GATE_EVALUATOR"))
	}
	if level, ok := logLevels[strings.ToLower(get("SWARM_GATE_LOG"))]; ok {
		cfg.logLevel = level
	} else {
		bad("SWARM_GATE_LOG", "%q is not a log level: use debug, info, warn or error", get("SWARM_GATE_LOG"))
	}
	if why := checkListen(cfg.listen); why != "" {
		bad("SWARM_GATE_LISTEN", "%s", why)
	}
	if strings.EqualFold(cfg.metricsListen, "off") {
		cfg.metricsListen = ""
	} else if why := checkListen(cfg.metricsListen); why != "" {
		bad("SWARM_GATE_METRICS_LISTEN", "%s (or off)", why)
	} else if cfg.metricsListen == cfg.listen && !strings.HasSuffix(cfg.listen, ":0") {
		bad("SWARM_GATE_METRICS_LISTEN", "%q is SWARM_GATE_LISTEN too: /metrics needs a listener of its own", cfg.metricsListen)
	}
	if why := checkWorkDir(cfg.workDir); why != "" {
		bad("SWARM_GATE_WORK_DIR", "%s", why)
	}
	if len(errs) > 0 {
		fmt.Fprintf(stderr, "swarm-gate serve: cannot start:\n  %s\n", strings.Join(errs, "\n  "))
		return nil, exitUsage
	}
	return cfg, 0
}

// listenExamples ends the messages about SWARM_GATE_LISTEN.
const listenExamples = "give HOST:PORT or :PORT, such as :8080, 127.0.0.1:8080 or [::1]:8080"

// checkListen checks the syntax of SWARM_GATE_LISTEN: HOST:PORT, the host
// possibly empty (every interface), an IPv6 host in brackets, the port a
// number from 0 to 65535 (0: any free port). It returns what is wrong, or
// "". Whether the address can be bound is known only by binding it.
func checkListen(addr string) string {
	if addr == "" {
		return "empty: " + listenExamples
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		why := "not an address"
		var ae *net.AddrError
		if errors.As(err, &ae) {
			why = strings.TrimSuffix(ae.Err, " in address")
		}
		return fmt.Sprintf("%q is not HOST:PORT (%s): %s", addr, why, listenExamples)
	}
	if port == "" {
		return fmt.Sprintf("%q has no port: %s", addr, listenExamples)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Sprintf("%q: the port %q is not a number from 0 to 65535: %s", addr, port, listenExamples)
	}
	if strings.ContainsAny(host, " \t/[]") {
		return fmt.Sprintf("%q: the host %q is not a host name or an IP address: %s", addr, host, listenExamples)
	}
	return ""
}

// checkWorkDir checks SWARM_GATE_WORK_DIR ("" is the system's temporary
// directory, $TMPDIR or /tmp): it must be a directory in which a directory
// can be made, as each evaluation makes its clone there. It returns what
// is wrong, or "".
func checkWorkDir(dir string) string {
	what, fix := fmt.Sprintf("%q", dir), "give a writable directory"
	if dir == "" {
		dir = os.TempDir()
		what = fmt.Sprintf("not set, and the system's temporary directory %q (TMPDIR)", dir)
		fix = "set TMPDIR or SWARM_GATE_WORK_DIR to a writable directory"
	}
	plain := func(err error) error {
		if u := errors.Unwrap(err); u != nil {
			return u
		}
		return err
	}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("%s does not exist: %s; each evaluation makes its temporary clone there", what, fix)
	case err != nil:
		return fmt.Sprintf("%s cannot be read (%v): %s", what, plain(err), fix)
	case !info.IsDir():
		return fmt.Sprintf("%s is a file, not a directory: %s", what, fix)
	}
	probe, err := os.MkdirTemp(dir, ".swarm-gate-probe-*")
	if err != nil {
		return fmt.Sprintf("%s is not writable (%v): %s; each evaluation makes its temporary clone there", what, plain(err), fix)
	}
	if err := os.Remove(probe); err != nil {
		return fmt.Sprintf("%s: a directory made there cannot be removed (%v): %s", what, plain(err), fix)
	}
	return ""
}

// serve runs the App until ctx is cancelled (SIGTERM, SIGINT), then stops:
// readiness off for the shutdown delay, then a drain bounded by the
// shutdown timeout. Errors are logged once, as JSON on the log's stderr.
func serve(ctx context.Context, cfg *serveConfig, log *slog.Logger) int {
	return serveWith(ctx, cfg, log, nil)
}

// serveWith is serve; logOut is the writer under log, where the evaluator
// child's records go (nil: they go through log).
func serveWith(ctx context.Context, cfg *serveConfig, log *slog.Logger, logOut io.Writer) int {
	fail := func(code int, format string, a ...any) int {
		log.Error(fmt.Sprintf(format, a...))
		return code
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// With the evaluator in a child, the App's metrics come from both
	// processes: a label tells them apart.
	appReg := prometheus.Registerer(reg)
	if cfg.processEvaluator {
		appReg = prometheus.WrapRegistererWith(prometheus.Labels{"process": "server"}, reg)
	}
	a, err := app.New(app.Config{AppID: cfg.appID, PrivateKey: cfg.privateKey, APIURL: cfg.apiURL, Logger: log, Registerer: appReg,
		Version: version, WorkDir: cfg.workDir, FetchDepth: cfg.fetchDepth})
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	// The address first: taken or not local, the server stops before
	// asking GitHub anything or starting a worker.
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fail(report.ExitError, "SWARM_GATE_LISTEN (--listen) %q: cannot listen there: %v", cfg.listen, listenError(err))
	}
	var mln net.Listener
	if cfg.metricsListen != "" {
		if mln, err = net.Listen("tcp", cfg.metricsListen); err != nil {
			ln.Close()
			return fail(report.ExitError, "SWARM_GATE_METRICS_LISTEN (--metrics-listen) %q: cannot listen there: %v", cfg.metricsListen, listenError(err))
		}
		defer mln.Close()
	}
	ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
	slug, err := a.Identify(ictx)
	cancel()
	if err != nil {
		ln.Close()
		return fail(report.ExitError, "checking the App's credentials: %v", err)
	}
	var evaluator webhook.Evaluator = a
	var gatherer prometheus.Gatherer = reg
	if cfg.processEvaluator {
		pe, err := startProcessEvaluator(cfg, slug+"[bot]", log, logOut, reg)
		if err != nil {
			ln.Close()
			return fail(report.ExitError, "%v", err)
		}
		// After the drain (deferred before it returns): the child then
		// has nothing left to run.
		defer func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := pe.Close(cctx); err != nil {
				log.Warn("stopping the evaluator process", "error", err.Error())
			}
		}()
		evaluator = processEvaluator{Evaluator: pe, parent: a}
		gatherer = prometheus.Gatherers{reg, pe.Gatherer()}
		log.Info("evaluations run in a child process (SWARM_GATE_EVALUATOR=process)", "nice_increment", evaluatorNice)
	}
	srv, err := webhook.New(webhook.Config{Secret: []byte(cfg.secret), Evaluator: evaluator, Workers: cfg.workers, QueueSize: cfg.queueSize,
		JobTimeout: cfg.jobTimeout, Logger: log, Registerer: reg, Gatherer: gatherer, AbandonTimeout: abandonTimeout,
		BodyTimeout: cfg.bodyTimeout, MaxPerSource: cfg.maxPerSource,
		MaxUnverifiedPerSource: cfg.maxUnverifiedPerSource})
	if err != nil {
		ln.Close()
		return fail(exitUsage, "%v", err)
	}
	var rec *app.Reconciler
	if cfg.reconcile {
		// The stuck deadline is the evaluation deadline, the job timeout.
		if rec, err = a.NewReconciler(app.ReconcileConfig{Interval: cfg.reconcileInterval, Deadline: srv.JobTimeout(),
			MinBudget: cfg.reconcileMinBudget, Enqueue: srv.Enqueue}); err != nil {
			ln.Close()
			return fail(exitUsage, "%v", err)
		}
	}
	// The intake's connection limits: a 2 s header timeout, the oldest of
	// over 1024 unverified connections closed.
	hs := srv.HTTPServer()
	hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	if mln != nil {
		ms := &http.Server{Handler: srv.MetricsHandler(cfg.metricsToken), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		go func() { _ = ms.Serve(mln) }()
		defer ms.Close()
		log.Info("serving /metrics", "addr", mln.Addr().String(), "bearer_token", cfg.metricsToken != "")
	}
	srv.Start()
	log.Info("listening", "addr", ln.Addr().String(), "app", slug, "app_id", cfg.appID, "github_api_url", cfg.apiURL, "version", version)
	if cfg.redeliverFailed {
		go redeliver(ctx, a, log)
	}
	if rec != nil {
		go rec.Run(ctx) // ends with ctx, at SIGTERM: the drain takes no new job
	} else {
		log.Info("reconciler off (SWARM_GATE_RECONCILE=0): an accepted delivery lost with its replica is not evaluated again")
	}

	code := 0
	select {
	case <-ctx.Done():
		if cfg.shutdownDelay > 0 {
			srv.Unready()
			log.Info("stopping: /readyz answers 503; deliveries are still taken for the shutdown delay", "delay", cfg.shutdownDelay.String())
			select {
			case <-time.After(cfg.shutdownDelay):
			case err := <-served:
				code = fail(report.ExitError, "serving on %s: %v", ln.Addr(), err)
			}
		}
		log.Info("stopping: no new deliveries; draining the queue", "timeout", cfg.shutdownTimeout.String())
	case err := <-served:
		code = fail(report.ExitError, "serving on %s: %v", ln.Addr(), err)
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(dctx); err != nil {
		log.Warn("stopped before every accepted delivery was evaluated: their check runs are completed as failure, saying how to re-run them", "error", err.Error())
		if code == 0 {
			code = 1
		}
	}
	hctx, hcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer hcancel()
	if err := hs.Shutdown(hctx); err != nil {
		log.Warn("closing the listener", "error", err.Error())
	}
	log.Info("stopped", "exit_code", code)
	return code
}

// listenError is why net.Listen failed, without the "listen tcp ADDR:"
// prefix that repeats the address: "bind: address already in use".
func listenError(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

// abandonTimeout bounds marking each dropped job's check run failed at
// shutdown (webhook.Config.AbandonTimeout).
const abandonTimeout = 5 * time.Second

// redeliver asks GitHub to redeliver the deliveries of the last hour that
// failed (--redeliver-failed), once, at start-up.
func redeliver(ctx context.Context, a *app.App, log *slog.Logger) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	res, err := a.RedeliverFailed(rctx, time.Now().Add(-time.Hour))
	if err != nil {
		log.Error("redelivering failed deliveries", "error", err.Error())
		return
	}
	log.Info("redelivered the failed deliveries of the last hour", "listed", res.Listed, "failed", res.Failed, "redelivered", res.Redelivered, "errors", len(res.Errors))
	for _, e := range res.Errors {
		log.Warn("a failed delivery was not redelivered", "error", e)
	}
}
