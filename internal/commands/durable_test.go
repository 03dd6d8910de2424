package commands_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/swarm-gate/swarm-gate/internal/commands"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

const corpusDir = "../../../shared/corpus"

var repo = ghapi.Repo{Owner: "octo", Name: "demo"}

// branchRepo is a git repository in a temporary directory whose branch
// "feature" holds a corpus repository's .swarm plan, ledger and events
// log (copied at test time), on top of "main".
type branchRepo struct {
	t    *testing.T
	dir  string
	g    *git.Repository
	head string
}

func newBranchRepo(t *testing.T, corpusRepo string) *branchRepo {
	t.Helper()
	src := filepath.Join(corpusDir, corpusRepo, ".swarm")
	if _, err := os.Stat(src); err != nil {
		sharedtest.Skip(t, "skipping: %s is absent (clone ../shared beside the repo to run corpus tests)", src)
	}
	r := &branchRepo{t: t, dir: t.TempDir()}
	var err error
	if r.g, err = git.PlainInit(r.dir, false); err != nil {
		t.Fatal(err)
	}
	if err := r.g.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName("main"))); err != nil {
		t.Fatal(err)
	}
	r.commit(map[string]string{"README.md": "demo\n"})
	wt, _ := r.g.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("feature"), Create: true}); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, p := range []string{swarm.PlanPath, swarm.LedgerPath, swarm.EventsPath} {
		data, err := os.ReadFile(filepath.Join(corpusDir, corpusRepo, filepath.FromSlash(p)))
		if err == nil {
			files[p] = string(data)
		}
	}
	r.head = r.commit(files)
	return r
}

// commit writes files (an empty content deletes the file) and commits.
func (r *branchRepo) commit(files map[string]string) string {
	r.t.Helper()
	wt, err := r.g.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	for p, content := range files {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if content == "" {
			if _, err := wt.Remove(p); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
		if _, err := wt.Add(p); err != nil {
			r.t.Fatal(err)
		}
	}
	sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)}
	h, err := wt.Commit("work", &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		r.t.Fatal(err)
	}
	return h.String()
}

func (r *branchRepo) file(p string) string {
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(p)))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

func (r *branchRepo) structure() string {
	p, err := swarm.ParsePlan(swarm.PlanPath, []byte(r.file(swarm.PlanPath)))
	if err != nil {
		r.t.Fatal(err)
	}
	return p.Digests.Structure
}

func client(t *testing.T, s *ghfake.Server) *ghapi.Client {
	t.Helper()
	c, err := ghapi.NewClient(s.URL, ghfake.Token, nil, ghapi.WithLogger(slog.New(slog.DiscardHandler)),
		ghapi.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() }))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func request(r *branchRepo) commands.ApprovalCommit {
	return commands.ApprovalCommit{Repo: repo, HeadRepo: repo.String(), HeadRef: "feature", HeadSHA: r.head, StructureHash: r.structure(),
		Actor: "maint", Reason: "the critic's verdict was lost", CommentID: 4242, CommentURL: "https://github.com/octo/demo/pull/7#issuecomment-4242",
		CommentedAt: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC), Now: func() time.Time { return time.Date(2026, 11, 3, 10, 0, 2, 0, time.UTC) }}
}

// TestCommitApproval commits the record to a branch holding a real corpus
// .swarm, and LocalCommit writes the same commit into the checkout: GitHub
// (the fake, which does not sign) and the checkout agree on the tree and,
// unsigned, on the commit id.
func TestCommitApproval(t *testing.T) {
	r := newBranchRepo(t, "VerduzcoTristan__landingpage")
	s := ghfake.New(t)
	s.ImportGit(repo.String(), r.dir)
	res, err := commands.CommitApproval(context.Background(), client(t, s), request(r))
	if err != nil {
		t.Fatal(err)
	}
	if res.Parent != r.head || res.Commit == nil || res.Attempts != 1 || res.AlreadyRecorded || s.Branch(repo.String(), "feature") != res.Commit.SHA {
		t.Fatalf("result %+v", res)
	}
	if got := s.ChangedFiles(repo.String(), r.head, res.Commit.SHA); strings.Join(got, " ") != ".swarm/events.jsonl .swarm/plan-ledger.jsonl" {
		t.Errorf("changed %v", got)
	}
	want := r.file(swarm.LedgerPath) + string(res.Record.LedgerLine) + "\n"
	if got, _ := s.GitFile(repo.String(), "feature", swarm.LedgerPath); got != want {
		t.Error("the committed ledger is not the old bytes plus the record")
	}
	if !strings.HasPrefix(res.Commit.Message, "swarm-gate: plan-critic approval by @maint\n\nReason: the critic's verdict was lost\nComment: https://github.com/octo/demo/pull/7#issuecomment-4242\n") {
		t.Errorf("message:\n%s", res.Commit.Message)
	}
	local, err := commands.LocalCommit(r.dir, res)
	if err != nil {
		t.Fatal(err)
	}
	if local != res.Commit.SHA {
		t.Errorf("local commit %s, GitHub's %s", local, res.Commit.SHA)
	}
	c, err := r.g.CommitObject(plumbing.NewHash(local))
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.File(swarm.EventsPath)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Contents(); !strings.HasSuffix(got, string(res.Record.EventsLine)+"\n") {
		t.Errorf("local events.jsonl:\n%s", got)
	}
	if head, _ := r.g.Head(); head.Hash().String() != r.head {
		t.Errorf("LocalCommit moved HEAD to %s", head.Hash())
	}

	// The same comment again: already recorded, nothing committed.
	again, err := commands.CommitApproval(context.Background(), client(t, s), request(r))
	if err != nil || !again.AlreadyRecorded || again.Commit != nil || s.Branch(repo.String(), "feature") != res.Commit.SHA {
		t.Errorf("again: %+v %v", again, err)
	}
}

// TestCommitApprovalAlreadyRecordedChecksTheLine: a ledger line with the
// comment's session id counts as this approval only when it approves the
// bound structure hash for the same reason; a forged line (another
// payload hash or reason) is refused, not taken as already recorded.
func TestCommitApprovalAlreadyRecordedChecksTheLine(t *testing.T) {
	cases := []struct {
		name string
		edit func(req *commands.ApprovalCommit)
		want string // "" = AlreadyRecorded
	}{
		{"the same approval", func(req *commands.ApprovalCommit) {}, ""},
		{"another reason", func(req *commands.ApprovalCommit) { req.Reason = "something else" }, "already holds an approval line for comment 4242"},
		{"another structure hash", func(req *commands.ApprovalCommit) { req.StructureHash = strings.Repeat("0", 64) }, "since the command was read, and its plan's structure changed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newBranchRepo(t, "VerduzcoTristan__landingpage")
			s := ghfake.New(t)
			s.ImportGit(repo.String(), r.dir)
			first, err := commands.CommitApproval(context.Background(), client(t, s), request(r))
			if err != nil {
				t.Fatal(err)
			}
			req := request(r)
			tc.edit(&req)
			again, err := commands.CommitApproval(context.Background(), client(t, s), req)
			if tc.want == "" {
				if err != nil || !again.AlreadyRecorded {
					t.Fatalf("again: %+v %v", again, err)
				}
				return
			}
			var nc *commands.NotCommitted
			if !errors.As(err, &nc) || !strings.Contains(nc.Reason, tc.want) {
				t.Fatalf("again: %+v %v; want a NotCommitted containing %q", again, err, tc.want)
			}
			if got := s.Branch(repo.String(), "feature"); got != first.Commit.SHA {
				t.Errorf("the branch moved to %s", got)
			}
		})
	}
}

// TestCommitApprovalForgedLineWithTheStructure: a line someone pushed with
// the comment's session id and the right payload hash but their own reason
// is not taken for the approval.
func TestCommitApprovalForgedLineWithTheStructure(t *testing.T) {
	r := newBranchRepo(t, "VerduzcoTristan__landingpage")
	forged := request(r)
	forged.Reason = "approved by nobody"
	rec, err := swarm.AppendManualApproval(swarm.ApprovalFiles{Plan: []byte(r.file(swarm.PlanPath)), Ledger: []byte(r.file(swarm.LedgerPath)), HasLedger: true,
		Events: []byte(r.file(swarm.EventsPath)), HasEvents: true},
		swarm.ManualApproval{Reason: forged.Reason, SessionID: swarm.ApprovalSessionID(4242), ApprovedAt: forged.CommentedAt, WrittenAt: forged.CommentedAt})
	if err != nil {
		t.Fatal(err)
	}
	r.head = r.commit(map[string]string{swarm.LedgerPath: string(rec.Ledger), swarm.EventsPath: string(rec.Events)})
	s := ghfake.New(t)
	s.ImportGit(repo.String(), r.dir)
	res, err := commands.CommitApproval(context.Background(), client(t, s), request(r))
	var nc *commands.NotCommitted
	if !errors.As(err, &nc) || !strings.Contains(nc.Reason, "already holds an approval line for comment 4242") || res != nil {
		t.Fatalf("got %+v, %v", res, err)
	}
}

// TestLocalCommitRefusesAnotherTree: the checkout must hold the parent and
// build GitHub's tree; a signed commit (another id, same tree) is fine.
func TestLocalCommitRefusesAnotherTree(t *testing.T) {
	r := newBranchRepo(t, "VerduzcoTristan__landingpage")
	s := ghfake.New(t)
	s.ImportGit(repo.String(), r.dir)
	res, err := commands.CommitApproval(context.Background(), client(t, s), request(r))
	if err != nil {
		t.Fatal(err)
	}
	signed := *res
	gc := *res.Commit
	gc.Message += "\n-----BEGIN PGP SIGNATURE----- (GitHub signs commits made by Apps)\n"
	signed.Commit = &gc
	if local, err := commands.LocalCommit(r.dir, &signed); err != nil || local == res.Commit.SHA {
		t.Errorf("a signed commit: %s, %v", local, err)
	}
	tampered := *res
	tampered.Files = map[string][]byte{swarm.LedgerPath: []byte("{}\n"), swarm.EventsPath: res.Files[swarm.EventsPath]}
	if _, err := commands.LocalCommit(r.dir, &tampered); err == nil || !strings.Contains(err.Error(), "is not GitHub's tree") {
		t.Errorf("another tree: %v", err)
	}
	missing := *res
	missing.Parent = strings.Repeat("1", 40)
	if _, err := commands.LocalCommit(r.dir, &missing); err == nil || !strings.Contains(err.Error(), "does not hold the branch's head") {
		t.Errorf("missing parent: %v", err)
	}
}

// movingAPI moves the branch (as a push by the agent would) right before
// swarm-gate's first UpdateBranch.
type movingAPI struct {
	commands.GitData
	move func()
	done bool
}

func (m *movingAPI) UpdateBranch(ctx context.Context, r ghapi.Repo, branch, sha string) error {
	if !m.done {
		m.done = true
		m.move()
	}
	return m.GitData.UpdateBranch(ctx, r, branch, sha)
}

// TestCommitApprovalBranchMoved: a status-only push between reading the
// branch and moving it makes GitHub refuse the update (not a fast
// forward); swarm-gate starts over once and commits on the new head. A
// push that changes the plan's structure stops it.
func TestCommitApprovalBranchMoved(t *testing.T) {
	r := newBranchRepo(t, "VerduzcoTristan__landingpage")
	req := request(r)
	statusOnly := r.commit(map[string]string{"src/app.py": "print('hi')\n"})
	s := ghfake.New(t)
	s.ImportGit(repo.String(), r.dir)
	s.SetBranch(repo.String(), "feature", r.head)
	api := &movingAPI{GitData: client(t, s), move: func() { s.SetBranch(repo.String(), "feature", statusOnly) }}
	res, err := commands.CommitApproval(context.Background(), api, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || res.Parent != statusOnly || s.Branch(repo.String(), "feature") != res.Commit.SHA {
		t.Fatalf("result %+v", res)
	}
	if n := len(s.CallsTo("git/update-ref")); n != 2 {
		t.Errorf("%d updates", n)
	}

	// A push that edits the plan's structure: the approval does not apply.
	r2 := newBranchRepo(t, "VerduzcoTristan__landingpage")
	req2 := request(r2)
	edited := strings.Replace(r2.file(swarm.PlanPath), `"name": "Hub Build"`, `"name": "Hub Rebuild"`, 1)
	structural := r2.commit(map[string]string{swarm.PlanPath: edited})
	s2 := ghfake.New(t)
	s2.ImportGit(repo.String(), r2.dir)
	s2.SetBranch(repo.String(), "feature", r2.head)
	api2 := &movingAPI{GitData: client(t, s2), move: func() { s2.SetBranch(repo.String(), "feature", structural) }}
	_, err = commands.CommitApproval(context.Background(), api2, req2)
	var nc *commands.NotCommitted
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "its plan's structure changed") {
		t.Fatalf("structural push: %v", err)
	}
	if s2.Branch(repo.String(), "feature") != structural {
		t.Error("the branch was moved")
	}
}

// TestCommitApprovalNotCommitted: every reason not to write is a
// NotCommitted that says why, and the branch stays where it was.
func TestCommitApprovalNotCommitted(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit)
		want  string
		calls bool // whether any API call is expected
	}{
		{"fork", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			req.HeadRepo = "forker/demo"
		}, "the pull request's branch is in the fork forker/demo, where swarm-gate cannot push", false},
		{"deleted fork", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			req.HeadRepo = ""
		}, "a deleted fork?", false},
		{"protected", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			s.ProtectBranch(repo.String(), "feature")
		}, "branch feature is protected", true},
		{"protection unreadable", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			s.Fail(ghfake.Fault{Operation: "repos/get-branch", Status: http.StatusNotFound})
		}, "could not read whether branch feature is protected", true},
		{"no ledger", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			r.commit(map[string]string{swarm.LedgerPath: ""})
			s.ImportGit(repo.String(), r.dir)
		}, ".swarm/plan-ledger.jsonl does not exist at the head", true},
		{"no plan", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			r.commit(map[string]string{swarm.PlanPath: ""})
			s.ImportGit(repo.String(), r.dir)
		}, "PLAN_NOT_FOUND", true},
		{"malformed ledger", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			r.commit(map[string]string{swarm.LedgerPath: r.file(swarm.LedgerPath) + "{oops\n"})
			s.ImportGit(repo.String(), r.dir)
		}, "the head's ledger cannot be read", true},
		{"reason too long for the plugin", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			req.Reason = strings.Repeat("😀", 251)
		}, "502 characters", true},
		{"push refused", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			s.Fail(ghfake.Fault{Operation: "git/update-ref", Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
		}, "GitHub refused the push to branch feature (HTTP 403)", true},
		{"not a fast forward twice", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			s.Fail(ghfake.Fault{Operation: "git/update-ref", Times: 2, Status: http.StatusUnprocessableEntity, Body: `{"message":"Update is not a fast forward"}`})
		}, "moved twice", true},
		{"blobs refused", func(t *testing.T, r *branchRepo, s *ghfake.Server, req *commands.ApprovalCommit) {
			s.Fail(ghfake.Fault{Operation: "git/create-blob", Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
		}, "could not write the ledger's blob", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newBranchRepo(t, "VerduzcoTristan__landingpage")
			s := ghfake.New(t)
			req := request(r)
			s.ImportGit(repo.String(), r.dir)
			tc.setup(t, r, s, &req)
			before := s.Branch(repo.String(), "feature")
			_, err := commands.CommitApproval(context.Background(), client(t, s), req)
			var nc *commands.NotCommitted
			if !errors.As(err, &nc) || !strings.Contains(nc.Reason, tc.want) {
				t.Fatalf("err = %v, want a NotCommitted containing %q", err, tc.want)
			}
			if got := s.Branch(repo.String(), "feature"); got != before {
				t.Errorf("the branch moved to %s", got)
			}
			if (len(s.Calls()) > 0) != tc.calls {
				t.Errorf("%d API calls", len(s.Calls()))
			}
		})
	}
}
