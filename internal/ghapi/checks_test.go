package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

const headSHA = "3dca65fa3e8d4b3da3f3d056c59aee1c50f41390"

var repo = ghapi.Repo{Owner: "octo", Name: "demo"}

var quiet = slog.New(slog.DiscardHandler)

// waits records the transport's waits instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func newClient(t *testing.T, s *ghfake.Server, opts ...ghapi.Option) (*ghapi.Client, *waits) {
	t.Helper()
	w := &waits{}
	c, err := ghapi.NewClient(s.URL, ghfake.Token, nil, append([]ghapi.Option{ghapi.WithSleep(w.sleep), ghapi.WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, w
}

func findings(n int) []gates.Finding {
	var out []gates.Finding
	for i := range n {
		sev := []gates.Severity{gates.SeverityError, gates.SeverityWarning, gates.SeverityNotice}[i%3]
		out = append(out, gates.Finding{Path: fmt.Sprintf("src/f%d.go", i%7), Line: i + 1, EndLine: i + 1, Column: 3,
			Rule: "placeholder/comment-todo", Severity: sev, Message: fmt.Sprintf("TODO on added line %d", i+1)})
	}
	return out
}

var fiveGates = []string{"swarm-gate", "swarm/plan-freeze", "swarm/scope", "swarm/placeholders", "swarm/sast"}

// TestLifecycleFiveGates starts five checks and completes each with one of
// the outcomes of DESIGN.md section 5.
func TestLifecycleFiveGates(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	runs, err := c.StartChecks(ctx, repo, headSHA, fiveGates, "swarm-gate:42:1")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 5 || len(s.CallsTo("checks/create")) != 5 {
		t.Fatalf("%d runs, %d creates", len(runs), len(s.CallsTo("checks/create")))
	}
	for _, st := range s.CheckRuns("octo/demo") {
		if st.Status != "in_progress" || st.ExternalID != "swarm-gate:42:1" || st.HeadSHA != headSHA {
			t.Errorf("started run: %+v", st)
		}
	}
	cases := []struct {
		res            gates.Result
		wantConclusion string
		wantTitle      string
		wantAnns       int
	}{
		{gates.Result{Outcome: gates.Failed, Title: "1 gate failed", Summary: "see below"}, "failure", "1 gate failed", 0},
		{gates.Result{Outcome: gates.Overridden, Title: "approved by a human override: @alice", Findings: findings(2)}, "success", "approved by a human override: @alice", 2},
		{gates.Result{Outcome: gates.Failed, Title: "3 files outside the phase's scope", Findings: findings(3)}, "failure", "3 files outside the phase's scope", 3},
		{gates.Result{Outcome: gates.Error, Title: "reading .swarm/plan.json: line 3: unexpected EOF"}, "failure", "could not evaluate: reading .swarm/plan.json: line 3: unexpected EOF", 0},
		{gates.Result{Outcome: gates.NotApplicable, Title: "no code files among the changed files"}, "neutral", "no code files among the changed files", 0},
	}
	for i, tc := range cases {
		if err := c.Complete(ctx, runs[i], report.CheckOutput(tc.res, "")); err != nil {
			t.Fatalf("%s: %v", runs[i].Name, err)
		}
		if runs[i].InProgress() || runs[i].Conclusion != tc.wantConclusion {
			t.Errorf("%s: run %+v", runs[i].Name, runs[i])
		}
	}
	stored := s.CheckRuns("octo/demo")
	for i, tc := range cases {
		st := stored[i]
		if st.Name != fiveGates[i] || st.Status != "completed" || st.Conclusion != tc.wantConclusion || st.Title != tc.wantTitle || len(st.Annotations) != tc.wantAnns {
			t.Errorf("%s: stored %s/%s %q with %d annotations, want %s %q with %d", fiveGates[i], st.Status, st.Conclusion, st.Title, len(st.Annotations), tc.wantConclusion, tc.wantTitle, tc.wantAnns)
		}
	}
	if got := c.Stats().Requests; got != int64(len(s.Calls())) {
		t.Errorf("stats count %d requests, the fake saw %d", got, len(s.Calls()))
	}
}

// TestAnnotationBatches: at most 50 annotations per request, the last
// batch with the conclusion, and nothing more.
func TestAnnotationBatches(t *testing.T) {
	cases := []struct {
		findings     int
		wantRequests []int // annotations per PATCH, in order
	}{
		{0, []int{0}},
		{1, []int{1}},
		{50, []int{50}},
		{51, []int{50, 1}},
		{120, []int{50, 50, 20}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d findings", tc.findings), func(t *testing.T) {
			s := ghfake.New(t)
			c, _ := newClient(t, s)
			ctx := context.Background()
			runs, err := c.StartChecks(ctx, repo, headSHA, []string{"swarm/placeholders"}, "x")
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Complete(ctx, runs[0], report.CheckOutput(gates.Result{Outcome: gates.Failed, Title: "placeholders", Findings: findings(tc.findings)}, "")); err != nil {
				t.Fatal(err)
			}
			patches := s.CallsTo("checks/update")
			var got []int
			for i, p := range patches {
				got = append(got, p.Annotations())
				last := i == len(patches)-1
				if (p.Get("conclusion") != nil) != last || (p.Get("status") == "completed") != last {
					t.Errorf("request %d: status %v conclusion %v; only the last may complete the run", i+1, p.Get("status"), p.Get("conclusion"))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.wantRequests) {
				t.Errorf("annotations per request %v, want %v", got, tc.wantRequests)
			}
			st := s.CheckRuns("octo/demo")[0]
			if len(st.Annotations) != tc.findings || st.Conclusion != "failure" {
				t.Fatalf("stored %d annotations, conclusion %q", len(st.Annotations), st.Conclusion)
			}
			// In the order of gates.FailingFirst: failures, warnings, notices.
			for i, f := range gates.FailingFirst(findings(tc.findings)) {
				a := st.Annotations[i]
				want := map[gates.Severity]string{gates.SeverityError: "failure", gates.SeverityWarning: "warning", gates.SeverityNotice: "notice"}[f.Severity]
				if a.Level != want || a.Path != f.Path || a.StartLine != f.Line || a.StartColumn != 3 || a.Title != "placeholder/comment-todo" {
					t.Errorf("annotation %d: %+v, want %s on %s:%d", i, a, want, f.Path, f.Line)
					break
				}
			}
		})
	}
}

// TestFindingPlacement: whole-file findings go on line 1, columns only on
// one-line findings, findings without a path only in the summary.
func TestFindingPlacement(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	runs, err := c.StartChecks(ctx, repo, headSHA, []string{"swarm/scope"}, "x")
	if err != nil {
		t.Fatal(err)
	}
	res := gates.Result{Outcome: gates.Failed, Title: "t", Findings: []gates.Finding{
		{Path: "docs/x.md", Rule: "scope/out-of-scope", Severity: gates.SeverityError, Message: "outside the phase's scope"},
		{Path: "a.go", Line: 4, EndLine: 9, Column: 2, Rule: "r", Severity: gates.SeverityWarning, Message: "multi-line"},
		{Path: "a.go", Line: 5, EndLine: 2, Rule: "r", Severity: "bogus", Message: strings.Repeat("é", 40000)},
		{Rule: "plan/no-phase", Severity: gates.SeverityError, Message: "phase 3 is not in the plan"},
	}}
	if err := c.Complete(ctx, runs[0], report.CheckOutput(res, "")); err != nil {
		t.Fatal(err)
	}
	st := s.CheckRuns("octo/demo")[0]
	if len(st.Annotations) != 3 {
		t.Fatalf("%d annotations, want 3", len(st.Annotations))
	}
	// Failing first (gates.FailingFirst): the bogus severity ranks as an
	// error, and a.go sorts before docs/x.md.
	a := []ghfake.Annotation{st.Annotations[1], st.Annotations[2], st.Annotations[0]}
	if a[0].StartLine != 1 || a[0].EndLine != 1 || a[0].StartColumn != 0 {
		t.Errorf("whole-file finding: %+v", a[0])
	}
	if a[1].StartLine != 4 || a[1].EndLine != 9 || a[1].StartColumn != 0 || a[1].EndColumn != 0 {
		t.Errorf("multi-line finding: %+v", a[1])
	}
	if a[2].EndLine != 5 || a[2].Level != "failure" || len(a[2].Message) > ghapi.MaxAnnotationMessageBytes || !strings.HasSuffix(a[2].Message, "…") {
		t.Errorf("clipped finding: lines %d-%d level %s message %d bytes", a[2].StartLine, a[2].EndLine, a[2].Level, len(a[2].Message))
	}
	if !strings.Contains(st.Summary, "phase 3 is not in the plan") || !strings.Contains(st.Summary, "1 without a file") {
		t.Errorf("summary does not list the finding without a path:\n%s", st.Summary)
	}
}

// TestRerunUpdatesInsteadOfDuplicating: a second attempt with the same
// external id reuses the runs and does not post its annotations twice.
func TestRerunUpdatesInsteadOfDuplicating(t *testing.T) {
	cases := []struct {
		name        string
		externalID  string
		wantRuns    int
		wantCreates int
	}{
		{"same external id", "swarm-gate:42", 2, 2},
		{"another external id", "swarm-gate:43", 4, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			c, _ := newClient(t, s)
			ctx := context.Background()
			names := []string{"swarm-gate", "swarm/placeholders"}
			res := gates.Result{Outcome: gates.Failed, Title: "t", Findings: findings(3)}
			for attempt, id := range []string{"swarm-gate:42", tc.externalID} {
				runs, err := c.StartChecks(ctx, repo, headSHA, names, id)
				if err != nil {
					t.Fatal(err)
				}
				if reused := runs[1].Reused; reused != (attempt == 1 && id == "swarm-gate:42") {
					t.Errorf("attempt %d: reused %v", attempt+1, reused)
				}
				if attempt == 1 {
					for _, st := range s.CheckRuns("octo/demo") {
						if st.ExternalID == id && st.Status != "in_progress" {
							t.Errorf("attempt 2 started: %s is %s", st.Name, st.Status)
						}
					}
				}
				for _, r := range runs {
					if err := c.Complete(ctx, r, report.CheckOutput(res, "")); err != nil {
						t.Fatal(err)
					}
				}
			}
			stored := s.CheckRuns("octo/demo")
			if len(stored) != tc.wantRuns || len(s.CallsTo("checks/create")) != tc.wantCreates {
				t.Fatalf("%d runs, %d creates; want %d, %d", len(stored), len(s.CallsTo("checks/create")), tc.wantRuns, tc.wantCreates)
			}
			for _, st := range stored {
				if st.Status != "completed" || len(st.Annotations) != 3 {
					t.Errorf("%s (%s): %s with %d annotations, want completed with 3", st.Name, st.ExternalID, st.Status, len(st.Annotations))
				}
			}
		})
	}
}

// TestRerunPicksUpAnEarlierAttempt: a run left by another process (say,
// the first attempt of a workflow that crashed) is found and reused.
func TestRerunPicksUpAnEarlierAttempt(t *testing.T) {
	s := ghfake.New(t)
	old := s.AddCheckRun("octo/demo", ghfake.CheckRun{Name: "swarm/scope", HeadSHA: headSHA, ExternalID: "run-7", Status: "completed", Conclusion: "failure"})
	s.AddCheckRun("octo/demo", ghfake.CheckRun{Name: "swarm/scope", HeadSHA: headSHA, ExternalID: "other-tool"})
	c, _ := newClient(t, s)
	runs, err := c.StartChecks(context.Background(), repo, headSHA, []string{"swarm/scope"}, "run-7")
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].ID != old || !runs[0].Reused || len(s.CallsTo("checks/create")) != 0 {
		t.Errorf("run %+v, %d creates", runs[0], len(s.CallsTo("checks/create")))
	}
	if list := s.CallsTo("checks/list-for-ref"); len(list) != 1 || list[0].Query.Get("filter") != "all" {
		t.Errorf("list calls: %+v", list)
	}
}

// TestSummaryTruncation: a summary over 65,535 bytes is cut at a line
// boundary and ends with the "dropped" line.
func TestSummaryTruncation(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	ctx := context.Background()
	runs, err := c.StartChecks(ctx, repo, headSHA, []string{"swarm/sast"}, "x")
	if err != nil {
		t.Fatal(err)
	}
	fs := findings(1000)
	for i := range fs {
		fs[i].Message = strings.Repeat("long message ", 10)
	}
	if err := c.Complete(ctx, runs[0], report.CheckOutput(gates.Result{Outcome: gates.Failed, Title: "1000 new findings", Summary: "New SAST findings:", Findings: fs}, "the swarm-gate-report artifact")); err != nil {
		t.Fatal(err)
	}
	st := s.CheckRuns("octo/demo")[0]
	if len(st.Summary) > ghapi.MaxSummaryBytes || len(st.Annotations) != 1000 {
		t.Fatalf("summary %d bytes, %d annotations", len(st.Summary), len(st.Annotations))
	}
	lines := strings.Split(st.Summary, "\n")
	last := lines[len(lines)-1]
	shown := strings.Count(st.Summary, "\n- `")
	want := fmt.Sprintf("… %d more items dropped; the full report is in the swarm-gate-report artifact", 1000-shown)
	if last != want || shown < 300 {
		t.Errorf("last line %q, want %q (%d findings shown)", last, want, shown)
	}
	// The list is collapsed: the cut closes its <details> before the
	// dropped-items line, which stays in view.
	if !strings.HasSuffix(lines[len(lines)-5], "long message ") || lines[len(lines)-3] != "</details>" {
		t.Errorf("not cut at a line boundary, or the collapsed list not closed: %q", lines[len(lines)-5:])
	}
	if !strings.Contains(st.Summary, "New SAST findings:\n\n**1000 findings**\n\n<details><summary>Show all 1000 findings</summary>\n\n- `") {
		t.Errorf("the findings are not collapsed after the summary:\n%.300s", st.Summary)
	}
}

// TestAPIFailureMidway: the 2nd PATCH and its resends fail with 502; the
// Finaliser then completes every run still in progress as failure.
func TestAPIFailureMidway(t *testing.T) {
	cases := []struct {
		name     string
		findings int
	}{
		{"2nd PATCH without annotations", 0},
		{"2nd PATCH with annotations", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			c, w := newClient(t, s)
			s.Fail(ghfake.Fault{Method: "PATCH", Nth: 2, Times: 3, Status: http.StatusBadGateway})
			err := run(context.Background(), c, fiveGates, gates.Result{Outcome: gates.Passed, Title: "ok", Findings: findings(tc.findings)})
			if err == nil || !strings.Contains(err.Error(), "502") {
				t.Fatalf("got %v, want the 502", err)
			}
			completed := 0
			for _, st := range s.CheckRuns("octo/demo") {
				if st.Status != "completed" {
					t.Errorf("%s left %s", st.Name, st.Status)
				}
				if st.Conclusion == "success" {
					completed++
					continue
				}
				if st.Conclusion != "failure" || !strings.HasPrefix(st.Title, "could not evaluate: ") || !strings.Contains(st.Summary, "502") {
					t.Errorf("%s: %s %q\n%s", st.Name, st.Conclusion, st.Title, st.Summary)
				}
			}
			if completed != 1 {
				t.Errorf("%d runs completed normally, want 1 (the first)", completed)
			}
			if len(w.all()) == 0 && tc.findings == 0 {
				t.Error("the idempotent PATCH was not retried")
			}
			if n := len(s.CallsTo("checks/get")); (n > 0) != (tc.findings > 0) {
				t.Errorf("%d reads back; the run is read back only after an appending PATCH fails", n)
			}
		})
	}
}

// run is how the Action will use the package: start, complete each, and
// let the Finaliser close what is left.
func run(ctx context.Context, c ghapi.Checks, names []string, res gates.Result) (err error) {
	fin := ghapi.NewFinaliser(c, quiet)
	defer func() {
		if ferr := fin.Close(ctx, err); ferr != nil {
			err = errors.Join(err, ferr)
		}
	}()
	runs, err := c.StartChecks(ctx, repo, headSHA, names, "x")
	fin.Track(runs...)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if err := c.Complete(ctx, r, report.CheckOutput(res, "")); err != nil {
			return err
		}
	}
	return nil
}

// TestAmbiguousFailureIsNotDuplicated: a 502 after GitHub applied the
// request; the client reads back instead of resending.
func TestAmbiguousFailureIsNotDuplicated(t *testing.T) {
	cases := []struct {
		name                     string
		operation                string
		applied                  bool
		wantCreates, wantUpdates int
	}{
		{"create applied", "checks/create", true, 1, 2},
		{"create not applied", "checks/create", false, 2, 2},
		{"annotations applied", "checks/update", true, 1, 2},
		{"annotations not applied", "checks/update", false, 1, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			c, _ := newClient(t, s)
			s.Fail(ghfake.Fault{Operation: tc.operation, Status: http.StatusBadGateway, AfterApplying: tc.applied})
			if err := run(context.Background(), c, []string{"swarm/scope"}, gates.Result{Outcome: gates.Failed, Title: "t", Findings: findings(60)}); err != nil {
				t.Fatal(err)
			}
			stored := s.CheckRuns("octo/demo")
			if len(stored) != 1 || len(stored[0].Annotations) != 60 || stored[0].Conclusion != "failure" || stored[0].Title != "t" {
				t.Fatalf("stored %d runs: %+v", len(stored), stored)
			}
			creates, updates := len(s.CallsTo("checks/create")), len(s.CallsTo("checks/update"))
			if creates != tc.wantCreates || updates != tc.wantUpdates {
				t.Errorf("%d creates and %d updates, want %d and %d", creates, updates, tc.wantCreates, tc.wantUpdates)
			}
		})
	}
}

// TestRateLimitsAreWaitedOut: each rate-limit answer is retried after the
// wait it asks for, even for a POST (a rejection proves it was not
// applied).
func TestRateLimitsAreWaitedOut(t *testing.T) {
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		fault    ghfake.Fault
		min, max time.Duration
	}{
		{"secondary 403 with Retry-After 1", ghfake.SecondaryRateLimit(1), time.Second, time.Second},
		{"429 with Retry-After 1", ghfake.TooManyRequests(1), time.Second, time.Second},
		{"secondary 403 without Retry-After", ghfake.SecondaryRateLimit(-1), time.Minute, 90 * time.Second},
		{"primary 403 until reset", ghfake.PrimaryRateLimit(clock.Add(30 * time.Second)), 30 * time.Second, 31 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			c, w := newClient(t, s, ghapi.WithClock(func() time.Time { return clock }))
			f := tc.fault
			f.Operation = "checks/create"
			s.Fail(f)
			runs, err := c.StartChecks(context.Background(), repo, headSHA, []string{"swarm/scope"}, "x")
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 || len(s.CheckRuns("octo/demo")) != 1 {
				t.Fatalf("runs %v", runs)
			}
			got := w.all()
			if creates := s.CallsTo("checks/create"); len(creates) != 2 || creates[0].Status == 201 {
				t.Errorf("%d creates", len(creates))
			}
			if len(got) != 1 || got[0] < tc.min || got[0] > tc.max {
				t.Errorf("waited %v, want one wait in [%v, %v]", got, tc.min, tc.max)
			}
			if st := c.Stats(); st.Retries != 1 || st.Waited != got[0] {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// TestUsedUpLimitWaitsBeforeTheNextRequest: a success that reports
// x-ratelimit-remaining 0 holds the next request until the reset, and
// go-github (which reads the reset against the real clock) does not refuse
// that request on its own.
func TestUsedUpLimitWaitsBeforeTheNextRequest(t *testing.T) {
	clock := time.Now()
	s := ghfake.New(t)
	c, w := newClient(t, s, ghapi.WithClock(func() time.Time { return clock }))
	s.Fail(ghfake.Fault{Operation: "checks/list-for-ref", Header: ghfake.RateLimitHeaders(0, clock.Add(10*time.Second))})
	if _, err := c.StartChecks(context.Background(), repo, headSHA, []string{"swarm/scope"}, "x"); err != nil {
		t.Fatal(err)
	}
	if got := w.all(); len(got) != 1 || got[0] < 10*time.Second || got[0] > 11*time.Second {
		t.Errorf("waited %v, want one wait of 10-11s (until the reset, plus a second)", got)
	}
	if n := len(s.CallsTo("checks/create")); n != 1 {
		t.Errorf("%d creates", n)
	}
}

func TestUnauthorizedIsNotRetried(t *testing.T) {
	s := ghfake.New(t)
	c, w := newClient(t, s)
	s.Fail(ghfake.Fault{Status: http.StatusUnauthorized, Times: -1})
	_, err := c.StartChecks(context.Background(), repo, headSHA, []string{"swarm/scope"}, "x")
	if err == nil || !strings.Contains(err.Error(), "401 Bad credentials") {
		t.Errorf("got %v", err)
	}
	if n := len(s.Calls()); n != 1 || len(w.all()) != 0 {
		t.Errorf("%d calls, waits %v; want 1 call and no wait", n, w.all())
	}
}

func TestServerErrorsRetryIdempotentRequests(t *testing.T) {
	cases := []struct {
		status    int
		fails     int
		wantCalls int
		wantErr   bool
	}{
		{http.StatusBadGateway, 2, 3, false},
		{http.StatusServiceUnavailable, 1, 2, false},
		{http.StatusGatewayTimeout, 3, 3, true},
		// issue 20 item 4: a permission read that got 500 is retried too.
		{http.StatusInternalServerError, 1, 2, false},
		{http.StatusInternalServerError, 3, 3, true},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			s := ghfake.New(t)
			c, _ := newClient(t, s)
			s.SetPermission("octo/demo", "alice", "write")
			s.Fail(ghfake.Fault{Method: "GET", Status: tc.status, Times: tc.fails})
			p, err := c.Permission(context.Background(), repo, "alice")
			if (err != nil) != tc.wantErr || len(s.Calls()) != tc.wantCalls {
				t.Errorf("err %v after %d calls; want error %v after %d", err, len(s.Calls()), tc.wantErr, tc.wantCalls)
			}
			if tc.wantErr && p != ghapi.PermissionNone {
				t.Errorf("permission %q on error, want none", p)
			}
		})
	}
}

func TestContextCancellation(t *testing.T) {
	t.Run("cancelled before", func(t *testing.T) {
		s := ghfake.New(t)
		c, _ := newClient(t, s)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := c.StartChecks(ctx, repo, headSHA, fiveGates, "x"); !errors.Is(err, context.Canceled) || len(s.Calls()) != 0 {
			t.Errorf("got %v after %d calls", err, len(s.Calls()))
		}
	})
	t.Run("cancelled during a Retry-After wait", func(t *testing.T) {
		s := ghfake.New(t)
		c, err := ghapi.NewClient(s.URL, ghfake.Token, nil) // the real sleep
		if err != nil {
			t.Fatal(err)
		}
		s.Fail(ghfake.SecondaryRateLimit(60))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		if _, err := c.StartChecks(ctx, repo, headSHA, fiveGates, "x"); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("deadline before the Retry-After", func(t *testing.T) {
		s := ghfake.New(t)
		c, w := newClient(t, s)
		s.Fail(ghfake.SecondaryRateLimit(60))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := c.StartChecks(ctx, repo, headSHA, fiveGates, "x")
		if err == nil || !strings.Contains(err.Error(), "secondary rate limit") || len(w.all()) != 0 || len(s.Calls()) != 1 {
			t.Errorf("got %v after %d calls and waits %v; want the rate-limit error at once", err, len(s.Calls()), w.all())
		}
	})
	t.Run("the finaliser outlives the cancelled context", func(t *testing.T) {
		s := ghfake.New(t)
		c, _ := newClient(t, s)
		ctx, cancel := context.WithCancel(context.Background())
		runs, err := c.StartChecks(ctx, repo, headSHA, fiveGates, "x")
		if err != nil {
			t.Fatal(err)
		}
		fin := ghapi.NewFinaliser(c, quiet)
		fin.Track(runs...)
		if err := c.Complete(ctx, runs[0], report.CheckOutput(gates.Result{Outcome: gates.Passed, Title: "ok"}, "")); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := c.Complete(ctx, runs[1], report.CheckOutput(gates.Result{Outcome: gates.Passed}, "")); !errors.Is(err, context.Canceled) {
			t.Errorf("complete after cancel: %v", err)
		}
		if err := fin.Close(ctx, ctx.Err()); err != nil {
			t.Fatal(err)
		}
		for i, st := range s.CheckRuns("octo/demo") {
			want := "failure"
			if i == 0 {
				want = "success"
			}
			if st.Conclusion != want || (i > 0 && st.Title != "could not evaluate: swarm-gate stopped before reporting this check: context canceled") {
				t.Errorf("%s: %s %q", st.Name, st.Conclusion, st.Title)
			}
		}
		// Nothing left: a second Close sends nothing.
		n := len(s.Calls())
		if err := fin.Close(ctx, nil); err != nil || len(s.Calls()) != n {
			t.Errorf("second close: %v, %d more calls", err, len(s.Calls())-n)
		}
	})
}

func TestStartChecksRefusesBadInput(t *testing.T) {
	s := ghfake.New(t)
	c, _ := newClient(t, s)
	cases := []struct {
		name, sha, ext string
		names          []string
		want           string
	}{
		{"short sha", "3dca65f", "x", []string{"a"}, "40-hex"},
		{"no external id", headSHA, "", []string{"a"}, "external id"},
		{"repeated name", headSHA, "x", []string{"a", "a"}, "repeated"},
	}
	for _, tc := range cases {
		if _, err := c.StartChecks(context.Background(), repo, tc.sha, tc.names, tc.ext); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v", tc.name, err)
		}
	}
	if len(s.Calls()) != 0 {
		t.Errorf("%d calls", len(s.Calls()))
	}
}
