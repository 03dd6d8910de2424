package ghapi

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/gates"
)

// DeferredChecks is the check-run part of API for an evaluation that puts
// only some runs in progress at its start (the aggregate) and creates the
// others when their results are known, already completed: one request per
// run instead of two. The GitHub App uses it to stay within its API
// budget; Client implements it.
type DeferredChecks interface {
	BeginChecks(ctx context.Context, repo Repo, headSHA string, start, later []string, externalID string) (started []*CheckRun, earlier map[string]*CheckRun, err error)
	PostCheck(ctx context.Context, repo Repo, headSHA, externalID string, earlier *CheckRun, res gates.Result) (*CheckRun, error)
}

var _ DeferredChecks = (*Client)(nil)

// BeginChecks is StartChecks for the names in start; for the names in
// later, whose runs PostCheck creates once their results are known, it
// returns the runs an earlier attempt with the same external id left on
// the commit (the newest per name; marked Reused), by name, so that
// PostCheck updates them rather than adding duplicates. One paginated list
// of the commit's check runs serves both.
//
// Errors as StartChecks': on error, started holds the runs started so far.
func (c *Client) BeginChecks(ctx context.Context, repo Repo, headSHA string, start, later []string, externalID string) ([]*CheckRun, map[string]*CheckRun, error) {
	if !shaRE.MatchString(headSHA) {
		return nil, nil, fmt.Errorf("starting checks: head SHA %q is not a full 40-hex commit SHA", headSHA)
	}
	if externalID == "" {
		return nil, nil, fmt.Errorf("starting checks: the external id is empty; it is what lets a re-run update its checks instead of duplicating them")
	}
	seen := map[string]bool{}
	for _, n := range append(append([]string(nil), start...), later...) {
		if n == "" || seen[n] {
			return nil, nil, fmt.Errorf("starting checks: check name %q is empty or repeated", n)
		}
		seen[n] = true
	}
	existing, err := c.findRuns(ctx, repo, headSHA, "", externalID)
	if err != nil {
		return nil, nil, apiError(fmt.Sprintf("starting checks on %s@%s: listing the commit's check runs", repo, headSHA[:12]), err)
	}
	earlier := map[string]*CheckRun{}
	for _, name := range later {
		if gh := existing[name]; gh != nil {
			run := fromGitHub(repo, gh)
			run.Reused = true
			earlier[name] = run
		}
	}
	var runs []*CheckRun
	for _, name := range start {
		run, err := c.startOne(ctx, repo, headSHA, name, externalID, existing[name])
		if err != nil {
			return runs, earlier, apiError(fmt.Sprintf("starting check %s on %s@%s", name, repo, headSHA[:12]), err)
		}
		runs = append(runs, run)
	}
	return runs, earlier, nil
}

// PostCheck reports a gate's result as a completed run on headSHA with the
// external id, with Complete's output, conclusion and annotations:
//
//   - earlier, a run of an earlier attempt from BeginChecks (nil: none), is
//     completed again with the result (its annotations are not posted
//     twice);
//   - else, when the result has at most MaxAnnotationsPerRequest
//     annotations, the run is created completed in one request;
//   - else it is created in progress and completed by Complete (the
//     annotations 50 per request, the conclusion with the last batch).
//
// The create is a POST: after a failure that leaves open whether GitHub
// applied it, the commit's runs are listed, and a run with this name and
// external id found there is completed instead of creating another. On
// error the returned run, when not nil, is in progress: complete it with
// Fail (a Finaliser does).
func (c *Client) PostCheck(ctx context.Context, repo Repo, headSHA, externalID string, earlier *CheckRun, res gates.Result) (*CheckRun, error) {
	if earlier != nil {
		return earlier, c.Complete(ctx, earlier, res)
	}
	out := Output(res, c.fullReport)
	if len(out.Annotations) > MaxAnnotationsPerRequest {
		run, err := c.startOne(ctx, repo, headSHA, res.Name, externalID, nil)
		if err != nil {
			return nil, apiError(fmt.Sprintf("starting check %s on %s@%s", res.Name, repo, headSHA[:12]), err)
		}
		return run, c.Complete(ctx, run, res)
	}
	now := &github.Timestamp{Time: c.now()}
	opts := github.CreateCheckRunOptions{
		Name: res.Name, HeadSHA: headSHA, ExternalID: github.String(externalID),
		Status: github.String(StatusCompleted), Conclusion: github.String(out.Conclusion), StartedAt: now, CompletedAt: now,
		Output: &github.CheckRunOutput{Title: github.String(out.Title), Summary: github.String(out.Summary), Annotations: out.Annotations},
	}
	for try := 0; ; try++ {
		gh, _, err := c.gh.Checks.CreateCheckRun(ctx, repo.Owner, repo.Name, opts)
		if err == nil {
			run, err := runFrom(repo, gh)
			if err != nil {
				return nil, apiError(fmt.Sprintf("posting check %s on %s@%s", res.Name, repo, headSHA[:12]), err)
			}
			run.fill(res.Name, headSHA, externalID, StatusCompleted)
			if o := gh.GetOutput(); o == nil || o.AnnotationsCount == nil {
				run.Annotations = len(out.Annotations)
			}
			return run, nil
		}
		what := fmt.Sprintf("posting check %s on %s@%s", res.Name, repo, headSHA[:12])
		if !ambiguous(err) || try >= c.resends {
			return nil, apiError(what, err)
		}
		found, ferr := c.findRuns(ctx, repo, headSHA, res.Name, externalID)
		if ferr != nil {
			return nil, apiError(what, fmt.Errorf("%w (and listing check runs to see whether it was created: %v)", err, ferr))
		}
		if f := found[res.Name]; f != nil {
			c.log.InfoContext(ctx, "check run was created despite the error", "check", res.Name, "id", f.GetID(), "error", err)
			run := fromGitHub(repo, f)
			run.Reused = true
			return run, c.Complete(ctx, run, res)
		}
	}
}
