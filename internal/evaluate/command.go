package evaluate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/commands"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/report"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// errNoCommandAPI is why a command cannot read what it needs: there is no
// client (no token).
var errNoCommandAPI = errors.New("there is no GitHub client to read team memberships, check runs, check suites, comments by id or git data")

// DefaultBotLogin is the login of the workflow's GITHUB_TOKEN.
const DefaultBotLogin = "github-actions[bot]"

// Reactions on a command comment.
const (
	reactReceived = "eyes"
	reactDone     = "+1"
	reactRefused  = "confused"
)

// Conversation is what a run knows of its pull requests' conversations:
// the identity its own comments are posted as, each pull request's
// comments (listed once per run, plus those the run posted), the pull
// requests and permissions read, and the pull request of the summary
// comment. One per run (the Action's step, the App's job).
type Conversation struct {
	// BotLogin is the login swarm-gate's records and replies are expected
	// from ("": DefaultBotLogin).
	BotLogin string
	// AppID is the GitHub App swarm-gate runs as (the App's
	// SWARM_GATE_APP_ID); 0 means the App whose bot is the bot login
	// (github-actions for a workflow's GITHUB_TOKEN). `/swarm help` shows
	// only that App's check runs.
	AppID int64
	// RunURL is the workflow run's page; "" (the App) makes the summary
	// comment the check runs' details_url.
	RunURL string
	// CommentReport names where the whole report is, for the last line of
	// a cut summary comment ("": the check runs linked above).
	CommentReport string

	// pr is the pull request the summary comment goes on (0: none).
	pr int
	// posted is the login GitHub gave the comments this run created (""
	// until it creates one); warned is set once the mismatch with the
	// configured login was reported.
	posted string
	warned bool
	lists  map[int][]commands.Comment
	pulls  map[int]*ghapi.PullRequest
	perms  map[string]permissionRead
}

type permissionRead struct {
	p   ghapi.Permission
	err error
}

// thread is a Conversation with what its requests need: the deps and the
// settings of the run.
type thread struct {
	*Deps
	s Settings
	c *Conversation
}

// thread is d's conversation (a new one when d has none) for settings s.
func (d *Deps) thread(s Settings) *thread {
	if d.Conversation == nil {
		d.Conversation = &Conversation{}
	}
	return &thread{Deps: d, s: s, c: d.Conversation}
}

// check evaluates t for a command and has the front door report it
// (Deps.Checked, else Result.Verdict).
func (th *thread) check(ctx context.Context, t event.Target) (int, error) {
	res, err := Check(ctx, th.Deps, th.s, t)
	return th.reported(res, err, t)
}

// configuredBot is the login swarm-gate's records are expected from:
// Conversation.BotLogin, else DefaultBotLogin.
func (th *thread) configuredBot() string {
	if th.c.BotLogin != "" {
		return th.c.BotLogin
	}
	return DefaultBotLogin
}

// botLogin is the only author whose records and replies are read back: the
// login this run's own comments were posted as once it posted one, else
// configuredBot.
func (th *thread) botLogin() string {
	if th.c.posted != "" {
		return th.c.posted
	}
	return th.configuredBot()
}

// comments lists pull request number's comments once per run.
func (th *thread) comments(ctx context.Context, number int) ([]commands.Comment, error) {
	if list, ok := th.c.lists[number]; ok {
		return list, nil
	}
	list, err := th.API.ListComments(ctx, th.Repo, number)
	if err != nil {
		return nil, err
	}
	if th.c.lists == nil {
		th.c.lists = map[int][]commands.Comment{}
	}
	th.c.lists[number] = toComments(list)
	return th.c.lists[number], nil
}

// createComment posts a comment on pull request number and remembers it:
// it joins the run's list of the pull request's comments, and the login
// GitHub reports as its author is the one trusted for the rest of the run
// (with a warning, once, when it is not the configured bot-login: records
// posted now would not be read back by the next run).
func (th *thread) createComment(ctx context.Context, number int, body string) error {
	c, err := th.API.CreateComment(ctx, th.Repo, number, body)
	if err != nil {
		return err
	}
	if c == nil {
		return nil
	}
	if c.Author != "" && !strings.EqualFold(c.Author, th.botLogin()) {
		if !th.c.warned && !strings.EqualFold(c.Author, th.configuredBot()) {
			th.c.warned = true
			th.warnf("swarm-gate: the token posts comments as @%s, but swarm-gate reads back override records only from @%s (the bot-login input); this run trusts @%s, later runs will not: set `bot-login: %s`", c.Author, th.configuredBot(), c.Author, c.Author)
		}
		th.c.posted = c.Author
	}
	if list, ok := th.c.lists[number]; ok {
		th.c.lists[number] = append(list, toComments([]*ghapi.Comment{c})...)
	}
	return nil
}

// permission reads user's permission once per run.
func (th *thread) permission(ctx context.Context, user string) (ghapi.Permission, error) {
	key := strings.ToLower(user)
	if r, ok := th.c.perms[key]; ok {
		return r.p, r.err
	}
	p, err := th.API.Permission(ctx, th.Repo, user)
	if th.c.perms == nil {
		th.c.perms = map[string]permissionRead{}
	}
	th.c.perms[key] = permissionRead{p, err}
	return p, err
}

// pullRequest reads pull request number once per run.
func (th *thread) pullRequest(ctx context.Context, number int) (*ghapi.PullRequest, error) {
	if pr, ok := th.c.pulls[number]; ok {
		return pr, nil
	}
	pr, err := th.API.PullRequest(ctx, th.Repo, number)
	if err != nil {
		return nil, err
	}
	if th.c.pulls == nil {
		th.c.pulls = map[int]*ghapi.PullRequest{}
	}
	th.c.pulls[number] = pr
	return pr, nil
}

// overrides reads back the human overrides recorded on the target's pull
// request and keeps those that still hold (commands.VerifyOverrides: the
// command comment, its author's permission now, the marker's head in the
// checkout, and when GitHub first saw that head); none when there is no
// pull request or they cannot be read or verified (the gates then fail
// closed where an override would have been needed). Each marker ignored
// gets a notice saying why.
func (th *thread) overrides(ctx context.Context, t event.Target) []gates.Override {
	number := max(t.PR, t.QueuedPR)
	if number == 0 {
		return nil
	}
	if th.API == nil {
		th.warnf("swarm-gate: no token to read the human overrides recorded on pull request #%d; evaluating without them", number)
		return nil
	}
	list, err := th.comments(ctx, number)
	if err != nil {
		th.warnf("swarm-gate: reading the human overrides recorded on pull request #%d: %v; evaluating without them%s", number, err, PermissionHint(err, "pull-requests: read"))
		return nil
	}
	markers, notes := commands.ReadMarkers(list, th.botLogin())
	for _, n := range notes {
		th.noticef("swarm-gate: %s", n)
	}
	if len(markers) == 0 {
		return nil
	}
	ev, pull, err := th.evidence(ctx, number, t)
	if err != nil {
		th.warnf("swarm-gate: cannot verify the %d override record(s) on pull request #%d: %v; evaluating without them", len(markers), number, err)
		return nil
	}
	out, notes := commands.VerifyOverrides(ctx, markers, pull, ev)
	for _, n := range notes {
		th.noticef("swarm-gate: %s", n)
	}
	return out
}

// evidence is what verifying the target's override records reads: the
// pull request (its author), the base's commands policy, and the head's
// history in the checkout.
func (th *thread) evidence(ctx context.Context, number int, t event.Target) (*evidence, commands.Pull, error) {
	capi := th.API
	if capi == nil {
		return nil, commands.Pull{}, errNoCommandAPI
	}
	pr, err := th.pullRequest(ctx, number)
	if err != nil {
		return nil, commands.Pull{}, fmt.Errorf("reading the pull request's author: %w", err)
	}
	policy, err := pipeline.PolicyAt(ctx, th.Checkout.Dir, t.Base, th.s.Config, th.Checkout.OrgPolicy)
	if err != nil {
		return nil, commands.Pull{}, err
	}
	hist, err := pipeline.OpenHistory(th.Checkout.Dir, t.Head)
	if err != nil {
		return nil, commands.Pull{}, err
	}
	return &evidence{th: th, capi: capi, hist: hist, pr: pr, seen: map[string]firstSeen{}}, commands.Pull{Number: number, Author: pr.Author, Policy: policy.Commands}, nil
}

// evidence implements commands.Evidence for one evaluation.
type evidence struct {
	th   *thread
	capi API
	hist *pipeline.History
	pr   *ghapi.PullRequest
	seen map[string]firstSeen // FirstSeen's reads, by SHA
}

type firstSeen struct {
	at  time.Time
	err error
}

func (e *evidence) CommandComment(ctx context.Context, id int64) (*commands.SourceComment, error) {
	c, err := e.capi.IssueComment(ctx, e.th.Repo, id)
	if err != nil {
		return nil, err
	}
	return &commands.SourceComment{Comment: toComments([]*ghapi.Comment{c})[0], AuthorType: c.AuthorType, Issue: c.Issue}, nil
}

func (e *evidence) Permission(ctx context.Context, login string) (ghapi.Permission, error) {
	return e.th.permission(ctx, login)
}

func (e *evidence) Teams(ctx context.Context, teams []string, login string) []commands.TeamCheck {
	return e.th.teamChecks(ctx, teams, login)
}

func (e *evidence) Commit(sha string) (*commands.MarkedCommit, error) {
	mc, err := e.hist.Commit(sha)
	if err != nil {
		return nil, err
	}
	return &commands.MarkedCommit{InHistory: mc.InHistory, StructureHash: mc.StructureHash, PlanErr: mc.PlanErr, SpecStaleness: mc.SpecStaleness}, nil
}

// Contributors lists who authored or committed the pull request's
// commits.
func (e *evidence) Contributors(ctx context.Context) ([]string, error) {
	return contributors(ctx, e.capi, e.th.Repo, e.pr)
}

// contributors are the logins that authored or committed pr's commits and,
// for a head branch in the base repository, every login that ever pushed to
// it (the branch's activity log, read to its creation): a pusher chooses the
// commits' emails, so the commits alone need not name them. A fork's
// activity is not readable with the base repository's token; its commits
// are what GitHub vouches for. Fails when either list may be incomplete.
func contributors(ctx context.Context, api Contents, repo ghapi.Repo, pr *ghapi.PullRequest) ([]string, error) {
	logins, err := api.PullRequestContributors(ctx, repo, pr.Number)
	if err != nil || pr.HeadRepo != repo.String() {
		return logins, err
	}
	if pr.HeadRef == "" {
		return nil, fmt.Errorf("pull request #%d names no head branch, so who pushed to it is unknown", pr.Number)
	}
	changes, _, err := api.BranchActivity(ctx, repo, pr.HeadRef, time.Time{})
	if err != nil {
		return nil, err
	}
	if len(changes) == 0 || changes[len(changes)-1].Type != "branch_creation" {
		return nil, fmt.Errorf("GitHub's activity log of branch %s does not reach back to its creation (%d changes read), so who pushed to it is unknown. %s", pr.HeadRef, len(changes), freshBranchHint)
	}
	for _, c := range changes {
		if c.Actor != "" && !slices.ContainsFunc(logins, func(l string) bool { return strings.EqualFold(l, c.Actor) }) {
			logins = append(logins, c.Actor)
		}
	}
	return logins, nil
}

// freshBranchHint tells a maintainer refused for a branch log that does not
// reach its creation (a long-lived branch) how to record the override.
const freshBranchHint = "To record it, have someone who will not approve it push the head commit to a new branch and open a pull request from that branch (swarm-gate reads a new branch's log in full), then comment the command there; `commands.allow_self_approval: true` in the base branch's policy stops reading who pushed, for every pull request"

// FirstSeen reads the earliest created_at of sha's check suites, once per
// SHA.
func (e *evidence) FirstSeen(ctx context.Context, sha string) (time.Time, error) {
	r, ok := e.seen[sha]
	if !ok {
		r.at, r.err = e.capi.FirstCheckSuite(ctx, e.th.Repo, sha)
		e.seen[sha] = r
	}
	return r.at, r.err
}

func toComments(list []*ghapi.Comment) []commands.Comment {
	out := make([]commands.Comment, 0, len(list))
	for _, c := range list {
		out = append(out, commands.Comment{ID: c.ID, Author: c.Author, Body: c.Body, HTMLURL: c.HTMLURL, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt})
	}
	return out
}

// Command handles an issue_comment event ev: a `/swarm` command in a
// newly created pull request comment, run with s. Every refusal is a
// reply that says why; a command already answered (a redelivery) is
// neither answered nor run again. It returns the exit code (report.Exit*)
// and why it could not answer or report (nil: it did).
func Command(ctx context.Context, d *Deps, s Settings, ev *actions.Event) (int, error) {
	return d.thread(s).command(ctx, ev)
}

func (th *thread) command(ctx context.Context, ev *actions.Event) (int, error) {
	switch {
	case ev.Comment == nil || ev.Issue == nil:
		th.noticef("swarm-gate: the %s payload has no comment", ev.Name)
		return report.ExitPassed, nil
	case ev.Action != "created":
		th.noticef("swarm-gate: nothing to do for issue_comment %q: only newly created comments run commands (edits and deletions never change anything)", ev.Action)
		return report.ExitPassed, nil
	case !ev.Issue.IsPullRequest():
		th.noticef("swarm-gate: nothing to do: comment %d is on issue #%d, not on a pull request", ev.Comment.ID, ev.Issue.Number)
		return report.ExitPassed, nil
	case strings.EqualFold(ev.Comment.User.Login, th.botLogin()):
		th.noticef("swarm-gate: nothing to do: comment %d is swarm-gate's own (@%s)", ev.Comment.ID, ev.Comment.User.Login)
		return report.ExitPassed, nil
	}
	cmd, perr := commands.Parse(ev.Comment.Body)
	if cmd == nil && perr == nil {
		th.noticef("swarm-gate: nothing to do: comment %d holds no /swarm command", ev.Comment.ID)
		return report.ExitPassed, nil
	}
	if th.API == nil {
		return report.ExitError, fmt.Errorf("cannot answer the /swarm command in comment %d: %v", ev.Comment.ID, th.NoAPI)
	}
	c := &cmdRun{th: th, ev: ev, number: ev.Issue.Number, commentID: ev.Comment.ID}
	list, err := th.comments(ctx, c.number)
	switch {
	case err != nil:
		c.listErr = err
		th.warnf("swarm-gate: cannot tell whether comment %d was already answered: %v", c.commentID, err)
	case commands.Replied(list, th.botLogin(), c.commentID):
		th.noticef("swarm-gate: comment %d was already answered (a redelivered event); nothing to do", c.commentID)
		return report.ExitPassed, nil
	}
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
	th        *thread
	ev        *actions.Event
	number    int
	commentID int64
	pr        *ghapi.PullRequest // as read when the command was handled
	listErr   error              // the pull request's comments could not be listed
}

func (c *cmdRun) react(ctx context.Context, content string) {
	if err := c.th.API.AddReaction(ctx, c.th.Repo, c.commentID, content); err != nil {
		c.th.warnf("swarm-gate: %v", err)
	}
}

// reply posts body as a reply to the command, ending with the hidden
// marker that names the command comment (commands.ReplyMarker).
func (c *cmdRun) reply(ctx context.Context, body string) error {
	if m := commands.ReplyMarker(c.commentID); !strings.Contains(body, m) {
		body = strings.TrimRight(body, "\n") + "\n\n" + m + "\n"
	}
	return c.th.createComment(ctx, c.number, body)
}

// refuse replies with the reason, quoting the command (escaped, so that
// nobody it mentions is notified again), and reacts 😕.
func (c *cmdRun) refuse(ctx context.Context, text, why string) (int, error) {
	c.react(ctx, reactRefused)
	actor := c.ev.Comment.User.Login
	body := fmt.Sprintf("> %s\n\n@%s swarm-gate refused this command: %s", mdtext.Inline(mdtext.FirstLine(text)), actor, why)
	c.th.noticef("swarm-gate: refused %q by @%s: %s", mdtext.FirstLine(text), actor, why)
	if err := c.reply(ctx, body); err != nil {
		return report.ExitError, fmt.Errorf("replying to comment %d: %w", c.commentID, err)
	}
	return report.ExitPassed, nil
}

func (c *cmdRun) run(ctx context.Context, cmd *commands.Command) (int, error) {
	th, ev := c.th, c.ev
	pr, err := th.pullRequest(ctx, c.number)
	if err != nil {
		return c.refuse(ctx, cmd.Text, "swarm-gate could not read the pull request: "+ghapi.Brief(err))
	}
	c.pr = pr
	if pr.State == "closed" {
		why := "the pull request is closed"
		if pr.Merged {
			why += " (merged)"
		}
		return c.refuse(ctx, cmd.Text, why+"; swarm-gate runs commands only on open pull requests")
	}
	if !Present(th.Checkout.Dir, pr.BaseSHA, pr.HeadSHA) {
		if th.Checkout.SourceError != nil {
			// The App could not fetch the commits: say why, not how to
			// write a workflow.
			return c.refuse(ctx, cmd.Text, fmt.Sprintf("swarm-gate could not read the pull request's commits: %v", th.Checkout.SourceError))
		}
		return c.refuse(ctx, cmd.Text, fmt.Sprintf("the pull request's base %s and head %s are not both in the workflow's checkout, so swarm-gate cannot read the policy and the plan; check out with `fetch-depth: 0` and `ref: refs/pull/%d/head` (see the README's comment-command workflow)", gitsha.Short(pr.BaseSHA), gitsha.Short(pr.HeadSHA), c.number))
	}
	policy, err := pipeline.PolicyAt(ctx, th.Checkout.Dir, pr.BaseSHA, th.s.Config, th.Checkout.OrgPolicy)
	if err != nil {
		return c.refuse(ctx, cmd.Text, err.Error())
	}
	actor := commands.Actor{Login: ev.Comment.User.Login, Type: ev.Comment.User.Type}
	req := commands.Request{Command: cmd.Name, Actor: actor, PRAuthor: pr.Author, Policy: policy.Commands}
	if cmd.Name != commands.Help && !actor.IsBot() {
		req.Permission, req.PermissionErr = th.permission(ctx, actor.Login)
		if teams := policy.Commands.Teams; len(teams) > 0 && req.PermissionErr == nil {
			req.Teams = th.teamChecks(ctx, teams, actor.Login)
		}
	}
	if req.NeedsContributors() {
		req.Contributors, req.ContributorsErr = contributors(ctx, th.API, th.Repo, pr)
	}
	if d := commands.Authorize(req); !d.Allowed {
		return c.refuse(ctx, cmd.Text, d.Reason)
	}
	t := event.Target{Base: pr.BaseSHA, Head: pr.HeadSHA, HeadBranch: pr.HeadRef, PostSHA: pr.HeadSHA, Kind: "pull_request",
		What: fmt.Sprintf("pull request #%d (/swarm %s)", c.number, cmd.Name), Fork: pr.HeadRepo != th.Repo.String(), PR: c.number}
	switch cmd.Name {
	case commands.Help:
		if err := c.reply(ctx, helpText(policy.Commands, th.overrides(ctx, t), th.gateStates(ctx, pr.HeadSHA))); err != nil {
			return report.ExitError, fmt.Errorf("replying to comment %d: %w", c.commentID, err)
		}
		c.react(ctx, reactDone)
		return report.ExitPassed, nil
	case commands.Recheck:
		code, err := th.check(ctx, t)
		c.react(ctx, reactDone)
		if rerr := c.reply(ctx, recheckText(actor.Login, pr.HeadSHA, code, err)); rerr != nil {
			th.warnf("swarm-gate: replying to comment %d: %v", c.commentID, rerr)
		}
		return code, err
	}
	return c.record(ctx, cmd, t)
}

// recheckText is the reply to `/swarm recheck`: which head was evaluated
// and the verdict, by the step's exit code.
func recheckText(actor, head string, code int, err error) string {
	verdict := "the checks passed"
	switch {
	case err != nil || code >= report.ExitError:
		verdict = "it could not evaluate or report everything; the checks say why"
	case code == report.ExitFailed:
		verdict = "a check failed; the checks say which"
	}
	return fmt.Sprintf("swarm-gate re-evaluated head %s for @%s (`/swarm recheck`): %s.", mdtext.Code(gitsha.Short(head)), actor, verdict)
}

// record records the override, once GitHub is known to have seen the head
// it binds to by the time of the comment (seenBefore): for /swarm
// approve-plan-critic, first the plugin's own record committed to the pull
// request's branch (commands.CommitApproval) when it can push there; then,
// always, swarm-gate's marker comment, which says what was committed or
// why nothing was (once per command comment); then it evaluates the pull request's head: the new
// commit when there is one (a push made with a workflow's GITHUB_TOKEN
// starts no workflow run, so nothing else would check it).
func (c *cmdRun) record(ctx context.Context, cmd *commands.Command, t event.Target) (int, error) {
	th, ev := c.th, c.ev
	b, err := pipeline.BindingAt(ctx, th.Checkout.Dir, t.Base, t.Head, th.s.Config, th.Checkout.OrgPolicy)
	if err != nil {
		return c.refuse(ctx, cmd.Text, "swarm-gate cannot bind the override to the head plan: "+err.Error())
	}
	commented, err := time.Parse(time.RFC3339, ev.Comment.CreatedAt)
	if err != nil {
		return c.refuse(ctx, cmd.Text, fmt.Sprintf("the event gives no valid time for comment %d (created_at %q), so swarm-gate cannot tell which head it saw", c.commentID, ev.Comment.CreatedAt))
	}
	if why := c.seenBefore(ctx, b.HeadSHA, commented); why != "" {
		return c.refuse(ctx, cmd.Text, why)
	}
	if why := c.headUnchanged(ctx, cmd, b, commented); why != "" {
		return c.refuse(ctx, cmd.Text, why)
	}
	if cmd.Name == commands.AcknowledgeSpecDrift {
		switch {
		case !b.SpecStale:
			return c.refuse(ctx, cmd.Text, fmt.Sprintf("nothing to acknowledge: at head %s the plan's specHash matches `.swarm/spec.md` (or the plan records none and there is no `.swarm/spec-staleness.json`), so the plan has no spec drift", gitsha.Short(b.HeadSHA)))
		case b.SpecStaleness == "":
			return c.refuse(ctx, cmd.Text, fmt.Sprintf("swarm-gate cannot read `.swarm/spec.md` or `.swarm/spec-staleness.json` at head %s, so it cannot tell which drift the acknowledgment is for", gitsha.Short(b.HeadSHA)))
		}
	}
	if c.listErr != nil {
		return c.refuse(ctx, cmd.Text, "swarm-gate could not read the pull request's comments to record the override exactly once: "+ghapi.Brief(c.listErr))
	}
	list, err := th.comments(ctx, c.number)
	if err != nil {
		return c.refuse(ctx, cmd.Text, "swarm-gate could not read the pull request's comments to record the override exactly once: "+ghapi.Brief(err))
	}
	if commands.Recorded(list, th.botLogin(), c.commentID) {
		th.noticef("swarm-gate: the override of comment %d is already recorded; nothing to do", c.commentID)
		c.react(ctx, reactDone)
		return report.ExitPassed, nil
	}
	if why := commandStands(list, c.commentID, ev.Comment.Body); why != "" {
		return c.refuse(ctx, cmd.Text, why)
	}
	var durable string
	var committed *commands.Committed
	if cmd.Name == commands.ApprovePlanCritic {
		committed, durable = c.commitApproval(ctx, cmd, t, b, commented)
	} else {
		durable = "This comment is the acknowledgment's only record: the plugin's own `/swarm acknowledge-spec-drift` is not an append (it deletes `.swarm/spec-staleness.json` and re-saves the plan with a new `specHash`), which swarm-gate does not do on the agent's branch."
	}
	rec := commands.Record{Command: cmd.Name, Actor: ev.Comment.User.Login, Reason: cmd.Reason,
		RecordedAt: commented.UTC().Format(time.RFC3339), HeadSHA: b.HeadSHA, StructureHash: b.StructureHash,
		CommentID: c.commentID, CommentURL: ev.Comment.HTMLURL}
	if cmd.Name == commands.AcknowledgeSpecDrift {
		rec.SpecStaleness = b.SpecStaleness
	}
	body, err := commands.RecordReply(rec, durable)
	if err != nil {
		return report.ExitError, err
	}
	if err := c.reply(ctx, body); err != nil {
		c.react(ctx, reactRefused)
		return report.ExitError, fmt.Errorf("recording the override of comment %d: %w", c.commentID, err)
	}
	c.react(ctx, reactDone)
	if committed != nil && committed.Commit != nil {
		return th.check(ctx, th.newHead(t, committed))
	}
	return th.check(ctx, t)
}

// commandStands says why comment id, as the pull request's comments list
// it while the command is handled, no longer says body, what the event
// delivered ("" when it does): the event is a copy made when the comment
// was posted, and a maintainer who deleted or edited the comment since
// has retracted the command (its marker would be void at once, but the
// plugin's record would already be on the agent's branch).
func commandStands(list []commands.Comment, id int64, body string) string {
	for _, c := range list {
		if c.ID == id {
			if c.Body != body {
				return fmt.Sprintf("comment %d was edited before swarm-gate handled it, so the override is not recorded: a command runs only as it was posted; post a new comment with the command", id)
			}
			return ""
		}
	}
	return fmt.Sprintf("comment %d was deleted before swarm-gate handled it, so the override is not recorded", id)
}

// seenBefore says why the command comment, posted at commented, cannot be
// shown to have seen head ("" when it can): the rule VerifyOverrides
// applies to the marker later. GitHub must have first seen the head (the
// earliest created_at of its check suites, a time the pusher does not
// choose) no later than the comment; a head with no check suite yet, or
// whose suites cannot be read, is refused (fail closed). The committer
// time is not consulted: the pusher chooses it, and a fast clock would
// only refuse honest commands.
func (c *cmdRun) seenBefore(ctx context.Context, head string, commented time.Time) string {
	capi := c.th.API
	if capi == nil {
		return fmt.Sprintf("swarm-gate cannot tell when GitHub first saw head %s: %v", gitsha.Short(head), errNoCommandAPI)
	}
	first, err := capi.FirstCheckSuite(ctx, c.th.Repo, head)
	switch {
	case err != nil:
		return fmt.Sprintf("swarm-gate could not read when GitHub first saw head %s: %s; comment again", gitsha.Short(head), ghapi.Brief(err))
	case first.IsZero():
		return fmt.Sprintf("GitHub has no check suite for head %s yet, so swarm-gate cannot tell whether it was there when you commented; wait for its checks to start and comment again", gitsha.Short(head))
	case first.After(commented):
		// The person wrote the command before this head reached GitHub:
		// the approval would bind to a plan they did not see.
		return fmt.Sprintf("GitHub had not registered head %s when you commented (its first check suite is from %s, after your comment at %s), so swarm-gate cannot tell that you saw it; check the plan at that head and comment again",
			gitsha.Short(head), first.UTC().Format(time.RFC3339), commented.UTC().Format(time.RFC3339))
	}
	return ""
}

// headUnchanged binds an override to a plan the person could have seen
// (issue 20 item 1). It is "" when the command names the head commit
// in full (cmd.SHA, all of head), or when GitHub's activity log of the head
// branch shows that every commit the branch pointed at from the comment's
// second on (the one it was at then, and each it moved to since, away and
// back included) holds a plan of the bound structure: the person saw that
// structure whichever of them they looked at, and the override binds to a
// structure. Otherwise, and when the log or a plan cannot be read, it says
// why the override is refused.
func (c *cmdRun) headUnchanged(ctx context.Context, cmd *commands.Command, b *pipeline.Binding, commented time.Time) string {
	head := b.HeadSHA
	name := fmt.Sprintf("check the plan at head %s and comment again naming it in full: `/swarm %s %s <reason>`", gitsha.Short(head), cmd.Name, head)
	if cmd.SHA != "" {
		if !strings.HasPrefix(head, cmd.SHA) {
			return fmt.Sprintf("you named commit %s, but the pull request's head is %s; %s", mdtext.Code(cmd.SHA), gitsha.Short(head), name)
		}
		if len(cmd.SHA) == len(head) {
			return ""
		}
		// A prefix may name two commits: a pusher can make a benign and a
		// hostile commit share one, so the branch's log must show it too.
	}
	capi := c.th.API
	if capi == nil {
		return "swarm-gate cannot read the head branch's history: " + errNoCommandAPI.Error()
	}
	repo, err := ghapi.ParseRepo(c.pr.HeadRepo)
	if err != nil || c.pr.HeadRef == "" {
		return fmt.Sprintf("swarm-gate cannot tell which branch is the pull request's head (%q, %q), so it cannot tell which plan you saw; %s", c.pr.HeadRepo, c.pr.HeadRef, name)
	}
	branch := mdtext.Code(c.pr.HeadRef)
	changes, before, err := capi.BranchActivity(ctx, repo, c.pr.HeadRef, commented)
	if err != nil {
		return fmt.Sprintf("swarm-gate could not read the activity of branch %s to tell which plan you saw: %s; %s", branch, ghapi.Brief(err), name)
	}
	type state struct {
		sha, when string
	}
	var states []state
	switch {
	case len(changes) > 0 && before == nil && changes[len(changes)-1].Type != "branch_creation":
		// The log was read to its end or to the page limit without a change
		// before the comment: what the branch held then is unknown (the
		// oldest change read is not the first since the comment).
		return fmt.Sprintf("GitHub's activity log of branch %s does not reach back to your comment (%d changes since were read), so swarm-gate cannot tell which plan you saw; %s", branch, len(changes), name)
	case len(changes) > 0:
		// Newest first: the oldest change's Before is where the branch was
		// when the comment's second began.
		oldest := changes[len(changes)-1]
		states = append(states, state{oldest.Before, "when you commented"})
		for i := len(changes) - 1; i >= 0; i-- {
			states = append(states, state{changes[i].After, fmt.Sprintf("after a %s at %s", strings.ReplaceAll(changes[i].Type, "_", " "), changes[i].At.Format(time.RFC3339))})
		}
	case before == nil:
		return fmt.Sprintf("GitHub's activity log of branch %s does not reach back to your comment, so swarm-gate cannot tell which plan you saw; %s", branch, name)
	default:
		states = append(states, state{before.After, "when you commented"})
	}
	// An acknowledgment binds to the drift too: every state must hold the
	// head's spec files and plan specHash as well.
	ack := cmd.Name == commands.AcknowledgeSpecDrift
	headSpec := "" // read when another state needs it
	seen := map[string]bool{head: true}
	for _, st := range states {
		if seen[st.sha] {
			continue
		}
		seen[st.sha] = true
		if strings.Trim(st.sha, "0") == "" {
			return fmt.Sprintf("branch %s did not exist %s, so swarm-gate cannot tell which plan you saw; %s", branch, st.when, name)
		}
		structure, why := c.structureAt(ctx, capi, repo, st.sha)
		switch {
		case why != "":
			return fmt.Sprintf("branch %s was at %s %s, and %s; %s", branch, gitsha.Short(st.sha), st.when, why, name)
		case structure != b.StructureHash:
			return fmt.Sprintf("branch %s was at %s %s, whose plan has another structure (hash %s, the head's is %s), so swarm-gate cannot tell that you saw the plan it would bind to; %s",
				branch, gitsha.Short(st.sha), st.when, planhash.Short(structure), planhash.Short(b.StructureHash), name)
		}
		if ack && headSpec == "" {
			var why string
			if headSpec, why = c.specAt(ctx, capi, repo, head); why != "" {
				return fmt.Sprintf("swarm-gate could not read the spec drift at head %s: %s; %s", gitsha.Short(head), why, name)
			}
		}
		if ack {
			spec, why := c.specAt(ctx, capi, repo, st.sha)
			switch {
			case why != "":
				return fmt.Sprintf("branch %s was at %s %s, and %s; %s", branch, gitsha.Short(st.sha), st.when, why, name)
			case spec != headSpec:
				return fmt.Sprintf("branch %s was at %s %s, whose spec drift differs from the head's (%s, %s or the plan's specHash), so swarm-gate cannot tell that you saw the drift it would acknowledge; %s",
					branch, gitsha.Short(st.sha), st.when, mdtext.Code(swarm.SpecPath), mdtext.Code(swarm.SpecStalenessPath), name)
			}
		}
	}
	return ""
}

// structureAt is the structure hash of the plan in commit sha of repo, or
// why it cannot be had.
func (c *cmdRun) structureAt(ctx context.Context, capi API, repo ghapi.Repo, sha string) (string, string) {
	data, ok, err := capi.FileAt(ctx, repo, swarm.PlanPath, sha)
	switch {
	case err != nil:
		return "", "swarm-gate could not read its " + swarm.PlanPath + ": " + ghapi.Brief(err)
	case !ok:
		return "", "it has no " + swarm.PlanPath
	}
	plan, err := swarm.ParsePlan(swarm.PlanPath, data)
	if err != nil {
		return "", "its plan cannot be read: " + err.Error()
	}
	return plan.Digests.Structure, ""
}

// specAt is what the spec drift of commit sha of repo is made of (the
// plan's specHash, spec.md and spec-staleness.json), or why it cannot be
// had.
func (c *cmdRun) specAt(ctx context.Context, capi API, repo ghapi.Repo, sha string) (string, string) {
	h := sha256.New()
	for _, p := range []string{swarm.PlanPath, swarm.SpecPath, swarm.SpecStalenessPath} {
		data, ok, err := capi.FileAt(ctx, repo, p, sha)
		if err != nil {
			return "", "swarm-gate could not read its " + p + ": " + ghapi.Brief(err)
		}
		if p == swarm.PlanPath {
			if !ok {
				return "", "it has no " + swarm.PlanPath
			}
			plan, err := swarm.ParsePlan(swarm.PlanPath, data)
			if err != nil {
				return "", "its plan cannot be read: " + err.Error()
			}
			data = []byte(plan.SpecHashKind + ":" + plan.SpecHash)
		}
		fmt.Fprintf(h, "%s %t %d\n", p, ok, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), ""
}

// commitApproval commits the plugin's approval record to the pull
// request's branch and returns it (nil when nothing was committed) with
// the sentence for the reply.
func (c *cmdRun) commitApproval(ctx context.Context, cmd *commands.Command, t event.Target, b *pipeline.Binding, at time.Time) (*commands.Committed, string) {
	th, ev := c.th, c.ev
	const onlyRecord = " This comment is the approval's record: swarm/plan-freeze reads it, but the agent's plugin does not, so the agent's own dispatch gate may still ask for an approval in its session."
	capi := th.API
	if capi == nil {
		return nil, "Not committed to the branch: " + errNoCommandAPI.Error() + "." + onlyRecord
	}
	pr := c.pr
	res, err := commands.CommitApproval(ctx, capi, commands.ApprovalCommit{Repo: th.Repo, HeadRepo: pr.HeadRepo, HeadRef: pr.HeadRef, HeadSHA: b.HeadSHA,
		StructureHash: b.StructureHash, Actor: ev.Comment.User.Login, Reason: cmd.Reason, CommentID: c.commentID, CommentURL: ev.Comment.HTMLURL, CommentedAt: at})
	if err != nil {
		th.noticef("swarm-gate: the approval of comment %d is recorded by swarm-gate's comment only: %v", c.commentID, err)
		return nil, "Not committed to the branch: " + strings.TrimSuffix(err.Error(), ".") + "." + onlyRecord
	}
	if res.AlreadyRecorded {
		return nil, fmt.Sprintf("The plugin's record of this approval is already on branch %s (ledger session %s); nothing new was committed.",
			mdtext.Code(res.Branch), mdtext.Code(fmt.Sprintf("swarm-gate:comment:%d", c.commentID)))
	}
	th.noticef("swarm-gate: committed the approval of comment %d to %s as %s", c.commentID, res.Branch, res.Commit.SHA)
	return res, fmt.Sprintf("Committed to branch %s as the plugin's own record, so the agent's plugin accepts the plan too: commit [%s](%s) appends the critic_approved snapshot (seq %d, manual override, user_confirmed: true) to `.swarm/plan-ledger.jsonl` and a `plan_critic_gate_manual_approval` line to `.swarm/events.jsonl`, and changes nothing else. swarm-gate checked the new head itself, since a push with a workflow's token starts no workflow run.",
		mdtext.Code(res.Branch), gitsha.Short(res.Commit.SHA), commitLink(res.Commit), res.Record.Seq)
}

// commitLink is the commit's page, or its API URL's web twin.
func commitLink(gc *ghapi.GitCommit) string {
	if gc.HTMLURL != "" {
		return gc.HTMLURL
	}
	return gc.SHA
}

// newHead is the evaluation of the commit the durable record made: its
// objects are written into the checkout (commands.LocalCommit, checked
// against GitHub's tree), evaluated there, and the check runs go on
// GitHub's commit. When the checkout cannot take it the evaluation fails
// closed on the new commit, saying why.
func (th *thread) newHead(t event.Target, c *commands.Committed) event.Target {
	t.PostSHA = c.Commit.SHA
	t.What = fmt.Sprintf("pull request #%d at %s (the approval record swarm-gate committed)", t.PR, gitsha.Short(c.Commit.SHA))
	local, err := commands.LocalCommit(th.Checkout.Dir, c)
	if err != nil {
		th.warnf("swarm-gate: cannot evaluate the new head %s in the checkout: %v; its checks fail closed until `/swarm recheck` in a workflow that checks it out", gitsha.Short(c.Commit.SHA), err)
		t.Head = c.Commit.SHA
		return t
	}
	if local != c.Commit.SHA {
		th.logger().Info("evaluating the new head through a local commit with the same tree", "github", c.Commit.SHA, "local", local, "tree", c.Commit.TreeSHA)
	}
	t.Head = local
	return t
}

// teamChecks reads the commenter's memberships of the policy's teams; an
// API without team memberships gives a failed check (fail closed).
func (th *thread) teamChecks(ctx context.Context, teams []string, user string) []commands.TeamCheck {
	capi := th.API
	if capi == nil {
		return []commands.TeamCheck{{Team: teams[0], Err: errNoCommandAPI}}
	}
	return commands.CheckTeams(ctx, capi, teams, user)
}

// gateState is the state of one swarm-gate check on the head, for help.
type gateStates struct {
	names []string // the check runs swarm-gate posts, aggregate first
	runs  map[string]*ghapi.CheckRun
	app   ghapi.App // whose runs these are
	err   error
}

// checkApp is the App whose check runs are swarm-gate's: Conversation.AppID,
// else the App whose bot is the bot login. Another App can post runs of
// the same names; they are not ours to show.
func (th *thread) checkApp() ghapi.App {
	if th.c.AppID != 0 {
		return ghapi.App{ID: th.c.AppID}
	}
	slug, isBot := strings.CutSuffix(th.configuredBot(), "[bot]")
	if !isBot {
		return ghapi.App{} // a person's token posts no check runs
	}
	return ghapi.App{Slug: slug}
}

// gateStates reads the state of swarm-gate's check runs on the head.
func (th *thread) gateStates(ctx context.Context, sha string) gateStates {
	st := gateStates{names: CheckNames(th.s.Gates), runs: map[string]*ghapi.CheckRun{}, app: th.checkApp()}
	capi := th.API
	if capi == nil {
		st.err = errNoCommandAPI
		return st
	}
	runs, err := capi.CheckRunsOnRef(ctx, th.Repo, sha, st.app)
	if err != nil {
		st.err = err
		return st
	}
	for _, r := range runs {
		st.runs[r.Name] = r
	}
	return st
}

// helpText lists the commands, who may run them, the state of swarm-gate's
// checks on the head, and the overrides in force.
func helpText(p gates.CommandsConfig, overrides []gates.Override, st gateStates) string {
	min := p.MinPermission
	if min == "" {
		min = gates.PermissionWrite
	}
	var b strings.Builder
	b.WriteString("**swarm-gate comment commands** (one per comment, at the start of a line):\n\n")
	b.WriteString("| command | what it does |\n|---|---|\n")
	fmt.Fprintf(&b, "| `/swarm approve-plan-critic [<sha>] <reason>` | records a human approval of the head plan (1 to %d characters of reason): committed to a same-repository branch as the plugin's own ledger record, else recorded in a swarm-gate comment; a push that changes the plan's structure voids it. Name the head commit you reviewed to bind to exactly it: refused unless it is the head (all 40 hex digits; a shorter prefix, which two commits can share, is checked as without one too). Without it, refused when the branch held another plan structure at any time since your comment |\n", commands.MaxReason)
	b.WriteString("| `/swarm acknowledge-spec-drift [<sha>] <reason>` | records that a human acknowledges the spec drift of the head plan (in a swarm-gate comment); `<sha>` as for approve-plan-critic |\n")
	b.WriteString("| `/swarm recheck` | re-evaluates the pull request now |\n| `/swarm help` | this list |\n\n")
	fmt.Fprintf(&b, "Who may run them: people (not bots) with %s permission on the repository or more (`commands.min_permission` in the base branch's policy)", min)
	if len(p.Teams) > 0 {
		codes := make([]string, len(p.Teams))
		for i, t := range p.Teams {
			codes[i] = mdtext.Code(t)
		}
		fmt.Fprintf(&b, " who are active members of one of the teams %s (`commands.teams`)", strings.Join(codes, ", "))
	}
	b.WriteString("; `help` is open to everyone, bots included. Commands on a closed pull request are refused.")
	if !p.AllowSelfApproval {
		b.WriteString(" The pull request's author, and anyone who authored, committed or pushed its commits, cannot record overrides on it (`commands.allow_self_approval: false`).")
	}
	b.WriteString("\n\n")
	b.WriteString(st.table())
	if len(overrides) == 0 {
		b.WriteString("Overrides recorded on this pull request: none.\n")
	} else {
		b.WriteString("Overrides recorded on this pull request (each counts only while the head plan has its structure hash, and an acknowledgment only while the spec drift is the one it saw):\n\n")
		for _, o := range overrides {
			fmt.Fprintf(&b, "- `/swarm %s` by %s at %s, structure hash %s: %s\n", o.Command, mdtext.Inline("@"+o.Actor), o.RecordedAt, gitsha.Short(o.StructureHash), mdtext.Inline(o.Reason))
		}
	}
	return b.String()
}

// appNote says whose check runs the table shows.
func (st gateStates) appNote() string {
	switch {
	case st.app.ID != 0:
		return fmt.Sprintf("Only the check runs of this GitHub App (app id %d) are shown: a run another App or a workflow posts under one of these names is not swarm-gate's.", st.app.ID)
	case st.app.Slug != "":
		return fmt.Sprintf("Only the check runs of the GitHub App %s are shown, the App whose bot posts swarm-gate's comments (for a workflow's `GITHUB_TOKEN`, `github-actions`, which every workflow of the repository posts as): a run another App posts under one of these names is not swarm-gate's.", mdtext.Code(st.app.Slug))
	}
	return "No check run is shown: swarm-gate's comments are posted by a person's token, and check runs come only from GitHub Apps."
}

// table is the state of each swarm-gate check on the head.
func (st gateStates) table() string {
	var b strings.Builder
	if st.err != nil {
		fmt.Fprintf(&b, "The state of the checks could not be read: %s.\n\n", mdtext.Inline(mdtext.FirstLine(st.err.Error())))
		return b.String()
	}
	b.WriteString("| check | state on the head |\n|---|---|\n")
	for _, name := range st.names {
		r := st.runs[name]
		state := "not reported on this commit"
		switch {
		case r == nil:
		case r.Status == ghapi.StatusCompleted:
			state = "completed: **" + r.Conclusion + "**"
		default:
			state = strings.ReplaceAll(r.Status, "_", " ")
		}
		if r != nil && r.HTMLURL != "" {
			state += " ([details](" + r.HTMLURL + "))"
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", name, state)
	}
	b.WriteString("\n" + st.appNote() + "\n\n")
	return b.String()
}
