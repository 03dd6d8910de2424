package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// Reconciler defaults.
const (
	// DefaultReconcileInterval is the time between two passes.
	DefaultReconcileInterval = 10 * time.Minute
	// DefaultReconcileMinBudget is the core rate-limit budget (requests
	// left in the hour) under which an installation is skipped for a pass.
	DefaultReconcileMinBudget = 500
	// reconcileJitter spreads the passes of the replicas: each wait is the
	// interval ±10 %.
	reconcileJitter = 0.1
	// maxReconcileGrace bounds how long a pull request updated recently is
	// left to its webhook deliveries.
	maxReconcileGrace = 2 * time.Minute
	// stuckMargin is added to the deadline: an evaluation that hit it
	// still completes its runs (a few seconds), and GitHub's clock, which
	// stamps started_at, may be ahead of this one.
	stuckMargin = time.Minute
)

// Why the reconciler queues an evaluation: the reason label of
// swarm_gate_reconcile_evaluations_total.
const (
	ReasonMissing = "missing" // the head has no aggregate swarm-gate check run of the App
	ReasonStuck   = "stuck"   // the App's aggregate on the head is queued or in progress a minute past the deadline
)

// ReconcileConfig configures a Reconciler. Enqueue and Deadline are
// required.
type ReconcileConfig struct {
	// Interval is the time between two passes, each wait drawn within
	// ±10 % of it (0: DefaultReconcileInterval).
	Interval time.Duration
	// Deadline is the evaluation deadline (the webhook server's
	// JobTimeout): a check run of the App still queued or in progress
	// that long after it started, and a minute more, belongs to an
	// evaluation that ended without completing it, a replica that died.
	Deadline time.Duration
	// MinBudget skips, for one pass, an installation with fewer core
	// requests left (GET /rate_limit) (0: DefaultReconcileMinBudget;
	// negative: never skip).
	MinBudget int
	// Grace leaves a pull request updated less than this long ago to its
	// webhook deliveries, which are likely on their way or running on
	// another replica (0: Interval, at most 2 minutes).
	Grace time.Duration
	// Enqueue queues a job in the webhook server's queue
	// (webhook.Server.Enqueue): the reconciler's jobs take the same key
	// as the deliveries' and never run at once with them.
	Enqueue func(webhook.Job) webhook.EnqueueResult
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Reconciler is the App's level-triggered self-healing: every interval it
// lists the open pull requests of the App's installations and queues an
// evaluation of each whose head has no swarm-gate check run of the App
// (missing: a delivery was lost, or the replica that took it died before
// posting) or one still queued or in progress past the evaluation
// deadline (stuck: the replica died mid-way). Run it on every replica:
// the evaluations' external ids keep at most one check run per gate and
// head, and the passes are spread by jitter.
//
// API cost per pass: GET /app/installations, and per installation GET
// /rate_limit (not counted by GitHub), GET /installation/repositories, GET
// /repos/{owner}/{repo}/pulls?state=open per repository (100 per page) and
// GET /repos/{owner}/{repo}/commits/{sha}/check-runs per open pull
// request, plus the evaluations it queues; each page is a request. The
// lists are conditional requests (conditional): what did not change since
// the last pass is answered 304, which GitHub does not count.
type Reconciler struct {
	a   *App
	cfg ReconcileConfig
	m   *reconcileMetrics

	mu sync.Mutex
	// clients are the installations' clients, kept from one pass to the
	// next with their answers and ETags (conditional).
	clients map[int64]*github.Client
}

// PassResult is what one reconcile pass did.
type PassResult struct {
	// Installations is how many installations were listed, Skipped how
	// many of them were skipped (low budget or suspended).
	Installations, Skipped int
	// Repos and PRs are the repositories and open pull requests scanned.
	Repos, PRs int
	// Missing and Stuck are the evaluations queued, by reason; Busy the
	// pull requests left to a job of this replica already waiting or
	// running.
	Missing, Stuck, Busy int
	// Errors are the installations, repositories or pull requests that
	// could not be scanned, one line each; the pass went on without them.
	Errors []string
}

type reconcileMetrics struct {
	passes      *prometheus.CounterVec // result
	scanned     prometheus.Counter
	evaluations *prometheus.CounterVec // reason
	skipped     *prometheus.CounterVec // reason
}

// NewReconciler checks cfg and registers the swarm_gate_reconcile_*
// metrics with the App's Registerer. Errors: no Enqueue, a Deadline that
// is not positive, a negative Interval or Grace, metrics already
// registered.
func (a *App) NewReconciler(cfg ReconcileConfig) (*Reconciler, error) {
	switch {
	case cfg.Enqueue == nil:
		return nil, errors.New("app: ReconcileConfig.Enqueue is nil: the reconciler queues its evaluations in the webhook server's queue")
	case cfg.Deadline <= 0:
		return nil, fmt.Errorf("app: ReconcileConfig.Deadline %s: want the evaluation deadline (SWARM_GATE_JOB_TIMEOUT), a positive duration", cfg.Deadline)
	case cfg.Interval < 0 || cfg.Grace < 0:
		return nil, fmt.Errorf("app: ReconcileConfig.Interval %s or Grace %s is negative", cfg.Interval, cfg.Grace)
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultReconcileInterval
	}
	if cfg.MinBudget == 0 {
		cfg.MinBudget = DefaultReconcileMinBudget
	}
	if cfg.Grace == 0 {
		cfg.Grace = min(cfg.Interval, maxReconcileGrace)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	m := &reconcileMetrics{
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swarm_gate_reconcile_passes_total",
			Help: "Reconcile passes over the open pull requests of the App's installations, by result: ok, or error (something could not be listed; the rest was scanned).",
		}, []string{"result"}),
		scanned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "swarm_gate_reconcile_prs_scanned_total",
			Help: "Open pull requests whose swarm-gate check runs the reconciler looked at.",
		}),
		evaluations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swarm_gate_reconcile_evaluations_total",
			Help: "Evaluations the reconciler queued, by reason: missing (no swarm-gate check run of the App on the head), stuck (one queued or in progress past the evaluation deadline).",
		}, []string{"reason"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swarm_gate_reconcile_installations_skipped_total",
			Help: "Installations a reconcile pass skipped, by reason: budget (fewer core rate-limit requests left than SWARM_GATE_RECONCILE_MIN_BUDGET), suspended, error (its token or repositories could not be had).",
		}, []string{"reason"}),
	}
	for _, r := range []string{"ok", "error"} {
		m.passes.WithLabelValues(r)
	}
	for _, r := range []string{ReasonMissing, ReasonStuck} {
		m.evaluations.WithLabelValues(r)
	}
	for _, r := range []string{"budget", "suspended", "error"} {
		m.skipped.WithLabelValues(r)
	}
	if reg := a.cfg.Registerer; reg != nil {
		for _, c := range []prometheus.Collector{m.passes, m.scanned, m.evaluations, m.skipped} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("app: registering the reconciler's metrics: %w (one reconciler per App)", err)
			}
		}
	}
	return &Reconciler{a: a, cfg: cfg, m: m, clients: map[int64]*github.Client{}}, nil
}

// Run makes a pass every interval (±10 %), the first one an interval after
// it is called, until ctx ends. Each pass is logged; its errors do not stop
// the next one.
func (r *Reconciler) Run(ctx context.Context) {
	log := r.a.log.With("component", "reconciler")
	log.Info("reconciler started", "interval", r.cfg.Interval.String(), "deadline", r.cfg.Deadline.String(), "min_budget", r.cfg.MinBudget)
	for {
		t := time.NewTimer(r.wait())
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		start := time.Now()
		res, err := r.Pass(ctx)
		attrs := []any{"installations", res.Installations, "skipped", res.Skipped, "repos", res.Repos, "prs", res.PRs,
			"missing", res.Missing, "stuck", res.Stuck, "busy", res.Busy, "errors", len(res.Errors), "duration_seconds", time.Since(start).Seconds()}
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Error("reconcile pass failed", append(attrs, "error", err.Error())...)
		default:
			log.Info("reconcile pass done", attrs...)
		}
		for _, e := range res.Errors {
			log.Warn("reconcile pass: not scanned", "error", e)
		}
	}
}

// wait is the interval with ±10 % jitter.
func (r *Reconciler) wait() time.Duration {
	j := (rand.Float64()*2 - 1) * reconcileJitter
	return time.Duration(float64(r.cfg.Interval) * (1 + j))
}

// Pass scans every installation once (see Reconciler) and queues the
// evaluations needed. The error is for a pass that could not start (the
// installations could not be listed); what could not be scanned after
// that is in PassResult.Errors.
func (r *Reconciler) Pass(ctx context.Context) (res PassResult, err error) {
	defer func() {
		result := "ok"
		if err != nil || len(res.Errors) > 0 {
			result = "error"
		}
		r.m.passes.WithLabelValues(result).Inc()
	}()
	gh, err := r.a.auth.appClient()
	if err != nil {
		return res, err
	}
	var installs []*github.Installation
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := gh.Apps.ListInstallations(ctx, opts)
		if err != nil {
			return res, fmt.Errorf("listing the App's installations (GET /app/installations): %w", err)
		}
		installs = append(installs, page...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	res.Installations = len(installs)
	for _, inst := range installs {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		r.installation(ctx, inst, &res)
	}
	return res, nil
}

// installation scans one installation's repositories.
func (r *Reconciler) installation(ctx context.Context, inst *github.Installation, res *PassResult) {
	id := inst.GetID()
	log := r.a.log.With("component", "reconciler", "installation", id, "account", inst.GetAccount().GetLogin())
	if inst.SuspendedAt != nil {
		res.Skipped++
		r.m.skipped.WithLabelValues("suspended").Inc()
		log.Debug("installation suspended: not scanned")
		return
	}
	gh, err := r.client(id)
	if err != nil {
		res.Skipped++
		r.m.skipped.WithLabelValues("error").Inc()
		res.Errors = append(res.Errors, fmt.Sprintf("installation %d: %v", id, err))
		return
	}
	if r.cfg.MinBudget > 0 {
		rl, _, err := gh.RateLimit.Get(ctx)
		if err != nil {
			res.Skipped++
			r.m.skipped.WithLabelValues("error").Inc()
			res.Errors = append(res.Errors, fmt.Sprintf("installation %d: reading its rate limit (GET /rate_limit): %v", id, err))
			return
		}
		if left := rl.GetCore().Remaining; left < r.cfg.MinBudget {
			res.Skipped++
			r.m.skipped.WithLabelValues("budget").Inc()
			log.Warn("installation skipped this pass: its rate-limit budget is low", "remaining", left, "min_budget", r.cfg.MinBudget,
				"reset", rl.GetCore().Reset.Time)
			return
		}
	}
	var repos []*github.Repository
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := gh.Apps.ListRepos(ctx, opts)
		if err != nil {
			res.Skipped++
			r.m.skipped.WithLabelValues("error").Inc()
			res.Errors = append(res.Errors, fmt.Sprintf("installation %d: listing its repositories (GET /installation/repositories): %v", id, err))
			return
		}
		repos = append(repos, page.Repositories...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	for _, repo := range repos {
		if ctx.Err() != nil {
			return
		}
		if repo.GetArchived() {
			continue
		}
		res.Repos++
		if err := r.repository(ctx, gh, id, repo, res); err != nil {
			var low *lowBudget
			if errors.As(err, &low) {
				res.Skipped++
				r.m.skipped.WithLabelValues("budget").Inc()
				log.Warn("installation's pass stopped: its rate-limit budget fell low", "remaining", low.remaining, "min_budget", r.cfg.MinBudget,
					"reset", low.reset, "repo", repo.GetFullName())
				return
			}
			res.Errors = append(res.Errors, err.Error())
		}
	}
}

// lowBudget stops an installation's pass: an answer said fewer requests
// are left than MinBudget.
type lowBudget struct {
	remaining int
	reset     time.Time
}

func (e *lowBudget) Error() string {
	return fmt.Sprintf("%d API requests left until %s", e.remaining, e.reset.Format(time.RFC3339))
}

// budget returns a *lowBudget when resp's x-ratelimit-remaining is under
// MinBudget; the requests the pass still needs are left to the
// evaluations.
func (r *Reconciler) budget(resp *github.Response) error {
	if r.cfg.MinBudget <= 0 || resp == nil || resp.Rate.Limit == 0 || resp.Rate.Remaining >= r.cfg.MinBudget {
		return nil
	}
	return &lowBudget{remaining: resp.Rate.Remaining, reset: resp.Rate.Reset.Time}
}

// repository scans one repository's open pull requests. A *lowBudget
// error stops the installation's pass; the others are this repository's
// (its pull requests' errors are in res.Errors).
func (r *Reconciler) repository(ctx context.Context, gh *github.Client, installation int64, repo *github.Repository, res *PassResult) error {
	owner, name := repo.GetOwner().GetLogin(), repo.GetName()
	full := repo.GetFullName()
	if owner == "" || name == "" {
		owner, name, _ = strings.Cut(full, "/")
	}
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		prs, resp, err := gh.PullRequests.List(ctx, owner, name, opts)
		if err != nil {
			return fmt.Errorf("%s: listing its open pull requests: %w", full, err)
		}
		if err := r.budget(resp); err != nil {
			return err
		}
		for _, pr := range prs {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			res.PRs++
			r.m.scanned.Inc()
			if err := r.pullRequest(ctx, gh, installation, repo, pr, res); err != nil {
				var low *lowBudget
				if errors.As(err, &low) {
					return err
				}
				res.Errors = append(res.Errors, fmt.Sprintf("%s#%d: %v", full, pr.GetNumber(), err))
			}
		}
		if resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

// pullRequest looks at one open pull request's check runs on its head and
// queues its evaluation when they are missing or stuck.
func (r *Reconciler) pullRequest(ctx context.Context, gh *github.Client, installation int64, repo *github.Repository, pr *github.PullRequest, res *PassResult) error {
	full := repo.GetFullName()
	head := pr.GetHead().GetSHA()
	now := r.cfg.Now()
	if head == "" {
		return errors.New("the pull request has no head SHA")
	}
	if u := pr.GetUpdatedAt().Time; !u.IsZero() && now.Sub(u) < r.cfg.Grace {
		return nil // its deliveries are likely on their way
	}
	payload, err := reconcilePayload(installation, repo, pr)
	if err != nil {
		return err
	}
	ev, err := actions.ParseEvent(payload)
	if err != nil {
		return fmt.Errorf("reading the pull request as an event: %w", err)
	}
	ev.Name = "pull_request"
	if event.Route(ev, full, event.App).Kind == event.Skip {
		return nil // its evaluation would do nothing
	}
	reason, err := r.checkState(ctx, gh, repo, head, now)
	if err != nil || reason == "" {
		return err
	}
	job := webhook.Job{
		Delivery:     fmt.Sprintf("reconcile-%s-%s#%d-%.12s-%d", reason, full, pr.GetNumber(), head, now.UnixNano()),
		Event:        "pull_request",
		Action:       "reconcile",
		Repo:         full,
		Installation: installation,
		PR:           pr.GetNumber(),
		HeadSHA:      head,
		Key:          full + "#" + strconv.Itoa(pr.GetNumber()),
		Updated:      pr.GetUpdatedAt().Time,
		Coalesce:     true,
		Payload:      payload,
		Received:     now,
	}
	log := r.a.log.With("component", "reconciler", "delivery", job.Delivery, "repo", full, "pr", job.PR, "head_sha", head, "installation", installation, "reason", reason)
	switch out := r.cfg.Enqueue(job); out {
	case webhook.Enqueued:
		r.m.evaluations.WithLabelValues(reason).Inc()
		if reason == ReasonMissing {
			res.Missing++
		} else {
			res.Stuck++
		}
		log.Info("reconciler queued an evaluation: the head's swarm-gate checks are " + reason)
	case webhook.EnqueueBusy:
		res.Busy++
		log.Debug("reconciler left the pull request to the job of its key already waiting or running here")
	default:
		return fmt.Errorf("the evaluation (checks %s) could not be queued: %s", reason, out)
	}
	return nil
}

// checkState is why the head's aggregate check run of the App needs an
// evaluation (ReasonMissing, ReasonStuck), or "". Only the aggregate is
// read (check_name, app_id): the App creates its gate runs completed and
// completes the aggregate last, so an evaluation that died mid-way left
// the aggregate in progress, or none; and one run keeps the answer small
// enough for conditional requests (conditional).
func (r *Reconciler) checkState(ctx context.Context, gh *github.Client, repo *github.Repository, head string, now time.Time) (string, error) {
	owner, name, _ := strings.Cut(repo.GetFullName(), "/")
	ext := "swarm-gate:pull_request:" + externalKey()
	opts := &github.ListCheckRunsOptions{CheckName: github.String(AggregateCheck), Filter: github.String("latest"), AppID: github.Int64(r.a.cfg.AppID),
		ListOptions: github.ListOptions{PerPage: 100}}
	aggregate, stuck := false, false
	for {
		page, resp, err := gh.Checks.ListCheckRunsForRef(ctx, owner, name, head, opts)
		if err != nil {
			return "", fmt.Errorf("listing the check runs of %.12s: %w", head, err)
		}
		if err := r.budget(resp); err != nil {
			return "", err
		}
		for _, cr := range page.CheckRuns {
			if cr.GetExternalID() != ext {
				continue // another workflow's, or the Action's
			}
			if cr.GetName() == AggregateCheck {
				aggregate = true
			}
			if st := cr.GetStatus(); st != "completed" {
				started := cr.GetStartedAt().Time
				if !started.IsZero() && now.Sub(started) > r.cfg.Deadline+stuckMargin {
					stuck = true
				}
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	switch {
	case !aggregate:
		return ReasonMissing, nil
	case stuck:
		return ReasonStuck, nil
	}
	return "", nil
}

// reconcilePayload is a pull_request synchronize payload for the pull
// request as listed, which the evaluation reads as a delivery's.
func reconcilePayload(installation int64, repo *github.Repository, pr *github.PullRequest) ([]byte, error) {
	p := map[string]any{
		"action":       "synchronize",
		"number":       pr.GetNumber(),
		"pull_request": pr,
		"repository":   map[string]any{"full_name": repo.GetFullName(), "clone_url": repo.GetCloneURL(), "private": repo.GetPrivate()},
		"installation": map[string]any{"id": installation},
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("making the payload of the evaluation: %w", err)
	}
	return b, nil
}

// client is the installation's client, sending conditional requests
// (conditional), made on its first pass.
func (r *Reconciler) client(id int64) (*github.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if gh := r.clients[id]; gh != nil {
		return gh, nil
	}
	gh, err := r.a.installationClient(id, func(next http.RoundTripper) http.RoundTripper { return newConditional(next) })
	if err != nil {
		return nil, err
	}
	r.clients[id] = gh
	return gh, nil
}

// installationClient is a go-github client for an installation's
// requests: its token, the rate-limit transport, counted in the
// swarm_gate_api_* metrics; outer, when not nil, wraps it all.
func (a *App) installationClient(id int64, outer func(http.RoundTripper) http.RoundTripper) (*github.Client, error) {
	rt := a.opts.rateLimited(&counting{next: &installationAuth{tokens: a.auth.installation(id), next: a.base}, m: a.m, limit: strconv.FormatInt(id, 10)})
	if outer != nil {
		rt = outer(rt)
	}
	gh := github.NewClient(&http.Client{Transport: rt})
	if a.apiRoot != "https://api.github.com" {
		var err error
		if gh, err = gh.WithEnterpriseURLs(a.apiRoot+"/", a.apiRoot+"/"); err != nil {
			return nil, fmt.Errorf("SWARM_GATE_GITHUB_API_URL %q: %w", a.apiRoot, err)
		}
	}
	gh.UserAgent = "swarm-gate"
	return gh, nil
}
