package commands

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
)

// SourceComment is a command comment as GitHub holds it now (GET
// /repos/{owner}/{repo}/issues/comments/{comment_id}).
type SourceComment struct {
	Comment
	// AuthorType is the author's account type ("User", "Bot").
	AuthorType string
	// Issue is the number of the issue or pull request it is on.
	Issue int
}

// MarkedCommit is what the checkout tells of a marker's head SHA.
type MarkedCommit struct {
	// InHistory is true when the commit is the evaluated head or one of
	// its ancestors; the other fields are set only then.
	InHistory bool
	// StructureHash is the plan's structure hash in the commit; PlanErr
	// says why there is none.
	StructureHash string
	PlanErr       error
	// SpecStaleness is gates.SpecStalenessKey of the commit's
	// .swarm/spec-staleness.json ("" when there is none).
	SpecStaleness string
}

// Evidence is what VerifyOverrides reads to re-check a marker: the command
// comment (one API read per comment), the author's permission and team
// memberships now (VerifyOverrides reads each once per actor), the
// marker's head commit in the checkout, and when GitHub first saw that
// commit (one API read per head).
type Evidence interface {
	CommandComment(ctx context.Context, id int64) (*SourceComment, error)
	Permission(ctx context.Context, login string) (ghapi.Permission, error)
	Teams(ctx context.Context, teams []string, login string) []TeamCheck
	Commit(sha string) (*MarkedCommit, error)
	// Contributors are the logins that authored or committed the pull
	// request's commits (ghapi.Client.PullRequestContributors).
	Contributors(ctx context.Context) ([]string, error)
	// FirstSeen is when GitHub first saw commit sha: the earliest
	// created_at of its check suites, which GitHub sets when the commit
	// is pushed and nobody can backdate; the zero time when it has no
	// check suite.
	FirstSeen(ctx context.Context, sha string) (time.Time, error)
}

// Pull is the pull request the overrides are read back on: its number, its
// author, and the commands policy of the evaluated base.
type Pull struct {
	Number int
	Author string
	Policy gates.CommandsConfig
}

// VerifyOverrides re-checks each marker against what it claims, and
// returns the overrides that hold, oldest first, with a note naming the
// reason for each marker ignored. A marker holds when:
//
//   - its head SHA is the evaluated head or one of its ancestors, the plan
//     there has the marker's structure hash and (acknowledge-spec-drift)
//     its spec staleness key, and that commit was there when the command
//     comment was posted: the time GitHub first saw it (Evidence.FirstSeen,
//     the earliest created_at of its check suites) is not after the
//     comment's created_at. That time is GitHub's own; a head with no
//     check suite, or whose suites cannot be read, fails closed. The
//     committer time is not consulted: the committer chooses it, so it
//     could only refuse an honest commit made with a fast clock;
//   - the command comment it names exists, is on this pull request, was
//     written by the marker's actor, was never edited (updated_at equals
//     created_at), and parses to the same command and reason;
//   - the actor may run the command now (Authorize: permission, teams, not
//     a bot, not the pull request's author unless allowed).
//
// Checks on the checkout come first, so a forged marker costs no API
// call; then the command comment (read once per comment) and what can be
// checked against it without another call; then when GitHub first saw the
// head (read once per head) and the actor's permission and teams (once
// per actor). A command comment recorded twice counts once (its first
// marker that holds).
func VerifyOverrides(ctx context.Context, markers []Marker, pr Pull, ev Evidence) ([]gates.Override, []string) {
	v := &verifier{pr: pr, ev: ev, comments: map[int64]sourceRead{}, auth: map[string]authRead{}, seen: map[string]seenRead{}}
	var out []gates.Override
	var notes []string
	done := map[int64]bool{}
	for _, m := range markers {
		rec := m.Record
		if done[rec.CommentID] {
			continue
		}
		o, why := v.verify(ctx, rec)
		if why != "" {
			notes = append(notes, fmt.Sprintf("ignored the override recorded in comment %d (`/swarm %s` by @%s, comment %d): %s", m.Comment.ID, rec.Command, rec.Actor, rec.CommentID, why))
			continue
		}
		done[rec.CommentID] = true
		out = append(out, *o)
	}
	return out, notes
}

// verifier caches the reads of one VerifyOverrides.
type verifier struct {
	pr       Pull
	ev       Evidence
	comments map[int64]sourceRead
	auth     map[string]authRead
	seen     map[string]seenRead
	// contributors are Evidence.Contributors, read at most once.
	contributors     []string
	contributorsErr  error
	contributorsRead bool
	// reads counts the comment and check-suite reads made so far, against
	// MaxMarkerReads.
	reads int
}

// MaxMarkerReads bounds the API reads (command comments and check-suite
// listings, each read once) that VerifyOverrides makes for the markers of
// one pull request: markers are unsigned, so whoever can post as the bot
// could otherwise post thousands, each naming another comment or commit,
// and spend the token's rate limit. Markers that would need a read beyond
// it are ignored with a note, oldest markers first checked.
const MaxMarkerReads = 50

// budget reports whether one more API read may be made, and counts it.
func (v *verifier) budget() bool {
	if v.reads >= MaxMarkerReads {
		return false
	}
	v.reads++
	return true
}

// overBudget is the note for a marker left unchecked by budget.
var overBudget = fmt.Sprintf("not checked: the pull request has more override markers than swarm-gate checks in one evaluation (%d API reads); remove the extra ones", MaxMarkerReads)

type seenRead struct {
	at  time.Time
	err error
}

type sourceRead struct {
	c   *SourceComment
	err error
}

type authRead struct {
	p     ghapi.Permission
	err   error
	teams []TeamCheck
}

// verify checks one record; why says why it does not hold ("" when it
// does).
func (v *verifier) verify(ctx context.Context, rec Record) (*gates.Override, string) {
	head := shortSHA(rec.HeadSHA)
	mc, err := v.ev.Commit(rec.HeadSHA)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("swarm-gate cannot tell whether its head %s is in the pull request's history: %v", head, err)
	case !mc.InHistory:
		return nil, fmt.Sprintf("its head %s is not in the pull request's history", head)
	case mc.PlanErr != nil:
		return nil, fmt.Sprintf("the plan at its head %s cannot be read: %v", head, mc.PlanErr)
	case mc.StructureHash != rec.StructureHash:
		return nil, fmt.Sprintf("the plan at its head %s has structure hash %s, not %s as the marker says", head, planhash.Short(mc.StructureHash), planhash.Short(rec.StructureHash))
	case rec.Command == AcknowledgeSpecDrift && (rec.SpecStaleness == "" || mc.SpecStaleness != rec.SpecStaleness):
		return nil, fmt.Sprintf("the spec drift at its head %s is not the drift the marker says was acknowledged", head)
	}
	src, why := v.comment(ctx, rec.CommentID)
	if why != "" {
		return nil, why
	}
	switch {
	case src.Issue != v.pr.Number:
		return nil, fmt.Sprintf("comment %d is on #%d, not on this pull request (#%d)", rec.CommentID, src.Issue, v.pr.Number)
	case !strings.EqualFold(src.Author, rec.Actor):
		return nil, fmt.Sprintf("comment %d was written by @%s, not by @%s as the marker says", rec.CommentID, src.Author, rec.Actor)
	case !src.UpdatedAt.Equal(src.CreatedAt):
		return nil, fmt.Sprintf("comment %d was edited after it was posted (updated %s, created %s), so swarm-gate cannot tell what was approved; comment again", rec.CommentID, stamp(src.UpdatedAt), stamp(src.CreatedAt))
	}
	cmd, err := Parse(src.Body)
	switch {
	case err != nil || cmd == nil:
		return nil, fmt.Sprintf("comment %d does not hold the command now", rec.CommentID)
	case cmd.Name != rec.Command || cmd.Reason != rec.Reason:
		return nil, fmt.Sprintf("comment %d holds `/swarm %s` with another reason than the marker records", rec.CommentID, cmd.Name)
	case cmd.SHA != "" && !strings.HasPrefix(rec.HeadSHA, cmd.SHA):
		// The person named the commit they saw: no other head may use it.
		return nil, fmt.Sprintf("comment %d names commit %s, not the marker's head %s", rec.CommentID, mdtext.Code(cmd.SHA), head)
	}
	if why := v.pushedBefore(ctx, rec, src); why != "" {
		return nil, why
	}
	if d := Authorize(v.request(ctx, rec.Command, Actor{Login: src.Author, Type: src.AuthorType})); !d.Allowed {
		return nil, "its author may not record it now: " + d.Reason
	}
	url := src.HTMLURL
	if url == "" {
		url = rec.CommentURL
	}
	return &gates.Override{Command: rec.Command, Actor: src.Author, Reason: rec.Reason, RecordedAt: stamp(src.CreatedAt),
		HeadSHA: rec.HeadSHA, StructureHash: rec.StructureHash, SpecStaleness: rec.SpecStaleness, URL: url}, ""
}

// pushedBefore says why, going by when GitHub first saw the marker's
// head, the command comment cannot have seen that head ("" when GitHub
// saw it no later than the comment was posted). This time is GitHub's,
// unlike the committer time, which the committer chooses. It reads the
// head's check suites once per head, and fails closed.
func (v *verifier) pushedBefore(ctx context.Context, rec Record, src *SourceComment) string {
	head := shortSHA(rec.HeadSHA)
	r, ok := v.seen[rec.HeadSHA]
	if !ok {
		if !v.budget() {
			return overBudget
		}
		r.at, r.err = v.ev.FirstSeen(ctx, rec.HeadSHA)
		v.seen[rec.HeadSHA] = r
	}
	switch {
	case r.err != nil:
		return fmt.Sprintf("swarm-gate cannot tell when GitHub first saw its head %s: %s", head, ghapi.Brief(r.err))
	case r.at.IsZero():
		return fmt.Sprintf("GitHub holds no check suite for its head %s, so swarm-gate cannot tell when it was pushed", head)
	case r.at.After(src.CreatedAt):
		return fmt.Sprintf("its head %s was first seen by GitHub at %s, after comment %d was posted (%s), so the comment did not see it", head, stamp(r.at), rec.CommentID, stamp(src.CreatedAt))
	}
	return ""
}

// comment reads the command comment once.
func (v *verifier) comment(ctx context.Context, id int64) (*SourceComment, string) {
	r, ok := v.comments[id]
	if !ok {
		if !v.budget() {
			return nil, overBudget
		}
		r.c, r.err = v.ev.CommandComment(ctx, id)
		v.comments[id] = r
	}
	switch {
	case ghapi.IsNotFound(r.err):
		return nil, fmt.Sprintf("the command comment %d it names does not exist (deleted, or never posted)", id)
	case r.err != nil:
		return nil, fmt.Sprintf("swarm-gate could not read the command comment %d: %s", id, ghapi.Brief(r.err))
	case r.c == nil:
		return nil, fmt.Sprintf("swarm-gate could not read the command comment %d", id)
	}
	return r.c, ""
}

// request is the authorization request for the actor now, with the
// permission and teams read once per actor.
func (v *verifier) request(ctx context.Context, command string, actor Actor) Request {
	req := Request{Command: command, Actor: actor, PRAuthor: v.pr.Author, Policy: v.pr.Policy}
	if actor.IsBot() {
		return req
	}
	key := strings.ToLower(actor.Login)
	a, ok := v.auth[key]
	if !ok {
		a.p, a.err = v.ev.Permission(ctx, actor.Login)
		if len(v.pr.Policy.Teams) > 0 && a.err == nil {
			a.teams = v.ev.Teams(ctx, v.pr.Policy.Teams, actor.Login)
		}
		v.auth[key] = a
	}
	req.Permission, req.PermissionErr, req.Teams = a.p, a.err, a.teams
	if req.NeedsContributors() {
		if !v.contributorsRead {
			v.contributors, v.contributorsErr = v.ev.Contributors(ctx)
			v.contributorsRead = true
		}
		req.Contributors, req.ContributorsErr = v.contributors, v.contributorsErr
	}
	return req
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
