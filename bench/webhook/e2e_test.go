package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// The end-to-end benchmark's settings (go test -bench AppEndToEnd
// ./bench/webhook -args -e2e.rate 300 ...). Zero values keep each
// scenario's own.
var (
	e2eBin = flag.String("e2e.bin", "", "the swarm-gate binary the benchmark runs as the App server (default: go build ./cmd/swarm-gate into a temporary folder); "+
		"\"inproc\" runs the App server in the test process instead, so that -cpuprofile sees it")
	e2eRate        = flag.Float64("e2e.rate", 0, "deliveries per second (0: the scenario's)")
	e2ePRs         = flag.Int("e2e.prs", 0, "pull requests in all (0: the scenario's)")
	e2ePushes      = flag.Int("e2e.pushes", 0, "pushes (deliveries) per pull request (0: the scenario's)")
	e2eRepos       = flag.Int("e2e.repos", 0, "repositories, one App installation each (0: the scenario's)")
	e2eWorkers     = flag.Int("e2e.workers", 0, "the App server's workers, SWARM_GATE_WORKERS (0: the scenario's)")
	e2eQueue       = flag.Int("e2e.queue", 0, "the App server's queue size, SWARM_GATE_QUEUE_SIZE (0: the scenario's)")
	e2eLatency     = flag.Duration("e2e.latency", -1, "the fake GitHub's latency per REST call (negative: the scenario's, 20ms)")
	e2eTimeout     = flag.Duration("e2e.timeout", 5*time.Minute, "how long to wait for the evaluations after the last delivery")
	e2eOut         = flag.String("e2e.out", "", "append each scenario's result, one JSON object a line, to this file")
	e2eConcurrency = flag.Int("e2e.concurrency", 64, "deliveries in flight at most")
	e2eSender      = flag.String("e2e.sender", "process", "where the deliveries are sent from: \"process\" (a process of their own, as GitHub sends them from its machines) or \"inproc\" (goroutines of the test process, beside the fake)")
	e2eFakeNice    = flag.Int("e2e.fake-nice", 0, "the nice value of the test process (the fake GitHub's REST API and its git processes) while the deliveries are sent: "+
		"positive gives the server and the sender the CPU first, as when GitHub runs elsewhere (0: all at one priority)")
	e2eEvaluator = flag.String("e2e.evaluator", "", "the App server process's SWARM_GATE_EVALUATOR: inprocess or process (the evaluations in a child of the server); \"\": the server's default")
	e2eWorkDir   = flag.String("e2e.workdir", "", "where the App server makes its per-job repositories and temporary files "+
		"(SWARM_GATE_WORK_DIR and TMPDIR; default: a folder of the test's temporary directory), e.g. a tmpfs such as /dev/shm")
)

// e2eScenario is one end-to-end run.
type e2eScenario struct {
	name   string
	repos  int     // repositories (one installation each)
	prs    int     // pull requests in all
	pushes int     // deliveries per pull request, each a new head
	rate   float64 // deliveries per second
	// workers and queue configure the App server.
	workers, queue int
	latency        time.Duration // per REST call of the fake
}

// e2eScenarios are the default runs: a burst of distinct pull requests at
// the intake target (500/s: the queue holds them while the workers drain
// it), distinct pull requests at a rate the workers keep up with (the time
// to a check run without a backlog), and repeated pushes to the same pull
// requests (the queue coalesces the pushes that wait).
var e2eScenarios = []e2eScenario{
	{name: "burst", repos: 8, prs: 1000, pushes: 1, rate: 500, workers: 32, queue: 2048, latency: 20 * time.Millisecond},
	{name: "paced", repos: 8, prs: 500, pushes: 1, rate: 25, workers: 32, queue: 2048, latency: 20 * time.Millisecond},
	{name: "coalesce", repos: 8, prs: 100, pushes: 10, rate: 500, workers: 32, queue: 2048, latency: 20 * time.Millisecond},
}

// BenchmarkAppEndToEnd measures the GitHub App server as GitHub uses it:
// signed pull_request synchronize deliveries, sent at a fixed rate to
// `swarm-gate serve` over loopback HTTP, each evaluated against
// internal/ghfake (the REST API with a latency per call, App JWTs and
// installation tokens, git's smart HTTP through git upload-pack): the
// installation token, a fetch of the base and head commits, the gates, the
// check runs. It reports the deliveries accepted per second and the time
// to the 202 (p50, p99), the time from each delivery to its head's
// completed swarm-gate check run (p50, p99), evaluations per second end to
// end, the server's peak RSS and CPU time, and the fake's CPU time; and it
// checks that every delivered head ends with exactly one completed check
// run per check name (or none, for a push the queue coalesced into a
// newer one). Each scenario runs once, whatever b.N; see
// bench/webhook/README.md.
func BenchmarkAppEndToEnd(b *testing.B) {
	for _, sc := range e2eScenarios {
		b.Run(sc.name, func(b *testing.B) {
			res := runE2E(b, sc.withFlags())
			b.ReportMetric(res.Intake.AchievedRate, "deliveries/s")
			b.ReportMetric(res.Intake.AckMS.P50, "ack-p50-ms")
			b.ReportMetric(res.Intake.AckMS.P99, "ack-p99-ms")
			b.ReportMetric(res.DoneMS.P50, "done-p50-ms")
			b.ReportMetric(res.DoneMS.P99, "done-p99-ms")
			b.ReportMetric(res.EvaluationsPerS, "evals/s")
			b.ReportMetric(float64(res.ServerPeakRSSKiB)/1024, "server-peak-MiB")
			b.ReportMetric(res.CPUPerEvaluationMS.Server+res.CPUPerEvaluationMS.ServerChildren, "server-cpu-ms/eval")
			b.ReportMetric(res.CPUPerEvaluationMS.Total, "cpu-ms/eval")
			b.ReportMetric(float64(res.Duplicates), "duplicates")
			b.ReportMetric(float64(res.Losses), "losses")
			b.ReportMetric(float64(res.Coalesced), "coalesced")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// TestAppEndToEndHarness runs the benchmark's harness small, in process:
// a few pull requests, two pushes each, all evaluated, none lost or
// duplicated.
func TestAppEndToEndHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short: evaluates 12 pull request heads against the fake GitHub")
	}
	sc := e2eScenario{name: "harness", repos: 2, prs: 6, pushes: 2, rate: 100, workers: 4, queue: 64, latency: time.Millisecond}
	res := runE2EWith(t, sc, "inproc")
	// A push's delivery that arrives after the next push's, while that one
	// waits, is answered 200 (stale) and counted as coalesced.
	if res.Intake.Sent != 12 || res.Intake.Statuses["202"]+res.Intake.Statuses["200"] != 12 || res.Evaluated+res.HeadsWithoutRuns != 12 ||
		res.Losses != 0 || res.Duplicates != 0 || res.Incomplete != 0 || res.WrongVerdict != 0 || res.HeadsWithoutRuns != res.Coalesced {
		t.Errorf("sent %d, statuses %v, evaluated %d, without runs %d, coalesced %d, lost %d, duplicated %d, incomplete %d, wrong verdict %d: want 12 answered 202 (or 200, stale), every head evaluated or coalesced, nothing lost, duplicated or wrong",
			res.Intake.Sent, res.Intake.Statuses, res.Evaluated, res.HeadsWithoutRuns, res.Coalesced, res.Losses, res.Duplicates, res.Incomplete, res.WrongVerdict)
	}
	if res.DoneMS.P50 <= 0 || res.EvaluationsPerS <= 0 || res.FakeCPUSeconds <= 0 || res.LogEvaluations != res.Evaluated {
		t.Errorf("done %+v, %v evaluations/s, CPU %v s, %d evaluations logged: want positive measurements, one log record per evaluated head",
			res.DoneMS, res.EvaluationsPerS, res.FakeCPUSeconds, res.LogEvaluations)
	}
}

// withFlags applies the -e2e.* flags that were given.
func (sc e2eScenario) withFlags() e2eScenario {
	if *e2eRate > 0 {
		sc.rate = *e2eRate
	}
	if *e2ePRs > 0 {
		sc.prs = *e2ePRs
	}
	if *e2ePushes > 0 {
		sc.pushes = *e2ePushes
	}
	if *e2eRepos > 0 {
		sc.repos = *e2eRepos
	}
	if *e2eWorkers > 0 {
		sc.workers = *e2eWorkers
	}
	if *e2eQueue > 0 {
		sc.queue = *e2eQueue
	}
	if *e2eLatency >= 0 {
		sc.latency = *e2eLatency
	}
	return sc
}

// e2eResult is one scenario's result, as -e2e.out writes it.
type e2eResult struct {
	Scenario   string  `json:"scenario"`
	Mode       string  `json:"mode"` // "process" (swarm-gate serve in a child process) or "inproc"
	Date       string  `json:"date"`
	CPUs       int     `json:"cpus"`
	GoVersion  string  `json:"go_version"`
	LoadAvg    string  `json:"loadavg_before"`
	Repos      int     `json:"repos"`
	PRs        int     `json:"prs"`
	Pushes     int     `json:"pushes_per_pr"`
	Workers    int     `json:"workers"`
	Queue      int     `json:"queue_size"`
	LatencyMS  float64 `json:"rest_latency_ms"`
	WorkDir    string  `json:"work_dir,omitempty"` // -e2e.workdir
	Sender     string  `json:"sender"`             // -e2e.sender: "process" or "inproc"
	FakeNice   int     `json:"fake_nice"`          // -e2e.fake-nice while the deliveries were sent
	Deliveries int     `json:"deliveries"`
	// Intake is the load generator's result: sent, accepted (202),
	// statuses, achieved deliveries/s, time to the response.
	Intake result `json:"intake"`
	// Evaluated is the heads that got check runs; HeadsWithoutRuns the
	// delivered heads that got none; Coalesced the server's
	// swarm_gate_jobs_coalesced_total.
	Evaluated        int `json:"evaluated_heads"`
	HeadsWithoutRuns int `json:"heads_without_runs"`
	Coalesced        int `json:"coalesced"`
	// Losses: heads that should have check runs and have none (the last
	// push of a pull request, or more heads without runs than the server
	// coalesced). Duplicates: check runs beyond one per head and check
	// name. Incomplete: check names missing on an evaluated head, or runs
	// not completed. WrongVerdict: conclusions that differ from the
	// warm-up evaluation's of the same change.
	Losses       int `json:"losses"`
	Duplicates   int `json:"duplicates"`
	Incomplete   int `json:"incomplete"`
	WrongVerdict int `json:"wrong_verdict"`
	// DoneMS is, per evaluated head, the time from sending its delivery to
	// the fake's answer to the write that completed its swarm-gate check
	// run.
	DoneMS latency `json:"done_ms"`
	// WallS is from the first delivery to the last completed aggregate;
	// EvaluationsPerS is Evaluated / WallS, BusyEvaluationsPerS the rate
	// between the 10th and the 90th percentile completion.
	WallS               float64 `json:"wall_s"`
	EvaluationsPerS     float64 `json:"evaluations_per_s"`
	BusyEvaluationsPerS float64 `json:"busy_evaluations_per_s"`
	// ServerEvaluations are the server's swarm_gate_evaluations_total by
	// result.
	ServerEvaluations map[string]float64 `json:"server_evaluations"`
	// The server's log records of the measured evaluations.
	LogEvaluations int     `json:"log_evaluations"`
	LogErrors      int     `json:"log_evaluation_errors"`
	LogProblems    int     `json:"log_warnings_and_errors"`
	APICallsMean   float64 `json:"api_calls_per_evaluation"`
	FetchMS        latency `json:"fetch_ms"`
	EvaluationMS   latency `json:"evaluation_ms"`
	// CPU seconds during the measurement: the server process (in
	// process: zero, all is in FakeCPUSeconds) and the git diff it runs;
	// the test process (the fake's REST API, the load generator, the
	// observer) and its git upload-pack and pack-objects children.
	// With -e2e.evaluator process, the children include the evaluator
	// process (still running: its own CPU and its git processes').
	ServerCPUSeconds      float64 `json:"server_cpu_s"`
	ServerChildCPUSeconds float64 `json:"server_children_cpu_s"`
	// Evaluator is -e2e.evaluator.
	Evaluator         string  `json:"evaluator,omitempty"`
	FakeCPUSeconds    float64 `json:"fake_cpu_s"`
	FakeGitCPUSeconds float64 `json:"fake_git_cpu_s"`
	// SenderCPUSeconds is the sender process's (-e2e.sender process; else
	// the sending is in FakeCPUSeconds).
	SenderCPUSeconds float64 `json:"sender_cpu_s"`
	// SystemCPUSeconds is the whole machine's busy CPU time (/proc/stat):
	// what it holds beyond the four above is other processes' work.
	SystemCPUSeconds float64 `json:"system_cpu_s"`
	// CPUPerEvaluationMS divides the CPU times above by the evaluated
	// heads; CPUCapacityPerS is how many evaluations a second the
	// machine's CPUs would do at that cost, all busy with nothing else
	// (the fake included), and ServerCapacityPerS the same for the server
	// alone (its git children included), as if GitHub's side ran
	// elsewhere.
	CPUPerEvaluationMS cpuPerEvaluation `json:"cpu_per_evaluation_ms"`
	CPUCapacityPerS    float64          `json:"cpu_capacity_evaluations_per_s"`
	ServerCapacityPerS float64          `json:"server_capacity_evaluations_per_s"`
	// ServerPeakRSSKiB is VmHWM of the server process (in process: of the
	// test process, fake included).
	ServerPeakRSSKiB int64 `json:"server_peak_rss_kib"`
	// REST and git requests that went through the observer.
	APIRequests   int64    `json:"api_requests"`
	GitRequests   int64    `json:"git_requests"`
	GitMeanMS     float64  `json:"git_request_mean_ms"`
	FirstProblems []string `json:"first_problems,omitempty"`
}

// cpuPerEvaluation is CPU milliseconds per evaluated head.
type cpuPerEvaluation struct {
	Server         float64 `json:"server"`
	ServerChildren float64 `json:"server_children"`
	Fake           float64 `json:"fake"`
	FakeGit        float64 `json:"fake_git"`
	Sender         float64 `json:"sender"`
	Total          float64 `json:"total"`
}

func runE2E(b *testing.B, sc e2eScenario) e2eResult {
	b.Helper()
	bin := *e2eBin
	if bin == "" {
		bin = buildServer(b, b.TempDir())
	}
	b.ResetTimer()
	res := runE2EWith(b, sc, bin)
	b.StopTimer()
	return res
}

// The App's id at the fake, and the first of the repositories' installation ids.
const (
	benchAppID             = 5150
	benchFirstInstallation = 700
)

// runE2EWith runs one scenario against bin ("inproc": in process) and
// returns its result, writing it to -e2e.out and the test log.
func runE2EWith(tb testing.TB, sc e2eScenario, bin string) e2eResult {
	tb.Helper()
	switch {
	case *e2eSender != "process" && *e2eSender != "inproc":
		tb.Fatalf("-e2e.sender %q: want process or inproc", *e2eSender)
	case *e2eFakeNice != 0 && (*e2eSender != "process" || bin == "inproc"):
		tb.Fatalf("-e2e.fake-nice needs the sender and the server in processes of their own (-e2e.sender process, -e2e.bin not inproc)")
	case *e2eFakeNice < 0 || *e2eFakeNice > 19:
		tb.Fatalf("-e2e.fake-nice %d: want 0 to 19", *e2eFakeNice)
	case fakeNiceStuck:
		tb.Fatalf("-e2e.fake-nice: an earlier scenario lowered this process's priority and it cannot raise it back (that needs CAP_SYS_NICE), " +
			"so this scenario's server would start at the fake's priority: run one scenario per process (bench/webhook/e2e.sh does)")
	}
	if _, err := os.Stat(examples); errors.Is(err, fs.ErrNotExist) {
		sharedtest.Skip(tb, "skipping: %s is not there (clone ../shared beside the repo)", examples)
	}
	loadBefore, _ := os.ReadFile("/proc/loadavg")
	res := e2eResult{Scenario: sc.name, Mode: "process", Date: time.Now().UTC().Format(time.RFC3339), CPUs: runtime.NumCPU(),
		GoVersion: runtime.Version(), LoadAvg: strings.Join(strings.Fields(string(loadBefore))[:min(3, len(strings.Fields(string(loadBefore))))], " "),
		Repos: sc.repos, PRs: sc.prs, Pushes: sc.pushes, Workers: sc.workers, Queue: sc.queue, LatencyMS: ms(sc.latency)}
	if bin == "inproc" {
		res.Mode = "inproc"
	}
	switch *e2eEvaluator {
	case "", "inprocess":
	case "process":
		if bin == "inproc" {
			tb.Fatalf("-e2e.evaluator process needs the server in a process of its own (-e2e.bin not inproc)")
		}
	default:
		tb.Fatalf("-e2e.evaluator %q: want inprocess or process", *e2eEvaluator)
	}
	res.Evaluator = *e2eEvaluator

	fake := ghfake.New(tb)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	fake.RegisterApp(benchAppID, "swarm-gate", &key.PublicKey)
	// One more pull request per repository for the warm-up.
	fx := buildFixture(tb, tb.TempDir(), sc.repos, sc.prs+sc.repos, sc.pushes, benchFirstInstallation)
	var warm []*fixturePR
	for _, r := range fx.repos {
		fake.AddInstallation(benchAppID, r.installation)
		fake.ServeGit(r.name, r.dir)
		warm = append(warm, r.prs[len(r.prs)-1])
		r.prs = r.prs[:len(r.prs)-1]
	}
	fake.SetLatency(sc.latency)

	obs := newObserver(fake.Handler())
	front := httptest.NewServer(obs)
	tb.Cleanup(front.Close)

	secretBytes := make([]byte, 16)
	if _, err := rand.Read(secretBytes); err != nil {
		tb.Fatal(err)
	}
	workDir := tb.TempDir()
	if *e2eWorkDir != "" {
		var err error
		if workDir, err = os.MkdirTemp(*e2eWorkDir, "swarm-gate-bench-"); err != nil {
			tb.Fatalf("-e2e.workdir: %v", err)
		}
		tb.Cleanup(func() { _ = os.RemoveAll(workDir) })
		res.WorkDir = *e2eWorkDir
	}
	settings := serverSettings{bin: bin, appID: benchAppID, key: key, secret: "bench-" + hex.EncodeToString(secretBytes),
		apiURL: front.URL + "/api/v3/", workers: sc.workers, queue: sc.queue, workDir: workDir, shutdownTimeout: 30 * time.Second, evaluator: *e2eEvaluator}
	var srv *appServer
	if bin == "inproc" {
		srv = startInProcess(tb, settings)
	} else {
		srv = startChild(tb, settings)
	}

	// The deliveries, push by push, the pull requests of the repositories
	// taking turns.
	template := synchronizeTemplate(tb, examples)
	var dels []delivery
	maxPRs := 0
	for _, r := range fx.repos {
		maxPRs = max(maxPRs, len(r.prs))
	}
	for push := range sc.pushes {
		for i := range maxPRs {
			for _, r := range fx.repos {
				if i < len(r.prs) {
					pr := r.prs[i]
					dels = append(dels, delivery{pr: pr, push: push, body: synchronizeBody(tb, template, front.URL, pr, push)})
				}
			}
		}
	}
	res.Deliveries = len(dels)

	// Warm-up: one evaluation per repository (tokens minted, the
	// repositories read once); its check runs are the expected verdict.
	var warmDels []prepared
	var warmKeys []string
	for _, pr := range warm {
		d := delivery{pr: pr, push: len(pr.heads) - 1}
		body := synchronizeBody(tb, template, front.URL, pr, d.push)
		warmDels = append(warmDels, prepared{event: "pull_request", name: "warm-up", body: body, signature: sign([]byte(settings.secret), body)})
		warmKeys = append(warmKeys, d.key())
	}
	ctx := context.Background()
	wres, err := send(ctx, options{url: srv.url + "/webhook", rate: 100, duration: time.Minute, concurrency: 4, timeout: 10 * time.Second,
		count: len(warmDels)}, warmDels)
	if err != nil || wres.Accepted != len(warmDels) {
		tb.Fatalf("warm-up deliveries: %v, %+v", err, wres)
	}
	if missing := waitCompleted(obs, warmKeys, time.Now().Add(2*time.Minute)); len(missing) > 0 {
		tb.Fatalf("the warm-up evaluations did not complete: %v; the server's last log lines:\n%s", missing, srv.logs.tail())
	}
	want := expectedRuns(tb, fake, warm[0])
	// The aggregate is completed just before the evaluation returns: wait
	// for the server to count and log it before the baseline.
	waitIdle(tb, srv.metricsURL, time.Now().Add(time.Minute))
	srv.logs.reset()

	// The measurement.
	prep := make([]prepared, len(dels))
	for i, d := range dels {
		prep[i] = prepared{event: "pull_request", name: "synchronize", body: d.body, signature: sign([]byte(settings.secret), d.body)}
	}
	sentAt := make([]time.Time, len(dels))
	status := make([]int, len(dels))
	var sentMu sync.Mutex
	srvSelf0, srvKids0 := time.Duration(0), time.Duration(0)
	if srv.pid > 0 {
		srvSelf0, srvKids0, _ = procCPU(srv.pid)
	}
	ctx0, cancel0 := context.WithTimeout(ctx, 10*time.Second)
	metrics0, err := scrape(ctx0, srv.metricsURL)
	cancel0()
	if err != nil {
		tb.Fatalf("reading the server's metrics: %v", err)
	}
	self0, kids0 := selfCPU()
	sys0 := systemBusy()
	gitReq0, gitNanos0, api0 := obs.gitRequests.Load(), obs.gitNanos.Load(), obs.apiRequests.Load()
	start := time.Now()
	sendOpts := options{url: srv.url + "/webhook", rate: sc.rate, duration: time.Duration(float64(len(dels))/sc.rate*float64(time.Second)) + time.Minute,
		concurrency: *e2eConcurrency, timeout: 10 * time.Second, count: len(dels)}
	var intake result
	var senderCPU time.Duration
	if *e2eSender == "process" {
		res.Sender = "process"
		intake, sentAt, status, senderCPU = sendFromProcess(tb, sendOpts, prep, func() {
			if *e2eFakeNice != 0 {
				// The sender process and the server keep their priority.
				if err := reniceProcess(*e2eFakeNice); err != nil {
					tb.Fatalf("-e2e.fake-nice %d: %v", *e2eFakeNice, err)
				}
				res.FakeNice = *e2eFakeNice
				tb.Cleanup(func() {
					if err := reniceProcess(0); err != nil {
						// Later scenarios' servers would inherit the fake's priority.
						fakeNiceStuck = true
					}
				})
			}
			start = time.Now()
		})
	} else {
		res.Sender = "inproc"
		sendOpts.onResult = func(seq int, out outcome) {
			sentMu.Lock()
			sentAt[seq], status[seq] = out.start, out.status
			sentMu.Unlock()
		}
		if intake, err = send(ctx, sendOpts, prep); err != nil {
			tb.Fatal(err)
		}
	}
	intake.URL, intake.Examples = "", len(prep)
	res.Intake = intake

	// Every pull request's last push must be evaluated; then the server
	// must be idle (a coalesced push never runs).
	var targets []string
	for _, d := range dels {
		if d.push == len(d.pr.heads)-1 {
			targets = append(targets, d.key())
		}
	}
	deadline := time.Now().Add(*e2eTimeout)
	missing := waitCompleted(obs, targets, deadline)
	metrics := waitIdle(tb, srv.metricsURL, deadline)
	if srv.pid > 0 {
		srvSelf, srvKids, err := procCPU(srv.pid)
		if err != nil {
			tb.Fatal(err)
		}
		res.ServerCPUSeconds = round((srvSelf - srvSelf0).Seconds(), 2)
		res.ServerChildCPUSeconds = round((srvKids - srvKids0).Seconds(), 2)
	}
	self, kids := selfCPU()
	res.SystemCPUSeconds = round((systemBusy() - sys0).Seconds(), 2)
	res.FakeCPUSeconds = round((self - self0).Seconds(), 2)
	// The sender process is a waited-for child too: its time is its own.
	res.SenderCPUSeconds = round(senderCPU.Seconds(), 2)
	res.FakeGitCPUSeconds = round((kids - kids0 - senderCPU).Seconds(), 2)
	res.ServerPeakRSSKiB = peakRSSOf(srv.pid)
	res.APIRequests = obs.apiRequests.Load() - api0
	res.GitRequests = obs.gitRequests.Load() - gitReq0
	if res.GitRequests > 0 {
		res.GitMeanMS = round(float64(obs.gitNanos.Load()-gitNanos0)/float64(res.GitRequests)/1e6, 2)
	}
	res.Coalesced = int(sumOf(metrics, "swarm_gate_jobs_coalesced_total") - sumOf(metrics0, "swarm_gate_jobs_coalesced_total"))
	res.ServerEvaluations = map[string]float64{}
	for _, r := range []string{"ok", "error", "timeout", "canceled"} {
		if n := sumOf(metrics, "swarm_gate_evaluations_total", `result="`+r+`"`) - sumOf(metrics0, "swarm_gate_evaluations_total", `result="`+r+`"`); n > 0 {
			res.ServerEvaluations[r] = n
		}
	}
	if err := srv.stop(); err != nil {
		tb.Error(err)
	}
	if len(missing) > 0 {
		tb.Errorf("%d pull requests' last pushes were not evaluated within -e2e.timeout %s (first: %s); the server's last log lines:\n%s",
			len(missing), *e2eTimeout, missing[0], srv.logs.tail())
	}

	// What the fake holds: one completed check run per check name on every
	// evaluated head, with the warm-up's conclusions.
	checkStore(tb, fake, fx, dels, want, &res)
	if res.Intake.Accepted != len(dels) {
		res.Losses = max(res.Losses, len(dels)-res.Intake.Accepted-res.Coalesced)
	}

	// Times.
	var done []float64
	var completions []time.Time
	var first time.Time
	for i, d := range dels {
		if first.IsZero() || (!sentAt[i].IsZero() && sentAt[i].Before(first)) {
			first = sentAt[i]
		}
		at, ok := obs.completedAt(d.key())
		if !ok || status[i] != http.StatusAccepted {
			continue
		}
		done = append(done, at.Sub(sentAt[i]).Seconds()*1000)
		completions = append(completions, at)
	}
	if first.IsZero() {
		first = start
	}
	res.DoneMS = quantiles(done)
	sort.Slice(completions, func(i, j int) bool { return completions[i].Before(completions[j]) })
	if n := len(completions); n > 0 {
		res.WallS = round(completions[n-1].Sub(first).Seconds(), 2)
		res.EvaluationsPerS = round(float64(res.Evaluated)/completions[n-1].Sub(first).Seconds(), 1)
		lo, hi := n/10, n*9/10
		if hi > lo && completions[hi-1].After(completions[lo]) {
			res.BusyEvaluationsPerS = round(float64(hi-1-lo)/completions[hi-1].Sub(completions[lo]).Seconds(), 1)
		}
	}

	if n := float64(res.Evaluated); n > 0 {
		per := func(sec float64) float64 { return round(sec*1000/n, 1) }
		c := cpuPerEvaluation{Server: per(res.ServerCPUSeconds), ServerChildren: per(res.ServerChildCPUSeconds),
			Fake: per(res.FakeCPUSeconds), FakeGit: per(res.FakeGitCPUSeconds), Sender: per(res.SenderCPUSeconds)}
		c.Total = round(c.Server+c.ServerChildren+c.Fake+c.FakeGit+c.Sender, 1)
		res.CPUPerEvaluationMS = c
		if c.Total > 0 {
			res.CPUCapacityPerS = round(float64(res.CPUs)*1000/c.Total, 1)
		}
		if server := c.Server + c.ServerChildren; server > 0 && res.Mode == "process" {
			res.ServerCapacityPerS = round(float64(res.CPUs)*1000/server, 1)
		}
	}

	st := srv.logs
	st.mu.Lock()
	res.LogEvaluations, res.LogErrors, res.LogProblems = st.finished, st.failed, st.problemCount
	res.FirstProblems = append([]string(nil), st.problems...)
	if len(st.apiCalls) > 0 {
		var sum float64
		for _, c := range st.apiCalls {
			sum += c
		}
		res.APICallsMean = round(sum/float64(len(st.apiCalls)), 2)
	}
	fetch := append([]float64(nil), st.fetchSeconds...)
	eval := append([]float64(nil), st.evalSeconds...)
	st.mu.Unlock()
	for i := range fetch {
		fetch[i] *= 1000
	}
	for i := range eval {
		eval[i] *= 1000
	}
	res.FetchMS, res.EvaluationMS = quantiles(fetch), quantiles(eval)

	if res.Losses != 0 || res.Duplicates != 0 || res.Incomplete != 0 || res.WrongVerdict != 0 {
		tb.Errorf("%s: %d lost, %d duplicated, %d incomplete, %d with another verdict than the warm-up's: want none", sc.name, res.Losses, res.Duplicates, res.Incomplete, res.WrongVerdict)
	}
	line, _ := json.Marshal(res)
	tb.Logf("%s", line)
	if *e2eOut != "" {
		f, err := os.OpenFile(*e2eOut, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			tb.Fatalf("-e2e.out: %v", err)
		}
		_, werr := f.Write(append(line, '\n'))
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			tb.Fatalf("-e2e.out: %v", werr)
		}
	}
	return res
}

// waitCompleted waits until every key's aggregate check run was completed,
// or the deadline; it returns the keys still missing.
func waitCompleted(obs *observer, keys []string, deadline time.Time) []string {
	pending := append([]string(nil), keys...)
	for {
		rest := pending[:0]
		for _, k := range pending {
			if _, ok := obs.completedAt(k); !ok {
				rest = append(rest, k)
			}
		}
		pending = rest
		if len(pending) == 0 || time.Now().After(deadline) {
			return pending
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitIdle waits until the server has no job waiting or running, and
// returns its metrics then.
func waitIdle(tb testing.TB, base string, deadline time.Time) map[string]float64 {
	tb.Helper()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		m, err := scrape(ctx, base)
		cancel()
		if err != nil {
			tb.Fatalf("reading the server's metrics: %v", err)
		}
		if m["swarm_gate_queue_depth"] == 0 && m["swarm_gate_jobs_running"] == 0 {
			return m
		}
		if time.Now().After(deadline) {
			tb.Errorf("the server is still busy at the deadline: %v jobs waiting, %v running", m["swarm_gate_queue_depth"], m["swarm_gate_jobs_running"])
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// expectedRuns is the warm-up evaluation's check runs, check name ->
// conclusion: every pull request makes the same kind of change, so every
// evaluation must conclude the same.
func expectedRuns(tb testing.TB, fake *ghfake.Server, pr *fixturePR) map[string]string {
	tb.Helper()
	head := pr.heads[len(pr.heads)-1]
	want := map[string]string{}
	for _, cr := range fake.CheckRuns(pr.repo.name) {
		if cr.HeadSHA != head {
			continue
		}
		if cr.Status != "completed" || strings.HasPrefix(cr.Title, "could not evaluate") {
			tb.Fatalf("warm-up evaluation: %s is %s/%s %q: the benchmark's pull requests are not evaluated", cr.Name, cr.Status, cr.Conclusion, cr.Title)
		}
		if _, dup := want[cr.Name]; dup {
			tb.Fatalf("warm-up evaluation: two %s check runs", cr.Name)
		}
		want[cr.Name] = cr.Conclusion
	}
	if _, ok := want[aggregateName]; !ok || len(want) < 2 {
		tb.Fatalf("warm-up evaluation: check runs %v, want the aggregate and the gates'", want)
	}
	return want
}

// checkStore counts, from the fake's store, the evaluated heads, the heads
// without check runs, losses, duplicates, incomplete evaluations and
// verdicts other than want.
func checkStore(tb testing.TB, fake *ghfake.Server, fx *fixture, dels []delivery, want map[string]string, res *e2eResult) {
	tb.Helper()
	type headRuns map[string][]ghfake.CheckRun // name -> runs
	byHead := map[string]headRuns{}
	for _, r := range fx.repos {
		for _, cr := range fake.CheckRuns(r.name) {
			k := r.name + "@" + cr.HeadSHA
			if byHead[k] == nil {
				byHead[k] = headRuns{}
			}
			byHead[k][cr.Name] = append(byHead[k][cr.Name], cr)
		}
	}
	seen := map[string]bool{}
	withoutRuns := 0
	for _, d := range dels {
		k := d.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		runs := byHead[k]
		if len(runs) == 0 {
			if d.push == len(d.pr.heads)-1 {
				res.Losses++ // the newest push is never coalesced away
			} else {
				withoutRuns++
			}
			res.HeadsWithoutRuns++
			continue
		}
		res.Evaluated++
		for name, conclusion := range want {
			list := runs[name]
			switch {
			case len(list) == 0:
				res.Incomplete++
				continue
			case len(list) > 1:
				res.Duplicates += len(list) - 1
			}
			for _, cr := range list {
				if cr.Status != "completed" {
					res.Incomplete++
				} else if cr.Conclusion != conclusion {
					res.WrongVerdict++
				}
			}
		}
		for name, list := range runs {
			if _, ok := want[name]; !ok {
				tb.Logf("%s: unexpected check run %s (%d)", k, name, len(list))
				res.Incomplete++
			}
		}
	}
	if withoutRuns > res.Coalesced {
		res.Losses += withoutRuns - res.Coalesced
	}
	if withoutRuns < res.Coalesced {
		tb.Logf("the server coalesced %d jobs but only %d older pushes have no check runs", res.Coalesced, withoutRuns)
	}
}
