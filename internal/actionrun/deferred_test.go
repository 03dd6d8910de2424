package actionrun_test

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/actionrun"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// runWith runs the action as h.run does, with the App's options.
func (h *harness) runWith(ctx context.Context, edit func(r *actionrun.Runner)) int {
	h.t.Helper()
	r := &actionrun.Runner{
		Env:             actions.NewEnv(actions.MapLookup(h.env)),
		Stdout:          &h.log,
		Logger:          slog.New(slog.NewTextHandler(&h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version:         "test",
		BotLogin:        ghfake.Login,
		ClientOptions:   []ghapi.Option{ghapi.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() })},
		FinaliseTimeout: 5 * time.Second,
	}
	edit(r)
	return r.Run(ctx)
}

// TestDeferGateRuns: with DeferGateRuns (the App's option) only the
// aggregate is created in progress; each gate's run is created completed
// with its result, in one request; a second evaluation of the same head
// updates those runs instead of creating more. The verdict is the
// Action's.
func TestDeferGateRuns(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
	for attempt := 1; attempt <= 2; attempt++ {
		if code := h.runWith(context.Background(), func(r *actionrun.Runner) { r.DeferGateRuns = true }); code != 1 {
			t.Fatalf("attempt %d: exit %d, want 1\n%s", attempt, code, h.logs.String())
		}
		if got, want := h.runs(), demoRuns(h.head, "swarm-gate:pull_request:"+workflowKey); !reflect.DeepEqual(got, want) {
			t.Errorf("attempt %d: check runs:\n got %v\nwant %v", attempt, got, want)
		}
	}
	creates := h.fake.CallsTo("checks/create")
	if len(creates) != 9 {
		t.Fatalf("%d creates over two attempts, want 9", len(creates))
	}
	for _, c := range creates {
		want := "completed"
		if c.Get("name") == "swarm-gate" {
			want = "in_progress"
		}
		if c.Get("status") != want {
			t.Errorf("created %v as %v, want %s", c.Get("name"), c.Get("status"), want)
		}
	}
	// Attempt 1: the aggregate completed; attempt 2: the aggregate put
	// back in progress and completed, each gate's run completed again.
	if n := len(h.fake.CallsTo("checks/update")); n != 1+2+8 {
		t.Errorf("%d updates, want 11", n)
	}
	if agg := h.storedRun("swarm-gate"); !strings.Contains(agg.Summary, "| [`swarm/scope`](") {
		t.Errorf("the aggregate does not link the gates' runs:\n%s", agg.Summary)
	}
}

// TestSourceError: a Runner told that the commits could not be fetched
// posts every check as "could not evaluate" with the reason, with or
// without deferred gate runs.
func TestSourceError(t *testing.T) {
	for _, deferred := range []bool{false, true} {
		t.Run(map[bool]string{false: "gate runs started first", true: "gate runs deferred"}[deferred], func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.event("pull_request", "pull_request/synchronize.json", h.pullRequest("synchronize", "Codertocat/Hello-World"))
			code := h.runWith(context.Background(), func(r *actionrun.Runner) {
				r.DeferGateRuns = deferred
				r.SourceError = errors.New("fetching the commits from https://ghe.example/o/r.git: repository not found")
			})
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			runs := h.fake.CheckRuns("Codertocat/Hello-World")
			if len(runs) != 9 {
				t.Fatalf("%d check runs, want 9", len(runs))
			}
			for _, cr := range runs {
				if cr.Status != "completed" || cr.Conclusion != "failure" || !strings.HasPrefix(cr.Title, "could not evaluate: fetching the commits") {
					t.Errorf("%s: %s/%s %q", cr.Name, cr.Status, cr.Conclusion, cr.Title)
				}
			}
		})
	}
}
