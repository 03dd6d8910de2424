package webhook

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// sharedGitHub is GitHub's reference data beside the repository.
const sharedGitHub = "../../shared/github"

// githubData returns the path of a file under ../shared/github, skipping the
// test when ../shared is not there.
func githubData(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(sharedGitHub, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			sharedtest.Skip(t, "skipping: %s is not there (clone ../shared beside the repo to run the webhook payload tests)", p)
		}
		t.Fatal(err)
	}
	return p
}

// testSecret is assembled at run time; it is not a real credential.
var testSecret = []byte(strings.Join([]string{"webhook", "test", "secret"}, "-"))

func sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// lockedBuffer is a log sink tests read after the writers are done.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// harness is a Server under test with its logs.
type harness struct {
	*Server
	logs *lockedBuffer
}

// newHarness makes a Server with cfg (Secret defaults to testSecret, the
// Evaluator to a no-op) and shuts it down when the test ends.
func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	if cfg.Secret == nil {
		cfg.Secret = testSecret
	}
	if cfg.Evaluator == nil {
		cfg.Evaluator = EvaluatorFunc(func(context.Context, Job) error { return nil })
	}
	logs := &lockedBuffer{}
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // running jobs end now: every test evaluator honours its context
		s.Shutdown(ctx)
	})
	return &harness{Server: s, logs: logs}
}

// delivery is one request to POST /webhook.
type delivery struct {
	event, id string
	body      []byte
	signature string // default: the right one; "-" for none
}

func (h *harness) send(t *testing.T, d delivery) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(d.body))
	req.Header.Set("Content-Type", "application/json")
	if d.event != "" {
		req.Header.Set(headerEvent, d.event)
	}
	if d.id != "" {
		req.Header.Set(headerDelivery, d.id)
	}
	switch d.signature {
	case "":
		req.Header.Set(headerSignature, sign(testSecret, d.body))
	case "-":
	default:
		req.Header.Set(headerSignature, d.signature)
	}
	rec := httptest.NewRecorder()
	h.Handler().ServeHTTP(rec, req)
	return rec
}

// mustSend sends d and fails the test unless the status is want.
func (h *harness) mustSend(t *testing.T, d delivery, want int) string {
	t.Helper()
	rec := h.send(t, d)
	if rec.Code != want {
		t.Fatalf("delivery %s (%s): status %d %q, want %d", d.id, d.event, rec.Code, rec.Body.String(), want)
	}
	return rec.Body.String()
}

func (h *harness) get(t *testing.T, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	handler := h.Handler()
	if path == "/metrics" {
		handler = h.MetricsHandler("")
	}
	handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

// metric reads one sample from GET /metrics, as written in the text format
// (name{label="value",...} with labels in name order); 0 when absent.
func (h *harness) metric(t *testing.T, sample string) float64 {
	t.Helper()
	rec := h.get(t, "/metrics")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body.String())
	}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric line %q: %v", line, err)
			}
			return f
		}
	}
	return 0
}

// waitUntil yields until cond holds; it fails the test after a generous
// guard so that a broken scheduler cannot hang it. It orders nothing by
// time: the guard only turns a hang into a failure. It is a minute: under
// the race detector on a loaded 2-core runner, shedding 2,000 connections
// took over 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	guard := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(guard) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // not a busy loop: the server needs the CPU
	}
}

// recv takes one value from c, failing the test after a guard.
func recv[T any](t *testing.T, what string, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("gave up waiting for %s", what)
		panic("unreachable")
	}
}

func sha(n int) string { return fmt.Sprintf("%040x", n) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// prBody is a minimal pull_request delivery.
func prBody(action, repo string, pr int, head string) []byte {
	return mustJSON(map[string]any{
		"action":       action,
		"number":       pr,
		"installation": map[string]any{"id": 42},
		"repository":   map[string]any{"full_name": repo},
		"pull_request": map[string]any{"number": pr, "head": map[string]any{"sha": head}},
	})
}

// commentBody is a minimal issue_comment delivery on a pull request.
func commentBody(action, repo string, pr int, text string) []byte {
	return mustJSON(map[string]any{
		"action":       action,
		"installation": map[string]any{"id": 42},
		"repository":   map[string]any{"full_name": repo},
		"issue":        map[string]any{"number": pr, "pull_request": map[string]any{"url": "https://api.github.com/repos/" + repo + "/pulls/" + strconv.Itoa(pr)}},
		"comment":      map[string]any{"body": text},
	})
}

// blockingEvaluator reports each job it starts on started and returns when
// the test sends on (or closes) release, or when its context ends.
type blockingEvaluator struct {
	started chan Job
	release chan struct{}
	ended   chan error // the Evaluate results, when not nil
}

func newBlockingEvaluator() *blockingEvaluator {
	return &blockingEvaluator{started: make(chan Job, 64), release: make(chan struct{}), ended: make(chan error, 64)}
}

func (e *blockingEvaluator) Evaluate(ctx context.Context, j Job) error {
	e.started <- j
	var err error
	select {
	case <-e.release:
	case <-ctx.Done():
		err = ctx.Err()
	}
	e.ended <- err
	return err
}
