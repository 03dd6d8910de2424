package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"

	"github.com/prometheus/client_golang/prometheus"
)

// GitHub's published test vector: secret "It's a Secret to Everybody",
// payload "Hello, World!".
func TestSignatureTestVector(t *testing.T) {
	raw, err := os.ReadFile(githubData(t, "webhook-signature-test-vector.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Secret    string `json:"secret"`
		Payload   string `json:"payload"`
		Signature string `json:"x_hub_signature_256"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("webhook-signature-test-vector.json: %v", err)
	}
	if v.Secret == "" || v.Payload == "" || v.Signature == "" {
		t.Fatalf("webhook-signature-test-vector.json lacks secret, payload or x_hub_signature_256: %s", raw)
	}
	if reason := checkSignature([]byte(v.Secret), []string{v.Signature}, []byte(v.Payload)); reason != "" {
		t.Errorf("checkSignature(vector) = %q, want it accepted", reason)
	}
	if reason := checkSignature([]byte(v.Secret+"x"), []string{v.Signature}, []byte(v.Payload)); reason == "" {
		t.Error("checkSignature accepted the vector under another secret")
	}
	// Through the handler: the vector's payload is not JSON, so send it as
	// a ping, the one event whose body is not read.
	h := newHarness(t, Config{Secret: []byte(v.Secret)})
	rec := h.send(t, delivery{event: "ping", id: "vector-1", body: []byte(v.Payload), signature: v.Signature})
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "pong") {
		t.Errorf("ping signed with the vector: %d %q, want 200 pong", rec.Code, rec.Body.String())
	}
}

func TestSignature(t *testing.T) {
	body := prBody("synchronize", "octo/repo", 1, sha(1))
	good := sign(testSecret, body)
	hexPart := strings.TrimPrefix(good, "sha256=")
	for _, tc := range []struct {
		name      string
		signature string
		want      int
		reason    string
	}{
		{"good", good, http.StatusAccepted, ""},
		{"good, uppercase hex", "sha256=" + strings.ToUpper(hexPart), http.StatusAccepted, ""},
		{"missing", "-", http.StatusUnauthorized, "missing X-Hub-Signature-256"},
		{"empty", "sha256=", http.StatusUnauthorized, "64 hex digits"},
		{"wrong prefix sha1", "sha1=" + hexPart[:40], http.StatusUnauthorized, "must start with sha256="},
		{"no prefix", hexPart, http.StatusUnauthorized, "must start with sha256="},
		{"bad hex", "sha256=" + strings.Repeat("zz", 32), http.StatusUnauthorized, "64 hex digits"},
		{"short hex", "sha256=" + hexPart[:40], http.StatusUnauthorized, "64 hex digits"},
		{"mismatch", sign([]byte("another secret"), body), http.StatusUnauthorized, "does not match"},
		{"body changed", sign(testSecret, append([]byte(" "), body...)), http.StatusUnauthorized, "does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			rec := h.send(t, delivery{event: "pull_request", id: "d-" + strings.NewReplacer(" ", "-", ",", "").Replace(tc.name), body: body, signature: tc.signature})
			if rec.Code != tc.want {
				t.Fatalf("status %d %q, want %d", rec.Code, rec.Body.String(), tc.want)
			}
			got := rec.Body.String()
			if tc.reason != "" && !strings.Contains(got, tc.reason) {
				t.Errorf("body %q does not say %q", got, tc.reason)
			}
			if strings.Contains(got, string(testSecret)) || (tc.want != http.StatusAccepted && strings.Contains(got, hexPart)) {
				t.Errorf("body %q echoes the secret or the expected signature", got)
			}
			if tc.want == http.StatusUnauthorized && h.q.depth() != 0 {
				t.Errorf("an unsigned delivery was queued")
			}
			if tc.want == http.StatusUnauthorized {
				if n := h.metric(t, `swarm_gate_deliveries_total{event="unknown",outcome="unauthorized"}`); n != 1 {
					t.Errorf("unauthorized deliveries counted %v, want 1", n)
				}
			}
		})
	}
	t.Run("two headers", func(t *testing.T) {
		h := newHarness(t, Config{})
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
		req.Header.Set(headerEvent, "pull_request")
		req.Header.Set(headerDelivery, "two-headers")
		req.Header.Add(headerSignature, good)
		req.Header.Add(headerSignature, good)
		rec := httptest.NewRecorder()
		h.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("two signature headers: %d, want 401", rec.Code)
		}
	})
}

func TestMethodNotAllowed(t *testing.T) {
	h := newHarness(t, Config{})
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodHead} {
		rec := httptest.NewRecorder()
		h.Handler().ServeHTTP(rec, httptest.NewRequest(m, "/webhook", nil))
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != http.MethodPost {
			t.Errorf("%s /webhook: %d Allow %q, want 405 Allow POST", m, rec.Code, rec.Header().Get("Allow"))
		}
	}
	if n := h.metric(t, `swarm_gate_deliveries_total{event="unknown",outcome="method_not_allowed"}`); n != 4 {
		t.Errorf("method_not_allowed counted %v, want 4", n)
	}
}

func TestBodyTooLarge(t *testing.T) {
	const limit = 1024
	body := prBody("synchronize", "octo/repo", 1, sha(1))
	pad := func(n int) []byte { // valid JSON of n bytes
		b := append([]byte(nil), body[:len(body)-1]...)
		b = append(b, `,"pad":"`...)
		b = append(b, bytes.Repeat([]byte("x"), n-len(b)-2)...)
		return append(b, `"}`...)
	}
	for _, tc := range []struct {
		name          string
		size          int
		contentLength bool
		want          int
	}{
		{"over, with Content-Length", limit + 1, true, http.StatusRequestEntityTooLarge},
		{"over, without Content-Length", limit + 1, false, http.StatusRequestEntityTooLarge},
		{"far over, without Content-Length", 10 * limit, false, http.StatusRequestEntityTooLarge},
		{"at the limit, with Content-Length", limit, true, http.StatusAccepted},
		{"at the limit, without Content-Length", limit, false, http.StatusAccepted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{MaxBody: limit})
			b := pad(tc.size)
			if len(b) != tc.size {
				t.Fatalf("test body is %d bytes, want %d", len(b), tc.size)
			}
			var r io.Reader = bytes.NewReader(b)
			if !tc.contentLength {
				r = iotest.HalfReader(r) // hides the length from httptest.NewRequest
			}
			req := httptest.NewRequest(http.MethodPost, "/webhook", r)
			if tc.contentLength != (req.ContentLength == int64(tc.size)) {
				t.Fatalf("request ContentLength %d", req.ContentLength)
			}
			req.Header.Set(headerEvent, "pull_request")
			req.Header.Set(headerDelivery, "big")
			req.Header.Set(headerSignature, sign(testSecret, b))
			rec := httptest.NewRecorder()
			h.Handler().ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("status %d %q, want %d", rec.Code, rec.Body.String(), tc.want)
			}
		})
	}
}

func TestMissingHeaders(t *testing.T) {
	body := prBody("synchronize", "octo/repo", 1, sha(1))
	for _, tc := range []struct {
		name, event, id string
		want            string
	}{
		{"no X-GitHub-Event", "", "d1", "missing X-GitHub-Event"},
		{"no X-GitHub-Delivery", "pull_request", "", "missing X-GitHub-Delivery"},
		{"delivery id with a space", "pull_request", "a b", "not a delivery id"},
		{"delivery id too long", "pull_request", strings.Repeat("a", maxDeliveryLen+1), "not a delivery id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			got := h.mustSend(t, delivery{event: tc.event, id: tc.id, body: body}, http.StatusBadRequest)
			if !strings.Contains(got, tc.want) {
				t.Errorf("body %q does not say %q", got, tc.want)
			}
			if h.q.depth() != 0 {
				t.Error("queued anyway")
			}
		})
	}
}

func TestReplayedDelivery(t *testing.T) {
	var calls atomic.Int32
	h := newHarness(t, Config{Evaluator: EvaluatorFunc(func(context.Context, Job) error {
		calls.Add(1)
		return nil
	})})
	h.Start()
	d := delivery{event: "issue_comment", id: "72d3162e-cc78-11e3-81ab-4c9367dc0958", body: commentBody("created", "octo/repo", 3, "/swarm-gate recheck")}
	h.mustSend(t, d, http.StatusAccepted)
	if got := h.mustSend(t, d, http.StatusOK); !strings.Contains(got, "duplicate") {
		t.Errorf("replay answered %q, want it to say duplicate", got)
	}
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("evaluator called %d times, want 1", n)
	}
	if n := h.metric(t, `swarm_gate_deliveries_total{event="issue_comment",outcome="duplicate"}`); n != 1 {
		t.Errorf("duplicates counted %v, want 1", n)
	}
}

// The dedupe memory is bounded: the oldest id is forgotten.
func TestDedupeForgetsOldest(t *testing.T) {
	h := newHarness(t, Config{DedupeSize: 2, QueueSize: 10})
	for i, id := range []string{"a", "b", "c"} {
		h.mustSend(t, delivery{event: "issue_comment", id: id, body: commentBody("created", "octo/repo", i+1, "hi")}, http.StatusAccepted)
	}
	h.mustSend(t, delivery{event: "issue_comment", id: "c", body: commentBody("created", "octo/repo", 3, "hi")}, http.StatusOK)
	h.mustSend(t, delivery{event: "issue_comment", id: "a", body: commentBody("created", "octo/repo", 1, "hi")}, http.StatusAccepted)
}

// A full queue answers 503 and records nothing, so that the same delivery
// is taken when GitHub sends it again.
func TestQueueFullThenRedelivery(t *testing.T) {
	ev := newBlockingEvaluator()
	h := newHarness(t, Config{Evaluator: ev, Workers: 1, QueueSize: 1})
	first := delivery{event: "pull_request", id: "first", body: prBody("synchronize", "octo/repo", 1, sha(1))}
	second := delivery{event: "pull_request", id: "second", body: prBody("synchronize", "octo/repo", 2, sha(2))}
	h.mustSend(t, first, http.StatusAccepted) // waits: workers not started
	rec := h.send(t, second)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "60" {
		t.Fatalf("second delivery with a full queue: %d Retry-After %q, want 503 Retry-After 60", rec.Code, rec.Header().Get("Retry-After"))
	}
	if h.q.duplicate("second") {
		t.Fatal("a refused delivery was remembered as seen")
	}
	h.Start()
	if j := recv(t, "first job", ev.started); j.Delivery != "first" {
		t.Fatalf("started %s, want first", j.Delivery)
	}
	// "first" runs, so the queue has room again: the redelivery is taken.
	h.mustSend(t, second, http.StatusAccepted)
	ev.release <- struct{}{}
	if j := recv(t, "second job", ev.started); j.Delivery != "second" {
		t.Fatalf("started %s, want second", j.Delivery)
	}
	close(ev.release)
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if n := h.metric(t, `swarm_gate_deliveries_total{event="pull_request",outcome="queue_full"}`); n != 1 {
		t.Errorf("queue_full counted %v, want 1", n)
	}
	if n := h.metric(t, `swarm_gate_deliveries_total{event="pull_request",outcome="queued"}`); n != 2 {
		t.Errorf("queued counted %v, want 2", n)
	}
}

func TestHealthAndReadiness(t *testing.T) {
	h := newHarness(t, Config{})
	if rec := h.get(t, "/healthz"); rec.Code != http.StatusOK {
		t.Errorf("healthz before Start: %d", rec.Code)
	}
	if rec := h.get(t, "/readyz"); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("readyz before Start: %d, want 503", rec.Code)
	}
	h.Start()
	if rec := h.get(t, "/readyz"); rec.Code != http.StatusOK {
		t.Errorf("readyz after Start: %d, want 200", rec.Code)
	}
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rec := h.get(t, "/readyz"); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("readyz after Shutdown: %d, want 503", rec.Code)
	}
	if rec := h.get(t, "/healthz"); rec.Code != http.StatusOK {
		t.Errorf("healthz after Shutdown: %d, want 200", rec.Code)
	}
	rec := h.send(t, delivery{event: "pull_request", id: "late", body: prBody("opened", "octo/repo", 1, sha(1))})
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("delivery after Shutdown: %d Retry-After %q, want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
}

func TestNewConfigErrors(t *testing.T) {
	noop := EvaluatorFunc(func(context.Context, Job) error { return nil })
	taken := prometheus.NewRegistry()
	if _, err := New(Config{Secret: testSecret, Evaluator: noop, Registerer: taken}); err != nil {
		t.Fatalf("first Server on a registry: %v", err)
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no secret", Config{Evaluator: noop}, "Secret is empty"},
		{"secret of white space", Config{Evaluator: noop, Secret: []byte(" \t\n ")}, "Secret is empty or only white space"},
		{"no evaluator", Config{Secret: testSecret}, "Evaluator is nil"},
		{"negative workers", Config{Secret: testSecret, Evaluator: noop, Workers: -1}, "negative"},
		{"gatherer without registerer", Config{Secret: testSecret, Evaluator: noop, Gatherer: prometheus.NewRegistry()}, "Registerer is nil"},
		{"registry already used", Config{Secret: testSecret, Evaluator: noop, Registerer: taken}, "own prometheus.NewRegistry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestMetricsEndpoint(t *testing.T) {
	h := newHarness(t, Config{Evaluator: EvaluatorFunc(func(context.Context, Job) error { return nil })})
	h.Start()
	h.mustSend(t, delivery{event: "pull_request", id: "m1", body: prBody("opened", "octo/repo", 1, sha(1))}, http.StatusAccepted)
	h.mustSend(t, delivery{event: "pull_request", id: "m2", body: prBody("closed", "octo/repo", 1, sha(1))}, http.StatusNoContent)
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := h.get(t, "/metrics")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d", rec.Code)
	}
	text := rec.Body.String()
	for _, name := range []string{
		"swarm_gate_deliveries_total", "swarm_gate_queue_depth", "swarm_gate_jobs_running",
		"swarm_gate_jobs_coalesced_total", "swarm_gate_jobs_dropped_total",
		"swarm_gate_evaluation_duration_seconds", "swarm_gate_evaluations_total", "swarm_gate_queue_wait_seconds",
	} {
		if !strings.Contains(text, "# TYPE "+name+" ") {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	for sample, want := range map[string]float64{
		`swarm_gate_deliveries_total{event="pull_request",outcome="queued"}`:             1,
		`swarm_gate_deliveries_total{event="pull_request",outcome="ignored"}`:            1,
		`swarm_gate_evaluations_total{event="pull_request",result="ok"}`:                 1,
		`swarm_gate_evaluation_duration_seconds_count{event="pull_request",result="ok"}`: 1,
		`swarm_gate_queue_depth`:  0,
		`swarm_gate_jobs_running`: 0,
	} {
		if got := h.metric(t, sample); got != want {
			t.Errorf("%s = %v, want %v", sample, got, want)
		}
	}
}

// TestMetricsNotOnTheWebhookPort is issue 20 item 4: /metrics names
// installations and repositories, so the public handler does not serve it;
// MetricsHandler does, behind a bearer token when one is set.
func TestMetricsNotOnTheWebhookPort(t *testing.T) {
	h := newHarness(t, Config{})
	rec := httptest.NewRecorder()
	h.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET /metrics on the webhook handler: %d, want 404", rec.Code)
	}
	for _, c := range []struct {
		token, auth string
		want        int
	}{
		{"", "", http.StatusOK},
		{"s3cret", "", http.StatusUnauthorized},
		{"s3cret", "Bearer wrong", http.StatusUnauthorized},
		{"s3cret", "s3cret", http.StatusUnauthorized},
		{"s3cret", "Bearer s3cret", http.StatusOK},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		h.MetricsHandler(c.token).ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("token %q, Authorization %q: %d, want %d", c.token, c.auth, rec.Code, c.want)
		}
		if c.want == http.StatusOK && !strings.Contains(rec.Body.String(), "swarm_gate_queue_depth") {
			t.Errorf("token %q: the body lacks the metrics", c.token)
		}
	}
}
