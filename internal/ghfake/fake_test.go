package ghfake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

const sha = "ce587453ced02b1526dfb4cb910479d431683101"

func client(t *testing.T, s *ghfake.Server) *github.Client {
	t.Helper()
	c, err := github.NewClient(nil).WithAuthToken(ghfake.Token).WithEnterpriseURLs(s.URL, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recorder is a testing.TB that keeps the fake's Errorf calls instead of
// failing, to test that invalid requests fail the test.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

func annotations(n int) []*github.CheckRunAnnotation {
	var out []*github.CheckRunAnnotation
	for i := range n {
		out = append(out, &github.CheckRunAnnotation{Path: github.String("a.go"), StartLine: github.Int(i + 1), EndLine: github.Int(i + 1),
			AnnotationLevel: github.String("warning"), Message: github.String(fmt.Sprintf("m%d", i))})
	}
	return out
}

func TestCheckRunLifecycle(t *testing.T) {
	s := ghfake.New(t)
	gh := client(t, s)
	ctx := context.Background()
	cr, _, err := gh.Checks.CreateCheckRun(ctx, "octo", "demo", github.CreateCheckRunOptions{
		Name: "swarm/scope", HeadSHA: sha, Status: github.String("in_progress"), ExternalID: github.String("run-1"),
		Output: &github.CheckRunOutput{Title: github.String("evaluating"), Summary: github.String("…")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if cr.GetID() == 0 || cr.GetStatus() != "in_progress" || cr.GetHTMLURL() == "" || cr.GetCheckSuite().GetID() == 0 {
		t.Fatalf("created run: %+v", cr)
	}
	for _, batch := range []int{50, 20} {
		if _, _, err := gh.Checks.UpdateCheckRun(ctx, "octo", "demo", cr.GetID(), github.UpdateCheckRunOptions{
			Name: "swarm/scope", Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String("s"), Annotations: annotations(batch)},
		}); err != nil {
			t.Fatal(err)
		}
	}
	done, _, err := gh.Checks.UpdateCheckRun(ctx, "octo", "demo", cr.GetID(), github.UpdateCheckRunOptions{
		Name: "swarm/scope", Status: github.String("completed"), Conclusion: github.String("failure"),
		Output: &github.CheckRunOutput{Title: github.String("2 files out of scope"), Summary: github.String("s")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if done.GetStatus() != "completed" || done.GetConclusion() != "failure" || done.GetOutput().GetAnnotationsCount() != 70 || done.CompletedAt == nil {
		t.Errorf("completed run: status %s conclusion %s annotations %d", done.GetStatus(), done.GetConclusion(), done.GetOutput().GetAnnotationsCount())
	}
	got, _, err := gh.Checks.GetCheckRun(ctx, "octo", "demo", cr.GetID())
	if err != nil || got.GetOutput().GetTitle() != "2 files out of scope" || got.GetExternalID() != "run-1" {
		t.Errorf("get: %v %+v", err, got)
	}

	// A second run of another name, then the check_name filter.
	if _, _, err := gh.Checks.CreateCheckRun(ctx, "octo", "demo", github.CreateCheckRunOptions{Name: "swarm/sast", HeadSHA: sha, Status: github.String("queued")}); err != nil {
		t.Fatal(err)
	}
	list, _, err := gh.Checks.ListCheckRunsForRef(ctx, "octo", "demo", sha, &github.ListCheckRunsOptions{CheckName: github.String("swarm/scope"), Filter: github.String("all")})
	if err != nil || list.GetTotal() != 1 || list.CheckRuns[0].GetID() != cr.GetID() {
		t.Errorf("list-for-ref with check_name: %v %+v", err, list)
	}

	// Annotations come back 30 per page by default, with Link headers.
	var all []*github.CheckRunAnnotation
	opts := &github.ListOptions{}
	pages := 0
	for {
		page, resp, err := gh.Checks.ListCheckRunAnnotations(ctx, "octo", "demo", cr.GetID(), opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, page...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(all) != 70 || pages != 3 || all[69].GetMessage() != "m19" {
		t.Errorf("annotations: %d in %d pages", len(all), pages)
	}
	if runs := s.CheckRuns("octo/demo"); len(runs) != 2 || len(runs[0].Annotations) != 70 {
		t.Errorf("store: %+v", runs)
	}
	if n := len(s.CallsTo("checks/update")); n != 3 {
		t.Errorf("%d update calls recorded, want 3", n)
	}
}

// TestInvalidRequestsFailTheTest feeds the fake requests GitHub's
// description rejects (github/README.md lists them) and requests outside
// it: each must fail the test with the validator's message.
func TestInvalidRequestsFailTheTest(t *testing.T) {
	cases := []struct {
		name string
		send func(ctx context.Context, gh *github.Client) error
		want string
	}{
		{"create without status (the discriminator)", func(ctx context.Context, gh *github.Client) error {
			_, _, err := gh.Checks.CreateCheckRun(ctx, "o", "r", github.CreateCheckRunOptions{Name: "n", HeadSHA: sha})
			return err
		}, "discriminator"},
		{"create completed without conclusion", func(ctx context.Context, gh *github.Client) error {
			_, _, err := gh.Checks.CreateCheckRun(ctx, "o", "r", github.CreateCheckRunOptions{Name: "n", HeadSHA: sha, Status: github.String("completed")})
			return err
		}, "conclusion"},
		{"51 annotations in one update", func(ctx context.Context, gh *github.Client) error {
			_, _, err := gh.Checks.UpdateCheckRun(ctx, "o", "r", 1, github.UpdateCheckRunOptions{Name: "n",
				Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String("s"), Annotations: annotations(51)}})
			return err
		}, "50"},
		{"summary over 65535 characters", func(ctx context.Context, gh *github.Client) error {
			_, _, err := gh.Checks.UpdateCheckRun(ctx, "o", "r", 1, github.UpdateCheckRunOptions{Name: "n",
				Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String(strings.Repeat("x", 65536))}})
			return err
		}, "65535"},
		{"annotation level error", func(ctx context.Context, gh *github.Client) error {
			a := annotations(1)
			a[0].AnnotationLevel = github.String("error")
			_, _, err := gh.Checks.UpdateCheckRun(ctx, "o", "r", 1, github.UpdateCheckRunOptions{Name: "n",
				Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String("s"), Annotations: a}})
			return err
		}, "annotation_level"},
		{"reaction thumbsup", func(ctx context.Context, gh *github.Client) error {
			_, _, err := gh.Reactions.CreateIssueCommentReaction(ctx, "o", "r", 1, "thumbsup")
			return err
		}, "content"},
		{"an operation outside the subset", func(ctx context.Context, gh *github.Client) error {
			_, _, err := gh.Issues.Get(ctx, "o", "r", 1)
			return err
		}, "not an operation of the OpenAPI subset"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			s := ghfake.New(rec)
			err := c.send(context.Background(), client(t, s))
			if err == nil {
				t.Error("the request succeeded")
			}
			if got := rec.errors(); !strings.Contains(got, c.want) {
				t.Errorf("test errors %q do not mention %q", got, c.want)
			}
		})
	}
}

// TestDocumentedRulesOutsideTheSchema: limits GitHub states only in field
// descriptions fail the test too.
func TestDocumentedRulesOutsideTheSchema(t *testing.T) {
	rec := &recorder{TB: t}
	s := ghfake.New(rec)
	gh := client(t, s)
	ctx := context.Background()
	cr, _, err := gh.Checks.CreateCheckRun(ctx, "o", "r", github.CreateCheckRunOptions{Name: "n", HeadSHA: sha, Status: github.String("in_progress"),
		Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String("s")}})
	if err != nil {
		t.Fatal(err)
	}
	a := annotations(1)
	a[0].EndLine, a[0].StartColumn = github.Int(3), github.Int(2)
	_, _, err = gh.Checks.UpdateCheckRun(ctx, "o", "r", cr.GetID(), github.UpdateCheckRunOptions{Name: "n",
		Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String("s"), Annotations: a}})
	if err == nil || !strings.Contains(rec.errors(), "start_column") {
		t.Errorf("columns on a multi-line annotation: err %v, test errors %q", err, rec.errors())
	}
	if len(s.CheckRuns("o/r")[0].Annotations) != 0 {
		t.Error("a rejected update changed the run")
	}
}

func TestPullRequestFilesPaginate(t *testing.T) {
	s := ghfake.New(t)
	pr := ghfake.PullRequest{Number: 7, Title: "phase 2", User: "alice", HeadRef: "swarm/phase-2", HeadSHA: sha,
		BaseRef: "main", BaseSHA: strings.Repeat("b", 40), Labels: []string{"swarm:phase-2"}}
	for i := range 205 {
		pr.Files = append(pr.Files, ghfake.PullFile{Filename: fmt.Sprintf("src/f%03d.go", i), Status: "modified", Additions: 1, Patch: "@@ -1 +1 @@\n-a\n+b"})
	}
	pr.Files[3].Patch = "" // binary
	s.AddPullRequest("octo/demo", pr)
	gh := client(t, s)
	ctx := context.Background()
	got, _, err := gh.PullRequests.Get(ctx, "octo", "demo", 7)
	if err != nil || got.GetHead().GetRef() != "swarm/phase-2" || got.GetHead().GetSHA() != sha || got.GetUser().GetLogin() != "alice" ||
		len(got.Labels) != 1 || got.Labels[0].GetName() != "swarm:phase-2" || got.GetBase().GetRepo().GetFullName() != "octo/demo" {
		t.Fatalf("get: %v %+v", err, got)
	}
	var files []*github.CommitFile
	opts := &github.ListOptions{PerPage: 100}
	pages := 0
	for {
		page, resp, err := gh.PullRequests.ListFiles(ctx, "octo", "demo", 7, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		files = append(files, page...)
		if pages == 1 && resp.LastPage != 3 {
			t.Errorf("last page %d, want 3", resp.LastPage)
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(files) != 205 || pages != 3 || files[204].GetFilename() != "src/f204.go" || files[3].Patch != nil || files[4].GetPatch() == "" {
		t.Errorf("%d files in %d pages", len(files), pages)
	}
	if _, _, err := gh.PullRequests.Get(ctx, "octo", "demo", 8); !isStatus(err, http.StatusNotFound) {
		t.Errorf("missing pull request: %v", err)
	}
}

func isStatus(err error, code int) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response.StatusCode == code
}

func TestCommentsReactionsPermissions(t *testing.T) {
	s := ghfake.New(t)
	gh := client(t, s)
	ctx := context.Background()
	human := s.AddComment("octo/demo", 7, "alice", "/swarm approve-plan-critic looks right")
	c, _, err := gh.Issues.CreateComment(ctx, "octo", "demo", 7, &github.IssueComment{Body: github.String("recorded")})
	if err != nil || c.GetUser().GetLogin() != ghfake.Login || !strings.Contains(c.GetHTMLURL(), "#issuecomment-") {
		t.Fatalf("create: %v %+v", err, c)
	}
	if _, _, err := gh.Issues.EditComment(ctx, "octo", "demo", c.GetID(), &github.IssueComment{Body: github.String("recorded (edited)")}); err != nil {
		t.Fatal(err)
	}
	list, _, err := gh.Issues.ListComments(ctx, "octo", "demo", 7, nil)
	if err != nil || len(list) != 2 || list[1].GetBody() != "recorded (edited)" || list[0].GetUser().GetLogin() != "alice" {
		t.Errorf("list: %v %+v", err, list)
	}
	if _, _, err := gh.Issues.CreateComment(ctx, "octo", "demo", 7, &github.IssueComment{Body: github.String(strings.Repeat("x", 65537))}); !isStatus(err, 422) {
		t.Errorf("a 65537-character comment: %v", err)
	}
	for i, want := range []int{201, 200} {
		_, resp, err := gh.Reactions.CreateIssueCommentReaction(ctx, "octo", "demo", human, "+1")
		if err != nil || resp.StatusCode != want {
			t.Errorf("reaction %d: %v %v, want %d", i, err, resp, want)
		}
	}
	if got := s.Comments("octo/demo", 7)[0].Reactions; len(got) != 1 || got[0] != ghfake.Login+":+1" {
		t.Errorf("reactions: %v", got)
	}
	s.SetPermission("octo/demo", "alice", "write")
	p, _, err := gh.Repositories.GetPermissionLevel(ctx, "octo", "demo", "alice")
	if err != nil || p.GetPermission() != "write" || p.GetUser().GetLogin() != "alice" {
		t.Errorf("permission: %v %+v", err, p)
	}
	if _, _, err := gh.Repositories.GetPermissionLevel(ctx, "octo", "demo", "mallory"); !isStatus(err, 404) {
		t.Errorf("unknown user: %v", err)
	}
}

func TestContentsAndTrees(t *testing.T) {
	s := ghfake.New(t)
	s.AddFile("octo/demo", sha, ".swarm/plan.json", `{"title":"x"}`)
	s.AddFile("octo/demo", sha, ".swarm/evidence/1.1/review.json", "{}")
	s.AddFile("octo/demo", sha, "README.md", "# demo\n")
	gh := client(t, s)
	ctx := context.Background()
	f, _, _, err := gh.Repositories.GetContents(ctx, "octo", "demo", ".swarm/plan.json", &github.RepositoryContentGetOptions{Ref: sha})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.GetContent(); err != nil || got != `{"title":"x"}` || f.GetPath() != ".swarm/plan.json" {
		t.Errorf("content: %q %v", got, err)
	}
	tree, _, err := gh.Git.GetTree(ctx, "octo", "demo", sha, true)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range tree.Entries {
		paths = append(paths, e.GetType()+":"+e.GetPath())
	}
	want := "tree:.swarm tree:.swarm/evidence tree:.swarm/evidence/1.1 blob:.swarm/evidence/1.1/review.json blob:.swarm/plan.json blob:README.md"
	if strings.Join(paths, " ") != want {
		t.Errorf("tree:\n%s\nwant\n%s", strings.Join(paths, " "), want)
	}
	top, _, err := gh.Git.GetTree(ctx, "octo", "demo", sha, false)
	if err != nil || len(top.Entries) != 2 {
		t.Errorf("top-level tree: %v %d entries", err, len(top.Entries))
	}
}

func TestFaults(t *testing.T) {
	s := ghfake.New(t)
	gh := client(t, s)
	ctx := context.Background()
	s.SetPermission("o/r", "u", "read")
	s.Fail(ghfake.Fault{Method: "GET", Nth: 2, Times: 2, Status: http.StatusBadGateway})
	sec := ghfake.SecondaryRateLimit(7)
	sec.Operation, sec.Nth = "repos/get-collaborator-permission-level", 5
	s.Fail(sec)
	var got []string
	for range 5 {
		_, resp, err := gh.Repositories.GetPermissionLevel(ctx, "o", "r", "u")
		switch {
		case err == nil:
			got = append(got, "ok")
		case resp != nil:
			got = append(got, fmt.Sprint(resp.StatusCode))
		}
		var abuse *github.AbuseRateLimitError
		if errors.As(err, &abuse) && (abuse.RetryAfter == nil || *abuse.RetryAfter != 7*time.Second) {
			t.Errorf("secondary limit: %+v", abuse)
		}
	}
	if strings.Join(got, " ") != "ok 502 502 ok 403" {
		t.Errorf("got %v, want ok 502 502 ok 403", got)
	}

	// A failure after the request took effect (with a new client: go-github
	// refuses requests locally until the secondary limit's Retry-After).
	gh = client(t, s)
	s.Fail(ghfake.Fault{Operation: "issues/create-comment", Status: http.StatusBadGateway, AfterApplying: true})
	if _, _, err := gh.Issues.CreateComment(ctx, "o", "r", 1, &github.IssueComment{Body: github.String("x")}); !isStatus(err, 502) {
		t.Errorf("create: %v", err)
	}
	if n := len(s.Comments("o/r", 1)); n != 1 {
		t.Errorf("%d comments stored, want 1 (applied before the 502)", n)
	}

	// Bad credentials.
	bad, _ := github.NewClient(nil).WithAuthToken("wrong").WithEnterpriseURLs(s.URL, s.URL)
	if _, _, err := bad.Repositories.GetPermissionLevel(ctx, "o", "r", "u"); !isStatus(err, http.StatusUnauthorized) {
		t.Errorf("wrong token: %v", err)
	}
}

func TestLatency(t *testing.T) {
	s := ghfake.New(t)
	s.SetPermission("o/r", "u", "read")
	s.SetLatency(200 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := client(t, s).Repositories.GetPermissionLevel(ctx, "o", "r", "u"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want a deadline error", err)
	}
}
