package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// senderEnv, set to a spec file, makes the test binary a sender process
// (runSender) instead of running tests: the end-to-end benchmark's
// deliveries are then sent from their own process, as GitHub sends them
// from its own machines, so that the time to 202 is the server's and not
// the time the fake GitHub in the test process kept the generator's
// goroutines waiting for CPU.
const senderEnv = "SWARM_GATE_BENCH_SENDER_SPEC"

// fakeNiceStuck is set when a scenario run with -e2e.fake-nice could not
// give this process its priority back.
var fakeNiceStuck bool

func TestMain(m *testing.M) {
	if os.Getenv(reniceCheckEnv) != "" {
		if err := reniceCheck(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "renice check:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if spec := os.Getenv(senderEnv); spec != "" {
		if err := runSender(spec, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench sender:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// senderSpec is what the harness gives the sender process: send's options
// and the prepared deliveries.
type senderSpec struct {
	URL         string           `json:"url"`
	Rate        float64          `json:"rate"`
	Duration    time.Duration    `json:"duration_ns"`
	Concurrency int              `json:"concurrency"`
	Timeout     time.Duration    `json:"timeout_ns"`
	Count       int              `json:"count"`
	Deliveries  []senderDelivery `json:"deliveries"`
}

type senderDelivery struct {
	Event     string `json:"event"`
	Name      string `json:"name"`
	Body      []byte `json:"body"`
	Signature string `json:"signature"`
}

// senderReport is what the sender process prints: the generator's result
// and, per delivery sequence number, when it was sent (Unix nanoseconds,
// the same wall clock as the harness's) and the status (0: transport
// error).
type senderReport struct {
	Result  result  `json:"result"`
	StartNS []int64 `json:"start_ns"`
	Status  []int   `json:"status"`
}

// runSender reads the spec file, waits for a line on in (the harness's
// "go", once it has set the priorities), sends, and writes a senderReport
// to out.
func runSender(specPath string, in io.Reader, out io.Writer) error {
	raw, err := os.ReadFile(specPath)
	if err != nil {
		return err
	}
	var spec senderSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", specPath, err)
	}
	if len(spec.Deliveries) == 0 || spec.Rate <= 0 || spec.Concurrency <= 0 {
		return fmt.Errorf("%s: %d deliveries, rate %v, concurrency %d: want some, positive", specPath, len(spec.Deliveries), spec.Rate, spec.Concurrency)
	}
	prep := make([]prepared, len(spec.Deliveries))
	for i, d := range spec.Deliveries {
		prep[i] = prepared{event: d.Event, name: d.Name, body: d.Body, signature: d.Signature}
	}
	rep := senderReport{StartNS: make([]int64, spec.Count), Status: make([]int, spec.Count)}
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for the harness's go: %w", err)
	}
	res, err := send(context.Background(), options{url: spec.URL, rate: spec.Rate, duration: spec.Duration, concurrency: spec.Concurrency,
		timeout: spec.Timeout, count: spec.Count, onResult: func(seq int, o outcome) {
			// Each seq is written by one goroutine only, and read after send returns.
			if seq < len(rep.StartNS) {
				rep.StartNS[seq], rep.Status[seq] = o.start.UnixNano(), o.status
			}
		}}, prep)
	if err != nil {
		return err
	}
	rep.Result = res
	return json.NewEncoder(out).Encode(rep)
}

// sendFromProcess runs the deliveries through a sender process (this test
// binary again, with senderEnv): it starts it, calls ready (where the
// harness lowers the fake's priority: the sender, started before, keeps
// its own), says go, and returns the generator's result, each delivery's
// send time and status, and the sender process's CPU time.
func sendFromProcess(tb testing.TB, o options, prep []prepared, ready func()) (result, []time.Time, []int, time.Duration) {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatalf("the sender process: %v", err)
	}
	spec := senderSpec{URL: o.url, Rate: o.rate, Duration: o.duration, Concurrency: o.concurrency, Timeout: o.timeout, Count: o.count}
	for _, p := range prep {
		spec.Deliveries = append(spec.Deliveries, senderDelivery{Event: p.event, Name: p.name, Body: p.body, Signature: p.signature})
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		tb.Fatal(err)
	}
	specPath := filepath.Join(tb.TempDir(), "sender.json")
	if err := os.WriteFile(specPath, raw, 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^$")
	cmd.Env = append(os.Environ(), senderEnv+"="+specPath)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting the sender process: %v", err)
	}
	if ready != nil {
		ready()
	}
	if _, err := io.WriteString(stdin, "go\n"); err != nil {
		tb.Fatalf("the sender process: %v (stderr: %s)", err, stderr.String())
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		tb.Fatalf("the sender process: %v (stderr: %s)", err, stderr.String())
	}
	var rep senderReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		tb.Fatalf("the sender process's report: %v (stdout %q, stderr %s)", err, stdout.String(), stderr.String())
	}
	if len(rep.StartNS) != o.count || len(rep.Status) != o.count {
		tb.Fatalf("the sender process reported %d/%d deliveries: want %d", len(rep.StartNS), len(rep.Status), o.count)
	}
	sent := make([]time.Time, o.count)
	for i, ns := range rep.StartNS {
		if ns != 0 {
			sent[i] = time.Unix(0, ns)
		}
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return rep.Result, sent, rep.Status, cpu
}

// reniceProcess sets the nice value of every thread of this process (on
// Linux, setpriority with PRIO_PROCESS changes one thread; the threads Go
// starts later, and the processes they start, inherit the value of the
// thread that starts them). Raising it needs no privilege.
func reniceProcess(nice int) error {
	// A thread the runtime starts while the list is read inherits the
	// nice value of the thread that starts it, which may not be reniced
	// yet: the list is read again until it has no thread not seen.
	done := map[int]bool{}
	var errs []error
	for pass := 0; pass < 10; pass++ {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("listing this process's threads: %w", err)
		}
		fresh := 0
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			done[tid] = true
			fresh++
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); err != nil && !errors.Is(err, syscall.ESRCH) {
				errs = append(errs, fmt.Errorf("thread %d: %w", tid, err))
			}
		}
		if fresh == 0 {
			break
		}
	}
	return errors.Join(errs...)
}

// reniceCheckEnv makes the test binary run reniceCheck instead of tests.
const reniceCheckEnv = "SWARM_GATE_BENCH_RENICE_CHECK"

// reniceCheck starts a few busy threads, renices the process to 7 and
// prints the nice value of every thread, from /proc/self/task/*/stat, one a
// line.
func reniceCheck(out io.Writer) error {
	stop := make(chan struct{})
	defer close(stop)
	for range 4 {
		go func() {
			runtime.LockOSThread() // a thread of its own
			<-stop
		}()
	}
	time.Sleep(50 * time.Millisecond)
	if err := reniceProcess(7); err != nil {
		return err
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		raw, err := os.ReadFile(filepath.Join("/proc/self/task", t.Name(), "stat"))
		if err != nil {
			continue // the thread ended
		}
		s := string(raw)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		// nice is field 19 of stat(5), counted from 1 with pid and comm.
		fmt.Fprintln(out, f[16])
	}
	return nil
}

// TestReniceProcess checks that -e2e.fake-nice's reniceProcess changes
// every thread of the process, not only the calling one (what
// setpriority(PRIO_PROCESS, 0) alone would do on Linux).
func TestReniceProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skipf("skipping: no /proc/self/task (%v)", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^$")
	cmd.Env = append(os.Environ(), reniceCheckEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the child: %v", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) < 5 {
		t.Fatalf("the child printed %d threads' nice values (%q): want at least 5", len(lines), out)
	}
	for i, v := range lines {
		if v != "7" {
			t.Errorf("thread %d has nice %s: want 7 (all of %q)", i, v, out)
		}
	}
}
