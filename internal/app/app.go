// Package app is the GitHub App's evaluator: for each job the webhook
// server queues, it mints the installation's token, fetches the pull
// request's commits into a fresh local repository, and has
// internal/evaluate evaluate them (or answer the comment command) with its
// own client, so that the App judges and reports exactly as the Action
// does, with fewer API calls. So that no pull request is left without its
// checks, it also completes the aggregate check run of a job dropped at
// shutdown (Abandon), re-queues the open pull requests whose checks are
// missing or stuck (Reconciler), and asks GitHub to redeliver what failed
// while no replica was up (RedeliverFailed).
package app

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/evaluate"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// Workflow and job names of the App's evaluations: the key
// of its check runs' external ids ("swarm-gate:<kind>:<key>", key the
// first 12 hex digits of sha256("swarm-gate app\x00evaluate")), which
// keeps them apart from the Action's on the same commit.
const (
	WorkflowName = "swarm-gate app"
	JobName      = "evaluate"
)

// Config configures an App. AppID and PrivateKey are required.
type Config struct {
	// AppID is the GitHub App's id (SWARM_GATE_APP_ID), the iss of its
	// JWTs; PrivateKey its key (LoadPrivateKey).
	AppID      int64
	PrivateKey *rsa.PrivateKey
	// APIURL is SWARM_GATE_GITHUB_API_URL: "" or https://api.github.com/
	// for github.com, https://HOST/api/v3/ for GitHub Enterprise Server.
	// The repositories are fetched from the matching web host.
	APIURL string
	// Transport sends the API requests (nil: http.DefaultTransport); the
	// git fetches go through go-git's own HTTP client.
	Transport http.RoundTripper
	// Logger receives JSON-ready records with the delivery id, repository,
	// pull request and head SHA (nil: slog.Default()). Tokens, keys and the
	// webhook secret are never logged.
	Logger *slog.Logger
	// Registerer is where the swarm_gate_api_* and swarm_gate_fetch*
	// metrics are registered (nil: not registered).
	Registerer prometheus.Registerer
	// Version is swarm-gate's version, for the reports.
	Version string
	// BotLogin is the App's bot ("<slug>[bot]"), the only author whose
	// override records are trusted; "" means ask GitHub (GET /app) once.
	BotLogin string
	// WorkDir is where each job's temporary repository is made ("" means
	// os.TempDir()); it is removed when the job ends.
	WorkDir string
	// FetchDepth is the first fetch's depth (0: DefaultFetchDepth).
	FetchDepth int
	// Sleep replaces how the rate-limit transports wait (tests).
	Sleep func(ctx context.Context, d time.Duration) error
	// AttemptTimeout bounds each attempt of an API request, minting the
	// installation token included (0: ghapi.DefaultAttemptTimeout); a
	// hung connection is cut then, and the request resent when safe.
	AttemptTimeout time.Duration
	// FinaliseTimeout bounds completing the check runs of a cancelled job
	// (0: 6 s).
	FinaliseTimeout time.Duration
	// ConcurrentWait bounds how long an evaluation waits for another one
	// of the same commit (on another replica) to post the gate runs, so
	// that it updates them instead of duplicating them (0:
	// ghapi.DefaultConcurrentWait; see ghapi.WithConcurrentWait).
	ConcurrentWait time.Duration
}

// App evaluates jobs: it implements webhook.Evaluator. Safe for
// concurrent use.
type App struct {
	cfg     Config
	log     *slog.Logger
	m       *metrics
	auth    *auth
	base    http.RoundTripper
	apiRoot string
	webRoot string
	opts    transportOptions
	// orgPolicy keeps each owner's policy for evaluate.DefaultOrgPolicyTTL.
	orgPolicy evaluate.OrgPolicyCache

	botMu sync.Mutex
	bot   string
}

var (
	_ webhook.Evaluator = (*App)(nil)
	_ webhook.Abandoner = (*App)(nil)
)

// transportOptions are what the rate-limit transports share.
type transportOptions struct {
	sleep          func(ctx context.Context, d time.Duration) error
	logger         *slog.Logger
	attemptTimeout time.Duration
}

// rateLimited wraps next in ghapi's rate-limit and retry transport.
func (o transportOptions) rateLimited(next http.RoundTripper) http.RoundTripper {
	return &ghapi.Transport{Base: next, Sleep: o.sleep, Logger: o.logger, AttemptTimeout: o.attemptTimeout}
}

// New checks cfg and registers the metrics. Errors name the setting.
func New(cfg Config) (*App, error) {
	if cfg.AppID <= 0 {
		return nil, fmt.Errorf("SWARM_GATE_APP_ID %d: want the GitHub App's id, a positive number (App settings > About > App ID)", cfg.AppID)
	}
	if cfg.PrivateKey == nil {
		return nil, errors.New("SWARM_GATE_PRIVATE_KEY_PATH and SWARM_GATE_PRIVATE_KEY: neither is set: set one to the App's private key")
	}
	api, web, err := apiRoots(cfg.APIURL)
	if err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	m, err := newMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	base := cfg.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	a := &App{cfg: cfg, log: cfg.Logger, m: m, base: base, apiRoot: api, webRoot: web, bot: cfg.BotLogin,
		opts: transportOptions{sleep: cfg.Sleep, logger: cfg.Logger, attemptTimeout: cfg.AttemptTimeout}}
	a.auth = newAuth(cfg.AppID, cfg.PrivateKey, api, base, m, a.opts)
	return a, nil
}

// Identify asks GitHub which App the credentials are (GET /app, with the
// JWT) and returns its slug; the App's bot login becomes "<slug>[bot]"
// unless Config.BotLogin set it. It is the start-up check of the App id
// and the private key.
func (a *App) Identify(ctx context.Context) (string, error) {
	gh, err := a.auth.appClient()
	if err != nil {
		return "", err
	}
	app, _, err := gh.Apps.Get(ctx, "")
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnauthorized {
			return "", fmt.Errorf("GET %s/app: GitHub refused the App's JWT (401): check SWARM_GATE_APP_ID (%d) and that the private key is the App's current one", a.apiRoot, a.cfg.AppID)
		}
		return "", fmt.Errorf("GET %s/app (checking the App's id and private key): %w", a.apiRoot, err)
	}
	slug := app.GetSlug()
	if slug == "" {
		return "", fmt.Errorf("GET %s/app: the answer has no slug", a.apiRoot)
	}
	a.botMu.Lock()
	if a.bot == "" {
		a.bot = slug + "[bot]"
	}
	a.botMu.Unlock()
	return slug, nil
}

// botLogin is the App's bot login, asking GitHub when not known yet. When
// GitHub cannot say, it is a login no comment can have, so that no
// override record is trusted (the gates fail closed).
func (a *App) botLogin(ctx context.Context) string {
	a.botMu.Lock()
	bot := a.bot
	a.botMu.Unlock()
	if bot != "" {
		return bot
	}
	if _, err := a.Identify(ctx); err != nil {
		a.log.Error("the App's bot login is unknown: override records are not trusted in this evaluation", "error", err)
		return "(unknown swarm-gate App bot)"
	}
	a.botMu.Lock()
	defer a.botMu.Unlock()
	return a.bot
}

// payloadRepo is what the App reads of the payload's repository.
type payloadRepo struct {
	Repository struct {
		CloneURL string `json:"clone_url"`
	} `json:"repository"`
}

// Evaluate does one job: see the package comment. It returns an error when
// the job could not be evaluated (the check runs, when they could be
// posted, say so as failure) or its checks could not be reported; a gate
// that failed is not an error.
func (a *App) Evaluate(ctx context.Context, job webhook.Job) (err error) {
	start := time.Now()
	// The runner logs the event and action itself.
	runnerLog := a.log.With("delivery", job.Delivery, "repo", job.Repo, "pr", job.PR, "head_sha", job.HeadSHA, "installation", job.Installation)
	log := runnerLog.With("event", job.Event, "action", job.Action)
	ev, err := actions.ParseEvent(job.Payload)
	if err != nil {
		return fmt.Errorf("delivery %s: reading the %s payload: %w", job.Delivery, job.Event, err)
	}
	ev.Name = job.Event
	work := event.Route(ev, job.Repo, event.App)
	if work.Kind == event.Skip {
		log.Info("nothing to evaluate", "why", work.Reason)
		return nil
	}
	if job.Installation <= 0 {
		return fmt.Errorf("delivery %s: the payload names no installation: the App cannot act without one (is the webhook an App's, not a repository's?)", job.Delivery)
	}
	repo, err := ghapi.ParseRepo(job.Repo)
	if err != nil {
		return fmt.Errorf("delivery %s: %w", job.Delivery, err)
	}
	e := &evaluation{}
	ctx = withEvaluation(ctx, e)
	var fetched fetchResult
	defer func() {
		a.m.perEvaluation.Observe(float64(e.Calls()))
		attrs := []any{"api_calls", e.Calls(), "api_reads", e.reads.Load(), "api_writes", e.writes.Load(), "api_cache_hits", e.cacheHits.Load(),
			"fetch", fetched.Mode, "fetch_depth", fetched.Depth, "fetch_seconds", fetched.Duration.Seconds(), "duration_seconds", time.Since(start).Seconds()}
		if err != nil {
			log.Warn("evaluation ended with an error", append(attrs, "error", err.Error())...)
			return
		}
		log.Info("evaluation finished", attrs...)
	}()

	token, err := a.auth.token(ctx, job.Installation)
	if err != nil {
		return err
	}
	hc := &http.Client{Transport: newGetCache(&counting{next: &installationAuth{tokens: a.auth.installation(job.Installation), next: a.base}, m: a.m, limit: strconv.FormatInt(job.Installation, 10)}, a.m)}
	clientOpts := []ghapi.Option{ghapi.WithLogger(runnerLog)}
	if a.cfg.Sleep != nil {
		clientOpts = append(clientOpts, ghapi.WithSleep(a.cfg.Sleep))
	}
	if a.cfg.AttemptTimeout > 0 {
		clientOpts = append(clientOpts, ghapi.WithAttemptTimeout(a.cfg.AttemptTimeout))
	}
	if a.cfg.ConcurrentWait != 0 {
		clientOpts = append(clientOpts, ghapi.WithConcurrentWait(a.cfg.ConcurrentWait))
	}

	tmp, err := os.MkdirTemp(a.cfg.WorkDir, "swarm-gate-job-*")
	if err != nil {
		return fmt.Errorf("making the job's work directory under %q (SWARM_GATE_WORK_DIR): %w", a.cfg.WorkDir, err)
	}
	defer func() {
		if rerr := os.RemoveAll(tmp); rerr != nil {
			log.Warn("removing the job's work directory", "dir", tmp, "error", rerr)
		}
	}()
	workspace := filepath.Join(tmp, "repo")

	c, err := ghapi.NewClient(a.apiRoot, token, hc, clientOpts...)
	if err != nil {
		return err
	}
	srcErr := a.prepare(ctx, log, job, &work, repo, token, c, workspace, &fetched)
	defer fetched.close() // before the work directory is removed
	if srcErr != nil {
		// The evaluation needs a repository to open; it reports srcErr on
		// every check run instead of evaluating.
		if _, ierr := initRepo(workspace, a.webRoot); ierr != nil {
			return errors.Join(srcErr, ierr)
		}
	}
	co := evaluate.Checkout{Dir: workspace, Git: fetched.Repo, SourceError: srcErr,
		MergeBase: evaluate.KnownMergeBase{Base: work.Target.Base, Head: work.Target.Head, SHA: fetched.MergeBase}}
	code, why := a.evaluate(ctx, runnerLog, c, repo, co, ev, work)
	switch {
	case srcErr != nil:
		return fmt.Errorf("could not evaluate (the check runs say so): %w", srcErr)
	case code >= 2:
		if why == "" {
			why = "see the log records above"
		}
		return fmt.Errorf("swarm-gate's evaluation exited %d: %s", code, why)
	case ctx.Err() != nil:
		return fmt.Errorf("stopped: %w", context.Cause(ctx))
	}
	return nil
}

// prepare puts the commits the work needs into workspace and returns why
// it could not (nil: ready). A command's work gets its pull request's
// base and head, which the payload does not carry.
func (a *App) prepare(ctx context.Context, log *slog.Logger, job webhook.Job, w *event.Work, repo ghapi.Repo,
	token string, c *ghapi.Client, workspace string, fetched *fetchResult) error {
	cloneURL, err := a.cloneURL(job, repo)
	if err != nil {
		return err
	}
	if w.Kind == event.Command {
		pr, err := c.PullRequest(ctx, repo, w.Target.PR)
		if err != nil {
			return fmt.Errorf("reading pull request #%d, whose commits the command needs: %w", w.Target.PR, err)
		}
		w.Target.Base, w.Target.Head = pr.BaseSHA, pr.HeadSHA
		if pr.BaseRef != "" {
			w.Refs = append(w.Refs, "refs/heads/"+pr.BaseRef)
		}
	}
	base, head := w.Target.Base, w.Target.Head
	compare := func(ctx context.Context) (*ghapi.Comparison, error) { return c.Compare(ctx, repo, base, head) }
	res, err := fetchCommits(ctx, workspace, fetchSpec{URL: cloneURL, Token: token, Base: base, Head: head, Refs: w.Refs, Depth: a.cfg.FetchDepth, Compare: compare})
	*fetched = res
	a.m.fetchSeconds.Observe(res.Duration.Seconds())
	if res.CompareErr != nil {
		log.Warn("GitHub's compare API could not give the merge base: fetching deeper instead", "base", base, "head", head, "error", res.CompareErr.Error())
	}
	if err != nil {
		a.m.fetches.WithLabelValues("failed").Inc()
		return fmt.Errorf("swarm-gate could not fetch the commits to evaluate: %w", err)
	}
	a.m.fetches.WithLabelValues(res.Mode).Inc()
	log.Debug("commits fetched", "mode", res.Mode, "depth", res.Depth, "merge_base", res.MergeBase, "seconds", res.Duration.Seconds())
	return nil
}

// cloneURL is the repository's clone URL from the payload, which must be
// on the web host of the configured API (the installation token is sent
// there); without one, <web root>/<owner>/<name>.git.
func (a *App) cloneURL(job webhook.Job, repo ghapi.Repo) (string, error) {
	var p payloadRepo
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return "", fmt.Errorf("reading the payload's repository: %w", err)
	}
	raw := p.Repository.CloneURL
	if raw == "" {
		return a.webRoot + "/" + repo.String() + ".git", nil
	}
	u, err := url.Parse(raw)
	web, _ := url.Parse(a.webRoot)
	if err != nil || u.User != nil || !strings.EqualFold(u.Scheme, web.Scheme) || !strings.EqualFold(u.Host, web.Host) {
		return "", fmt.Errorf("the payload's repository clone_url %q is not on %s, the web host of SWARM_GATE_GITHUB_API_URL (%s): the installation token is only sent there; check SWARM_GATE_GITHUB_API_URL", raw, a.webRoot, a.apiRoot)
	}
	return raw, nil
}
