package main

import (
	"bufio"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/swarm-gate/swarm-gate/internal/app"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// appServer is the App server under test: `swarm-gate serve` in a child
// process, or the same parts (internal/app and webhook) in the test
// process, for profiling with go test -cpuprofile.
type appServer struct {
	url string // http://127.0.0.1:PORT
	// metricsURL serves GET /metrics (its own listener, as in production).
	metricsURL string
	logs       *logStats
	// pid is the child's process id; 0 in process.
	pid  int
	stop func() error
}

// serverSettings are what the benchmark configures the App server with.
type serverSettings struct {
	bin             string // the swarm-gate binary; "" runs the server in process
	appID           int64
	key             *rsa.PrivateKey
	secret, apiURL  string
	workers, queue  int
	workDir         string
	shutdownTimeout time.Duration
	evaluator       string // SWARM_GATE_EVALUATOR ("": unset)
}

var listeningRE = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)

var metricsRE = regexp.MustCompile(`"msg":"serving /metrics","addr":"([^"]+)"`)

// startChild runs `swarm-gate serve` and waits until it listens.
func startChild(tb testing.TB, s serverSettings) *appServer {
	tb.Helper()
	keyFile := filepath.Join(tb.TempDir(), "app.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(s.key)})
	if err := os.WriteFile(keyFile, pemBytes, 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(s.bin, "serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--workers", strconv.Itoa(s.workers),
		"--queue-size", strconv.Itoa(s.queue), "--work-dir", s.workDir, "--shutdown-timeout", s.shutdownTimeout.String())
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWARM_GATE_") && !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	// TMPDIR: the git CLI's scratch folders (source.gitCLIChangeSet) go
	// beside the jobs' repositories.
	cmd.Env = append(env, "TMPDIR="+s.workDir, "SWARM_GATE_APP_ID="+strconv.FormatInt(s.appID, 10), "SWARM_GATE_PRIVATE_KEY_PATH="+keyFile,
		"SWARM_GATE_WEBHOOK_SECRET="+s.secret, "SWARM_GATE_GITHUB_API_URL="+s.apiURL)
	if s.evaluator != "" {
		cmd.Env = append(cmd.Env, "SWARM_GATE_EVALUATOR="+s.evaluator)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting %s serve: %v", s.bin, err)
	}
	logs := newLogStats()
	addr := make(chan string, 1)
	metricsAddr := make(chan string, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		sent := false
		for sc.Scan() {
			line := sc.Bytes()
			if m := metricsRE.FindSubmatch(line); m != nil {
				metricsAddr <- string(m[1])
			}
			if !sent {
				if m := listeningRE.FindSubmatch(line); m != nil {
					addr <- string(m[1])
					sent = true
				}
			}
			logs.line(line)
		}
	}()
	exited := make(chan error, 1)
	go func() {
		<-readDone
		exited <- cmd.Wait()
	}()
	srv := &appServer{logs: logs, pid: cmd.Process.Pid}
	select {
	case a := <-addr:
		srv.url = "http://" + a
		select {
		case m := <-metricsAddr: // logged before "listening"
			srv.metricsURL = "http://" + m
		default:
			tb.Fatalf("swarm-gate serve listens but logged no /metrics address; its last log lines:\n%s", logs.tail())
		}
	case err := <-exited:
		tb.Fatalf("swarm-gate serve exited before listening (%v); its last log lines:\n%s", err, logs.tail())
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		tb.Fatalf("swarm-gate serve did not listen within 60 s; its last log lines:\n%s", logs.tail())
	}
	var once sync.Once
	var stopErr error
	srv.stop = func() error {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-exited:
				if err != nil {
					stopErr = fmt.Errorf("swarm-gate serve exited with %v after SIGTERM; its last log lines:\n%s", err, logs.tail())
				}
			case <-time.After(s.shutdownTimeout + 30*time.Second):
				_ = cmd.Process.Kill()
				stopErr = errors.New("swarm-gate serve did not stop after SIGTERM: killed")
			}
		})
		return stopErr
	}
	tb.Cleanup(func() { _ = srv.stop() })
	return srv
}

// startInProcess wires internal/app and webhook as cmd/swarm-gate's serve
// does, in the test process, and serves them on a loopback listener.
func startInProcess(tb testing.TB, s serverSettings) *appServer {
	tb.Helper()
	// The git CLI's scratch folders (source.gitCLIChangeSet) go beside the
	// jobs' repositories, as startChild's TMPDIR does.
	tb.Setenv("TMPDIR", s.workDir)
	logs := newLogStats()
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	reg := prometheus.NewRegistry()
	a, err := app.New(app.Config{AppID: s.appID, PrivateKey: s.key, APIURL: s.apiURL, Logger: log, Registerer: reg,
		Version: "bench", WorkDir: s.workDir})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := a.Identify(ctx); err != nil {
		tb.Fatalf("checking the App's credentials against the fake: %v", err)
	}
	srv, err := webhook.New(webhook.Config{Secret: []byte(s.secret), Evaluator: a, Workers: s.workers, QueueSize: s.queue,
		Logger: log, Registerer: reg, Gatherer: reg})
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ms := &http.Server{Handler: srv.MetricsHandler(""), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = ms.Serve(mln) }()
	tb.Cleanup(func() { _ = ms.Close() })
	srv.Start()
	var once sync.Once
	var stopErr error
	out := &appServer{url: "http://" + ln.Addr().String(), metricsURL: "http://" + mln.Addr().String(), logs: logs}
	out.stop = func() error {
		once.Do(func() {
			dctx, cancel := context.WithTimeout(context.Background(), s.shutdownTimeout)
			defer cancel()
			stopErr = srv.Shutdown(dctx)
			_ = hs.Shutdown(dctx)
		})
		return stopErr
	}
	tb.Cleanup(func() { _ = out.stop() })
	return out
}

// buildServer builds cmd/swarm-gate into dir and returns the binary's path.
func buildServer(tb testing.TB, dir string) string {
	tb.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		tb.Fatalf("building swarm-gate needs the go tool on PATH (or pass -e2e.bin): %v", err)
	}
	bin := filepath.Join(dir, "swarm-gate")
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/swarm-gate")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build ./cmd/swarm-gate: %v\n%s", err, out)
	}
	return bin
}

// logStats reads the App server's JSON log records: the evaluations it
// finished (with their API calls, fetch and evaluation times) and its
// warnings and errors. It is an io.Writer of whole lines (slog writes one
// record per Write). Safe for concurrent use.
type logStats struct {
	mu           sync.Mutex
	finished     int
	failed       int
	apiCalls     []float64
	fetchSeconds []float64
	evalSeconds  []float64
	problems     []string // the first warning and error records
	problemCount int
	last         []string // the last records, for failures
}

func newLogStats() *logStats { return &logStats{} }

func (l *logStats) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.line([]byte(line))
	}
	return len(p), nil
}

// logRecord is what logStats reads of a record.
type logRecord struct {
	Level    string   `json:"level"`
	Msg      string   `json:"msg"`
	APICalls *float64 `json:"api_calls"`
	Fetch    *float64 `json:"fetch_seconds"`
	Duration *float64 `json:"duration_seconds"`
}

func (l *logStats) line(line []byte) {
	var r logRecord
	if json.Unmarshal(line, &r) != nil {
		r = logRecord{Level: "NOT-JSON", Msg: string(line)}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.last) == 20 {
		l.last = l.last[1:]
	}
	l.last = append(l.last, string(line))
	// internal/app's record of each evaluation carries api_calls (the
	// webhook worker logs "evaluation finished" too, without).
	switch {
	case r.APICalls != nil && (r.Msg == "evaluation finished" || r.Msg == "evaluation ended with an error"):
		if r.Msg == "evaluation finished" {
			l.finished++
		} else {
			l.failed++
		}
		l.apiCalls = append(l.apiCalls, *r.APICalls)
		if r.Fetch != nil {
			l.fetchSeconds = append(l.fetchSeconds, *r.Fetch)
		}
		if r.Duration != nil {
			l.evalSeconds = append(l.evalSeconds, *r.Duration)
		}
	}
	if r.Level != "INFO" && r.Level != "DEBUG" {
		l.problemCount++
		if len(l.problems) < 5 {
			l.problems = append(l.problems, string(line))
		}
	}
}

func (l *logStats) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.last, "\n")
}

// reset forgets what was read so far (the warm-up's records).
func (l *logStats) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.finished, l.failed, l.problemCount = 0, 0, 0
	l.apiCalls, l.fetchSeconds, l.evalSeconds, l.problems = nil, nil, nil, nil
}

// scrape reads the server's /metrics: every sample, keyed by its name and
// labels as written (swarm_gate_evaluations_total{event="pull_request",result="ok"}).
func scrape(ctx context.Context, base string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s/metrics: %w", base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s/metrics: %d %v", base, resp.StatusCode, err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err == nil {
			out[line[:i]] = v
		}
	}
	return out, nil
}

// sumOf adds up the samples of metric name whose labels contain every one
// of labels (`result="ok"`).
func sumOf(m map[string]float64, name string, labels ...string) float64 {
	var sum float64
	for k, v := range m {
		series, rest, _ := strings.Cut(k, "{")
		if series != name {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(rest, l)
		}
		if ok {
			sum += v
		}
	}
	return sum
}

// procCPU is a process's CPU time from /proc/<pid>/stat: its own (user +
// system), and that of its children: those it has waited for, and those
// still running (the evaluator process) with theirs.
func procCPU(pid int) (self, children time.Duration, err error) {
	self, children, err = procStatCPU(pid)
	if err != nil {
		return 0, 0, err
	}
	for _, c := range liveChildren(pid) {
		if cs, cc, err := procCPU(c); err == nil {
			children += cs + cc
		}
	}
	return self, children, nil
}

// liveChildren are the pids whose parent is pid, from /proc/*/stat.
func liveChildren(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n))
		if err != nil {
			continue
		}
		s := string(raw)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

// procStatCPU is procCPU without the children still running.
func procStatCPU(pid int) (self, children time.Duration, err error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The command name, in parentheses, may hold spaces: fields start after ")".
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 15 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields))
	}
	tick := func(i int) time.Duration {
		n, _ := strconv.ParseInt(fields[i], 10, 64)
		return time.Duration(n) * time.Second / clockTicks
	}
	// Fields 14-17 of stat(5), counted from 1 with pid and comm: utime,
	// stime, cutime, cstime; here from 0 after comm.
	return tick(11) + tick(12), tick(13) + tick(14), nil
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times (100 on
// Linux's supported architectures).
const clockTicks = 100

// selfCPU is the test process's CPU time (the fake, the load generator and
// the observer; in process also the App server) and that of its waited-for
// children (the git upload-pack and pack-objects processes that serve fetches).
func selfCPU() (self, children time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		children = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return self, children
}

// systemBusy is the machine's CPU time spent outside idle and I/O wait,
// from the first line of /proc/stat (0 where there is none).
func systemBusy() time.Duration {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest time is already in user
			continue
		}
		busy += n
	}
	return time.Duration(busy) * time.Second / clockTicks
}

// quantiles of xs (sorted in place): p50, p90, p99 and max.
func quantiles(xs []float64) latency {
	if len(xs) == 0 {
		return latency{}
	}
	sort.Float64s(xs)
	q := func(p float64) float64 { return round(xs[min(len(xs)-1, int(p*float64(len(xs))))], 3) }
	return latency{P50: q(0.50), P90: q(0.90), P99: q(0.99), Max: round(xs[len(xs)-1], 3)}
}
