package actionrun_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// commentEvent is GitHub's issue_comment created payload, moved onto pull
// request #7 with body by user.
func (h *harness) commentEvent(action, user, body string) {
	h.event("issue_comment", "issue_comment/"+action+".json", func(p map[string]any) {
		set(p, "issue.pull_request.url", "https://api.github.com/repos/"+h.repo+"/pulls/7")
		set(p, "issue.number", 7)
		set(p, "comment.body", body)
		set(p, "comment.user.login", user)
		set(p, "comment.user.type", "User")
	})
}

// TestCommandSourceError: when the App could not fetch the pull request's
// commits, a command is refused with that reason, not with advice about a
// workflow's checkout.
func TestCommandSourceError(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 7, User: "author", HeadRef: "swarm/phase-1", HeadSHA: strings.Repeat("c", 40), BaseRef: "main", BaseSHA: h.base})
	h.fake.SetPermission(h.repo, "maint", "write")
	h.srcErr = errors.New("fetching Codertocat/Hello-World: authentication required")
	h.commentEvent("created", "maint", "/swarm approve-plan-critic lost verdict")
	h.run(context.Background(), nil)
	cs := h.fake.Comments(h.repo, 7)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "could not read the pull request's commits: fetching Codertocat/Hello-World: authentication required") || strings.Contains(cs[0].Body, "fetch-depth") {
		t.Fatalf("replies %+v", cs)
	}
}

func (h *harness) commandPR() {
	h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 7, User: "author", HeadRef: "swarm/phase-1", HeadSHA: h.head, BaseRef: "main", BaseSHA: h.base})
}

func TestCommandApprovePlanCriticRecordsOnce(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.commandPR()
	h.fake.SetPermission(h.repo, "maint", "write")
	h.commentEvent("created", "maint", "LGTM after the rename.\r\n\r\n/swarm approve-plan-critic critic verdict lost; re-approved 批准\r\n")
	h.run(context.Background(), nil)
	comments := h.fake.Comments(h.repo, 7)
	if len(comments) != 1 {
		t.Fatalf("%d comments, want the one marker comment:\n%s", len(comments), h.log.String())
	}
	marker := comments[0]
	if marker.User != ghfake.Login || !strings.Contains(marker.Body, "<!-- swarm-gate:override {") || !strings.Contains(marker.Body, `"actor":"maint"`) ||
		!strings.Contains(marker.Body, `"head_sha":"`+h.head+`"`) || !strings.Contains(marker.Body, "re-approved 批准") {
		t.Fatalf("marker comment:\n%s", marker.Body)
	}
	pf := h.storedRun("swarm/plan-freeze")
	if !strings.Contains(pf.Summary, "**Human override**: `/swarm approve-plan-critic` by @maint") {
		t.Errorf("plan-freeze summary lacks the override:\n%s", pf.Summary)
	}
	// The same delivery again records nothing new.
	h.log.Reset()
	h.run(context.Background(), nil)
	if n := len(h.fake.Comments(h.repo, 7)); n != 1 {
		t.Errorf("%d comments after a redelivery, want 1", n)
	}
	if !strings.Contains(h.log.String(), "already recorded") {
		t.Errorf("log:\n%s", h.log.String())
	}
}

func TestCommandRefusals(t *testing.T) {
	cases := []struct {
		name, user, perm, body, want string
	}{
		{"read permission", "reader", "read", "/swarm approve-plan-critic why not", "needs write permission on the repository (the base branch's policy, commands.min_permission); @reader has read permission"},
		{"pull request author", "author", "admin", "/swarm approve-plan-critic my own plan", "@author opened this pull request"},
		{"permission unreadable", "stranger", "", "/swarm recheck", "could not read @stranger's permission on the repository, so it refuses (fail closed)"},
		{"unknown command", "maint", "write", "/swarm aprove-plan-critic x", "did you mean `/swarm approve-plan-critic`?"},
		{"reason too long", "maint", "write", "/swarm approve-plan-critic " + strings.Repeat("r", 501), "the reason is 501 characters"},
		{"bot", "renovate[bot]", "write", "/swarm recheck", "@renovate[bot] is a bot"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.commandPR()
			if tc.perm != "" {
				h.fake.SetPermission(h.repo, tc.user, tc.perm)
			}
			h.commentEvent("created", tc.user, tc.body)
			if code := h.run(context.Background(), nil); code != 0 {
				t.Fatalf("exit %d\n%s", code, h.log.String())
			}
			cs := h.fake.Comments(h.repo, 7)
			if len(cs) != 1 || !strings.Contains(cs[0].Body, "swarm-gate refused this command: ") || !strings.Contains(cs[0].Body, tc.want) {
				t.Fatalf("replies %+v, want one refusal containing %q", cs, tc.want)
			}
			if strings.Contains(cs[0].Body, "swarm-gate:override") {
				t.Error("a refusal carries an override marker")
			}
			if n := len(h.fake.CallsTo("checks/create")); n != 0 {
				t.Errorf("%d check runs created after a refusal", n)
			}
		})
	}
}

func TestCommandRecheckAndHelp(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.commandPR()
	h.fake.SetPermission(h.repo, "maint", "write")
	h.commentEvent("created", "maint", "/swarm recheck")
	h.run(context.Background(), nil)
	if n := len(h.fake.CallsTo("checks/create")); n == 0 {
		t.Fatalf("recheck created no check runs:\n%s", h.log.String())
	}
	h.commentEvent("created", "anyone", "/swarm help")
	h.run(context.Background(), nil)
	cs := h.fake.Comments(h.repo, 7)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "`/swarm recheck`") || !strings.Contains(cs[0].Body, "Overrides recorded on this pull request: none.") {
		t.Fatalf("help reply: %+v", cs)
	}
}

func TestCommandEditedOrDeletedChangesNothing(t *testing.T) {
	for _, action := range []string{"edited", "deleted"} {
		h := newHarness(t, "Codertocat/Hello-World")
		h.commandPR()
		h.fake.SetPermission(h.repo, "maint", "write")
		h.commentEvent(action, "maint", "/swarm approve-plan-critic edited in")
		if code := h.run(context.Background(), nil); code != 0 {
			t.Fatalf("%s: exit %d", action, code)
		}
		if calls := h.fake.Calls(); len(calls) != 0 {
			t.Errorf("%s: %d API requests", action, len(calls))
		}
	}
}

// TestCommandReactions: the command comment gets 👀 when received, then 👍
// when done or 😕 when refused (the comment is in the fake's store, so the
// reaction calls are validated and stored).
func TestCommandReactions(t *testing.T) {
	for _, tc := range []struct {
		name, user, perm, body string
		want                   []string
	}{
		{"approval", "maint", "write", "/swarm approve-plan-critic verdict lost", []string{"eyes", "+1"}},
		{"refusal", "reader", "read", "/swarm approve-plan-critic please", []string{"eyes", "confused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.commandPR()
			h.fake.SetPermission(h.repo, tc.user, tc.perm)
			id := h.fake.AddComment(h.repo, 7, tc.user, tc.body)
			h.event("issue_comment", "issue_comment/created.json", func(p map[string]any) {
				set(p, "issue.pull_request.url", "https://api.github.com/repos/"+h.repo+"/pulls/7")
				set(p, "issue.number", 7)
				set(p, "comment.id", id)
				set(p, "comment.body", tc.body)
				set(p, "comment.user.login", tc.user)
				set(p, "comment.user.type", "User")
			})
			h.run(context.Background(), nil)
			var got []string
			for _, c := range h.fake.Comments(h.repo, 7) {
				if c.ID == id {
					for _, r := range c.Reactions {
						_, content, _ := strings.Cut(r, ":")
						got = append(got, content)
					}
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("reactions %v, want %v\n%s", got, tc.want, h.log.String())
			}
		})
	}
}

// editPlanOnHead commits to the head branch a structural plan edit the
// critic never saw, saved as the plugin saves it (plan.json and a snapshot
// embedding the edited plan), so that swarm/plan-freeze fails with "the plan
// changed since the critic approved it".
func (h *harness) editPlanOnHead() {
	h.t.Helper()
	plan, err := os.ReadFile(filepath.Join(h.workspace, ".swarm", "plan.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	ledger, err := os.ReadFile(filepath.Join(h.workspace, ".swarm", "plan-ledger.jsonl"))
	if err != nil {
		h.t.Fatal(err)
	}
	old, err := swarm.ParsePlan(swarm.PlanPath, plan)
	if err != nil {
		h.t.Fatal(err)
	}
	edited := bytes.Replace(plan, []byte("with quoting of commas"), []byte("with quoting of commas and tabs"), 1)
	p, err := swarm.ParsePlan(swarm.PlanPath, edited)
	if err != nil || p.Digests.Structure == old.Digests.Structure {
		h.t.Fatalf("the fixture edit: %v", err)
	}
	l, err := swarm.ParseLedger(swarm.LedgerPath, ledger)
	if err != nil {
		h.t.Fatal(err)
	}
	snap := []byte(`{"event_type":"snapshot","source":"takeSnapshotEvent","plan_id":`)
	snap = jsjson.AppendString(snap, p.ID())
	snap = append(snap, `,"payload":{"plan":`...)
	snap = jsjson.Append(snap, swarm.EmbeddedPlan(p.Value))
	snap = append(snap, fmt.Sprintf(`,"payload_hash":"%s"},"seq":%d,"timestamp":"2026-11-03T08:00:00.000Z","plan_hash_before":"%s","plan_hash_after":"%s","schema_version":"1.1.0"}`+"\n",
		p.Digests.Ledger, l.Last().Seq+1, old.Digests.Ledger, p.Digests.Ledger)...)
	h.commitOnHead(map[string]string{".swarm/plan.json": string(edited), ".swarm/plan-ledger.jsonl": string(ledger) + string(snap)})
}

// commitOnBase adds a commit to the demo's base branch (main) and returns
// its SHA; the head branch is left as it is.
func (h *harness) commitOnBase(files map[string]string) string {
	h.t.Helper()
	g, err := git.PlainOpen(h.workspace)
	if err != nil {
		h.t.Fatal(err)
	}
	wt, err := g.Worktree()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(demo.BaseBranch), Force: true}); err != nil {
		h.t.Fatal(err)
	}
	for p, content := range files {
		full := filepath.Join(h.workspace, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			h.t.Fatal(err)
		}
		if _, err := wt.Add(p); err != nil {
			h.t.Fatal(err)
		}
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)}
	sha, err := wt.Commit("policy", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(demo.HeadBranch), Force: true}); err != nil {
		h.t.Fatal(err)
	}
	h.base = sha.String()
	return h.base
}

// runOn returns the newest check run named name on commit sha.
func (h *harness) runOn(name, sha string) *ghfake.CheckRun {
	var found *ghfake.CheckRun
	for _, cr := range h.fake.CheckRuns(h.repo) {
		if cr.Name == name && cr.HeadSHA == sha {
			c := cr
			found = &c
		}
	}
	return found
}

// approvalSetup is a pull request whose plan changed since the critic's
// approval, served by the fake's git data, with maint holding write
// permission.
func approvalSetup(t *testing.T) *harness {
	h := newHarness(t, "Codertocat/Hello-World")
	h.editPlanOnHead()
	h.fake.ImportGit(h.repo, h.workspace)
	h.commandPR()
	h.fake.SetPermission(h.repo, "maint", "write")
	return h
}

// TestCommandApprovalCommitsThePluginRecord is issue 9's "done when": an
// authorized human's `/swarm approve-plan-critic` on a same-repository pull
// request whose plan-freeze check fails commits the plugin's own record to
// the branch (only the ledger and the events log change), the commit names
// the approver and the comment, swarm-gate's loaders re-read the committed
// files, and swarm-gate evaluates the new head itself: plan-freeze is green
// there. The same delivery again commits nothing more.
func TestCommandApprovalCommitsThePluginRecord(t *testing.T) {
	h := approvalSetup(t)
	oldHead := h.head
	h.commentEvent("created", "maint", "/swarm recheck")
	h.run(context.Background(), nil)
	if r := h.runOn("swarm/plan-freeze", oldHead); r == nil || r.Conclusion != "failure" || !strings.Contains(r.Title, "changed since the critic approved it") {
		t.Fatalf("plan-freeze before the approval: %+v\n%s", r, h.log.String())
	}

	h.commentEvent("created", "maint", "Reviewed the new acceptance.\n\n/swarm approve-plan-critic tabs are bookkeeping; the critic's verdict stands ✅")
	if code := h.run(context.Background(), nil); code != 1 {
		t.Logf("exit %d (other gates of the demo fail)", code)
	}
	newHead := h.fake.Branch(h.repo, demo.HeadBranch)
	if newHead == oldHead || newHead == "" {
		t.Fatalf("the branch did not move:\n%s", h.log.String())
	}
	commit, _ := h.fake.GitCommit(h.repo, newHead)
	if len(commit.ParentHashes) != 1 || commit.ParentHashes[0].String() != oldHead {
		t.Errorf("the record's parent is %v, want %s", commit.ParentHashes, oldHead)
	}
	if !strings.HasPrefix(commit.Message, "swarm-gate: plan-critic approval by @maint\n\nReason: tabs are bookkeeping; the critic's verdict stands ✅\nComment: https://github.com/") {
		t.Errorf("commit message:\n%s", commit.Message)
	}
	if got := h.fake.ChangedFiles(h.repo, oldHead, newHead); strings.Join(got, " ") != ".swarm/events.jsonl .swarm/plan-ledger.jsonl" {
		t.Errorf("the record changed %v", got)
	}
	// swarm-gate's own loaders re-read what was committed.
	oldLedger, _ := h.fake.GitFile(h.repo, oldHead, swarm.LedgerPath)
	ledger, _ := h.fake.GitFile(h.repo, newHead, swarm.LedgerPath)
	events, _ := h.fake.GitFile(h.repo, newHead, swarm.EventsPath)
	plan, _ := h.fake.GitFile(h.repo, newHead, swarm.PlanPath)
	a := swarm.Load(fstest.MapFS{swarm.PlanPath: {Data: []byte(plan)}, swarm.LedgerPath: {Data: []byte(ledger)}, swarm.EventsPath: {Data: []byte(events)}})
	if a.PlanErr != nil || a.LedgerErr != nil || a.EventsErr != nil || !strings.HasPrefix(ledger, oldLedger) {
		t.Fatalf("re-reading the record: %v %v %v", a.PlanErr, a.LedgerErr, a.EventsErr)
	}
	ap, _ := a.Ledger.LastPlanCriticApproval(a.Plan.ID())
	if ap == nil || ap != a.Ledger.Last() || ap.PayloadHash != a.Plan.Digests.Structure || ap.Approval.Method != "manual_override" ||
		ap.Approval.Reason != "tabs are bookkeeping; the critic's verdict stands ✅" || ap.Approval.ApprovedAt != "2019-05-15T15:20:21.000Z" {
		t.Errorf("the approval: %+v", ap)
	}
	if rep := swarm.ReplayLedgerWithPlan(a.Ledger, a.Plan.Value); len(rep.Unexplained) != 0 {
		t.Errorf("the ledger replays with %d unexplained events: %+v", len(rep.Unexplained), rep.Unexplained)
	}
	if last := a.Events.Events[len(a.Events.Events)-1]; last.Type != "plan_critic_gate_manual_approval" {
		t.Errorf("events: %s", events)
	}
	// The new head was evaluated by this run: plan-freeze is green there.
	pf := h.runOn("swarm/plan-freeze", newHead)
	if pf == nil || pf.Conclusion != "success" || !strings.Contains(pf.Summary, "manual override") || !strings.Contains(pf.Summary, "**Human override**") {
		t.Fatalf("plan-freeze on the new head: %+v\n%s", pf, h.log.String())
	}
	if r := h.runOn("swarm/critic", newHead); r == nil || r.Conclusion != "success" {
		t.Errorf("critic on the new head: %+v", r)
	}
	// The fake does not sign commits, so the checkout rebuilt GitHub's
	// commit exactly and evaluated it, not a stand-in with the same tree.
	if strings.Contains(h.log.String(), "cannot evaluate the new head") || strings.Contains(h.logs.String(), "through a local commit with the same tree") {
		t.Errorf("log:\n%s\n%s", h.log.String(), h.logs.String())
	}
	if !strings.Contains(h.log.String(), "committed the approval of comment") {
		t.Errorf("log:\n%s", h.log.String())
	}
	cs := h.fake.Comments(h.repo, 7)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "Committed to branch `swarm/phase-1` as the plugin's own record") || !strings.Contains(cs[0].Body, newHead[:12]) ||
		!strings.Contains(cs[0].Body, "<!-- swarm-gate:override {") {
		t.Fatalf("reply: %+v", cs)
	}

	// The same delivery again: recorded once.
	h.run(context.Background(), nil)
	if got := h.fake.Branch(h.repo, demo.HeadBranch); got != newHead {
		t.Errorf("a redelivery moved the branch to %s", got)
	}
	if n := len(h.fake.Comments(h.repo, 7)); n != 1 {
		t.Errorf("%d comments after a redelivery", n)
	}
}

// TestCommandApprovalCommitRetriesOnce: the branch moved between reading
// it and updating it (GitHub: not a fast forward); swarm-gate reads the
// branch again and commits on the new head.
func TestCommandApprovalCommitRetriesOnce(t *testing.T) {
	h := approvalSetup(t)
	h.fake.Fail(ghfake.Fault{Operation: "git/update-ref", Status: http.StatusUnprocessableEntity, Body: `{"message":"Update is not a fast forward","documentation_url":"https://docs.github.com/rest"}`})
	h.commentEvent("created", "maint", "/swarm approve-plan-critic bookkeeping")
	h.run(context.Background(), nil)
	if n := len(h.fake.CallsTo("git/get-ref")); n != 2 {
		t.Errorf("%d reads of the branch, want 2", n)
	}
	if got := h.fake.Branch(h.repo, demo.HeadBranch); got == h.head {
		t.Fatalf("not committed after the retry:\n%s", h.log.String())
	}
}

// TestCommandApprovalFallsBackToTheMarker: where swarm-gate cannot push,
// the marker comment is the record, the reply says why, nothing is written
// to the branch, and the old head is evaluated with the override.
func TestCommandApprovalFallsBackToTheMarker(t *testing.T) {
	cases := []struct {
		name  string
		setup func(h *harness)
		want  string
	}{
		{"fork", func(h *harness) {
			h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 7, User: "author", HeadRef: "swarm/phase-1", HeadSHA: h.head, HeadRepo: "forker/Hello-World", BaseRef: "main", BaseSHA: h.base})
		}, "the pull request's branch is in the fork forker/Hello-World, where swarm-gate cannot push"},
		{"protected branch", func(h *harness) { h.fake.ProtectBranch(h.repo, demo.HeadBranch) }, "branch swarm/phase-1 is protected"},
		{"push refused", func(h *harness) {
			h.fake.Fail(ghfake.Fault{Operation: "git/update-ref", Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
		}, "GitHub refused the push to branch swarm/phase-1 (HTTP 403)"},
		{"moved twice", func(h *harness) {
			h.fake.Fail(ghfake.Fault{Operation: "git/update-ref", Times: 2, Status: http.StatusUnprocessableEntity, Body: `{"message":"Update is not a fast forward"}`})
		}, "moved twice while swarm-gate was writing the record"},
		{"branch moved and the plan changed", func(h *harness) {
			// Someone pushed the base's plan (another structure) meanwhile.
			h.fake.SetBranch(h.repo, demo.HeadBranch, h.base)
		}, "since the command was read, and its plan's structure changed"},
		{"contents API down", func(h *harness) {
			h.fake.Fail(ghfake.Fault{Operation: "repos/get-content", Times: -1, Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
		}, "could not read .swarm/plan.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := approvalSetup(t)
			tc.setup(h)
			branch := h.fake.Branch(h.repo, demo.HeadBranch)
			h.commentEvent("created", "maint", "/swarm approve-plan-critic lost verdict")
			h.run(context.Background(), nil)
			if got := h.fake.Branch(h.repo, demo.HeadBranch); got != branch {
				t.Errorf("the branch moved to %s", got)
			}
			cs := h.fake.Comments(h.repo, 7)
			if len(cs) != 1 || !strings.Contains(cs[0].Body, "Not committed to the branch: ") || !strings.Contains(cs[0].Body, tc.want) ||
				!strings.Contains(cs[0].Body, "<!-- swarm-gate:override {") {
				t.Fatalf("reply, want %q:\n%+v\n%s", tc.want, cs, h.log.String())
			}
			pf := h.runOn("swarm/plan-freeze", h.head)
			if pf == nil || pf.Conclusion != "success" || !strings.Contains(pf.Title, "human override: @maint") {
				t.Errorf("plan-freeze on the head: %+v", pf)
			}
		})
	}
}

// TestCommandApprovalCommittedButNotReplied: the commit landed but the
// reply failed; the redelivered command finds the approval in the ledger,
// replies, and commits nothing more.
func TestCommandApprovalCommittedButNotReplied(t *testing.T) {
	h := approvalSetup(t)
	h.fake.Fail(ghfake.Fault{Operation: "issues/create-comment", Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
	h.commentEvent("created", "maint", "/swarm approve-plan-critic lost verdict")
	if code := h.run(context.Background(), nil); code != 2 {
		t.Errorf("exit %d, want 2 (the reply failed)", code)
	}
	committed := h.fake.Branch(h.repo, demo.HeadBranch)
	if committed == h.head {
		t.Fatal("nothing committed")
	}
	h.run(context.Background(), nil)
	if got := h.fake.Branch(h.repo, demo.HeadBranch); got != committed {
		t.Errorf("the redelivery committed again: %s", got)
	}
	cs := h.fake.Comments(h.repo, 7)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "already on branch `swarm/phase-1`") {
		t.Fatalf("reply: %+v", cs)
	}
}

// TestCommandAcknowledgeSpecDriftIsAMarkerOnly: the plugin's own
// acknowledgment is not an append, so swarm-gate records it in its comment
// and writes nothing to the branch.
func TestCommandAcknowledgeSpecDriftIsAMarkerOnly(t *testing.T) {
	h := approvalSetup(t)
	h.commentEvent("created", "maint", "/swarm acknowledge-spec-drift spec typo only")
	h.run(context.Background(), nil)
	if got := h.fake.Branch(h.repo, demo.HeadBranch); got != h.head {
		t.Errorf("the branch moved to %s", got)
	}
	if n := len(h.fake.CallsTo("git/create-commit")); n != 0 {
		t.Errorf("%d commits created", n)
	}
	cs := h.fake.Comments(h.repo, 7)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "This comment is the acknowledgment's only record") {
		t.Fatalf("reply: %+v", cs)
	}
}

// TestCommandTeams: with commands.teams in the base branch's policy, only
// active members of a listed team may run commands; a pending invitation,
// no membership, or an unreadable membership is refused, saying why.
func TestCommandTeams(t *testing.T) {
	cases := []struct {
		name, user, state string
		fault             bool
		want              string // "" means allowed
	}{
		{"active member", "maint", "active", false, ""},
		{"pending invitation", "maint", "pending", false, "octo-org/release: the invitation is pending"},
		{"not a member", "maint", "", false, "octo-org/release: not a member (GitHub answers 404"},
		{"membership unreadable", "maint", "active", true, "swarm-gate could not read the membership"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.commitOnBase(map[string]string{".github/swarm-gate.yml": "version: 1\ncommands:\n  teams: [octo-org/core, octo-org/release]\n"})
			h.commandPR()
			h.fake.SetPermission(h.repo, tc.user, "write")
			if tc.state != "" {
				h.fake.SetTeamMember("octo-org/release", tc.user, tc.state)
			}
			if tc.fault {
				h.fake.Fail(ghfake.Fault{Operation: "teams/get-membership-for-user-in-org", Times: -1, Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
			}
			h.commentEvent("created", tc.user, "/swarm recheck")
			h.run(context.Background(), nil)
			cs := h.fake.Comments(h.repo, 7)
			created := len(h.fake.CallsTo("checks/create"))
			if tc.want == "" {
				if len(cs) != 0 || created == 0 {
					t.Fatalf("an active member was refused: %+v\n%s", cs, h.log.String())
				}
				return
			}
			if len(cs) != 1 || !strings.Contains(cs[0].Body, "needs an active membership of one of the teams octo-org/core, octo-org/release (the base branch's policy, commands.teams)") ||
				!strings.Contains(cs[0].Body, tc.want) || created != 0 {
				t.Fatalf("want a refusal containing %q: %+v", tc.want, cs)
			}
		})
	}
}

// TestCommandHelpShowsTheChecks: `/swarm help` lists the state of each
// swarm-gate check on the head, who may run the commands (teams
// included), and the overrides.
func TestCommandHelpShowsTheChecks(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.commitOnBase(map[string]string{".github/swarm-gate.yml": "version: 1\ncommands:\n  min_permission: maintain\n  teams: [octo-org/core]\n"})
	h.commandPR()
	h.fake.AddCheckRun(h.repo, ghfake.CheckRun{Name: "swarm/placeholders", HeadSHA: h.head, Status: "completed", Conclusion: "failure"})
	h.fake.AddCheckRun(h.repo, ghfake.CheckRun{Name: "swarm/scope", HeadSHA: h.head, Status: "in_progress"})
	h.fake.AddCheckRun(h.repo, ghfake.CheckRun{Name: "someone-else/lint", HeadSHA: h.head, Status: "completed", Conclusion: "success"})
	h.commentEvent("created", "anyone", "/swarm help")
	h.run(context.Background(), nil)
	cs := h.fake.Comments(h.repo, 7)
	if len(cs) != 1 {
		t.Fatalf("replies: %+v", cs)
	}
	body := cs[0].Body
	for _, want := range []string{
		"| `swarm/placeholders` | completed: **failure**",
		"| `swarm/scope` | in progress",
		"| `swarm-gate` | not reported on this commit |",
		"maintain permission on the repository or more (`commands.min_permission` in the base branch's policy) who are active members of one of the teams `octo-org/core` (`commands.teams`)",
		"Overrides recorded on this pull request: none.",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("help lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "someone-else/lint") {
		t.Errorf("help lists another tool's check:\n%s", body)
	}
}

// TestCommandWebhookPayloads feeds GitHub's own issue_comment examples:
// as they are (comments on an issue) and as edits or deletions they change
// nothing; moved onto a pull request, the created ones run the command.
func TestCommandWebhookPayloads(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(webhooksDir, "issue_comment", "*.json"))
	if len(files) == 0 {
		sharedtest.Skip(t, "skipping: GitHub's example payloads are not at %s", webhooksDir)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.commandPR()
			h.event("issue_comment", "issue_comment/"+name, nil)
			if code := h.run(context.Background(), nil); code != 0 || len(h.fake.Calls()) != 0 {
				t.Fatalf("as is: exit %d, %d API calls", code, len(h.fake.Calls()))
			}
			h.fake.SetPermission(h.repo, "Codertocat", "write")
			h.event("issue_comment", "issue_comment/"+name, func(p map[string]any) {
				set(p, "issue.pull_request.url", "https://api.github.com/repos/"+h.repo+"/pulls/7")
				set(p, "issue.number", 7)
				set(p, "comment.body", "/swarm recheck")
			})
			h.run(context.Background(), nil)
			created := len(h.fake.CallsTo("checks/create"))
			if strings.HasPrefix(name, "created") != (created > 0) {
				t.Errorf("%d check runs created", created)
			}
		})
	}
}

// pushOnRecord moves the workspace's head branch to the record commit and
// commits files on top (what the agent pushes next).
func (h *harness) pushOnRecord(record string, edit func(plan, ledger []byte) (newPlan, newLedger []byte)) string {
	h.t.Helper()
	g, err := git.PlainOpen(h.workspace)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := g.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(demo.HeadBranch), plumbing.NewHash(record))); err != nil {
		h.t.Fatal(err)
	}
	wt, _ := g.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(demo.HeadBranch), Force: true}); err != nil {
		h.t.Fatal(err)
	}
	plan, _ := os.ReadFile(filepath.Join(h.workspace, ".swarm", "plan.json"))
	ledger, _ := os.ReadFile(filepath.Join(h.workspace, ".swarm", "plan-ledger.jsonl"))
	p, l := edit(plan, ledger)
	return h.commitOnHead(map[string]string{".swarm/plan.json": string(p), ".swarm/plan-ledger.jsonl": string(l)})
}

// synchronize evaluates the head as a pull_request synchronize of #7 does.
func (h *harness) synchronize() {
	h.t.Helper()
	edit := h.pullRequest("synchronize", h.repo)
	h.event("pull_request", "pull_request/synchronize.json", func(p map[string]any) {
		edit(p)
		p["number"] = 7
		set(p, "pull_request.number", 7)
	})
	h.run(context.Background(), nil)
}

// TestCommandApprovalBinding is rule 4 on the committed record: a later
// status-only push keeps the approval (plan-freeze stays green), a push
// that changes the plan's structure voids it (plan-freeze fails and says
// the override no longer applies).
func TestCommandApprovalBinding(t *testing.T) {
	h := approvalSetup(t)
	h.commentEvent("created", "maint", "/swarm approve-plan-critic bookkeeping")
	h.run(context.Background(), nil)
	record := h.fake.Branch(h.repo, demo.HeadBranch)
	if record == h.head {
		t.Fatalf("not committed:\n%s", h.log.String())
	}

	// Status only: task 1.3 starts, through the ledger as the plugin does.
	statusHead := h.pushOnRecord(record, func(plan, ledger []byte) ([]byte, []byte) {
		old, err := swarm.ParsePlan(swarm.PlanPath, plan)
		if err != nil {
			t.Fatal(err)
		}
		next := bytes.Replace(plan, []byte(`"status": "pending",
          "size": "small",
          "description": "Document`), []byte(`"status": "in_progress",
          "size": "small",
          "description": "Document`), 1)
		next = bytes.Replace(next, []byte(`"name": "Export",
      "status": "pending"`), []byte(`"name": "Export",
      "status": "in_progress"`), 1)
		np, err := swarm.ParsePlan(swarm.PlanPath, next)
		if err != nil || np.Digests.Structure != old.Digests.Structure || np.Digests.Ledger == old.Digests.Ledger {
			t.Fatalf("status-only fixture: %v", err)
		}
		l, _ := swarm.ParseLedger(swarm.LedgerPath, ledger)
		ev := fmt.Sprintf(`{"plan_id":"%s","event_type":"task_status_changed","task_id":"1.3","phase_id":1,"from_status":"pending","to_status":"in_progress","source":"savePlan","seq":%d,"timestamp":"2026-11-03T12:00:00.000Z","plan_hash_before":"%s","plan_hash_after":"%s","schema_version":"1.1.0"}`+"\n",
			np.ID(), l.Last().Seq+1, old.Digests.Ledger, np.Digests.Ledger)
		return next, append(ledger, ev...)
	})
	h.synchronize()
	if pf := h.runOn("swarm/plan-freeze", statusHead); pf == nil || pf.Conclusion != "success" {
		t.Fatalf("plan-freeze after a status-only push: %+v\n%s", pf, h.log.String())
	}

	// A structural edit saved through the plugin: the approval is void.
	structHead := h.pushOnRecord(statusHead, func(plan, ledger []byte) ([]byte, []byte) {
		next := bytes.Replace(plan, []byte("Document the export command"), []byte("Document the export and import commands"), 1)
		np, err := swarm.ParsePlan(swarm.PlanPath, next)
		if err != nil {
			t.Fatal(err)
		}
		old, _ := swarm.ParsePlan(swarm.PlanPath, plan)
		l, _ := swarm.ParseLedger(swarm.LedgerPath, ledger)
		snap := []byte(`{"event_type":"snapshot","source":"takeSnapshotEvent","plan_id":`)
		snap = jsjson.AppendString(snap, np.ID())
		snap = append(snap, `,"payload":{"plan":`...)
		snap = jsjson.Append(snap, swarm.EmbeddedPlan(np.Value))
		snap = append(snap, fmt.Sprintf(`,"payload_hash":"%s"},"seq":%d,"timestamp":"2026-11-03T13:00:00.000Z","plan_hash_before":"%s","plan_hash_after":"%s","schema_version":"1.1.0"}`+"\n",
			np.Digests.Ledger, l.Last().Seq+1, old.Digests.Ledger, np.Digests.Ledger)...)
		return next, append(ledger, snap...)
	})
	h.synchronize()
	pf := h.runOn("swarm/plan-freeze", structHead)
	if pf == nil || pf.Conclusion != "failure" || !strings.Contains(pf.Title, "changed since the critic approved it") ||
		!strings.Contains(pf.Summary, "**Voided override**: `/swarm approve-plan-critic` by @maint") {
		t.Fatalf("plan-freeze after a structural push: %+v", pf)
	}
}
