// Command webhook is a load generator for swarm-gate's GitHub App server:
// it replays GitHub's example deliveries (../shared/github/webhooks) to a
// POST /webhook URL with valid X-Hub-Signature-256 signatures and unique
// X-GitHub-Delivery ids, at a fixed rate for a duration, and prints one
// JSON object: deliveries sent, accepted (202), the other statuses,
// achieved deliveries per second and the time to response (p50, p90, p99,
// max). With -serve it is instead a swarm-gate webhook server with a
// no-op Evaluator, to aim the generator at. See bench/webhook/README.md.
package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/swarm-gate/swarm-gate/webhook"
)

// secretEnv names the environment variable -secret defaults to.
const secretEnv = "SWARM_GATE_WEBHOOK_SECRET"

// defaultMatch is the example deliveries the server acts on.
const defaultMatch = "pull_request/opened*.json,pull_request/synchronize*.json,pull_request/reopened*.json," +
	"pull_request/ready_for_review*.json,check_suite/requested*.json,check_suite/rerequested*.json," +
	"check_run/rerequested*.json,merge_group/checks_requested*.json"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "webhook bench:", err)
		os.Exit(1)
	}
}

type options struct {
	url, secret, payloads, match string
	rate                         float64
	duration, timeout            time.Duration
	concurrency, prs             int
	installation                 int64
	// count stops the sender after this many deliveries (0: when
	// duration ends); the end-to-end benchmark sends each prepared body
	// exactly once.
	count int
	// onResult, when set, is called (from the sending goroutines) with
	// each delivery's sequence number, when its request was sent, and its
	// outcome.
	onResult func(seq int, out outcome)

	serve, logLevel  string
	workers, queue   int
	evalDelay        time.Duration
	shutdownDeadline time.Duration
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("webhook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.url, "url", "http://127.0.0.1:8080/webhook", "the server's POST /webhook URL")
	fs.StringVar(&o.secret, "secret", os.Getenv(secretEnv), "webhook secret (default $"+secretEnv+")")
	fs.Float64Var(&o.rate, "rate", 100, "deliveries per second to send")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long to send")
	fs.StringVar(&o.payloads, "payloads", filepath.Join("..", "shared", "github", "webhooks"), "folder of <event>/<action>*.json example deliveries")
	fs.StringVar(&o.match, "match", defaultMatch, "comma-separated globs, relative to -payloads, of the examples to replay (the event is the folder name)")
	fs.IntVar(&o.concurrency, "concurrency", 64, "most requests in flight; when all are busy the sender waits, and the achieved rate drops")
	fs.IntVar(&o.prs, "prs", 16, "spread each example over this many pull request numbers (1..N), so that deliveries do not all coalesce into one key")
	fs.Int64Var(&o.installation, "installation", 1, "installation.id given to examples that carry none")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-request timeout (GitHub gives up after 10s)")
	fs.IntVar(&o.count, "count", 0, "stop after this many deliveries (0: when -duration ends)")
	fs.StringVar(&o.serve, "serve", "", "instead of sending, serve POST /webhook on this address (e.g. 127.0.0.1:8080) with a no-op Evaluator until SIGINT/SIGTERM")
	fs.StringVar(&o.logLevel, "log", "info", "with -serve: log level of the server's JSON logs on stderr (debug, info, warn, error)")
	fs.IntVar(&o.workers, "workers", 0, "with -serve: webhook.Config.Workers (0: the default, 2*GOMAXPROCS)")
	fs.IntVar(&o.queue, "queue", 0, "with -serve: webhook.Config.QueueSize (0: the default, 256)")
	fs.DurationVar(&o.evalDelay, "eval-delay", 0, "with -serve: how long the no-op Evaluator takes per job")
	fs.DurationVar(&o.shutdownDeadline, "shutdown", 10*time.Second, "with -serve: drain deadline on SIGINT/SIGTERM")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.secret == "" {
		return fmt.Errorf("no webhook secret: pass -secret or set $%s (the same on both sides)", secretEnv)
	}
	if o.serve != "" {
		return serve(ctx, o, stdout, stderr)
	}
	if o.rate <= 0 || o.duration <= 0 || o.concurrency <= 0 || o.prs <= 0 || o.count < 0 {
		return fmt.Errorf("-rate %v, -duration %v, -concurrency %d and -prs %d must be positive, -count %d not negative", o.rate, o.duration, o.concurrency, o.prs, o.count)
	}
	reqs, err := loadDeliveries(o)
	if err != nil {
		return err
	}
	res, err := send(ctx, o, reqs)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// prepared is one body ready to send.
type prepared struct {
	event, name string
	body        []byte
	signature   string
}

// loadDeliveries reads the examples matching o.match, gives them an
// installation id where they have none, makes o.prs copies numbered 1..prs
// where they name a pull request, and signs each.
func loadDeliveries(o options) ([]prepared, error) {
	var out []prepared
	for _, glob := range strings.Split(o.match, ",") {
		glob = strings.TrimSpace(glob)
		if glob == "" {
			continue
		}
		paths, err := filepath.Glob(filepath.Join(o.payloads, filepath.FromSlash(glob)))
		if err != nil {
			return nil, fmt.Errorf("-match %q: %w", glob, err)
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("-match %q: no file under %s (pass -payloads, the folder holding <event>/<action>.json)", glob, o.payloads)
		}
		for _, p := range paths {
			raw, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			event := filepath.Base(filepath.Dir(p))
			bodies, err := variants(raw, o.prs, o.installation)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			for _, b := range bodies {
				out = append(out, prepared{event: event, name: filepath.Base(p), body: b, signature: sign([]byte(o.secret), b)})
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("-match selected no example deliveries")
	}
	return out, nil
}

// variants returns raw with an installation id, as prs copies with the
// pull request numbers 1..prs when raw names a pull request (top-level
// number, pull_request, issue, or check suite/run pull_requests), else
// once.
func variants(raw []byte, prs int, installation int64) ([][]byte, error) {
	var top map[string]any
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	inst, _ := top["installation"].(map[string]any)
	if inst == nil {
		inst = map[string]any{}
		top["installation"] = inst
	}
	if id, _ := inst["id"].(float64); id == 0 {
		inst["id"] = installation
	}
	var numbered []map[string]any // objects whose "number" is the PR number
	if _, ok := top["number"]; ok {
		numbered = append(numbered, top)
	}
	for _, k := range []string{"pull_request", "issue"} {
		if m, ok := top[k].(map[string]any); ok {
			numbered = append(numbered, m)
		}
	}
	for _, k := range []string{"check_suite", "check_run"} {
		if m, ok := top[k].(map[string]any); ok {
			if list, ok := m["pull_requests"].([]any); ok && len(list) > 0 {
				if first, ok := list[0].(map[string]any); ok {
					numbered = append(numbered, first)
				}
			}
		}
	}
	if len(numbered) == 0 {
		prs = 1
	}
	out := make([][]byte, 0, prs)
	for n := 1; n <= prs; n++ {
		for _, m := range numbered {
			m["number"] = n
		}
		b, err := json.Marshal(top)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// result is what the generator prints.
type result struct {
	URL          string         `json:"url"`
	Examples     int            `json:"examples"`
	TargetRate   float64        `json:"target_per_s"`
	DurationS    float64        `json:"duration_s"`
	Concurrency  int            `json:"concurrency"`
	Sent         int            `json:"sent"`
	Accepted     int            `json:"accepted"`
	Statuses     map[string]int `json:"statuses"`
	Errors       int            `json:"errors"`
	FirstError   string         `json:"first_error,omitempty"`
	AchievedRate float64        `json:"achieved_per_s"`
	MaxLagMS     float64        `json:"max_send_lag_ms"`
	AckMS        latency        `json:"ack_ms"`
}

type latency struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

type outcome struct {
	status int // 0 on a transport error
	err    error
	start  time.Time // when the request was sent
	took   time.Duration
}

// send paces o.rate deliveries a second for o.duration (or until o.count
// were sent) over at most o.concurrency connections. Delivery seq sends
// reqs[seq % len(reqs)].
func send(ctx context.Context, o options, reqs []prepared) (result, error) {
	runID := make([]byte, 6)
	if _, err := rand.Read(runID); err != nil {
		return result{}, err
	}
	prefix := hex.EncodeToString(runID)
	client := &http.Client{
		Timeout: o.timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        o.concurrency,
			MaxIdleConnsPerHost: o.concurrency,
			MaxConnsPerHost:     o.concurrency,
			IdleConnTimeout:     30 * time.Second,
		},
	}
	defer client.CloseIdleConnections()

	type task struct{ seq int }
	tasks := make(chan task)
	outs := make(chan outcome, 4*o.concurrency)
	var wg sync.WaitGroup
	for range o.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range tasks {
				p := reqs[t.seq%len(reqs)]
				out := post(ctx, client, o.url, p, fmt.Sprintf("%s-%08d", prefix, t.seq))
				if o.onResult != nil {
					o.onResult(t.seq, out)
				}
				outs <- out
			}
		}()
	}
	res := result{URL: o.url, Examples: len(reqs), TargetRate: o.rate, Concurrency: o.concurrency, Statuses: map[string]int{}}
	var took []time.Duration
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for out := range outs {
			took = append(took, out.took)
			switch {
			case out.err != nil:
				res.Errors++
				if res.FirstError == "" {
					res.FirstError = out.err.Error()
				}
			case out.status == http.StatusAccepted:
				res.Accepted++
			}
			if out.err == nil {
				res.Statuses[strconv.Itoa(out.status)]++
			}
		}
	}()

	interval := time.Duration(float64(time.Second) / o.rate)
	start := time.Now()
	end := start.Add(o.duration)
	var maxLag time.Duration
	seq := 0
loop:
	for ; o.count <= 0 || seq < o.count; seq++ {
		due := start.Add(time.Duration(seq) * interval)
		if !due.Before(end) || !time.Now().Before(end) {
			break // a sender that fell behind stops on time too
		}
		if d := time.Until(due); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				break loop
			}
		}
		select {
		case tasks <- task{seq}:
		case <-ctx.Done():
			break loop
		}
		maxLag = max(maxLag, time.Since(due))
	}
	close(tasks)
	wg.Wait()
	elapsed := time.Since(start)
	close(outs)
	<-collected

	res.Sent = seq
	res.DurationS = round(elapsed.Seconds(), 3)
	res.AchievedRate = round(float64(res.Sent)/elapsed.Seconds(), 1)
	res.MaxLagMS = ms(maxLag)
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	if n := len(took); n > 0 {
		q := func(p float64) float64 { return ms(took[min(n-1, int(p*float64(n)))]) }
		res.AckMS = latency{P50: q(0.50), P90: q(0.90), P99: q(0.99), Max: ms(took[n-1])}
	}
	return res, nil
}

// post sends one delivery and reads the whole response.
func post(ctx context.Context, client *http.Client, url string, p prepared, id string) outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(p.body))
	if err != nil {
		return outcome{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/swarm-gate-bench")
	req.Header.Set("X-GitHub-Event", p.event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", p.signature)
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return outcome{err: err, start: t0, took: time.Since(t0)}
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return outcome{status: resp.StatusCode, start: t0, took: time.Since(t0)}
}

func ms(d time.Duration) float64 { return round(float64(d)/float64(time.Millisecond), 3) }

func round(f float64, places int) float64 {
	p := 1.0
	for range places {
		p *= 10
	}
	return float64(int64(f*p+0.5)) / p
}

// serve runs a webhook server with a no-op Evaluator until ctx ends, then
// shuts it down and prints the evaluations it ran and its peak RSS.
func serve(ctx context.Context, o options, stdout, stderr io.Writer) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fmt.Errorf("-log %q: %w", o.logLevel, err)
	}
	var mu sync.Mutex
	evaluated := 0
	srv, err := webhook.New(webhook.Config{
		Secret:    []byte(o.secret),
		Workers:   o.workers,
		QueueSize: o.queue,
		Logger:    slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level})),
		Evaluator: webhook.EvaluatorFunc(func(ctx context.Context, j webhook.Job) error {
			if o.evalDelay > 0 {
				select {
				case <-time.After(o.evalDelay):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			mu.Lock()
			evaluated++
			mu.Unlock()
			return nil
		}),
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.serve)
	if err != nil {
		return fmt.Errorf("-serve %s: %w", o.serve, err)
	}
	hs := srv.HTTPServer()
	srv.Start()
	fmt.Fprintf(stdout, "serving http://%s/webhook (pid %d); stop with SIGINT or SIGTERM\n", ln.Addr(), os.Getpid())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownDeadline)
	defer cancel()
	drainErr := srv.Shutdown(sctx)
	hs.Shutdown(sctx)
	mu.Lock()
	n := evaluated
	mu.Unlock()
	out := map[string]any{"evaluated": n, "peak_rss_kib": peakRSS()}
	if drainErr != nil {
		out["drain_error"] = drainErr.Error()
	}
	return json.NewEncoder(stdout).Encode(out)
}

// peakRSS reads this process's VmHWM (peakRSSOf(0)).
func peakRSS() int64 { return peakRSSOf(0) }

// peakRSSOf is VmHWM of /proc/<pid>/status, in KiB (pid 0: this process);
// 0 where there is no /proc.
func peakRSSOf(pid int) int64 {
	p := "/proc/self/status"
	if pid > 0 {
		p = fmt.Sprintf("/proc/%d/status", pid)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
