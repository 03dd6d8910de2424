package ghapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/gitsha"
)

// Check-run statuses and conclusions swarm-gate sends.
const (
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"

	ConclusionSuccess = "success"
	ConclusionFailure = "failure"
	ConclusionNeutral = "neutral"
	// ConclusionCancelled is a run the job's cancellation cut short: no
	// verdict, which a required check does not accept either.
	ConclusionCancelled = "cancelled"
)

// CheckRun is one check run swarm-gate started. Complete and Fail update
// Status and Conclusion; one run must not be completed from two goroutines
// at once.
type CheckRun struct {
	Repo       Repo
	ID         int64
	Name       string // e.g. swarm/scope
	HeadSHA    string
	ExternalID string
	HTMLURL    string
	Status     string // in_progress, then completed
	Conclusion string // "" until completed
	// Reused is true when StartChecks found the run from an earlier attempt
	// (same name, head SHA and external id) and put it back in progress.
	Reused bool
	// Annotations is how many annotations GitHub holds for the run,
	// including those of earlier attempts (GitHub cannot delete them).
	Annotations int
	// App is the GitHub App that created the run (zero when GitHub did
	// not say).
	App App
}

// App names a GitHub App: its id and its slug (its bot is "<slug>[bot]").
type App struct {
	ID   int64
	Slug string
}

// Matches reports whether other is app: by id when app has one, else by
// slug (case-insensitively); the zero App matches nothing.
func (app App) Matches(other App) bool {
	switch {
	case app.ID != 0:
		return other.ID == app.ID
	case app.Slug != "":
		return strings.EqualFold(other.Slug, app.Slug)
	}
	return false
}

// InProgress is true until the run is completed.
func (r *CheckRun) InProgress() bool { return r.Status != StatusCompleted }

// StartChecks puts one check run per name in progress on headSHA (the full
// 40-hex commit SHA) and returns them in the order of names.
//
// externalID (not empty) identifies the evaluation, e.g.
// "swarm-gate:<run id>:<attempt>" in an Action or the delivery id in the
// App. A run on the same commit with the same name and external id, left
// by an earlier attempt, is reused: it is updated back to in_progress
// rather than duplicated (the newest such run when there are several).
// Runs are looked up with one paginated list of the commit's check runs.
//
// On error, the returned slice holds the runs started so far (and is safe
// to pass to Finaliser.Track), so none is left in progress.
//
// Creating a run is a POST: it is resent only when the transport knows it
// was not applied, or after a failure that leaves it open, when a fresh
// list of the commit's runs shows no run with this name and external id.
func (c *Client) StartChecks(ctx context.Context, repo Repo, headSHA string, names []string, externalID string) ([]*CheckRun, error) {
	if !gitsha.Full(headSHA) {
		return nil, fmt.Errorf("starting checks: head SHA %q is not a full 40-hex commit SHA", headSHA)
	}
	if externalID == "" {
		return nil, errors.New("starting checks: the external id is empty; it is what lets a re-run update its checks instead of duplicating them")
	}
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" || seen[n] {
			return nil, fmt.Errorf("starting checks: check name %q is empty or repeated", n)
		}
		seen[n] = true
	}
	existing, err := c.findRuns(ctx, repo, headSHA, "", externalID)
	if err != nil {
		return nil, apiError(fmt.Sprintf("starting checks on %s@%s: listing the commit's check runs", repo, headSHA[:12]), err)
	}
	var runs []*CheckRun
	for _, name := range names {
		run, err := c.startOne(ctx, repo, headSHA, name, externalID, existing[name])
		if err != nil {
			return runs, apiError(fmt.Sprintf("starting check %s on %s@%s", name, repo, headSHA[:12]), err)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

var startOutput = &github.CheckRunOutput{
	Title:   github.String("evaluating…"),
	Summary: github.String("swarm-gate is evaluating this check."),
}

// createTimeout bounds one request that creates an in-progress check run,
// which is not cancelled with the evaluation once sent.
const createTimeout = 3 * time.Minute

func (c *Client) startOne(ctx context.Context, repo Repo, sha, name, externalID string, old *github.CheckRun) (*CheckRun, error) {
	run, err := c.startOrReuse(ctx, repo, sha, name, externalID, old)
	if run != nil {
		run.fill(name, sha, externalID, StatusInProgress)
	}
	return run, err
}

// fill sets the fields GitHub's answer left out to what was sent.
func (r *CheckRun) fill(name, sha, externalID, status string) {
	if r.Name == "" {
		r.Name = name
	}
	if r.HeadSHA == "" {
		r.HeadSHA = sha
	}
	if r.ExternalID == "" {
		r.ExternalID = externalID
	}
	if r.Status == "" {
		r.Status = status
	}
}

func (c *Client) startOrReuse(ctx context.Context, repo Repo, sha, name, externalID string, old *github.CheckRun) (*CheckRun, error) {
	if old != nil {
		gh, _, err := c.gh.Checks.UpdateCheckRun(ctx, repo.Owner, repo.Name, old.GetID(), github.UpdateCheckRunOptions{
			Name: name, ExternalID: github.String(externalID), Status: github.String(StatusInProgress), Output: startOutput, DetailsURL: c.details(),
		})
		if err != nil {
			return nil, err
		}
		run := fromGitHub(repo, gh)
		if run.ID == 0 {
			// The request was applied to old, whatever the answer says.
			run = fromGitHub(repo, old)
			run.Status, run.Conclusion = StatusInProgress, ""
		}
		run.Reused = true
		return run, nil
	}
	for try := 0; ; try++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Once sent, a create is seen through even if ctx is cancelled
		// meanwhile: a run GitHub created but whose id swarm-gate never
		// learnt could not be completed by the finaliser and would stay in
		// progress.
		sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
		gh, _, err := c.gh.Checks.CreateCheckRun(sendCtx, repo.Owner, repo.Name, github.CreateCheckRunOptions{
			Name: name, HeadSHA: sha, ExternalID: github.String(externalID), Status: github.String(StatusInProgress),
			StartedAt: &github.Timestamp{Time: c.now()}, Output: startOutput, DetailsURL: c.details(),
		})
		cancel()
		if err == nil {
			return runFrom(repo, gh)
		}
		if !ambiguous(err) || try >= c.resends {
			return nil, err
		}
		found, ferr := c.findRuns(ctx, repo, sha, name, externalID)
		if ferr != nil {
			return nil, fmt.Errorf("%w (and listing check runs to see whether it was created: %v)", err, ferr)
		}
		if f := found[name]; f != nil {
			c.log.InfoContext(ctx, "check run was created despite the error", "check", name, "id", f.GetID(), "error", err)
			return fromGitHub(repo, f), nil
		}
		if perr := c.transport.pause(ctx, "creating check "+name, try+1); perr != nil {
			return nil, fmt.Errorf("%w (%v)", err, perr)
		}
	}
}

// ErrNoCheckRunID is the error for a check run GitHub returned without an
// id (a broken proxy or API): without one it cannot be completed.
var ErrNoCheckRunID = errors.New("GitHub returned a check run without an id")

// runFrom is fromGitHub for a check run GitHub just returned, which must
// have an id.
func runFrom(repo Repo, gh *github.CheckRun) (*CheckRun, error) {
	if gh.GetID() == 0 {
		return nil, ErrNoCheckRunID
	}
	return fromGitHub(repo, gh), nil
}

// fromGitHub reads a check run of the API; every field may be missing.
func fromGitHub(repo Repo, gh *github.CheckRun) *CheckRun {
	return &CheckRun{Repo: repo, ID: gh.GetID(), Name: gh.GetName(), HeadSHA: gh.GetHeadSHA(), ExternalID: gh.GetExternalID(),
		HTMLURL: gh.GetHTMLURL(), Status: gh.GetStatus(), Conclusion: gh.GetConclusion(), Annotations: gh.GetOutput().GetAnnotationsCount(),
		App: App{ID: gh.GetApp().GetID(), Slug: gh.GetApp().GetSlug()}}
}

// findRuns lists the commit's check runs (all of them, not only the latest
// per name; only name when it is not "") and returns the newest with the
// external id, by name.
func (c *Client) findRuns(ctx context.Context, repo Repo, sha, name, externalID string) (map[string]*github.CheckRun, error) {
	out := map[string]*github.CheckRun{}
	opts := &github.ListCheckRunsOptions{Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 100}}
	if name != "" {
		opts.CheckName = github.String(name)
	}
	for {
		page, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, repo.Owner, repo.Name, sha, opts)
		if err != nil {
			return nil, err
		}
		for _, r := range checkRunsOf(page) {
			if r.GetExternalID() != externalID || r.GetHeadSHA() != sha || r.GetID() == 0 {
				continue
			}
			if prev := out[r.GetName()]; prev == nil || r.GetID() > prev.GetID() {
				out[r.GetName()] = r
			}
		}
		if nextPage(resp) == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// Complete completes run with out: its conclusion, title, summary and
// annotations (report.CheckOutput renders a gate result as one).
//
// The annotations are posted at most MaxAnnotationsPerRequest per request:
// all batches but the last in in_progress updates, the last with the
// conclusion in the final request, so that the run completes only once
// everything is posted, and 120 annotations take exactly 3 requests (one
// when there are none). On a reused run, annotations GitHub already holds
// from an earlier attempt are not posted again.
//
// An update carrying annotations appends them, so it is not resent blindly:
// after a failure that leaves open whether it was applied (a 5xx, a broken
// connection), Complete reads the run back and resends only if its
// annotation count did not move, at most twice. On error the run stays in
// progress; a Finaliser then completes it as a failure.
func (c *Client) Complete(ctx context.Context, run *CheckRun, out CheckOutput) error {
	anns := out.Annotations
	if run.Reused && run.Annotations > 0 {
		var err error
		if anns, err = c.unposted(ctx, run, anns); err != nil {
			return apiError(fmt.Sprintf("completing check %s (run %d): reading the annotations of the earlier attempt", run.Name, run.ID), err)
		}
	}
	batches := chunk(anns, MaxAnnotationsPerRequest)
	for i, batch := range batches {
		opts := github.UpdateCheckRunOptions{Name: run.Name,
			Output: &github.CheckRunOutput{Title: github.String(out.Title), Summary: github.String(out.Summary), Annotations: batch}}
		final := i == len(batches)-1
		if final {
			opts.Status, opts.Conclusion = github.String(StatusCompleted), github.String(out.Conclusion)
			opts.CompletedAt = &github.Timestamp{Time: c.now()}
		}
		if err := c.update(ctx, run, opts); err != nil {
			what := "completing"
			if !final {
				what = fmt.Sprintf("posting annotations (request %d of %d)", i+1, len(batches))
			}
			return apiError(fmt.Sprintf("check %s (run %d): %s", run.Name, run.ID, what), err)
		}
	}
	return nil
}

// Fail completes a run as failure with the reason (one line of it in the
// title, all of it in the summary), for runs that could not be reported:
// the Finaliser calls it.
func (c *Client) Fail(ctx context.Context, run *CheckRun, reason string) error {
	out := failOutput(reason)
	err := c.update(ctx, run, github.UpdateCheckRunOptions{Name: run.Name,
		Status: github.String(StatusCompleted), Conclusion: github.String(ConclusionFailure), CompletedAt: &github.Timestamp{Time: c.now()},
		Output: &github.CheckRunOutput{Title: github.String(out.Title), Summary: github.String(out.Summary)}})
	if err != nil {
		return apiError(fmt.Sprintf("failing check %s (run %d)", run.Name, run.ID), err)
	}
	return nil
}

// Canceller is what a Checks may also do: complete a run as cancelled.
// *Client implements it; Finaliser.Cancel falls back to Fail without it.
type Canceller interface {
	Cancel(ctx context.Context, run *CheckRun, reason string) error
}

// Cancel completes run with conclusion cancelled (the job was cancelled
// before the check was reported; no verdict), the title "cancelled: " and
// the first line of reason, and a summary that says to re-run the job.
func (c *Client) Cancel(ctx context.Context, run *CheckRun, reason string) error {
	out := cancelOutput(reason)
	err := c.update(ctx, run, github.UpdateCheckRunOptions{Name: run.Name,
		Status: github.String(StatusCompleted), Conclusion: github.String(ConclusionCancelled), CompletedAt: &github.Timestamp{Time: c.now()},
		Output: &github.CheckRunOutput{Title: github.String(out.Title), Summary: github.String(out.Summary)}})
	if err != nil {
		return apiError(fmt.Sprintf("cancelling check %s (run %d)", run.Name, run.ID), err)
	}
	return nil
}

// update sends one PATCH and records its effect on run. With annotations
// the request is marked appending (the transport does not resend it after
// an ambiguous failure) and resent here only when reading the run back
// shows it was not applied.
func (c *Client) update(ctx context.Context, run *CheckRun, opts github.UpdateCheckRunOptions) error {
	n := len(opts.Output.Annotations)
	if opts.DetailsURL == nil {
		opts.DetailsURL = c.details()
	}
	rctx := ctx
	if n > 0 {
		rctx = withPolicy(ctx, appending)
	}
	for try := 0; ; try++ {
		gh, _, err := c.gh.Checks.UpdateCheckRun(rctx, run.Repo.Owner, run.Repo.Name, run.ID, opts)
		if err == nil {
			c.record(run, gh, n, opts.Status)
			if !run.InProgress() {
				c.mirrorTwins(ctx, run, opts) // deferred.go
			}
			return nil
		}
		if n == 0 || !ambiguous(err) || try >= c.resends {
			return err
		}
		now, _, gerr := c.gh.Checks.GetCheckRun(ctx, run.Repo.Owner, run.Repo.Name, run.ID)
		if gerr != nil {
			return fmt.Errorf("%w (and reading the run back to see whether it was applied: %v)", err, gerr)
		}
		switch got := now.GetOutput().GetAnnotationsCount(); got {
		case run.Annotations + n:
			c.log.InfoContext(ctx, "check-run update was applied despite the error", "check", run.Name, "id", run.ID, "error", err)
			c.record(run, now, n, opts.Status)
			return nil
		case run.Annotations:
			c.log.InfoContext(ctx, "check-run update was not applied; sending it again", "check", run.Name, "id", run.ID, "error", err)
			if perr := c.transport.pause(ctx, "updating check "+run.Name, try+1); perr != nil {
				return fmt.Errorf("%w (%v)", err, perr)
			}
		default:
			return fmt.Errorf("%w (the run now has %d annotations where %d or %d were expected, so it is unclear what was applied)", err, got, run.Annotations, run.Annotations+n)
		}
	}
}

// record notes on run what an update did: GitHub's answer gh (whose
// fields may all be missing; sent, the status the request asked for, is
// assumed when it has none) and the annotations posted.
func (c *Client) record(run *CheckRun, gh *github.CheckRun, posted int, sent *string) {
	prev := run.Status
	run.Status, run.Conclusion = gh.GetStatus(), gh.GetConclusion()
	switch {
	case run.Status != "":
	case sent != nil:
		run.Status = *sent
	default:
		run.Status = prev
	}
	if out := gh.GetOutput(); out != nil && out.AnnotationsCount != nil {
		run.Annotations = out.GetAnnotationsCount()
	} else {
		run.Annotations += posted
	}
}

// checkRunsOf is a list page's check runs (none for an empty answer).
func checkRunsOf(page *github.ListCheckRunsResults) []*github.CheckRun {
	if page == nil {
		return nil
	}
	return page.CheckRuns
}

// nextPage is the page after resp's, 0 when there is none.
func nextPage(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.NextPage
}

// unposted drops from anns those the run already holds (same path, lines,
// columns, level, title and message), counting duplicates.
func (c *Client) unposted(ctx context.Context, run *CheckRun, anns []*github.CheckRunAnnotation) ([]*github.CheckRunAnnotation, error) {
	have := map[string]int{}
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := c.gh.Checks.ListCheckRunAnnotations(ctx, run.Repo.Owner, run.Repo.Name, run.ID, opts)
		if err != nil {
			return nil, err
		}
		for _, a := range page {
			have[annotationKey(a)]++
		}
		if nextPage(resp) == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	var out []*github.CheckRunAnnotation
	for _, a := range anns {
		if k := annotationKey(a); have[k] > 0 {
			have[k]--
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

func annotationKey(a *github.CheckRunAnnotation) string {
	return fmt.Sprintf("%s\x00%d\x00%d\x00%d\x00%d\x00%s\x00%s\x00%s", a.GetPath(), a.GetStartLine(), a.GetEndLine(),
		a.GetStartColumn(), a.GetEndColumn(), a.GetAnnotationLevel(), a.GetTitle(), a.GetMessage())
}

// chunk splits anns into batches of at most size; no annotations is one
// empty batch (the completing request).
func chunk(anns []*github.CheckRunAnnotation, size int) [][]*github.CheckRunAnnotation {
	if len(anns) == 0 {
		return [][]*github.CheckRunAnnotation{nil}
	}
	var out [][]*github.CheckRunAnnotation
	for len(anns) > 0 {
		n := min(size, len(anns))
		out = append(out, anns[:n])
		anns = anns[n:]
	}
	return out
}
