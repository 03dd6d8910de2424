package evalproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/swarm-gate/swarm-gate/webhook"
)

// childEnv makes the test binary a fake evaluator child (TestMain).
const childEnv = "EVALPROC_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := ServeChild(os.Stdin, os.Stdout, fakeSetup); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeSetup is the fake child's evaluator. Init is the directory where
// jobs leave marks; Job.Action says what a job does:
//
//	ok      return nil (and log a JSON record and a plain line)
//	fail    return an error
//	block   mark <delivery>.started, wait for the context, mark
//	        <delivery>.done (its "check runs completed"), return the cause
//	gather  mark started, wait until Job.PR jobs are marked started
//	crash   exit the process at once
//	pid     return the child's pid as the error
//	nice    return the nice values of the child's threads as the error
//	ignore  mark started, never return
func fakeSetup(init json.RawMessage) (webhook.Evaluator, prometheus.Gatherer, error) {
	var dir string
	if err := json.Unmarshal(init, &dir); err != nil {
		return nil, nil, err
	}
	reg := prometheus.NewRegistry()
	calls := prometheus.NewCounter(prometheus.CounterOpts{Name: "swarm_gate_api_calls_total", Help: "test"})
	reg.MustRegister(calls)
	mark := func(job webhook.Job, what string) {
		_ = os.WriteFile(filepath.Join(dir, job.Delivery+"."+what), nil, 0o600)
	}
	ev := webhook.EvaluatorFunc(func(ctx context.Context, job webhook.Job) error {
		calls.Inc()
		switch job.Action {
		case "ok":
			fmt.Fprintln(os.Stderr, `{"msg":"hello from the child","delivery":"`+job.Delivery+`"}`)
			fmt.Fprintln(os.Stderr, "a plain line")
			return nil
		case "fail":
			return errors.New("gate broke: " + string(job.Payload))
		case "block":
			mark(job, "started")
			<-ctx.Done()
			mark(job, "done")
			return fmt.Errorf("stopped in the child: %w", context.Cause(ctx))
		case "gather":
			mark(job, "started")
			for ctx.Err() == nil {
				m, _ := filepath.Glob(filepath.Join(dir, "*.started"))
				if len(m) >= job.PR {
					return nil
				}
				time.Sleep(5 * time.Millisecond)
			}
			return ctx.Err()
		case "crash":
			os.Exit(3)
		case "pid":
			return errors.New(strconv.Itoa(os.Getpid()))
		case "nice":
			return errors.New(threadNices())
		case "ignore":
			mark(job, "started")
			select {}
		}
		return errors.New("unknown action " + job.Action)
	})
	return ev, reg, nil
}

// threadNices is the nice value of every thread of this process.
func threadNices() string {
	tasks, _ := os.ReadDir("/proc/self/task")
	var out []string
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", t.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		out = append(out, f[19-3])
	}
	return strings.Join(out, " ")
}

type fixture struct {
	e    *Evaluator
	dir  string
	logs *syncBuffer
	out  *syncBuffer
	reg  *prometheus.Registry
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func start(t *testing.T, mod func(*Config)) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir(), logs: &syncBuffer{}, out: &syncBuffer{}, reg: prometheus.NewRegistry()}
	cfg := Config{
		Command: func() *exec.Cmd {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=1")
			return cmd
		},
		Init: f.dir, Logger: slog.New(slog.NewJSONHandler(f.logs, nil)), LogOutput: f.out, Registerer: f.reg,
		MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
	}
	if mod != nil {
		mod(&cfg)
	}
	e, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.e = e
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return f
}

// waitFiles waits until every name exists in dir (the test's own timeout
// bounds it).
func waitFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		for {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

func job(delivery, action string) webhook.Job {
	return webhook.Job{Delivery: delivery, Event: "pull_request", Action: action, Repo: "o/r", PR: 1, Key: "o/r#1", Payload: []byte(`{"n":1}`)}
}

func TestJobsRoundTrip(t *testing.T) {
	f := start(t, nil)
	ctx := context.Background()
	if err := f.e.Evaluate(ctx, job("d1", "ok")); err != nil {
		t.Fatalf("ok job: %v", err)
	}
	// The error text and the payload make the round trip.
	err := f.e.Evaluate(ctx, job("d2", "fail"))
	if err == nil || err.Error() != `gate broke: {"n":1}` {
		t.Fatalf("fail job: got %v", err)
	}
	if got := f.out.String(); !strings.Contains(got, `"msg":"hello from the child","delivery":"d1"`) {
		t.Errorf("the child's JSON log record did not reach LogOutput: %q", got)
	}
	if got := f.logs.String(); !strings.Contains(got, `"msg":"evaluator process stderr","line":"a plain line"`) {
		t.Errorf("the child's plain stderr line was not logged: %q", got)
	}
	// The child's metrics reach the parent, labelled: the second job's
	// within a second of the first's, on their own.
	var got float64
	var labels string
	for got != 2 {
		mfs, err := f.e.Gatherer().Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "swarm_gate_api_calls_total" && len(mf.Metric) == 1 {
				got = mf.Metric[0].GetCounter().GetValue()
				labels = ""
				for _, l := range mf.Metric[0].Label {
					labels += l.GetName() + "=" + l.GetValue() + " "
				}
			}
		}
		if got > 2 {
			t.Fatalf("swarm_gate_api_calls_total from the child: %v, want 2", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if labels != "process=evaluator " {
		t.Errorf("swarm_gate_api_calls_total from the child has labels %s, want process=evaluator", labels)
	}
}

func TestJobsRunConcurrentlyInOneChild(t *testing.T) {
	f := start(t, nil)
	const n = 6
	errs := make(chan error, n)
	for i := range n {
		j := job("g"+strconv.Itoa(i), "gather")
		j.PR = n
		go func() { errs <- f.e.Evaluate(context.Background(), j) }()
	}
	// Each job returns only once all n have started: they are in flight
	// at once.
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	pids := map[string]bool{}
	for i := range 3 {
		err := f.e.Evaluate(context.Background(), job("p"+strconv.Itoa(i), "pid"))
		pids[err.Error()] = true
	}
	if len(pids) != 1 {
		t.Errorf("jobs ran in %d processes, want one long-lived child: %v", len(pids), pids)
	}
}

func TestCancelReachesTheChild(t *testing.T) {
	f := start(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- f.e.Evaluate(ctx, job("c1", "block")) }()
	waitFiles(t, f.dir, "c1.started")
	cancel()
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "stopped in the child: cancelled by the server") {
		t.Fatalf("got %v, want the child's error after the cancel reached it", err)
	}
	// The child's evaluation ended ("completed its check runs") before
	// Evaluate returned.
	if _, err := os.Stat(filepath.Join(f.dir, "c1.done")); err != nil {
		t.Errorf("the child's evaluation did not finish before Evaluate returned: %v", err)
	}
	// A deadline travels with the job.
	dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer dcancel()
	if err := f.e.Evaluate(dctx, job("c2", "block")); err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("a job past its deadline: got %v", err)
	}
	// The child still serves.
	if err := f.e.Evaluate(context.Background(), job("c3", "ok")); err != nil {
		t.Error(err)
	}
}

func TestChildCrashFailsJobsInFlightAndRestarts(t *testing.T) {
	f := start(t, nil)
	first := f.e.Evaluate(context.Background(), job("p1", "pid")).Error()
	errc := make(chan error, 1)
	go func() { errc <- f.e.Evaluate(context.Background(), job("b1", "block")) }()
	waitFiles(t, f.dir, "b1.started")
	crash := f.e.Evaluate(context.Background(), job("x1", "crash"))
	blocked := <-errc
	for name, err := range map[string]error{"the crashing job": crash, "the job in flight": blocked} {
		if err == nil || !strings.Contains(err.Error(), "died before the job's result came back") {
			t.Errorf("%s: got %v, want the child's death", name, err)
		}
	}
	// Evaluate waits for the restarted child.
	second := f.e.Evaluate(context.Background(), job("p2", "pid")).Error()
	if _, err := strconv.Atoi(second); err != nil {
		t.Fatalf("the job after the crash: %s", second)
	}
	if second == first {
		t.Errorf("the same child (pid %s) answered after the crash", first)
	}
	if n := counterValue(f.e.exits); n != 1 {
		t.Errorf("swarm_gate_evaluator_process_exits_total = %v, want 1", n)
	}
	if got := f.logs.String(); !strings.Contains(got, "the evaluator process exited") || !strings.Contains(got, "exit status 3") {
		t.Errorf("the exit was not logged with its status: %q", got)
	}
}

func TestCloseWithJobsInFlight(t *testing.T) {
	f := start(t, nil)
	const n = 3
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- f.e.Evaluate(context.Background(), job("s"+strconv.Itoa(i), "block")) }()
	}
	waitFiles(t, f.dir, "s0.started", "s1.started", "s2.started")
	if err := f.e.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for range n {
		if err := <-errs; err == nil || !strings.Contains(err.Error(), errInputClosed.Error()) {
			t.Errorf("a job in flight at Close: got %v, want it cancelled by the child", err)
		}
	}
	for i := range n {
		if _, err := os.Stat(filepath.Join(f.dir, "s"+strconv.Itoa(i)+".done")); err != nil {
			t.Errorf("job s%d did not finish before Close returned: %v", i, err)
		}
	}
	if err := f.e.Evaluate(context.Background(), job("late", "ok")); err == nil {
		t.Error("Evaluate after Close succeeded")
	}
	if n := counterValue(f.e.exits); n != 0 {
		t.Errorf("an exit at Close was counted as a crash: %v", n)
	}
}

func TestChildIgnoringCancelDoesNotHangTheParent(t *testing.T) {
	f := start(t, func(c *Config) { c.CancelGrace = 20 * time.Millisecond })
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- f.e.Evaluate(ctx, job("i1", "ignore")) }()
	waitFiles(t, f.dir, "i1.started")
	cancel()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "did not end the job") {
		t.Fatalf("got %v", err)
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer ccancel()
	if err := f.e.Close(cctx); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Close with a job that never ends: got %v, want the child killed", err)
	}
}

func TestChildRunsAtLowerPriority(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("nice values are set on Linux only")
	}
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.Itoa(min(20-raw+5, 19))
	f := start(t, func(c *Config) { c.Nice = 5 })
	got := f.e.Evaluate(context.Background(), job("n1", "nice")).Error()
	for _, n := range strings.Fields(got) {
		if n != want {
			t.Fatalf("the child's threads have nice values %s, want all %s", got, want)
		}
	}
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	_ = c.Write(&m)
	return m.GetCounter().GetValue()
}
