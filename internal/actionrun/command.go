package actionrun

import (
	"context"
	"fmt"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/commands"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
)

// DefaultBotLogin is the login of the workflow's GITHUB_TOKEN.
const DefaultBotLogin = "github-actions[bot]"

// Reactions on a command comment.
const (
	reactReceived = "eyes"
	reactDone     = "+1"
	reactRefused  = "confused"
)

func (ses *session) botLogin() string {
	if ses.r.BotLogin != "" {
		return ses.r.BotLogin
	}
	return DefaultBotLogin
}

// overrides reads back the human overrides recorded on pull request
// number; none when there is no pull request or they cannot be read (the
// gates then fail closed where an override would have been needed).
func (ses *session) overrides(ctx context.Context, number int) []gates.Override {
	if number == 0 {
		return nil
	}
	if ses.api == nil {
		ses.warnf("swarm-gate: no token to read the human overrides recorded on pull request #%d; evaluating without them", number)
		return nil
	}
	list, err := ses.api.ListComments(ctx, ses.repo, number)
	if err != nil {
		ses.warnf("swarm-gate: reading the human overrides recorded on pull request #%d: %v; evaluating without them (give the workflow `permissions: pull-requests: read`)", number, err)
		return nil
	}
	out, notes := commands.ReadOverrides(toComments(list), ses.botLogin())
	for _, n := range notes {
		ses.noticef("swarm-gate: %s", n)
	}
	return out
}

func toComments(list []*ghapi.Comment) []commands.Comment {
	out := make([]commands.Comment, 0, len(list))
	for _, c := range list {
		out = append(out, commands.Comment{ID: c.ID, Author: c.Author, Body: c.Body, HTMLURL: c.HTMLURL, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt})
	}
	return out
}

// command handles an issue_comment event: a `/swarm` command in a newly
// created pull request comment. Every refusal is a reply that says why.
func (ses *session) command(ctx context.Context) (int, error) {
	ev := ses.ev
	switch {
	case ev.Comment == nil || ev.Issue == nil:
		ses.noticef("swarm-gate: the %s payload has no comment", ev.Name)
		return exitPassed, nil
	case ev.Action != "created":
		ses.noticef("swarm-gate: nothing to do for issue_comment %q: only newly created comments run commands (edits and deletions never change anything)", ev.Action)
		return exitPassed, nil
	case !ev.Issue.IsPullRequest():
		ses.noticef("swarm-gate: nothing to do: comment %d is on issue #%d, not on a pull request", ev.Comment.ID, ev.Issue.Number)
		return exitPassed, nil
	}
	cmd, perr := commands.Parse(ev.Comment.Body)
	if cmd == nil && perr == nil {
		ses.noticef("swarm-gate: nothing to do: comment %d holds no /swarm command", ev.Comment.ID)
		return exitPassed, nil
	}
	if ses.api == nil {
		return exitError, fmt.Errorf("cannot answer the /swarm command in comment %d: %v", ev.Comment.ID, ses.apiErr)
	}
	c := &cmdRun{ses: ses, number: ev.Issue.Number, commentID: ev.Comment.ID}
	c.react(ctx, reactReceived)
	if perr != nil {
		text := ev.Comment.Body
		if pe, ok := perr.(*commands.ParseError); ok && pe.Text != "" {
			text = pe.Text
		}
		return c.refuse(ctx, text, perr.Error())
	}
	return c.run(ctx, cmd)
}

// cmdRun is one command being answered.
type cmdRun struct {
	ses       *session
	number    int
	commentID int64
}

func (c *cmdRun) react(ctx context.Context, content string) {
	if err := c.ses.api.AddReaction(ctx, c.ses.repo, c.commentID, content); err != nil {
		c.ses.warnf("swarm-gate: %v", err)
	}
}

func (c *cmdRun) reply(ctx context.Context, body string) error {
	_, err := c.ses.api.CreateComment(ctx, c.ses.repo, c.number, body)
	return err
}

// refuse replies with the reason, quoting the command, and reacts 😕.
func (c *cmdRun) refuse(ctx context.Context, text, why string) (int, error) {
	c.react(ctx, reactRefused)
	actor := c.ses.ev.Comment.User.Login
	body := fmt.Sprintf("> %s\n\n@%s swarm-gate refused this command: %s", firstLine(text), actor, why)
	c.ses.noticef("swarm-gate: refused %q by @%s: %s", firstLine(text), actor, why)
	if err := c.reply(ctx, body); err != nil {
		return exitError, fmt.Errorf("replying to comment %d: %w", c.commentID, err)
	}
	return exitPassed, nil
}

func (c *cmdRun) run(ctx context.Context, cmd *commands.Command) (int, error) {
	ses, ev := c.ses, c.ses.ev
	pr, err := ses.api.PullRequest(ctx, ses.repo, c.number)
	if err != nil {
		return c.refuse(ctx, cmd.Text, fmt.Sprintf("swarm-gate could not read the pull request: %v", err))
	}
	if !ses.present(pr.BaseSHA, pr.HeadSHA) {
		return c.refuse(ctx, cmd.Text, fmt.Sprintf("the pull request's base %s and head %s are not both in the workflow's checkout, so swarm-gate cannot read the policy and the plan; check out with `fetch-depth: 0` and `ref: refs/pull/%d/head` (see the README's comment-command workflow)", short(pr.BaseSHA), short(pr.HeadSHA), c.number))
	}
	policy, err := pipeline.PolicyAt(ses.workspace, pr.BaseSHA, ses.s.Config)
	if err != nil {
		return c.refuse(ctx, cmd.Text, err.Error())
	}
	actor := commands.Actor{Login: ev.Comment.User.Login, Type: ev.Comment.User.Type}
	req := commands.Request{Command: cmd.Name, Actor: actor, PRAuthor: pr.Author, Policy: policy.Commands}
	if cmd.Name != commands.Help && !actor.IsBot() {
		req.Permission, req.PermissionErr = ses.api.Permission(ctx, ses.repo, actor.Login)
	}
	if d := commands.Authorize(req); !d.Allowed {
		return c.refuse(ctx, cmd.Text, d.Reason)
	}
	t := target{Base: pr.BaseSHA, Head: pr.HeadSHA, HeadBranch: pr.HeadRef, PostSHA: pr.HeadSHA, Kind: "pull_request",
		What: fmt.Sprintf("pull request #%d (/swarm %s)", c.number, cmd.Name), Fork: pr.HeadRepo != ses.repo.String(), PR: c.number}
	switch cmd.Name {
	case commands.Help:
		if err := c.reply(ctx, helpText(policy.Commands, ses.overrides(ctx, c.number))); err != nil {
			return exitError, fmt.Errorf("replying to comment %d: %w", c.commentID, err)
		}
		c.react(ctx, reactDone)
		return exitPassed, nil
	case commands.Recheck:
		code, err := ses.check(ctx, t)
		c.react(ctx, reactDone)
		return code, err
	}
	return c.record(ctx, cmd, t)
}

// record writes the override's marker comment (once per command comment)
// and re-evaluates the pull request with it.
func (c *cmdRun) record(ctx context.Context, cmd *commands.Command, t target) (int, error) {
	ses, ev := c.ses, c.ses.ev
	b, err := pipeline.BindingAt(ses.workspace, t.Base, t.Head, ses.s.Config)
	if err != nil {
		return c.refuse(ctx, cmd.Text, "swarm-gate cannot bind the override to the head plan: "+err.Error())
	}
	list, err := ses.api.ListComments(ctx, ses.repo, c.number)
	if err != nil {
		return c.refuse(ctx, cmd.Text, fmt.Sprintf("swarm-gate could not read the pull request's comments to record the override exactly once: %v", err))
	}
	if commands.Recorded(toComments(list), ses.botLogin(), c.commentID) {
		ses.noticef("swarm-gate: the override of comment %d is already recorded; nothing to do", c.commentID)
		c.react(ctx, reactDone)
		return exitPassed, nil
	}
	body, err := commands.RecordBody(commands.Record{Command: cmd.Name, Actor: ev.Comment.User.Login, Reason: cmd.Reason,
		RecordedAt: ev.Comment.CreatedAt, HeadSHA: b.HeadSHA, StructureHash: b.StructureHash,
		CommentID: c.commentID, CommentURL: ev.Comment.HTMLURL})
	if err != nil {
		return exitError, err
	}
	if err := c.reply(ctx, body); err != nil {
		c.react(ctx, reactRefused)
		return exitError, fmt.Errorf("recording the override of comment %d: %w", c.commentID, err)
	}
	c.react(ctx, reactDone)
	return ses.check(ctx, t)
}

// helpText lists the commands, who may run them, and the overrides in
// force.
func helpText(p gates.CommandsConfig, overrides []gates.Override) string {
	min := p.MinPermission
	if min == "" {
		min = gates.PermissionWrite
	}
	var b strings.Builder
	b.WriteString("**swarm-gate comment commands** (one per comment, at the start of a line):\n\n")
	b.WriteString("| command | what it does |\n|---|---|\n")
	fmt.Fprintf(&b, "| `/swarm approve-plan-critic <reason>` | records a human approval of the head plan (1 to %d characters of reason); a push that changes the plan's structure voids it |\n", commands.MaxReason)
	b.WriteString("| `/swarm acknowledge-spec-drift <reason>` | records that a human acknowledges the spec drift of the head plan |\n")
	b.WriteString("| `/swarm recheck` | re-evaluates the pull request now |\n| `/swarm help` | this list |\n\n")
	fmt.Fprintf(&b, "Who may run them: people (not bots) with %s permission on the repository or more (`commands.min_permission` in the base branch's policy); `help` is open to everyone.", min)
	if !p.AllowSelfApproval {
		b.WriteString(" The pull request's author cannot record overrides on it (`commands.allow_self_approval: false`).")
	}
	b.WriteString("\n\n")
	if len(overrides) == 0 {
		b.WriteString("Overrides recorded on this pull request: none.\n")
	} else {
		b.WriteString("Overrides recorded on this pull request (each counts only while the head plan has its structure hash):\n\n")
		for _, o := range overrides {
			fmt.Fprintf(&b, "- `/swarm %s` by @%s at %s, structure hash %s: %s\n", o.Command, o.Actor, o.RecordedAt, short(o.StructureHash), o.Reason)
		}
	}
	return b.String()
}
