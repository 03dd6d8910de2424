package ghapi

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/gitsha"
)

// DeferredChecks is the check-run part of API for an evaluation that puts
// only some runs in progress at its start (the aggregate) and creates the
// others when their results are known, already completed: one request per
// run instead of two. The GitHub App uses it to stay within its API
// budget; Client implements it.
type DeferredChecks interface {
	BeginChecks(ctx context.Context, repo Repo, headSHA string, start, later []string, externalID string) (started []*CheckRun, earlier map[string]*CheckRun, err error)
	PostCheck(ctx context.Context, repo Repo, headSHA, externalID string, earlier *CheckRun, name string, out CheckOutput) (*CheckRun, error)
}

var _ DeferredChecks = (*Client)(nil)

// BeginChecks is StartChecks for the names in start; for the names in
// later, whose runs PostCheck creates once their results are known, it
// returns the runs an earlier attempt with the same external id left on
// the commit (the newest per name; marked Reused), by name, so that
// PostCheck updates them rather than adding duplicates. One paginated list
// of the commit's check runs serves both. The Client remembers what it
// started and found, for PostCheck's second look at the commit's runs and
// the aggregate's twins (see DefaultConcurrentWait).
//
// Errors as StartChecks': on error, started holds the runs started so far.
func (c *Client) BeginChecks(ctx context.Context, repo Repo, headSHA string, start, later []string, externalID string) ([]*CheckRun, map[string]*CheckRun, error) {
	if !gitsha.Full(headSHA) {
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
	lk := &deferredLookup{repo: repo, sha: headSHA, extID: externalID, later: later, started: map[string]int64{}, busy: map[string]bool{}}
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
		if gh := existing[name]; gh != nil && gh.GetStatus() != StatusCompleted {
			lk.busy[name] = true // another evaluation of this commit is running (or died)
		}
		run, err := c.startOne(ctx, repo, headSHA, name, externalID, existing[name])
		if run != nil {
			lk.started[name] = run.ID
			lk.created = lk.created || !run.Reused
		}
		if err != nil {
			c.conc.add(lk)
			return runs, earlier, apiError(fmt.Sprintf("starting check %s on %s@%s", name, repo, headSHA[:12]), err)
		}
		runs = append(runs, run)
	}
	c.conc.add(lk)
	return runs, earlier, nil
}

// PostCheck posts out as the completed run name on headSHA with the
// external id, as Complete would:
//
//   - earlier, a run of an earlier attempt from BeginChecks (nil: none), is
//     completed again with out (its annotations are not posted twice);
//   - else, after BeginChecks on this Client for headSHA and externalID,
//     the commit's runs are listed again, once for all the later checks
//     (the first PostCheck does it): a run with the name and external id
//     that another evaluation of the same commit created meanwhile (a
//     second App replica) is completed with out instead of creating
//     another (see deferredLookup.relist, which also waits for such an
//     evaluation to post its runs first);
//   - else, when out has at most MaxAnnotationsPerRequest
//     annotations, the run is created completed in one request;
//   - else it is created in progress and completed by Complete (the
//     annotations 50 per request, the conclusion with the last batch).
//
// The create is a POST: after a failure that leaves open whether GitHub
// applied it, the commit's runs are listed, and a run with this name and
// external id found there is completed instead of creating another. On
// error the returned run, when not nil, is in progress: complete it with
// Fail (a Finaliser does).
func (c *Client) PostCheck(ctx context.Context, repo Repo, headSHA, externalID string, earlier *CheckRun, name string, out CheckOutput) (*CheckRun, error) {
	if lk := c.conc.lookup(headSHA, externalID); lk != nil && (earlier == nil || lk.created) {
		// lk.created: the aggregate was created, not found, so another
		// evaluation may have created one too; the list finds it (twins).
		if gh := lk.relist(ctx, c)[name]; gh != nil && earlier == nil {
			earlier = fromGitHub(repo, gh)
			earlier.Reused = true
			c.log.InfoContext(ctx, "check run found on the commit, made by another evaluation of it: updating it", "check", name, "id", earlier.ID)
		}
	}
	if earlier != nil {
		return earlier, c.Complete(ctx, earlier, out)
	}
	if len(out.Annotations) > MaxAnnotationsPerRequest {
		run, err := c.startOne(ctx, repo, headSHA, name, externalID, nil)
		if err != nil {
			return nil, apiError(fmt.Sprintf("starting check %s on %s@%s", name, repo, headSHA[:12]), err)
		}
		return run, c.Complete(ctx, run, out)
	}
	now := &github.Timestamp{Time: c.now()}
	opts := github.CreateCheckRunOptions{
		Name: name, HeadSHA: headSHA, ExternalID: github.String(externalID),
		Status: github.String(StatusCompleted), Conclusion: github.String(out.Conclusion), StartedAt: now, CompletedAt: now,
		Output:     &github.CheckRunOutput{Title: github.String(out.Title), Summary: github.String(out.Summary), Annotations: out.Annotations},
		DetailsURL: c.details(),
	}
	for try := 0; ; try++ {
		gh, _, err := c.gh.Checks.CreateCheckRun(ctx, repo.Owner, repo.Name, opts)
		if err == nil {
			run, err := runFrom(repo, gh)
			if err != nil {
				return nil, apiError(fmt.Sprintf("posting check %s on %s@%s", name, repo, headSHA[:12]), err)
			}
			run.fill(name, headSHA, externalID, StatusCompleted)
			if o := gh.GetOutput(); o == nil || o.AnnotationsCount == nil {
				run.Annotations = len(out.Annotations)
			}
			return run, nil
		}
		what := fmt.Sprintf("posting check %s on %s@%s", name, repo, headSHA[:12])
		if !ambiguous(err) || try >= c.resends {
			return nil, apiError(what, err)
		}
		found, ferr := c.findRuns(ctx, repo, headSHA, name, externalID)
		if ferr != nil {
			return nil, apiError(what, fmt.Errorf("%w (and listing check runs to see whether it was created: %v)", err, ferr))
		}
		if f := found[name]; f != nil {
			c.log.InfoContext(ctx, "check run was created despite the error", "check", name, "id", f.GetID(), "error", err)
			run := fromGitHub(repo, f)
			run.Reused = true
			return run, c.Complete(ctx, run, out)
		}
		if perr := c.transport.pause(ctx, "posting check "+name, try+1); perr != nil {
			return nil, apiError(what, fmt.Errorf("%w (%v)", err, perr))
		}
	}
}

// ReportCheck posts out as the run name with the external id on headSHA:
// the commit's runs are listed (one request), and a run found there is
// completed with out (PostCheck with earlier), else one is
// created completed. For a verdict given outside an evaluation (the App's
// Abandon). Errors name the call.
func (c *Client) ReportCheck(ctx context.Context, repo Repo, headSHA, externalID, name string, out CheckOutput) (*CheckRun, error) {
	if !gitsha.Full(headSHA) {
		return nil, fmt.Errorf("reporting check %s: head SHA %q is not a full 40-hex commit SHA", name, headSHA)
	}
	found, err := c.findRuns(ctx, repo, headSHA, name, externalID)
	if err != nil {
		return nil, apiError(fmt.Sprintf("reporting check %s on %s@%s: listing the commit's check runs", name, repo, headSHA[:12]), err)
	}
	var earlier *CheckRun
	if gh := found[name]; gh != nil {
		earlier = fromGitHub(repo, gh)
		earlier.Reused = true
	}
	return c.PostCheck(ctx, repo, headSHA, externalID, earlier, name, out)
}

// Concurrent evaluations of one commit. Two App replicas may evaluate the
// same head at once (the pull_request and check_suite deliveries of one
// push reaching different replicas, a redelivery). With deferred gate
// runs, each would create the gate runs at its end from a lookup made at
// its start; so the first PostCheck lists the commit's runs again, and
// the evaluations agree on who creates them:
//
//   - An evaluation is a follower when another one of the same commit and
//     external id was running when it started: the aggregate run it found
//     was in progress, or the list shows an older aggregate with its
//     external id still in progress (both created one, neither having
//     seen the other's). A follower waits, listing again with growing
//     pauses (250 ms doubling to 4 s) for at most DefaultConcurrentWait
//     (WithConcurrentWait) or half its context's time left, until the
//     other has posted every gate run or completed its aggregate; then it
//     completes the runs it finds instead of creating them. The leader
//     never waits.
//   - Aggregates: two evaluations that list the commit before either has
//     created the aggregate each create one (GitHub has no conditional
//     create): at most one extra aggregate per evaluation so started. The
//     final verdict of each is also written to the other aggregates with
//     its external id that the list showed in progress (twins), so none is
//     left in progress when one evaluation dies, and all carry a verdict.
//
// What remains: gate runs are created twice only when a follower's wait
// runs out (its leader took more than the wait, or died mid-way) just as
// the leader posts them, or when neither evaluation saw the other running
// (both reused, at the same instant, the completed aggregate of an earlier
// evaluation that left no gate runs, and both listed again before either
// posted one).

// DefaultConcurrentWait bounds how long an evaluation waits for another
// evaluation of the same commit to post its gate runs.
const DefaultConcurrentWait = 30 * time.Second

// Polling while waiting for a concurrent evaluation.
const (
	firstPoll = 250 * time.Millisecond
	maxPoll   = 4 * time.Second
)

// WithConcurrentWait sets how long PostCheck may wait for a concurrent
// evaluation of the same commit to post its gate runs (default
// DefaultConcurrentWait; negative: never wait, create what is missing).
func WithConcurrentWait(d time.Duration) Option {
	return func(c *Client) { c.conc.maxWait = d }
}

// concurrency is what a Client remembers from BeginChecks for the
// PostChecks and completions of the same evaluation. The zero value is
// ready.
type concurrency struct {
	mu      sync.Mutex
	lookups map[string]*deferredLookup // by head SHA NUL external id
	twins   map[int64][]int64          // a started run's id → other runs to write its verdict on
	maxWait time.Duration
}

// deferredLookup is one BeginChecks' state: what it started and found.
type deferredLookup struct {
	repo       Repo
	sha, extID string
	later      []string
	// started are the ids of the runs BeginChecks started, by name; busy
	// the names whose run it found in progress; created is true when it
	// created one rather than found it.
	started map[string]int64
	busy    map[string]bool
	created bool

	mu    sync.Mutex // held while listing
	done  bool
	found map[string]*github.CheckRun // newest per name, from the last list
}

func (cc *concurrency) add(lk *deferredLookup) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.lookups == nil {
		cc.lookups = map[string]*deferredLookup{}
	}
	cc.lookups[lk.sha+"\x00"+lk.extID] = lk
}

func (cc *concurrency) lookup(sha, extID string) *deferredLookup {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.lookups[sha+"\x00"+extID]
}

// wait is how long a follower may wait: maxWait, but at most half the
// context's time left.
func (cc *concurrency) wait(ctx context.Context) time.Duration {
	cc.mu.Lock()
	w := cc.maxWait
	cc.mu.Unlock()
	switch {
	case w < 0:
		return 0
	case w == 0:
		w = DefaultConcurrentWait
	}
	if dl, ok := ctx.Deadline(); ok {
		w = min(w, time.Until(dl)/2)
	}
	return w
}

func (cc *concurrency) setTwins(id int64, others []int64) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.twins == nil {
		cc.twins = map[int64][]int64{}
	}
	cc.twins[id] = others
}

func (cc *concurrency) takeTwins(id int64) []int64 {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	t := cc.twins[id]
	delete(cc.twins, id)
	return t
}

// relist lists the commit's runs with the external id again, once per
// lookup (later calls get the first one's answer), waiting while another
// evaluation of the commit leads (see the comment above
// DefaultConcurrentWait). It returns the newest run per name; nil when the
// list failed (logged: the caller then creates the runs, as without it).
func (lk *deferredLookup) relist(ctx context.Context, c *Client) map[string]*github.CheckRun {
	lk.mu.Lock()
	defer lk.mu.Unlock()
	if lk.done {
		return lk.found
	}
	lk.done = true
	start := time.Now()
	wait := c.conc.wait(ctx)
	delay := firstPoll
	for polls := 0; ; polls++ {
		runs, err := c.listFresh(ctx, lk.repo, lk.sha, lk.extID)
		if err != nil {
			c.log.WarnContext(ctx, "listing the commit's check runs again before posting the gates' failed; creating the runs without it (a concurrent evaluation of the commit may duplicate them)",
				"sha", lk.sha, "external_id", lk.extID, "error", err)
			lk.found = nil
			return nil
		}
		lk.found = newestByName(runs)
		leader := lk.classify(c, runs)
		switch {
		case leader == 0 || lk.allLater():
			if polls > 0 {
				c.log.InfoContext(ctx, "the concurrent evaluation of this commit posted its check runs: updating them", "sha", lk.sha, "leader_run", leader, "waited_ms", time.Since(start).Milliseconds())
			}
			return lk.found
		case time.Since(start) >= wait:
			c.log.WarnContext(ctx, "gave up waiting for a concurrent evaluation of this commit: creating the missing gate runs", "sha", lk.sha, "leader_run", leader, "waited_ms", time.Since(start).Milliseconds())
			return lk.found
		case polls == 0:
			c.log.InfoContext(ctx, "another evaluation of this commit is running: waiting for it to post its check runs, to update them rather than duplicate them", "sha", lk.sha, "leader_run", leader)
		}
		t := time.NewTimer(min(delay, wait-time.Since(start)))
		select {
		case <-ctx.Done():
			t.Stop()
			return lk.found
		case <-t.C:
		}
		delay = min(2*delay, maxPoll)
	}
}

// classify records, for each run BeginChecks started, the other runs with
// its name that are in progress (its twins: its verdict is written on them
// too), and returns the id of a run whose evaluation leads this one (0:
// none): the started run itself when it was found in progress (busy) and
// still is, or an older run with its name in progress.
func (lk *deferredLookup) classify(c *Client, runs []*github.CheckRun) (leader int64) {
	for name, id := range lk.started {
		var twins []int64
		for _, r := range runs {
			if r.GetName() != name {
				continue
			}
			inProgress := r.GetStatus() != StatusCompleted
			switch {
			case r.GetID() == id:
				if lk.busy[name] && inProgress {
					leader = id
				}
			case inProgress:
				twins = append(twins, r.GetID())
				if r.GetID() < id && leader == 0 {
					leader = r.GetID()
				}
			}
		}
		c.conc.setTwins(id, twins)
	}
	return leader
}

// allLater reports whether the last list found a run for every later
// check.
func (lk *deferredLookup) allLater() bool {
	for _, name := range lk.later {
		if lk.found[name] == nil {
			return false
		}
	}
	return true
}

// newestByName keeps the newest run of each name.
func newestByName(runs []*github.CheckRun) map[string]*github.CheckRun {
	out := map[string]*github.CheckRun{}
	for _, r := range runs {
		if prev := out[r.GetName()]; prev == nil || r.GetID() > prev.GetID() {
			out[r.GetName()] = r
		}
	}
	return out
}

// listFresh lists every check run of the commit with the external id,
// bypassing any cache between the client and GitHub (Cache-Control:
// no-cache): another evaluation may have changed them since the last list.
func (c *Client) listFresh(ctx context.Context, repo Repo, sha, externalID string) ([]*github.CheckRun, error) {
	var out []*github.CheckRun
	for page := 1; page != 0; {
		u := fmt.Sprintf("repos/%s/%s/commits/%s/check-runs?filter=all&per_page=100&page=%s",
			url.PathEscape(repo.Owner), url.PathEscape(repo.Name), sha, strconv.Itoa(page))
		req, err := c.gh.NewRequest("GET", u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Cache-Control", "no-cache")
		var list github.ListCheckRunsResults
		resp, err := c.gh.Do(ctx, req, &list)
		if err != nil {
			return nil, err
		}
		for _, r := range checkRunsOf(&list) {
			if r.GetExternalID() == externalID && r.GetHeadSHA() == sha && r.GetID() != 0 {
				out = append(out, r)
			}
		}
		page = nextPage(resp)
	}
	return out, nil
}

// mirrorTwins writes a final update of run (its conclusion, title and
// summary, without annotations) on the runs its evaluation found in
// progress with the same name and external id (see classify), once. A
// failure is logged: those runs' own evaluations complete them.
func (c *Client) mirrorTwins(ctx context.Context, run *CheckRun, opts github.UpdateCheckRunOptions) {
	twins := c.conc.takeTwins(run.ID)
	if len(twins) == 0 {
		return
	}
	o := opts
	if opts.Output != nil {
		o.Output = &github.CheckRunOutput{Title: opts.Output.Title, Summary: opts.Output.Summary}
	}
	for _, id := range twins {
		if _, _, err := c.gh.Checks.UpdateCheckRun(ctx, run.Repo.Owner, run.Repo.Name, id, o); err != nil {
			c.log.WarnContext(ctx, "could not write the verdict on the concurrent evaluation's run too", "check", run.Name, "id", run.ID, "twin", id, "error", err)
			continue
		}
		c.log.InfoContext(ctx, "verdict also written on the concurrent evaluation's run", "check", run.Name, "id", run.ID, "twin", id)
	}
}
