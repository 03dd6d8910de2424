package actionrun_test

import (
	"context"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
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
