package actionrun_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
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

	"github.com/swarm-gate/swarm-gate/internal/actionrun"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/commands"
	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// commentEvent is GitHub's issue_comment payload for action, moved onto
// pull request #7 with body by user. The comment is stored in the fake as
// posted now (a created one; an edited or deleted one keeps the example's
// id and times), and the payload carries its id, times and link, as GitHub
// sends them: swarm-gate reads it back to verify an override.
func (h *harness) commentEvent(action, user, body string) ghfake.Comment {
	var stored ghfake.Comment
	if action == "created" {
		id := h.fake.AddComment(h.repo, 7, user, body)
		for _, c := range h.fake.Comments(h.repo, 7) {
			if c.ID == id {
				stored = c
			}
		}
	}
	h.event("issue_comment", "issue_comment/"+action+".json", func(p map[string]any) {
		sharedtest.SetPath(p, "issue.pull_request.url", "https://api.github.com/repos/"+h.repo+"/pulls/7")
		sharedtest.SetPath(p, "issue.number", 7)
		sharedtest.SetPath(p, "comment.body", body)
		sharedtest.SetPath(p, "comment.user.login", user)
		sharedtest.SetPath(p, "comment.user.type", "User")
		if stored.ID != 0 {
			sharedtest.SetPath(p, "comment.id", stored.ID)
			sharedtest.SetPath(p, "comment.created_at", stored.CreatedAt.Format(time.RFC3339))
			sharedtest.SetPath(p, "comment.updated_at", stored.UpdatedAt.Format(time.RFC3339))
			sharedtest.SetPath(p, "comment.html_url", fmt.Sprintf("%s/%s/pull/7#issuecomment-%d", h.fake.WebURL, h.repo, stored.ID))
		}
	})
	return stored
}

// replies are the comments swarm-gate posted on pull request #7, other
// than its summary comment (a re-evaluation posts or updates it).
func (h *harness) replies() []ghfake.Comment {
	var out []ghfake.Comment
	for _, c := range h.fake.Comments(h.repo, 7) {
		if c.User == ghfake.Login && !strings.HasPrefix(c.Body, "<!-- swarm-gate:summary -->") {
			out = append(out, c)
		}
	}
	return out
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
	comments := h.replies()
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
	if n := len(h.replies()); n != 1 {
		t.Errorf("%d comments after a redelivery, want 1", n)
	}
	if !strings.Contains(h.log.String(), "already answered") {
		t.Errorf("log:\n%s", h.log.String())
	}
}

func TestCommandRefusals(t *testing.T) {
	cases := []struct {
		name, user, perm, body, want string
	}{
		{"read permission", "reader", "read", "/swarm approve-plan-critic why not", "needs write permission on the repository (the base branch's policy, commands.min_permission); @reader has read permission"},
		{"pull request author", "author", "admin", "/swarm approve-plan-critic my own plan", "@author opened this pull request"},
		{"a pusher of the branch", "pusher", "admin", "/swarm approve-plan-critic pushed under another email", "@pusher authored, committed or pushed commits of this pull request"},
		{"a committer of the pull request", "cocoder", "admin", "/swarm approve-plan-critic I pushed the fix", "@cocoder authored, committed or pushed commits of this pull request"},
		{"permission unreadable", "stranger", "", "/swarm recheck", "could not read @stranger's permission on the repository, so it refuses (fail closed)"},
		{"unknown command", "maint", "write", "/swarm aprove-plan-critic x", "did you mean `/swarm approve-plan-critic`?"},
		{"reason too long", "maint", "write", "/swarm approve-plan-critic " + strings.Repeat("r", 501), "the reason is 501 characters"},
		{"bot", "renovate[bot]", "write", "/swarm recheck", "@renovate[bot] is a bot"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.commandPR()
			h.fake.RecordActivity(h.repo, ghfake.Activity{Branch: "swarm/phase-1", Before: h.head, After: h.head, At: time.Now().Add(-time.Minute), Type: "push", Actor: "pusher"})
			h.fake.SetPullCommits(h.repo, 7, ghfake.PullCommit{SHA: h.head, Author: "author", Committer: "web-flow"}, ghfake.PullCommit{SHA: h.head, Author: "cocoder", Committer: "cocoder"})
			if tc.perm != "" {
				h.fake.SetPermission(h.repo, tc.user, tc.perm)
			}
			h.commentEvent("created", tc.user, tc.body)
			if code := h.run(context.Background(), nil); code != 0 {
				t.Fatalf("exit %d\n%s", code, h.log.String())
			}
			cs := h.replies()
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
	if cs := h.replies(); len(cs) != 1 || !strings.Contains(cs[0].Body, "swarm-gate re-evaluated head `"+h.head[:12]+"` for @maint (`/swarm recheck`): a check failed") {
		t.Fatalf("recheck reply: %+v", cs)
	}
	h.commentEvent("created", "anyone", "/swarm help")
	h.run(context.Background(), nil)
	cs := h.replies()
	if len(cs) != 2 || !strings.Contains(cs[1].Body, "`/swarm recheck`") || !strings.Contains(cs[1].Body, "Overrides recorded on this pull request: none.") {
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

// An approval whose comment was deleted or edited between its delivery
// and its handling is refused, and nothing is committed or marked: the
// payload is a copy of the comment as posted (an adversarial probe: a
// retracted approval was committed to the agent's branch).
func TestCommandRetractedBeforeHandled(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		retract    func(h *harness, id int64) bool
	}{
		{"deleted", "was deleted before swarm-gate handled it", func(h *harness, id int64) bool { return h.fake.DeleteComment(h.repo, id) }},
		{"edited", "was edited before swarm-gate handled it", func(h *harness, id int64) bool {
			return h.fake.EditComment(h.repo, id, "never mind, do NOT approve")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := approvalSetup(t)
			oldHead := h.head
			c := h.commentEvent("created", "maint", "/swarm approve-plan-critic reviewed")
			if !tc.retract(h, c.ID) {
				t.Fatal("the fake did not have the comment")
			}
			h.run(context.Background(), nil)
			if got := h.fake.Branch(h.repo, demo.HeadBranch); got != oldHead {
				t.Errorf("the branch moved to %s: a retracted approval was committed", got)
			}
			var refused bool
			for _, r := range h.replies() {
				if strings.Contains(r.Body, "swarm-gate:override {") {
					t.Errorf("an override marker was posted:\n%s", r.Body)
				}
				refused = refused || strings.Contains(r.Body, tc.want)
			}
			if !refused {
				t.Errorf("no reply says %q:\n%s", tc.want, h.log.String())
			}
		})
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
			id := h.commentEvent("created", tc.user, tc.body).ID
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
	h.editPlan("with quoting of commas", "with quoting of commas and tabs")
}

// editPlan commits to the head branch a structural plan edit (planEdit)
// and returns the edited plan's structure hash.
func (h *harness) editPlan(from, to string) string {
	h.t.Helper()
	files, structure := h.planEdit(from, to)
	h.commitOnHead(files)
	return structure
}

// planEdit is a structural plan edit of the head's plan, from to to in
// plan.json, saved as the plugin saves it: the files to commit (plan.json
// and the ledger with a snapshot embedding the edited plan) and the edited
// plan's structure hash.
func (h *harness) planEdit(from, to string) (map[string]string, string) {
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
	edited := bytes.Replace(plan, []byte(from), []byte(to), 1)
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
	return map[string]string{".swarm/plan.json": string(edited), ".swarm/plan-ledger.jsonl": string(ledger) + string(snap)}, p.Digests.Structure
}

// commitOnBase adds a commit to the demo's base branch (main) and returns
// its SHA; the head branch is left as it is.
func (h *harness) commitOnBase(files map[string]string) string {
	h.t.Helper()
	sha, err := demo.Commit(h.workspace, demo.BaseBranch, files, "policy", time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC))
	if err != nil {
		h.t.Fatal(err)
	}
	if err := demo.Checkout(h.workspace, demo.HeadBranch); err != nil {
		h.t.Fatal(err)
	}
	h.base = sha
	return sha
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

	command := h.commentEvent("created", "maint", "Reviewed the new acceptance.\n\n/swarm approve-plan-critic tabs are bookkeeping; the critic's verdict stands ✅")
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
	if !strings.HasPrefix(commit.Message, "swarm-gate: plan-critic approval by @maint\n\nReason: tabs are bookkeeping; the critic's verdict stands ✅\nComment: "+fmt.Sprintf("%s/%s/pull/7#issuecomment-%d\n", h.fake.WebURL, h.repo, command.ID)) {
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
		ap.Approval.Reason != "tabs are bookkeeping; the critic's verdict stands ✅" || ap.Approval.ApprovedAt != command.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z") {
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
	cs := h.replies() // the recheck's reply, then the record
	if len(cs) != 2 || !strings.Contains(cs[1].Body, "Committed to branch `swarm/phase-1` as the plugin's own record") || !strings.Contains(cs[1].Body, newHead[:12]) ||
		!strings.Contains(cs[1].Body, "<!-- swarm-gate:override {") {
		t.Fatalf("reply: %+v", cs)
	}

	// The same delivery again: recorded once.
	h.run(context.Background(), nil)
	if got := h.fake.Branch(h.repo, demo.HeadBranch); got != newHead {
		t.Errorf("a redelivery moved the branch to %s", got)
	}
	if n := len(h.replies()); n != 2 {
		t.Errorf("%d replies after a redelivery", n)
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
			// Someone pushed the base's plan (another structure) while
			// swarm-gate was writing the record, after it checked the
			// branch's activity.
			h.fake.Fail(ghfake.Fault{Operation: "git/get-ref", First: func() { h.fake.SetBranch(h.repo, demo.HeadBranch, h.base) }})
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
			if tc.name == "branch moved and the plan changed" {
				branch = h.base // the push meanwhile; swarm-gate adds nothing
			}
			h.commentEvent("created", "maint", "/swarm approve-plan-critic lost verdict")
			h.run(context.Background(), nil)
			if got := h.fake.Branch(h.repo, demo.HeadBranch); got != branch {
				t.Errorf("the branch moved to %s", got)
			}
			cs := h.replies()
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
	cs := h.replies()
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "already on branch `swarm/phase-1`") {
		t.Fatalf("reply: %+v", cs)
	}
}

// staleness is the plugin's .swarm/spec-staleness.json: spec.md changed
// after the plan was saved.
const staleness = `{"type":"spec_stale_detected","timestamp":"2026-11-02T17:22:16.012Z","phase":1,"specHash_plan":"c7211bf247e44e2c17574f1fe78d2efc3a89b7713e526ff016a62a821973d361","specHash_current":"2848b6e561a19a29f70532b76e37df079ab91b5120b249a96d109dd4d14828f0","reason":"spec.md has been modified since plan was saved","planTitle":"CSV export"}`

// TestCommandAcknowledgeSpecDriftIsAMarkerOnly: the plugin's own
// acknowledgment is not an append, so swarm-gate records it in its comment
// and writes nothing to the branch.
func TestCommandAcknowledgeSpecDriftIsAMarkerOnly(t *testing.T) {
	h := approvalSetup(t)
	h.commitOnHead(map[string]string{".swarm/spec-staleness.json": staleness})
	h.fake.ImportGit(h.repo, h.workspace)
	h.commandPR()
	h.commentEvent("created", "maint", "/swarm acknowledge-spec-drift spec typo only")
	h.run(context.Background(), nil)
	if got := h.fake.Branch(h.repo, demo.HeadBranch); got != h.head {
		t.Errorf("the branch moved to %s", got)
	}
	if n := len(h.fake.CallsTo("git/create-commit")); n != 0 {
		t.Errorf("%d commits created", n)
	}
	cs := h.replies()
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
			cs := h.replies()
			created := len(h.fake.CallsTo("checks/create"))
			if tc.want == "" {
				if len(cs) != 1 || !strings.Contains(cs[0].Body, "re-evaluated head") || created == 0 {
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
	// Another App's runs under swarm-gate's names, newer than ours (issue
	// 20): not swarm-gate's, so not shown.
	for _, name := range []string{"swarm-gate", "swarm/scope"} {
		h.fake.AddCheckRun(h.repo, ghfake.CheckRun{Name: name, HeadSHA: h.head, Status: "completed", Conclusion: "success", AppID: 4242, AppSlug: "impostor"})
	}
	h.commentEvent("created", "anyone", "/swarm help")
	h.run(context.Background(), nil)
	cs := h.replies()
	if len(cs) != 1 {
		t.Fatalf("replies: %+v", cs)
	}
	body := cs[0].Body
	for _, want := range []string{
		"| `swarm/placeholders` | completed: **failure**",
		"| `swarm/scope` | in progress",
		"| `swarm-gate` | not reported on this commit |",
		"Only the check runs of the GitHub App `swarm-gate` are shown",
		"maintain permission on the repository or more (`commands.min_permission` in the base branch's policy) who are active members of one of the teams `octo-org/core` (`commands.teams`)",
		"Overrides recorded on this pull request: none.",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("help lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "someone-else/lint") || strings.Contains(body, "completed: **success**") {
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
				sharedtest.SetPath(p, "issue.pull_request.url", "https://api.github.com/repos/"+h.repo+"/pulls/7")
				sharedtest.SetPath(p, "issue.number", 7)
				sharedtest.SetPath(p, "comment.body", "/swarm recheck")
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
		sharedtest.SetPath(p, "pull_request.number", 7)
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

// runBot runs the action as h.run does, with Runner.BotLogin botLogin (""
// leaves it to the bot-login input, as the Action does) and inputs.
func (h *harness) runBot(botLogin string, inputs map[string]string) int {
	h.t.Helper()
	r := &actionrun.Runner{
		Env:             actions.NewEnv(actions.MapLookup(h.env)),
		Stdout:          &h.log,
		Logger:          slog.New(slog.NewTextHandler(&h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Overrides:       inputs,
		Version:         "test",
		BotLogin:        botLogin,
		ClientOptions:   []ghapi.Option{ghapi.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() })},
		FinaliseTimeout: 5 * time.Second,
	}
	return r.Run(context.Background())
}

// commitAt adds a commit to the head branch with the given committer time,
// pushed then (GitHub's first check suite on it is created at when: a push
// made after a comment), and points pull request #7 at it.
func (h *harness) commitAt(files map[string]string, when time.Time) string {
	h.t.Helper()
	return h.commitPushed(files, when, when)
}

// commitPushed is commitAt with the push (GitHub's first check suite on
// the commit) at pushed, which may differ from the committer time; the
// zero time is a commit GitHub holds no check suite for yet.
func (h *harness) commitPushed(files map[string]string, when, pushed time.Time) string {
	h.t.Helper()
	g, err := git.PlainOpen(h.workspace)
	if err != nil {
		h.t.Fatal(err)
	}
	wt, _ := g.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(demo.HeadBranch), Force: true}); err != nil {
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
	sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: when}
	sha, err := wt.Commit("pushed later", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		h.t.Fatal(err)
	}
	h.head = sha.String()
	if !pushed.IsZero() {
		h.fake.Pushed(h.repo, h.head, pushed)
	}
	h.fake.ImportGit(h.repo, h.workspace)
	h.commandPR()
	return h.head
}

// TestCommandBotLogin is issue 9's review item 1: with a token that posts
// as another bot (an App installation token), the reply's author is the
// identity swarm-gate trusts for the rest of the run, with a warning to
// set bot-login; with bot-login set, a redelivery finds the record and
// posts nothing more.
func TestCommandBotLogin(t *testing.T) {
	t.Run("default login, token posts as another bot", func(t *testing.T) {
		h := approvalSetup(t)
		h.fake.ProtectBranch(h.repo, demo.HeadBranch) // the marker is the only record
		h.commentEvent("created", "maint", "/swarm approve-plan-critic lost verdict")
		h.runBot("", nil)
		if want := "set `bot-login: " + ghfake.Login + "`"; !strings.Contains(h.log.String(), want) {
			t.Errorf("no warning %q:\n%s", want, h.log.String())
		}
		// The record this run posted was trusted by this run.
		if pf := h.runOn("swarm/plan-freeze", h.head); pf == nil || pf.Conclusion != "success" || !strings.Contains(pf.Title, "human override: @maint") {
			t.Errorf("plan-freeze: %+v\n%s", pf, h.log.String())
		}
	})
	t.Run("bot-login set", func(t *testing.T) {
		h := approvalSetup(t)
		h.fake.ProtectBranch(h.repo, demo.HeadBranch)
		h.commentEvent("created", "maint", "/swarm approve-plan-critic lost verdict")
		inputs := map[string]string{"bot-login": ghfake.Login}
		h.runBot("", inputs)
		h.runBot("", inputs) // the same delivery again
		if n := len(h.replies()); n != 1 {
			t.Errorf("%d replies after a redelivery, want 1", n)
		}
		if strings.Contains(h.log.String(), "bot-login:") {
			t.Errorf("warned although bot-login is set:\n%s", h.log.String())
		}
	})
	t.Run("bot-login not a login", func(t *testing.T) {
		h := newHarness(t, "Codertocat/Hello-World")
		h.commandPR()
		h.commentEvent("created", "maint", "/swarm help")
		if code := h.runBot("", map[string]string{"bot-login": "bad login"}); code != 3 {
			t.Errorf("exit %d, want 3", code)
		}
	})
}

// markerComment stores a comment by swarm-gate's identity (as any workflow
// with the same token could post) holding the record.
func (h *harness) markerComment(rec commands.Record) int64 {
	h.t.Helper()
	body, err := commands.RecordBody(rec)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.fake.AddComment(h.repo, 7, ghfake.Login, body)
}

// TestCommandForgedMarkers is issue 9's review items 2 and 3: a marker in
// a comment by swarm-gate's own identity counts only when the command
// comment it names, its author's permission now and the checkout agree
// with it; otherwise plan-freeze fails and a notice names the reason.
func TestCommandForgedMarkers(t *testing.T) {
	cases := []struct {
		name  string
		setup func(h *harness, rec *commands.Record) // rec: a valid record of maint's approval
		want  string                                 // "" = the override holds
	}{
		{"the record swarm-gate would write", func(h *harness, rec *commands.Record) {}, ""},
		{"naming a comment that does not exist", func(h *harness, rec *commands.Record) { rec.CommentID = 987654 }, "the command comment 987654 it names does not exist"},
		{"naming a real comment by another user", func(h *harness, rec *commands.Record) {
			rec.CommentID = h.fake.AddComment(h.repo, 7, "octo", "/swarm approve-plan-critic lost verdict")
		}, "was written by @octo, not by @maint"},
		{"with another reason", func(h *harness, rec *commands.Record) { rec.Reason = "approve whatever comes" }, "with another reason than the marker records"},
		{"with the hash of a plan the comment never saw", func(h *harness, rec *commands.Record) {
			rec.StructureHash = strings.Repeat("7", 64)
		}, "not 777777777777 as the marker says"},
		{"naming a help request (an edited bot reply)", func(h *harness, rec *commands.Record) {
			rec.CommentID = h.fake.AddComment(h.repo, 7, "maint", "/swarm help")
		}, "holds `/swarm help`"},
		{"permission revoked", func(h *harness, rec *commands.Record) { h.fake.SetPermission(h.repo, "maint", "read") }, "its author may not record it now"},
		{"the command comment edited within the second", func(h *harness, rec *commands.Record) {
			// updated_at has one-second precision, so it may equal
			// created_at: the body itself must still say the same.
			if _, err := ghapiClient(h).UpdateComment(context.Background(), ghapi.Repo{Owner: "Codertocat", Name: "Hello-World"}, rec.CommentID, "/swarm approve-plan-critic approve everything"); err != nil {
				h.t.Fatal(err)
			}
		}, "comment "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := approvalSetup(t)
			src := h.fake.AddComment(h.repo, 7, "maint", "/swarm approve-plan-critic lost verdict")
			var at time.Time
			for _, c := range h.fake.Comments(h.repo, 7) {
				if c.ID == src {
					at = c.CreatedAt
				}
			}
			plan, err := os.ReadFile(filepath.Join(h.workspace, ".swarm", "plan.json"))
			if err != nil {
				t.Fatal(err)
			}
			p, err := swarm.ParsePlan(swarm.PlanPath, plan)
			if err != nil {
				t.Fatal(err)
			}
			rec := commands.Record{Command: commands.ApprovePlanCritic, Actor: "maint", Reason: "lost verdict", RecordedAt: at.Format(time.RFC3339),
				HeadSHA: h.head, StructureHash: p.Digests.Structure, CommentID: src, CommentURL: "https://github.com/Codertocat/Hello-World/pull/7#issuecomment-1"}
			tc.setup(h, &rec)
			h.markerComment(rec)
			h.synchronize()
			pf := h.runOn("swarm/plan-freeze", h.head)
			if tc.want == "" {
				if pf == nil || pf.Conclusion != "success" || !strings.Contains(pf.Title, "human override: @maint") {
					t.Fatalf("plan-freeze %+v\n%s", pf, h.log.String())
				}
				return
			}
			if pf == nil || pf.Conclusion != "failure" || strings.Contains(pf.Summary, "Human override") {
				t.Errorf("plan-freeze %+v, want failure without the override", pf)
			}
			if !strings.Contains(h.log.String(), "::notice::swarm-gate: ignored the override recorded in comment ") || !strings.Contains(h.log.String(), tc.want) {
				t.Errorf("log lacks the notice %q:\n%s", tc.want, h.log.String())
			}
		})
	}
}

// TestCommandForgedMarkerOnALaterPush is the backdated-commit forgery: a
// workflow posting as swarm-gate's identity binds maint's genuine approval
// comment to a plan pushed after it, in a commit whose committer time
// (chosen by whoever commits) is before the comment. The committer time
// cannot tell; GitHub's first check suite on the commit can: the marker
// is ignored, saying when GitHub first saw the head. The same marker on
// the same commit pushed before the comment holds (its later swarm-gate
// suite does not count: the earliest suite does), whatever its committer
// time says (a fast committer clock).
func TestCommandForgedMarkerOnALaterPush(t *testing.T) {
	for _, tc := range []struct {
		name      string
		committed time.Duration // the committer time, relative to the comment
		after     time.Duration // the push, relative to the comment
		holds     bool
	}{
		{"pushed before the comment", -time.Hour, -30 * time.Minute, true},
		{"fast committer clock: committed after the comment, pushed before", time.Hour, -30 * time.Minute, true},
		{"pushed after the comment, committer time backdated", -time.Hour, 30 * time.Minute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := approvalSetup(t)
			// maint's approval, an hour ago, of the plan then at the head.
			at := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
			src := h.fake.AddCommentAt(h.repo, 7, "maint", "/swarm approve-plan-critic lost verdict", at)
			// A plan committed tc.committed and pushed tc.after the
			// comment (one the comment never saw when pushed after it).
			files, structure := h.planEdit("Wire an `export` command", "Wire an `export --all` command")
			pushed := at.Add(tc.after)
			h.commitPushed(files, at.Add(tc.committed), pushed)
			h.markerComment(commands.Record{Command: commands.ApprovePlanCritic, Actor: "maint", Reason: "lost verdict", RecordedAt: at.Format(time.RFC3339),
				HeadSHA: h.head, StructureHash: structure, CommentID: src, CommentURL: fmt.Sprintf("https://github.com/Codertocat/Hello-World/pull/7#issuecomment-%d", src)})
			h.synchronize()
			if n := len(h.fake.CheckSuites(h.repo, h.head)); n != 2 {
				t.Errorf("%d check suites on the head, want 2 (GitHub Actions' on the push, swarm-gate's with its runs)", n)
			}
			if n := len(h.fake.CallsTo("checks/list-suites-for-ref")); n != 1 {
				t.Errorf("%d check suite listings, want 1 (one marker head)", n)
			}
			pf := h.runOn("swarm/plan-freeze", h.head)
			if tc.holds {
				if pf == nil || pf.Conclusion != "success" || !strings.Contains(pf.Title, "human override: @maint") {
					t.Fatalf("plan-freeze %+v\n%s", pf, h.log.String())
				}
				return
			}
			if pf == nil || pf.Conclusion != "failure" || strings.Contains(pf.Summary, "Human override") {
				t.Errorf("plan-freeze %+v, want failure without the override", pf)
			}
			want := fmt.Sprintf("its head %s was first seen by GitHub at %s, after comment %d was posted (%s), so the comment did not see it",
				h.head[:12], pushed.UTC().Format(time.RFC3339), src, at.UTC().Format(time.RFC3339))
			if !strings.Contains(h.log.String(), "::notice::swarm-gate: ignored the override recorded in comment ") || !strings.Contains(h.log.String(), want) {
				t.Errorf("log lacks the notice %q:\n%s", want, h.log.String())
			}
		})
	}
}

func ghapiClient(h *harness) *ghapi.Client {
	h.t.Helper()
	c, err := ghapi.NewClient(strings.TrimSuffix(h.fake.URL, "/"), ghfake.Token, nil, ghapi.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() }))
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// TestCommandHeadSeenBeforeTheComment is review item 4 under the rule
// VerifyOverrides applies later: the command binds to the pull request's
// head only if GitHub first saw that head (its earliest check suite) no
// later than the comment was posted. A head first seen after the comment,
// one with no check suite yet, or one whose suites cannot be read is
// refused with a reply saying what to do: no marker, no commit to the
// branch, no evaluation. The committer time, which the pusher chooses, is
// not consulted: a backdated one does not help a later push, and a fast
// committer clock does not refuse a head GitHub saw in time.
func TestCommandHeadSeenBeforeTheComment(t *testing.T) {
	const noSuite = time.Duration(1 << 62) // no check suite on the head
	for _, tc := range []struct {
		name              string
		committed, pushed time.Duration // relative to the comment
		fault             *ghfake.Fault // on checks/list-suites-for-ref
		// want is "" when the approval is recorded, else the refusal:
		// %[1]s the head, %[2]s when GitHub first saw it, %[3]s the comment.
		want string
	}{
		{name: "first seen before the comment", committed: -time.Hour, pushed: -30 * time.Minute},
		{name: "first seen the second the comment was posted", committed: -time.Hour, pushed: 0},
		{name: "fast committer clock: committed after the comment, first seen before", committed: time.Hour, pushed: -time.Minute},
		{name: "first seen after the comment, committer time backdated", committed: -time.Hour, pushed: 2 * time.Minute,
			want: "swarm-gate refused this command: GitHub had not registered head %[1]s when you commented (its first check suite is from %[2]s, after your comment at %[3]s), so swarm-gate cannot tell that you saw it; check the plan at that head and comment again"},
		{name: "no check suite yet", committed: -time.Hour, pushed: noSuite,
			want: "swarm-gate refused this command: GitHub has no check suite for head %[1]s yet, so swarm-gate cannot tell whether it was there when you commented; wait for its checks to start and comment again"},
		{name: "the check suites cannot be read", committed: -time.Hour, pushed: -30 * time.Minute,
			fault: &ghfake.Fault{Operation: "checks/list-suites-for-ref", Status: http.StatusForbidden, Times: -1, Body: `{"message":"Resource not accessible by integration"}`},
			want:  "swarm-gate refused this command: swarm-gate could not read when GitHub first saw head %[1]s: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := approvalSetup(t)
			comment := h.commentEvent("created", "maint", "/swarm approve-plan-critic lost verdict")
			var pushed time.Time
			if tc.pushed != noSuite {
				pushed = comment.CreatedAt.Add(tc.pushed)
			}
			head := h.commitPushed(map[string]string{"README.md": "one more commit\n"}, comment.CreatedAt.Add(tc.committed), pushed)
			if tc.fault != nil {
				h.fake.Fail(*tc.fault)
			}
			h.run(context.Background(), nil)
			cs := h.replies()
			if len(cs) != 1 {
				t.Fatalf("replies %+v, want one\n%s", cs, h.log.String())
			}
			commits := len(h.fake.CallsTo("git/create-commit"))
			if tc.want == "" {
				if !strings.Contains(cs[0].Body, "<!-- swarm-gate:override {") || !strings.Contains(cs[0].Body, `"head_sha":"`+head+`"`) {
					t.Fatalf("reply, want the marker on %s:\n%s\n%s", head, cs[0].Body, h.log.String())
				}
				if commits != 1 || h.fake.Branch(h.repo, demo.HeadBranch) == head {
					t.Errorf("%d commits created, branch at %s: want the plugin's record committed", commits, h.fake.Branch(h.repo, demo.HeadBranch))
				}
				return
			}
			want := fmt.Sprintf(tc.want, head[:12], pushed.UTC().Format(time.RFC3339), comment.CreatedAt.UTC().Format(time.RFC3339))
			if !strings.Contains(cs[0].Body, want) || strings.Contains(cs[0].Body, "swarm-gate:override") {
				t.Fatalf("reply:\n%s\nwant a refusal holding %q", cs[0].Body, want)
			}
			if tc.fault != nil && (!strings.Contains(cs[0].Body, "Resource not accessible by integration") || !strings.Contains(cs[0].Body, "; comment again")) {
				t.Errorf("reply does not name the error and what to do:\n%s", cs[0].Body)
			}
			if commits != 0 || h.fake.Branch(h.repo, demo.HeadBranch) != head {
				t.Errorf("%d commits created, branch at %s: want nothing committed", commits, h.fake.Branch(h.repo, demo.HeadBranch))
			}
			if n := len(h.fake.CallsTo("checks/create")); n != 0 {
				t.Errorf("%d check runs created after a refusal", n)
			}
		})
	}
}

// TestCommandAcknowledgmentBindsToTheDrift is review item 5: with no drift
// there is nothing to acknowledge; an acknowledgment covers the drift it
// saw, and different drift pushed later voids it.
func TestCommandAcknowledgmentBindsToTheDrift(t *testing.T) {
	t.Run("no drift", func(t *testing.T) {
		h := approvalSetup(t)
		h.commentEvent("created", "maint", "/swarm acknowledge-spec-drift spec typo only")
		h.run(context.Background(), nil)
		if cs := h.replies(); len(cs) != 1 || !strings.Contains(cs[0].Body, "nothing to acknowledge") {
			t.Fatalf("replies %+v", cs)
		}
	})
	t.Run("drift recomputed without a marker", func(t *testing.T) {
		h := approvalSetup(t)
		plan, err := os.ReadFile(filepath.Join(h.workspace, ".swarm", "plan.json"))
		if err != nil {
			t.Fatal(err)
		}
		saved := swarm.SpecHash([]byte("# Spec\n- FR-001: MUST export\n"))
		now := "# Spec\n- FR-001: MUST export\n- FR-002: MUST import\n"
		withHash := strings.Replace(string(plan), "{", `{"specHash": "`+saved+`",`, 1)
		h.commitOnHead(map[string]string{".swarm/plan.json": withHash, ".swarm/spec.md": now})
		h.fake.ImportGit(h.repo, h.workspace)
		h.commandPR()
		h.commentEvent("created", "maint", "/swarm acknowledge-spec-drift requirement added on purpose")
		h.run(context.Background(), nil)
		want := `"spec_staleness":"spec:` + saved + `:` + swarm.SpecHash([]byte(now)) + `"`
		if cs := h.replies(); len(cs) != 1 || !strings.Contains(cs[0].Body, want) {
			t.Fatalf("record, want %s: %+v", want, cs)
		}
		if !strings.Contains(h.log.String(), "Acknowledged by @maint") {
			t.Fatalf("the acknowledgment was not applied:\n%s", h.log.String())
		}
	})
	t.Run("later, different drift", func(t *testing.T) {
		h := approvalSetup(t)
		h.commitOnHead(map[string]string{".swarm/spec-staleness.json": staleness})
		h.fake.ImportGit(h.repo, h.workspace)
		h.commandPR()
		h.commentEvent("created", "maint", "/swarm acknowledge-spec-drift spec typo only")
		h.run(context.Background(), nil)
		if !strings.Contains(h.log.String(), "Acknowledged by @maint") {
			t.Fatalf("the acknowledgment was not applied:\n%s", h.log.String())
		}
		cs := h.replies()
		if len(cs) != 1 || !strings.Contains(cs[0].Body, `"spec_staleness":"spec:c7211bf247e4`) {
			t.Fatalf("record %+v", cs)
		}
		h.log.Reset()
		drift := strings.Replace(staleness, `"specHash_current":"2848`, `"specHash_current":"9999`, 1)
		h.commitAt(map[string]string{".swarm/spec-staleness.json": drift}, time.Now().Add(time.Hour))
		h.synchronize()
		pf := h.runOn("swarm/plan-freeze", h.head)
		if pf == nil || !strings.Contains(pf.Summary, "**Voided override**: `/swarm acknowledge-spec-drift` by @maint") || strings.Contains(h.log.String(), "Acknowledged by @maint") {
			t.Fatalf("plan-freeze after new drift: %+v\n%s", pf, h.log.String())
		}
	})
}

// The plan structure alone is not what an acknowledgment binds to: drift
// E pushed, drift G force-pushed over it with the same plan, acknowledged,
// and E force-pushed back, binds to drift nobody saw.
func TestCommandAcknowledgmentBindsToTheDriftSeen(t *testing.T) {
	h := approvalSetup(t)
	e := h.commitOnHead(map[string]string{".swarm/spec-staleness.json": strings.Replace(staleness, `"specHash_current":"2848`, `"specHash_current":"9999`, 1)})
	g := h.commitOnHead(map[string]string{".swarm/spec-staleness.json": staleness})
	h.fake.ImportGit(h.repo, h.workspace)
	now := time.Now().UTC().Truncate(time.Second)
	h.fake.SetBranchAt(h.repo, demo.HeadBranch, g, now)
	commented := now.Add(time.Minute)
	h.commentEventAt("maint", "/swarm acknowledge-spec-drift the spec typo", commented)
	h.fake.SetBranchAt(h.repo, demo.HeadBranch, e, commented.Add(time.Minute))
	h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 7, User: "author", HeadRef: demo.HeadBranch, HeadSHA: e, BaseRef: "main", BaseSHA: h.base})
	h.head = e
	h.run(context.Background(), nil)
	cs := h.replies()
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "whose spec drift differs from the head's") || strings.Contains(cs[0].Body, "swarm-gate:override") {
		t.Fatalf("want a refusal, got %+v\n%s", cs, h.log.String())
	}
}

// TestCommandClosedPullRequest is review item 6.
func TestCommandClosedPullRequest(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 7, State: "closed", User: "author", HeadRef: demo.HeadBranch, HeadSHA: h.head, BaseRef: "main", BaseSHA: h.base})
	h.fake.SetPermission(h.repo, "maint", "write")
	h.commentEvent("created", "maint", "/swarm recheck")
	h.run(context.Background(), nil)
	if cs := h.replies(); len(cs) != 1 || !strings.Contains(cs[0].Body, "swarm-gate refused this command: the pull request is closed") {
		t.Fatalf("replies %+v", cs)
	}
	if n := len(h.fake.CallsTo("checks/create")); n != 0 {
		t.Errorf("%d check runs created on a closed pull request", n)
	}
}

// TestCommandAnsweredOnce is review item 7: a refusal, help or recheck
// delivered twice is answered (and run) once: every reply names the
// command comment in a hidden marker.
func TestCommandAnsweredOnce(t *testing.T) {
	for _, tc := range []struct{ name, user, body, reply string }{
		{"refusal", "reader", "/swarm approve-plan-critic please", "swarm-gate refused this command"},
		{"parse error", "maint", "/swarm aprove-plan-critic x", "did you mean"},
		{"help", "anyone", "/swarm help", "**swarm-gate comment commands**"},
		{"recheck", "maint", "/swarm recheck", "re-evaluated head"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "Codertocat/Hello-World")
			h.commandPR()
			h.fake.SetPermission(h.repo, "maint", "write")
			h.fake.SetPermission(h.repo, "reader", "read")
			c := h.commentEvent("created", tc.user, tc.body)
			h.run(context.Background(), nil)
			created := len(h.fake.CallsTo("checks/create"))
			h.run(context.Background(), nil)
			cs := h.replies()
			if len(cs) != 1 || !strings.Contains(cs[0].Body, tc.reply) || !strings.HasSuffix(cs[0].Body, commands.ReplyMarker(c.ID)+"\n") {
				t.Fatalf("replies %+v", cs)
			}
			if n := len(h.fake.CallsTo("checks/create")); n != created {
				t.Errorf("the redelivery created %d more check runs", n-created)
			}
			if !strings.Contains(h.log.String(), "already answered") {
				t.Errorf("log:\n%s", h.log.String())
			}
		})
	}
}

// TestCommandRepliesDoNotPing is review item 9: the quoted line is escaped
// (an @mention in it notifies nobody again), and an API error in a reply
// names neither the API URL nor go-github's empty error list.
func TestCommandRepliesDoNotPing(t *testing.T) {
	h := newHarness(t, "Codertocat/Hello-World")
	h.commandPR()
	h.commentEvent("created", "maint", "/swarm aprove-plan-critic ask @octocat and @org/team")
	h.run(context.Background(), nil)
	cs := h.replies()
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, "> /swarm aprove-plan-critic ask @\u200boctocat and @\u200borg/team\n") {
		t.Fatalf("replies %+v", cs)
	}

	h = newHarness(t, "Codertocat/Hello-World")
	h.commandPR()
	h.fake.Fail(ghfake.Fault{Operation: "repos/get-collaborator-permission-level", Status: http.StatusForbidden, Times: -1, Body: `{"message":"Resource not accessible by integration"}`})
	h.commentEvent("created", "maint", "/swarm recheck")
	h.run(context.Background(), nil)
	cs = h.replies()
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "GitHub answered HTTP 403: Resource not accessible by integration") ||
		strings.Contains(cs[0].Body, "http://") || strings.Contains(cs[0].Body, "https://") || strings.Contains(cs[0].Body, " []") {
		t.Fatalf("replies %+v", cs)
	}
}

// TestCommandWhoMayRun: help is open to bots (as the README says);
// maintain meets min_permission: maintain (role_name); swarm-gate's own
// comments run nothing.
func TestCommandWhoMayRun(t *testing.T) {
	t.Run("help by a bot", func(t *testing.T) {
		h := newHarness(t, "Codertocat/Hello-World")
		h.commandPR()
		h.commentEvent("created", "renovate[bot]", "/swarm help")
		h.run(context.Background(), nil)
		if cs := h.replies(); len(cs) != 1 || !strings.Contains(cs[0].Body, "**swarm-gate comment commands**") {
			t.Fatalf("replies %+v", cs)
		}
	})
	t.Run("maintain meets min_permission: maintain", func(t *testing.T) {
		h := newHarness(t, "Codertocat/Hello-World")
		h.commitOnBase(map[string]string{".github/swarm-gate.yml": "version: 1\ncommands:\n  min_permission: maintain\n"})
		h.commandPR()
		h.fake.SetPermission(h.repo, "maint", "maintain")
		h.commentEvent("created", "maint", "/swarm recheck")
		h.run(context.Background(), nil)
		if n := len(h.fake.CallsTo("checks/create")); n == 0 {
			t.Fatalf("recheck by a maintainer was refused: %+v", h.replies())
		}
	})
	t.Run("swarm-gate's own comment", func(t *testing.T) {
		h := newHarness(t, "Codertocat/Hello-World")
		h.commandPR()
		h.commentEvent("created", ghfake.Login, "/swarm recheck")
		h.run(context.Background(), nil)
		if calls := h.fake.Calls(); len(calls) != 0 {
			t.Errorf("%d API requests for swarm-gate's own comment", len(calls))
		}
	})
}

// commentEventAt is commentEvent for a comment created at time at.
func (h *harness) commentEventAt(user, body string, at time.Time) {
	id := h.fake.AddCommentAt(h.repo, 7, user, body, at)
	h.event("issue_comment", "issue_comment/created.json", func(p map[string]any) {
		sharedtest.SetPath(p, "issue.pull_request.url", "https://api.github.com/repos/"+h.repo+"/pulls/7")
		sharedtest.SetPath(p, "issue.number", 7)
		sharedtest.SetPath(p, "comment.body", body)
		sharedtest.SetPath(p, "comment.user.login", user)
		sharedtest.SetPath(p, "comment.user.type", "User")
		sharedtest.SetPath(p, "comment.id", id)
		sharedtest.SetPath(p, "comment.created_at", at.UTC().Format(time.RFC3339))
		sharedtest.SetPath(p, "comment.updated_at", at.UTC().Format(time.RFC3339))
		sharedtest.SetPath(p, "comment.html_url", fmt.Sprintf("%s/%s/pull/7#issuecomment-%d", h.fake.WebURL, h.repo, id))
	})
}

// TestCommandApprovalBindsToWhatWasSeen is issue 20 item 1: an approval
// binds to a plan the maintainer could have seen. The attack: push a
// hostile plan E, force-push a benign plan G, the maintainer approves G,
// force-push E back before the command is handled. Both commits were on
// GitHub before the comment, so the check-suite guard alone passes.
func TestCommandApprovalBindsToWhatWasSeen(t *testing.T) {
	setup := func(t *testing.T) (h *harness, g, e string, commented time.Time) {
		h = approvalSetup(t)
		g = h.head
		files, _ := h.planEdit("with quoting of commas and tabs", "with quoting of commas and tabs, then drop the users table")
		e = h.commitOnHead(files) // E, pushed before G
		h.fake.ImportGit(h.repo, h.workspace)
		now := time.Now().UTC().Truncate(time.Second)
		h.fake.SetBranchAt(h.repo, demo.HeadBranch, g, now) // G force-pushed over E
		commented = now.Add(time.Minute)
		return h, g, e, commented
	}
	forcePushBack := func(h *harness, e string, commented time.Time) {
		h.fake.SetBranchAt(h.repo, demo.HeadBranch, e, commented.Add(time.Minute))
		h.fake.AddPullRequest(h.repo, ghfake.PullRequest{Number: 7, User: "author", HeadRef: demo.HeadBranch, HeadSHA: e, BaseRef: "main", BaseSHA: h.base})
		h.head = e
	}
	t.Run("E force-pushed back after the comment", func(t *testing.T) {
		h, _, e, commented := setup(t)
		h.commentEventAt("maint", "/swarm approve-plan-critic reviewed the plan", commented)
		forcePushBack(h, e, commented)
		h.run(context.Background(), nil)
		cs := h.replies()
		if len(cs) != 1 || !strings.Contains(cs[0].Body, "swarm-gate refused this command") || !strings.Contains(cs[0].Body, "whose plan has another structure") ||
			strings.Contains(cs[0].Body, "swarm-gate:override") {
			t.Fatalf("want a refusal naming the other structure, got %+v\n%s", cs, h.log.String())
		}
		if h.fake.Branch(h.repo, demo.HeadBranch) != e {
			t.Error("swarm-gate committed after refusing")
		}
	})
	t.Run("the maintainer named G, the head is E", func(t *testing.T) {
		h, g, e, commented := setup(t)
		h.commentEventAt("maint", "/swarm approve-plan-critic "+g[:12]+" reviewed the plan", commented)
		forcePushBack(h, e, commented)
		h.run(context.Background(), nil)
		if cs := h.replies(); len(cs) != 1 || !strings.Contains(cs[0].Body, "you named commit `"+g[:12]+"`, but the pull request's head is "+e[:12]) {
			t.Fatalf("want a refusal naming both commits, got %+v", cs)
		}
	})
	t.Run("the maintainer named the head", func(t *testing.T) {
		h, _, e, commented := setup(t)
		forcePushBack(h, e, commented.Add(-2*time.Minute)) // E is the head before the comment
		h.commentEventAt("maint", "/swarm approve-plan-critic "+e[:9]+" reviewed this plan", commented)
		h.run(context.Background(), nil)
		if cs := h.replies(); len(cs) != 1 || !strings.Contains(cs[0].Body, `"head_sha":"`+e+`"`) {
			t.Fatalf("want the override bound to %s, got %+v\n%s", e[:12], cs, h.log.String())
		}
	})
	t.Run("the maintainer named G by a prefix E shares", func(t *testing.T) {
		// A 7-digit prefix names no commit for sure: whoever pushes can make
		// a benign and a hostile commit whose SHAs share one (a birthday
		// search of some 2^14 commits a side takes milliseconds).
		h, _, _, commented := setup(t)
		g, e := h.prefixTwins(h.fake.Branch(h.repo, demo.HeadBranch), h.head, 7)
		h.fake.ImportGit(h.repo, h.workspace)
		h.fake.Pushed(h.repo, e, commented.Add(-50*time.Second))
		h.fake.SetBranchAt(h.repo, demo.HeadBranch, g, commented.Add(-30*time.Second))
		h.commentEventAt("maint", "/swarm approve-plan-critic "+g[:7]+" reviewed the plan", commented)
		forcePushBack(h, e, commented)
		h.run(context.Background(), nil)
		cs := h.replies()
		if len(cs) != 1 || !strings.Contains(cs[0].Body, "whose plan has another structure") || strings.Contains(cs[0].Body, `"head_sha":"`) {
			t.Fatalf("want a refusal, got %+v\n%s", cs, h.log.String())
		}
	})
	t.Run("no change since the comment", func(t *testing.T) {
		h, g, _, commented := setup(t)
		h.commentEventAt("maint", "/swarm approve-plan-critic reviewed the plan", commented)
		h.run(context.Background(), nil)
		if cs := h.replies(); len(cs) != 1 || !strings.Contains(cs[0].Body, `"head_sha":"`+g+`"`) {
			t.Fatalf("want the override bound to G %s, got %+v\n%s", g[:12], cs, h.log.String())
		}
	})
	t.Run("E force-pushed back, then more pushes than the log read reaches", func(t *testing.T) {
		// Each a commit with E's plan (modelled as E -> E): the oldest change
		// read is not the first after the comment, so the state when the
		// maintainer commented is unknown (adversarial pass, 2026-12-03).
		h, _, e, commented := setup(t)
		h.commentEventAt("maint", "/swarm approve-plan-critic reviewed the plan", commented)
		forcePushBack(h, e, commented)
		for i := range 1000 {
			h.fake.RecordActivity(h.repo, ghfake.Activity{Branch: demo.HeadBranch, Before: e, After: e, At: commented.Add(2*time.Minute + time.Duration(i)*time.Second), Type: "push", Actor: "author"})
		}
		h.run(context.Background(), nil)
		cs := h.replies()
		// Under commands.allow_self_approval: false the pushers are read
		// from the same log first, and it does not reach the branch's
		// creation either.
		if len(cs) != 1 || !strings.Contains(cs[0].Body, "does not reach back to its creation (1000 changes read), so who pushed to it is unknown") || !strings.Contains(cs[0].Body, "push the head commit to a new branch and open a pull request from that branch") || !strings.Contains(cs[0].Body, "commands.allow_self_approval: true") || strings.Contains(cs[0].Body, `"head_sha":"`) {
			t.Fatalf("want a refusal, got %+v", cs)
		}
	})
	t.Run("activity unreadable", func(t *testing.T) {
		h, _, _, commented := setup(t)
		h.fake.Fail(ghfake.Fault{Operation: "repos/list-activities", Times: -1, Status: http.StatusForbidden, Body: `{"message":"Resource not accessible by integration"}`})
		h.commentEventAt("maint", "/swarm approve-plan-critic reviewed the plan", commented)
		h.run(context.Background(), nil)
		if cs := h.replies(); len(cs) != 1 || !strings.Contains(cs[0].Body, "could not read who authored, committed or pushed this pull request's commits") || !strings.Contains(cs[0].Body, "listing the activity of branch") {
			t.Fatalf("want a refusal that fails closed, got %+v", cs)
		}
	})
}

// prefixTwins writes a twin of commit g and one of commit e (the same
// trees and parents, other messages) whose SHAs share their first n hex
// digits, and returns their SHAs.
func (h *harness) prefixTwins(g, e string, n int) (string, string) {
	h.t.Helper()
	repo, err := git.PlainOpen(h.workspace)
	if err != nil {
		h.t.Fatal(err)
	}
	variant := func(sha string, i int) (plumbing.EncodedObject, string) {
		c, err := repo.CommitObject(plumbing.NewHash(sha))
		if err != nil {
			h.t.Fatal(err)
		}
		c.Message = fmt.Sprintf("%s\n\nnonce %d\n", c.Message, i)
		o := repo.Storer.NewEncodedObject()
		if err := c.Encode(o); err != nil {
			h.t.Fatal(err)
		}
		return o, o.Hash().String()
	}
	gs := map[string]int{}
	for i := range 1 << 15 {
		_, s := variant(g, i)
		gs[s[:n]] = i
	}
	for i := range 1 << 20 {
		eo, es := variant(e, i)
		if j, ok := gs[es[:n]]; ok {
			go_, gsha := variant(g, j)
			for _, o := range []plumbing.EncodedObject{go_, eo} {
				if _, err := repo.Storer.SetEncodedObject(o); err != nil {
					h.t.Fatal(err)
				}
			}
			return gsha, es
		}
	}
	h.t.Fatal("no prefix twins found")
	return "", ""
}
