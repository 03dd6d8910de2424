package ghapi_test

// The GitHub API calls of swarm-gate, each under every kind of fault.
//
// Every REST call the Action and the App make goes through one method of
// ghapi.Client (the App's own calls, minting the installation token and
// GET /app, go through ghapi.Transport too: internal/app's
// faults_app_test.go). The table below is this test's list of call sites;
// internal/actionrun's faults_action_test.go runs the Action through the
// same faults and checks what each must lead to, as the last column says.
//
//	operation (operationId)                 Client method            who calls it                                   a failure must lead to
//	checks/list-for-ref                     StartChecks, BeginChecks  Action and App: start of every evaluation      no run started: exit 2, conclusion output failure
//	checks/create                           StartChecks, PostCheck    Action (every run), App (aggregate, gates)     runs started so far completed as failure; exit 2
//	checks/update                           Complete, Fail            every report; the Finaliser; the post step     Finaliser completes the run as failure; if it cannot either, exit 2 and the post step's state lists the run
//	checks/update (with annotations)        Complete                  a gate with findings                           read back, resent only if not applied; else as above
//	checks/get                              update, CheckRun          read-back after an ambiguous update; post step as above; post step: exit 2
//	checks/list-annotations                 Complete                  a re-run reusing a run with annotations        as checks/update
//	checks/list-for-ref (latest)            CheckRunsOnRef            /swarm help                                    help says the state could not be read
//	checks/list-suites-for-ref              FirstCheckSuite           overrides: when GitHub first saw a marker's head  the marker is ignored (fail closed)
//	issues/list-comments                    ListComments              overrides (every PR evaluation), /swarm record evaluate without overrides (fail closed); a record is refused
//	issues/create-comment                   CreateComment             /swarm replies                                 never posted twice; exit 2
//	issues/update-comment                   UpdateComment             (none yet)                                     error
//	reactions/create-for-issue-comment      AddReaction               /swarm commands                                a warning
//	repos/get-collaborator-permission-level Permission                /swarm commands                                refused (fail closed)
//	pulls/get                               PullRequest               merge group (phase), /swarm, App (command)     phase from the plan; command refused; App: could not evaluate
//	pulls/list                              OpenPullRequests          publish (fork PRs), phase-wrap                 publish: exit 2; phase-wrap: only the checkout's commit
//	git/get-ref, repos/get-branch,          BranchHead, BranchProtected, GitCommit, FileAt,  /swarm approve-plan-critic: the durable record  not committed; the comment is the record
//	git/get-commit, repos/get-content,      CreateBlob, CreateTree, CreateCommit, UpdateBranch
//	git/create-blob, git/create-tree,
//	git/create-commit, git/update-ref
//	teams/get-membership-for-user-in-org    TeamMembership            /swarm with commands.teams                     refused (fail closed)
//	apps/create-installation-access-token   (App: ghinstallation)     every App job                                  no run started; the job fails (redelivered)
//	apps/get-authenticated                  (App: Identify)           App start, bot login                           overrides not trusted (fail closed)

import (
	"context"
	"errors"
	"fmt"
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

// attemptTimeout is the transport's AttemptTimeout in the timeout cases:
// a hanging request is cut after it, with no real wait elsewhere (the
// transport's backoff is recorded, not slept).
const attemptTimeout = time.Second

// faultKind is one kind of fault, injected on the call site's operation.
type faultKind struct {
	name  string
	fault ghfake.Fault
}

// faultKinds are the faults every call site meets. "once" faults hit the
// first request only; the others every request.
var faultKinds = []faultKind{
	{"502 once", ghfake.Fault{Status: http.StatusBadGateway}},
	{"503 every time", ghfake.Fault{Status: http.StatusServiceUnavailable, Times: -1}},
	{"500 every time", ghfake.Fault{Status: http.StatusInternalServerError, Times: -1}},
	{"secondary rate limit (Retry-After) once", ghfake.SecondaryRateLimit(1)},
	{"secondary rate limit (Retry-After) every time", every(ghfake.SecondaryRateLimit(1))},
	{"429 every time", every(ghfake.TooManyRequests(-1))},
	{"404 (gone)", ghfake.Fault{Status: http.StatusNotFound, Times: -1}},
	{"timeout once", ghfake.Fault{Hang: true}},
	{"timeout every time", ghfake.Fault{Hang: true, Times: -1}},
	{"connection reset once", ghfake.Fault{Reset: true}},
	{"connection reset every time", ghfake.Fault{Reset: true, Times: -1}},
	{"answer cut mid-body once", ghfake.Fault{Truncate: true}},
	{"invalid JSON once (applied)", ghfake.Fault{Status: http.StatusOK, Body: `{"id":`, AfterApplying: true}},
}

func every(f ghfake.Fault) ghfake.Fault {
	f.Times = -1
	return f
}

// outcome is what a call must do under a fault: how many requests reach
// the operation (bounded retries), how many waits the transport or the
// client took between them (backoff), and whether the call succeeds.
type outcome struct {
	calls, waits int
	ok           bool
}

// retryClass says how a call is resent; expected gives its outcome for
// each fault kind.
type retryClass string

const (
	// read: a GET, resent by the transport after a 5xx, a rate limit, a
	// timeout, a broken connection or a cut answer.
	read retryClass = "read"
	// write: an idempotent PATCH or PUT (no annotations), or a POST that is
	// safe to repeat (a reaction, a blob, a tree, a commit): resent as a
	// read is, but an answer that is not JSON comes after the change.
	write retryClass = "idempotent write"
	// create: a check-run POST. The transport resends it only after a rate
	// limit (GitHub applied nothing); after a failure that leaves it open,
	// the client lists the commit's runs and creates it again only if it
	// is not there, at most twice more, with backoff.
	create retryClass = "check-run create"
	// appending: a check-run PATCH with annotations: as create, reading
	// the run back instead of listing.
	appending retryClass = "appending update"
	// once: a POST that is never resent after a failure that leaves it
	// open (a comment: never posted twice).
	once retryClass = "never resent"
)

func expected(class retryClass, kind string) outcome {
	switch kind {
	case "secondary rate limit (Retry-After) once":
		return outcome{2, 1, true} // GitHub applied nothing: any method is resent
	case "secondary rate limit (Retry-After) every time", "429 every time":
		return outcome{3, 2, false}
	case "404 (gone)":
		return outcome{1, 0, false}
	}
	switch class {
	case read, write:
		switch kind {
		case "502 once", "timeout once", "connection reset once", "answer cut mid-body once":
			return outcome{2, 1, true}
		case "503 every time", "500 every time", "timeout every time", "connection reset every time":
			return outcome{3, 2, false} // a 500 too: GitHub answers it for transient faults
		case "invalid JSON once (applied)":
			return outcome{1, 0, false}
		}
	case create, appending:
		switch kind {
		case "502 once", "timeout once", "connection reset once":
			return outcome{2, 1, true} // not there: created (posted) again after a backoff
		case "503 every time", "500 every time", "timeout every time", "connection reset every time":
			return outcome{3, 2, false}
		case "answer cut mid-body once", "invalid JSON once (applied)":
			return outcome{1, 0, true} // there: found, not duplicated
		}
	case once:
		return outcome{1, 0, false}
	}
	panic("no expectation for " + string(class) + " × " + kind)
}

// callSite is one Client method calling one operation.
type callSite struct {
	name  string
	op    string
	class retryClass
	// setup prepares the fake (with a client that meets no fault) and
	// returns the call to make under the fault.
	setup func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(ctx context.Context, c *ghapi.Client) error
	// notFoundOK: a 404 is an answer, not an error (a missing file, no
	// team membership).
	notFoundOK bool
	// extraFaults are injected too, to reach the call site (a read-back
	// happens only after an ambiguous update).
	extraFaults []ghfake.Fault
	// extraWaitsOK are waits the call takes besides the site's own, when
	// it succeeds (the resend after a read-back).
	extraWaitsOK int
	// check judges the fake's state after the call (ok: it succeeded).
	check func(t *testing.T, s *ghfake.Server, ok bool)
}

var passed = gates.Result{Name: "swarm/scope", Outcome: gates.Passed, Title: "ok", Findings: []gates.Finding{}}

func start(t *testing.T, c *ghapi.Client) *ghapi.CheckRun {
	t.Helper()
	runs, err := c.StartChecks(context.Background(), repo, headSHA, []string{"swarm/scope"}, "x")
	if err != nil {
		t.Fatal(err)
	}
	return runs[0]
}

// oneRun checks that the fake holds exactly one check run, with status
// and conclusion when the call succeeded.
func oneRun(status, conclusion string, annotations int) func(t *testing.T, s *ghfake.Server, ok bool) {
	return func(t *testing.T, s *ghfake.Server, ok bool) {
		t.Helper()
		runs := s.CheckRuns(repo.String())
		if len(runs) > 1 {
			t.Errorf("%d check runs: duplicated", len(runs))
		}
		if !ok || len(runs) == 0 {
			return
		}
		if r := runs[0]; r.Status != status || r.Conclusion != conclusion || len(r.Annotations) != annotations {
			t.Errorf("stored %s/%s with %d annotations, want %s/%s with %d", r.Status, r.Conclusion, len(r.Annotations), status, conclusion, annotations)
		}
	}
}

var callSites = []callSite{
	{name: "StartChecks: list the commit's runs", op: "checks/list-for-ref", class: read,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			return func(ctx context.Context, c *ghapi.Client) error {
				_, err := c.StartChecks(ctx, repo, headSHA, []string{"swarm/scope"}, "x")
				return err
			}
		}, check: oneRun("in_progress", "", 0)},
	{name: "StartChecks: create", op: "checks/create", class: create,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			return func(ctx context.Context, c *ghapi.Client) error {
				_, err := c.StartChecks(ctx, repo, headSHA, []string{"swarm/scope"}, "x")
				return err
			}
		}, check: oneRun("in_progress", "", 0)},
	{name: "StartChecks on a re-run: back in progress", op: "checks/update", class: write,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			if err := c.Complete(context.Background(), start(t, c), report.CheckOutput(passed, "")); err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context, c *ghapi.Client) error {
				_, err := c.StartChecks(ctx, repo, headSHA, []string{"swarm/scope"}, "x")
				return err
			}
		}, check: oneRun("in_progress", "", 0)},
	{name: "PostCheck: create completed", op: "checks/create", class: create,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			return func(ctx context.Context, c *ghapi.Client) error {
				_, err := c.PostCheck(ctx, repo, headSHA, "x", nil, passed.Name, report.CheckOutput(passed, ""))
				return err
			}
		}, check: oneRun("completed", "success", 0)},
	{name: "Complete: the final update", op: "checks/update", class: write,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			run := start(t, c)
			return func(ctx context.Context, c *ghapi.Client) error {
				return c.Complete(ctx, run, report.CheckOutput(passed, ""))
			}
		}, check: oneRun("completed", "success", 0)},
	{name: "Complete: an update with annotations", op: "checks/update", class: appending,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			run := start(t, c)
			return func(ctx context.Context, c *ghapi.Client) error {
				return c.Complete(ctx, run, report.CheckOutput(gates.Result{Outcome: gates.Failed, Title: "t", Findings: findings(3)}, ""))
			}
		}, check: oneRun("completed", "failure", 3)},
	{name: "Complete: reading the run back after an ambiguous update", op: "checks/get", class: read,
		extraFaults: []ghfake.Fault{{Operation: "checks/update", Status: http.StatusBadGateway}}, extraWaitsOK: 1,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			run := start(t, c)
			return func(ctx context.Context, c *ghapi.Client) error {
				return c.Complete(ctx, run, report.CheckOutput(gates.Result{Outcome: gates.Failed, Title: "t", Findings: findings(3)}, ""))
			}
		}, check: oneRun("completed", "failure", 3)},
	{name: "Complete on a reused run: its annotations", op: "checks/list-annotations", class: read,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			ctx := context.Background()
			if err := c.Complete(ctx, start(t, c), report.CheckOutput(gates.Result{Outcome: gates.Failed, Title: "t", Findings: findings(2)}, "")); err != nil {
				t.Fatal(err)
			}
			again := start(t, c)
			return func(ctx context.Context, c *ghapi.Client) error {
				return c.Complete(ctx, again, report.CheckOutput(gates.Result{Outcome: gates.Failed, Title: "t", Findings: findings(3)}, ""))
			}
		}, check: oneRun("completed", "failure", 3)},
	{name: "Fail: the Finaliser's update", op: "checks/update", class: write,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			run := start(t, c)
			return func(ctx context.Context, c *ghapi.Client) error { return c.Fail(ctx, run, "stopped") }
		}, check: oneRun("completed", "failure", 0)},
	{name: "CheckRun: the post step's read", op: "checks/get", class: read,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			id := start(t, c).ID
			return func(ctx context.Context, c *ghapi.Client) error { _, err := c.CheckRun(ctx, repo, id); return err }
		}},
	{name: "CheckRunsOnRef: /swarm help", op: "checks/list-for-ref", class: read,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			start(t, c)
			return func(ctx context.Context, c *ghapi.Client) error {
				_, err := c.CheckRunsOnRef(ctx, repo, headSHA, ghapi.App{Slug: ghfake.TokenAppSlug})
				return err
			}
		}},
	{name: "FirstCheckSuite: dating an override marker's head", op: "checks/list-suites-for-ref", class: read,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			s.Pushed(repo.String(), headSHA, time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC))
			return func(ctx context.Context, c *ghapi.Client) error {
				at, err := c.FirstCheckSuite(ctx, repo, headSHA)
				if err == nil && !at.Equal(time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)) {
					return fmt.Errorf("first seen at %v", at)
				}
				return err
			}
		}},
	{name: "ListComments: the overrides", op: "issues/list-comments", class: read,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			s.AddComment(repo.String(), 7, "alice", "hi")
			return func(ctx context.Context, c *ghapi.Client) error { _, err := c.ListComments(ctx, repo, 7); return err }
		}},
	{name: "CreateComment: a command's reply", op: "issues/create-comment", class: once,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			return func(ctx context.Context, c *ghapi.Client) error {
				_, err := c.CreateComment(ctx, repo, 7, "reply")
				return err
			}
		},
		check: func(t *testing.T, s *ghfake.Server, ok bool) {
			if n := len(s.Comments(repo.String(), 7)); n > 1 || (ok && n != 1) {
				t.Errorf("%d comments posted (ok %v)", n, ok)
			}
		}},
	{name: "UpdateComment", op: "issues/update-comment", class: write,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			id := s.AddComment(repo.String(), 7, ghfake.Login, "old")
			return func(ctx context.Context, c *ghapi.Client) error {
				_, err := c.UpdateComment(ctx, repo, id, "new")
				return err
			}
		}},
	{name: "AddReaction", op: "reactions/create-for-issue-comment", class: write,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			id := s.AddComment(repo.String(), 7, "alice", "/swarm help")
			return func(ctx context.Context, c *ghapi.Client) error { return c.AddReaction(ctx, repo, id, "eyes") }
		}},
	{name: "Permission: fails closed", op: "repos/get-collaborator-permission-level", class: read,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			s.SetPermission(repo.String(), "alice", "admin")
			return func(ctx context.Context, c *ghapi.Client) error {
				p, err := c.Permission(ctx, repo, "alice")
				if err != nil && p != ghapi.PermissionNone {
					return fmt.Errorf("permission %q on error %w: not fail closed", p, err)
				}
				return err
			}
		}},
	{name: "PullRequest", op: "pulls/get", class: read,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			s.AddPullRequest(repo.String(), ghfake.PullRequest{Number: 7, User: "alice", HeadRef: "swarm/phase-1", HeadSHA: headSHA, BaseRef: "main", BaseSHA: strings.Repeat("b", 40)})
			return func(ctx context.Context, c *ghapi.Client) error { _, err := c.PullRequest(ctx, repo, 7); return err }
		}},
	{name: "OpenPullRequests", op: "pulls/list", class: read,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			s.AddPullRequest(repo.String(), ghfake.PullRequest{Number: 7, User: "alice", HeadRef: "swarm/phase-1", HeadSHA: headSHA, BaseRef: "main", BaseSHA: strings.Repeat("b", 40)})
			return func(ctx context.Context, c *ghapi.Client) error {
				_, err := c.OpenPullRequests(ctx, repo, "")
				return err
			}
		}},
	{name: "BranchHead", op: "git/get-ref", class: read, setup: gitSite(func(ctx context.Context, c *ghapi.Client, g gitFixture) error {
		_, err := c.BranchHead(ctx, repo, "feature")
		return err
	})},
	{name: "BranchProtected", op: "repos/get-branch", class: read, setup: gitSite(func(ctx context.Context, c *ghapi.Client, g gitFixture) error {
		_, err := c.BranchProtected(ctx, repo, "feature")
		return err
	})},
	{name: "GitCommit", op: "git/get-commit", class: read, setup: gitSite(func(ctx context.Context, c *ghapi.Client, g gitFixture) error {
		_, err := c.GitCommit(ctx, repo, g.second)
		return err
	})},
	{name: "FileAt", op: "repos/get-content", class: read, notFoundOK: true, setup: gitSite(func(ctx context.Context, c *ghapi.Client, g gitFixture) error {
		_, _, err := c.FileAt(ctx, repo, ".swarm/plan-ledger.jsonl", g.second)
		return err
	})},
	{name: "CreateBlob", op: "git/create-blob", class: write, setup: gitSite(func(ctx context.Context, c *ghapi.Client, g gitFixture) error {
		_, err := c.CreateBlob(ctx, repo, []byte("{\"seq\":2}\n"))
		return err
	})},
	{name: "CreateTree", op: "git/create-tree", class: write, setup: gitSite(func(ctx context.Context, c *ghapi.Client, g gitFixture) error {
		_, err := c.CreateTree(ctx, repo, g.tree, []ghapi.TreeFile{{Path: ".swarm/plan-ledger.jsonl", BlobSHA: g.blob}})
		return err
	})},
	{name: "CreateCommit", op: "git/create-commit", class: write, setup: gitSite(func(ctx context.Context, c *ghapi.Client, g gitFixture) error {
		_, err := c.CreateCommit(ctx, repo, "record", g.tree, g.second)
		return err
	})},
	{name: "UpdateBranch", op: "git/update-ref", class: write, setup: gitSite(func(ctx context.Context, c *ghapi.Client, g gitFixture) error {
		return c.UpdateBranch(ctx, repo, "feature", g.next)
	})},
	{name: "TeamMembership", op: "teams/get-membership-for-user-in-org", class: read, notFoundOK: true,
		setup: func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
			s.SetTeamMember("octo/core", "alice", "active")
			return func(ctx context.Context, c *ghapi.Client) error {
				_, err := c.TeamMembership(ctx, "octo", "core", "alice")
				return err
			}
		}},
}

// newFreshClient is newClient on a new connection per request: net/http
// resends a GET on its own, once, when a reused connection breaks, which
// would hide the transport's own resends from the count.
func newFreshClient(t *testing.T, s *ghfake.Server, opts ...ghapi.Option) (*ghapi.Client, *waits) {
	t.Helper()
	w := &waits{}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	c, err := ghapi.NewClient(s.URL, ghfake.Token, hc, append([]ghapi.Option{ghapi.WithSleep(w.sleep), ghapi.WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, w
}

// gitFixture is a repository in the fake's Git Data API: branch feature
// at second (whose tree is tree), a blob, and a commit next on top of
// second that is not on any branch yet.
type gitFixture struct {
	second, tree, blob, next string
}

// sharedGit is the repository of the Git Data call sites, built once by
// TestCallSitesUnderFaults (ImportGit only reads it).
var sharedGit struct {
	dir, second string
}

func gitSite(call func(ctx context.Context, c *ghapi.Client, g gitFixture) error) func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
	return func(t *testing.T, s *ghfake.Server, c *ghapi.Client) func(context.Context, *ghapi.Client) error {
		dir, second := sharedGit.dir, sharedGit.second
		s.ImportGit(repo.String(), dir)
		ctx := context.Background()
		g := gitFixture{second: second}
		hc, err := c.GitCommit(ctx, repo, second)
		if err != nil {
			t.Fatal(err)
		}
		g.tree = hc.TreeSHA
		if g.blob, err = c.CreateBlob(ctx, repo, []byte("{\"seq\":1}\n{\"seq\":2}\n")); err != nil {
			t.Fatal(err)
		}
		tree, err := c.CreateTree(ctx, repo, g.tree, []ghapi.TreeFile{{Path: ".swarm/plan-ledger.jsonl", BlobSHA: g.blob}})
		if err != nil {
			t.Fatal(err)
		}
		next, err := c.CreateCommit(ctx, repo, "record", tree, second)
		if err != nil {
			t.Fatal(err)
		}
		g.next = next.SHA
		return func(ctx context.Context, c *ghapi.Client) error { return call(ctx, c, g) }
	}
}

// TestCallSitesUnderFaults: every call site × every fault kind. The call
// is resent a bounded number of times with backoff (the fake counts the
// requests; the transport's waits are recorded, never slept), then either
// succeeds with the right effect (once, never duplicated) or fails with an
// error that names the call; no call hangs past its attempts' timeouts.
func TestCallSitesUnderFaults(t *testing.T) {
	sharedGit.dir, _, sharedGit.second = gitRepo(t)
	// Two rounds, each case with its own fake: first the faults that
	// answer, a few at a time (they keep the processors busy); then those
	// that hang, all at once (they wait on their attempts' timeouts, which
	// t.Parallel's limit of GOMAXPROCS would serialise), so that the
	// requests that must get through in time meet little competition.
	for _, hanging := range []bool{false, true} {
		width := 4
		if hanging {
			width = len(callSites) * len(faultKinds)
		}
		sem := make(chan struct{}, width)
		var wg sync.WaitGroup
		for _, site := range callSites {
			for _, kind := range faultKinds {
				if kind.fault.Hang != hanging {
					continue
				}
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer func() { <-sem; wg.Done() }()
					t.Run(site.name+"/"+kind.name, func(t *testing.T) { runSiteFault(t, site, kind) })
				}()
			}
		}
		wg.Wait()
	}
}

// runSiteFault runs one call site under one fault kind.
func runSiteFault(t *testing.T, site callSite, kind faultKind) {
	want := expected(site.class, kind.name)
	if kind.name == "404 (gone)" && site.notFoundOK {
		want.ok = true
	}
	if want.ok {
		want.waits += site.extraWaitsOK
	}
	s := ghfake.New(t)
	setupClient, _ := newClient(t, s)
	call := site.setup(t, s, setupClient)
	var opts []ghapi.Option
	if kind.fault.Hang {
		opts = append(opts, ghapi.WithAttemptTimeout(attemptTimeout))
	}
	c, w := newFreshClient(t, s, opts...)
	before := len(s.CallsTo(site.op))
	for _, f := range site.extraFaults {
		s.Fail(f)
	}
	f := kind.fault
	f.Operation = site.op
	s.Fail(f)
	start := time.Now()
	err := call(context.Background(), c)
	elapsed := time.Since(start)
	calls := len(s.CallsTo(site.op)) - before
	if (err == nil) != want.ok {
		t.Errorf("err %v, want ok %v", err, want.ok)
	}
	if calls != want.calls {
		t.Errorf("%d requests to %s, want %d", calls, site.op, want.calls)
	}
	waits := w.all()
	if len(waits) != want.waits {
		t.Errorf("%d waits %v, want %d", len(waits), waits, want.waits)
	}
	for i := 1; i < len(waits) && len(site.extraFaults) == 0; i++ {
		if waits[i] < waits[i-1] && !strings.Contains(kind.name, "Retry-After") {
			t.Errorf("waits %v do not grow", waits)
		}
	}
	if max := time.Duration(want.calls)*attemptTimeout + 5*time.Second; elapsed > max {
		t.Errorf("took %s, more than %s", elapsed, max)
	}
	if err != nil && !strings.Contains(err.Error(), "octo/") && !strings.Contains(err.Error(), "(run ") {
		t.Errorf("the error names neither the repository nor the check run: %v", err)
	}
	// The site's own error (a read-back's is a note on the
	// update's).
	own := len(site.extraFaults) == 0
	if err != nil && own && (strings.Contains(kind.name, "rate limit") || strings.HasPrefix(kind.name, "429")) && !ghapi.IsRateLimited(err) {
		t.Errorf("a rate limit that is not IsRateLimited: %v", err)
	}
	if err != nil && own && strings.Contains(kind.name, "timeout") && !errors.Is(err, ghapi.ErrAttemptTimeout) {
		t.Errorf("a timeout that is not ErrAttemptTimeout: %v", err)
	}
	if err != nil && own && strings.HasPrefix(kind.name, "404") && !ghapi.IsNotFound(err) {
		t.Errorf("a 404 that is not IsNotFound: %v", err)
	}
	if site.check != nil {
		site.check(t, s, err == nil)
	}
}
