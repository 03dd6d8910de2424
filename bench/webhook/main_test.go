package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/webhook"
)

const examples = "../../../shared/github/webhooks"

func needExamples(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(examples); errors.Is(err, fs.ErrNotExist) {
		sharedtest.Skip(t, "skipping: %s is not there (clone ../shared beside the repo)", examples)
	}
}

// The generator's deliveries pass the real server's checks: every one is
// answered 202 and reaches the Evaluator (or is coalesced into one that
// does).
func TestGeneratorAgainstServer(t *testing.T) {
	needExamples(t)
	secret := strings.Join([]string{"bench", "secret"}, "-")
	var evaluated atomic.Int64
	srv, err := webhook.New(webhook.Config{
		Secret: []byte(secret),
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Evaluator: webhook.EvaluatorFunc(func(context.Context, webhook.Job) error {
			evaluated.Add(1)
			return nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	var out, errOut bytes.Buffer
	err = run(context.Background(), []string{
		"-url", hs.URL + "/webhook", "-secret", secret, "-payloads", examples,
		"-rate", "400", "-duration", "250ms", "-concurrency", "4", "-prs", "3",
	}, &out, &errOut)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errOut.String())
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var res result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("output is not the result JSON: %v\n%s", err, out.String())
	}
	// A push's second delivery (check_suite after pull_request, same head)
	// is answered 200 "already queued for this commit" when it arrives
	// while the first still waits: how many do depends on timing.
	if res.Sent == 0 || res.Accepted == 0 || res.Errors != 0 || res.Statuses["202"] != res.Accepted ||
		res.Statuses["202"]+res.Statuses["200"] != res.Sent {
		t.Errorf("sent %d, accepted %d, statuses %v, errors %d (%s): want every delivery accepted (202) or answered 200 as the same commit's", res.Sent, res.Accepted, res.Statuses, res.Errors, res.FirstError)
	}
	if n := evaluated.Load(); n == 0 || n > int64(res.Sent) {
		t.Errorf("%d evaluations for %d deliveries", n, res.Sent)
	}
	if res.AckMS.P50 <= 0 || res.AckMS.P99 < res.AckMS.P50 || res.AckMS.Max < res.AckMS.P99 {
		t.Errorf("time to response %+v is not ordered", res.AckMS)
	}
}

func TestVariants(t *testing.T) {
	needExamples(t)
	for _, tc := range []struct {
		file     string
		copies   int
		numbered []string // jq-like paths whose number must be 1..copies
	}{
		{"pull_request/synchronize.json", 3, []string{"number", "pull_request.number"}},
		{"check_suite/rerequested.json", 3, []string{"check_suite.pull_requests.0.number"}},
		{"merge_group/checks_requested.json", 1, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(examples, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := variants(raw, 3, 77)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.copies {
				t.Fatalf("%d copies, want %d", len(got), tc.copies)
			}
			for i, b := range got {
				var v map[string]any
				if err := json.Unmarshal(b, &v); err != nil {
					t.Fatal(err)
				}
				if id := lookup(v, "installation.id"); id == nil || id.(float64) == 0 {
					t.Errorf("copy %d has no installation.id", i)
				}
				for _, path := range tc.numbered {
					if n, _ := lookup(v, path).(float64); int(n) != i+1 {
						t.Errorf("copy %d: %s = %v, want %d", i, path, lookup(v, path), i+1)
					}
				}
			}
		})
	}
}

// lookup follows a dotted path of keys and list indexes.
func lookup(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i := int(k[0] - '0')
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
