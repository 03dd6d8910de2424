package app_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/swarm-gate/swarm-gate/internal/app"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// webhooksDir holds GitHub's example payloads, read in place.
const webhooksDir = "../../../shared/github/webhooks"

// The App and installation the tests register with the fake.
const (
	appID          = 4242
	appSlug        = "swarm-gate" // its bot, swarm-gate[bot], is ghfake.Login: the author of the comments the fake stores
	installationID = 77
	testRepo       = "Codertocat/Hello-World"
)

// appKey is one RSA key for the whole test binary (generating one takes a
// while).
var appKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// externalKey is the key part of the App's external ids.
func externalKey() string {
	sum := sha256.Sum256([]byte(app.WorkflowName + "\x00" + app.JobName))
	return hex.EncodeToString(sum[:6])
}

// harness is a fake GitHub (API and git hosting) with the App installed,
// and the demo repository served as testRepo.
type harness struct {
	t          *testing.T
	fake       *ghfake.Server
	dir        string // the served repository's working tree
	base, head string
	secret     []byte
	logs       *syncBuffer
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, fake: ghfake.New(t), dir: t.TempDir(), logs: &syncBuffer{}}
	var err error
	if h.base, h.head, err = demo.Build(h.dir); err != nil {
		t.Fatal(err)
	}
	h.fake.RegisterApp(appID, appSlug, &appKey().PublicKey)
	h.fake.AddInstallation(appID, installationID)
	h.fake.ServeGit(testRepo, h.dir)
	// Both branches were pushed now, before any comment: GitHub created
	// their first check suites.
	h.fake.Pushed(testRepo, h.base, time.Now())
	h.fake.Pushed(testRepo, h.head, time.Now())
	h.secret = []byte("webhook secret " + t.Name())
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs:\n%s", h.logs.String())
		}
	})
	return h
}

func noWait(ctx context.Context, d time.Duration) error { return ctx.Err() }

// config is the App's configuration against the fake.
func (h *harness) config() app.Config {
	return app.Config{AppID: appID, PrivateKey: appKey(), APIURL: h.fake.URL, Logger: h.logger("app"),
		Registerer: prometheus.NewRegistry(), Version: "test", WorkDir: h.t.TempDir(), Sleep: noWait, FinaliseTimeout: 5 * time.Second}
}

func (h *harness) logger(name string) *slog.Logger {
	return slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})).With("component", name)
}

func (h *harness) newApp(edit func(*app.Config)) *app.App {
	h.t.Helper()
	cfg := h.config()
	if edit != nil {
		edit(&cfg)
	}
	a, err := app.New(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	return a
}

// server is a webhook server with its listener.
type server struct {
	*webhook.Server
	URL string
	reg *prometheus.Registry // the server's metrics
}

// idle reports whether no job is queued or running (the server's gauges).
func (s *server) idle(t *testing.T) bool {
	t.Helper()
	mfs, err := s.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if n := mf.GetName(); n == "swarm_gate_jobs_running" || n == "swarm_gate_queue_depth" {
			for _, m := range mf.GetMetric() {
				if m.GetGauge().GetValue() != 0 {
					return false
				}
			}
		}
	}
	return true
}

// newServer starts a webhook server around ev.
func (h *harness) newServer(ev webhook.Evaluator, name string) *server {
	h.t.Helper()
	reg := prometheus.NewRegistry()
	s, err := webhook.New(webhook.Config{Secret: h.secret, Evaluator: ev, Workers: 2, JobTimeout: 10 * time.Minute,
		Logger: h.logger(name), Registerer: reg, Gatherer: reg})
	if err != nil {
		h.t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	h.t.Cleanup(ts.Close)
	s.Start()
	h.t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return &server{Server: s, URL: ts.URL, reg: reg}
}

// drain waits for every queued job to be evaluated.
func (s *server) drain(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // the 3,001-file pull request under -race
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("draining the webhook server: %v", err)
	}
}

// payload is GitHub's example at webhooksDir/file, pointed at the
// harness's repository and installation, then changed by edit.
func (h *harness) payload(file string, edit func(p map[string]any)) []byte {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(webhooksDir, file))
	if err != nil {
		sharedtest.Skip(h.t, "GitHub's example payloads are not available: %v", err)
	}
	p := map[string]any{}
	if err := json.Unmarshal(data, &p); err != nil {
		h.t.Fatal(err)
	}
	sharedtest.SetPath(p, "repository.full_name", testRepo)
	sharedtest.SetPath(p, "repository.clone_url", h.fake.WebURL+"/"+testRepo+".git")
	sharedtest.SetPath(p, "installation", map[string]any{"id": installationID, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzc="})
	if edit != nil {
		edit(p)
	}
	out, err := json.Marshal(p)
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// synchronize is a pull_request synchronize of the demo's phase pull
// request (#2 in GitHub's example): base main, head swarm/phase-1.
func (h *harness) synchronize(edit func(p map[string]any)) []byte {
	return h.payload("pull_request/synchronize.json", func(p map[string]any) {
		sharedtest.SetPath(p, "pull_request.base.sha", h.base)
		sharedtest.SetPath(p, "pull_request.base.ref", demo.BaseBranch)
		sharedtest.SetPath(p, "pull_request.head.sha", h.head)
		sharedtest.SetPath(p, "pull_request.head.ref", demo.HeadBranch)
		sharedtest.SetPath(p, "pull_request.head.repo.full_name", testRepo)
		if edit != nil {
			edit(p)
		}
	})
}

// deliver POSTs a signed delivery and returns the status.
func (h *harness) deliver(url, event, delivery string, body []byte) int {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/webhook", bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	mac := hmac.New(sha256.New, h.secret)
	mac.Write(body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// run is a check run as the assertions see it.
type run struct {
	Name, HeadSHA, ExternalID, Status, Conclusion string
	Annotations                                   []string
}

func (r run) String() string {
	return fmt.Sprintf("%s@%.7s [%s] %s/%s %v", r.Name, r.HeadSHA, r.ExternalID, r.Status, r.Conclusion, r.Annotations)
}

// runs returns the fake's check runs of testRepo, sorted by name then
// commit.
func (h *harness) runs() []run {
	var out []run
	for _, cr := range h.fake.CheckRuns(testRepo) {
		r := run{Name: cr.Name, HeadSHA: cr.HeadSHA, ExternalID: cr.ExternalID, Status: cr.Status, Conclusion: cr.Conclusion}
		for _, a := range cr.Annotations {
			r.Annotations = append(r.Annotations, fmt.Sprintf("%s %s:%d", a.Level, a.Path, a.StartLine))
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].HeadSHA < out[j].HeadSHA
	})
	return out
}

// storedRun returns the fake's newest run named name.
func (h *harness) storedRun(name string) ghfake.CheckRun {
	h.t.Helper()
	var found *ghfake.CheckRun
	for _, cr := range h.fake.CheckRuns(testRepo) {
		if cr.Name == name {
			c := cr
			found = &c
		}
	}
	if found == nil {
		h.t.Fatalf("no check run %s", name)
	}
	return *found
}

// demoRuns are the check runs the demo's phase pull request gets (as in
// internal/actionrun's end-to-end test): three gates fail, each with its
// finding as an annotation, and the aggregate fails with them.
func demoRuns(head string) []run {
	ext := "swarm-gate:pull_request:" + externalKey()
	r := func(name, conclusion string, anns ...string) run {
		return run{Name: name, HeadSHA: head, ExternalID: ext, Status: "completed", Conclusion: conclusion, Annotations: anns}
	}
	return []run{
		r("swarm-gate", "failure"),
		r("swarm/critic", "success"),
		r("swarm/drift", "success"),
		r("swarm/evidence", "failure", "failure .swarm/plan.json:28"),
		r("swarm/placeholders", "failure", "failure internal/export/csv.go:12"),
		r("swarm/plan-freeze", "success"),
		r("swarm/plan-lint", "success"),
		r("swarm/sast", "success"),
		r("swarm/scope", "failure", "failure main.go:1"),
	}
}

// commitOnHead adds a commit to the served repository's head branch,
// pushed now (GitHub creates its first check suite), and returns its SHA
// (h.head becomes it).
func (h *harness) commitOnHead(files map[string]string) string {
	h.t.Helper()
	sha, err := demo.Commit(h.dir, demo.HeadBranch, files, "more", time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC))
	if err != nil {
		h.t.Fatal(err)
	}
	h.fake.Pushed(testRepo, sha, time.Now())
	h.head = sha
	return sha
}

// restCalls are the fake's REST calls, by operation, with the total.
func (h *harness) restCalls() (map[string]int, int) {
	out := map[string]int{}
	calls := h.fake.Calls()
	for _, c := range calls {
		out[c.Operation]++
	}
	return out, len(calls)
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
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
