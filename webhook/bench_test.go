package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
)

// BenchmarkIntake measures POST /webhook in process, from request to 202:
// body read, signature, routing, de-duplication and queueing, with a
// no-op Evaluator draining the queue and JSON logs written to io.Discard.
// The payload is GitHub's pull_request synchronize example (about 25 KB).
// same-pr sends every delivery to one pull request (they coalesce);
// distinct-prs spreads them over 64 pull requests.
func BenchmarkIntake(b *testing.B) {
	raw, err := os.ReadFile(githubData(b, "webhooks/pull_request/synchronize.json"))
	if err != nil {
		b.Fatal(err)
	}
	variants := func(n int) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			var p map[string]any
			if err := json.Unmarshal(raw, &p); err != nil {
				b.Fatal(err)
			}
			p["number"] = i + 1
			p["pull_request"].(map[string]any)["number"] = i + 1
			out[i] = mustJSON(p)
		}
		return out
	}
	for _, bc := range []struct {
		name   string
		bodies [][]byte
	}{
		{"same-pr", [][]byte{raw}},
		{"distinct-prs", variants(64)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sigs := make([]string, len(bc.bodies))
			for i, body := range bc.bodies {
				sigs[i] = sign(testSecret, body)
			}
			s, err := New(Config{
				Secret:    testSecret,
				Evaluator: EvaluatorFunc(func(context.Context, Job) error { return nil }),
				QueueSize: 1 << 16,
				Logger:    slog.New(slog.NewJSONHandler(io.Discard, nil)),
			})
			if err != nil {
				b.Fatal(err)
			}
			s.Start()
			defer s.Shutdown(context.Background())
			h := s.Handler()
			var seq, refused atomic.Int64
			b.SetBytes(int64(len(bc.bodies[0])))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n := seq.Add(1)
					i := int(n) % len(bc.bodies)
					req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(bc.bodies[i]))
					req.Header.Set(headerEvent, "pull_request")
					req.Header.Set(headerDelivery, "bench-"+strconv.FormatInt(n, 10))
					req.Header.Set(headerSignature, sigs[i])
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if rec.Code != http.StatusAccepted {
						refused.Add(1)
					}
				}
			})
			b.StopTimer()
			if n := refused.Load(); n > 0 {
				b.Errorf("%d deliveries not answered 202", n)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
}
