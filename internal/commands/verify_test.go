package commands

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// fakeEvidence is a pull request's comments, permissions and commits as
// VerifyOverrides reads them, counting the API reads.
type fakeEvidence struct {
	comments    map[int64]*SourceComment
	commentErr  error
	perms       map[string]ghapi.Permission
	teams       map[string]string // login -> active team
	commits     map[string]*MarkedCommit
	pushed      map[string]time.Time // SHA -> its first check suite's created_at
	pushedErr   error
	commentRead map[int64]int
	permRead    map[string]int
	seenRead    map[string]int
	// contributors are the pull request's commit authors and committers.
	contributors     []string
	contributorsErr  error
	contributorsRead int
}

func (f *fakeEvidence) CommandComment(_ context.Context, id int64) (*SourceComment, error) {
	f.commentRead[id]++
	if f.commentErr != nil {
		return nil, f.commentErr
	}
	c, ok := f.comments[id]
	if !ok {
		return nil, fmt.Errorf("reading comment %d: %w", id, &github.ErrorResponse{Response: &http.Response{StatusCode: http.StatusNotFound, Request: &http.Request{Method: http.MethodGet}}, Message: "Not Found"})
	}
	return c, nil
}

func (f *fakeEvidence) Permission(_ context.Context, login string) (ghapi.Permission, error) {
	f.permRead[login]++
	p, ok := f.perms[login]
	if !ok {
		return ghapi.PermissionNone, errors.New("404")
	}
	return p, nil
}

func (f *fakeEvidence) Teams(_ context.Context, teams []string, login string) []TeamCheck {
	var out []TeamCheck
	for _, t := range teams {
		st := ""
		if f.teams[login] == t {
			st = ghapi.MembershipActive
		}
		out = append(out, TeamCheck{Team: t, State: st})
	}
	return out
}

func (f *fakeEvidence) Commit(sha string) (*MarkedCommit, error) {
	if c, ok := f.commits[sha]; ok {
		return c, nil
	}
	return &MarkedCommit{}, nil
}

func (f *fakeEvidence) Contributors(context.Context) ([]string, error) {
	f.contributorsRead++
	return f.contributors, f.contributorsErr
}

func (f *fakeEvidence) FirstSeen(_ context.Context, sha string) (time.Time, error) {
	f.seenRead[sha]++
	if f.pushedErr != nil {
		return time.Time{}, f.pushedErr
	}
	return f.pushed[sha], nil
}

const (
	headA     = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	headB     = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	structure = "5555555555555555555555555555555555555555555555555555555555555555"
	staleKey  = "spec:1111:2222"
)

var (
	pushedAt  = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	commentAt = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
)

// evidence is pull request #7: maint's approval (comment 70) and
// acknowledgment (comment 71) on head A, a comment by someone else (72),
// and maint's help request (73); maint has write permission. Head A was
// pushed (its first check suite) at 9:30, before the comments (10:00).
func evidence() *fakeEvidence {
	src := func(id int64, author, body string) *SourceComment {
		return &SourceComment{Comment: Comment{ID: id, Author: author, Body: body, HTMLURL: fmt.Sprintf("https://github.com/o/r/pull/7#issuecomment-%d", id),
			CreatedAt: commentAt, UpdatedAt: commentAt}, AuthorType: "User", Issue: 7}
	}
	return &fakeEvidence{
		comments: map[int64]*SourceComment{
			70: src(70, "maint", "/swarm approve-plan-critic verdict lost"),
			71: src(71, "maint", "/swarm acknowledge-spec-drift typo in spec"),
			72: src(72, "octo", "/swarm approve-plan-critic verdict lost"),
			73: src(73, "maint", "/swarm help"),
		},
		perms:       map[string]ghapi.Permission{"maint": ghapi.PermissionWrite, "octo": ghapi.PermissionWrite, "author": ghapi.PermissionAdmin},
		commits:     map[string]*MarkedCommit{headA: {InHistory: true, StructureHash: structure, SpecStaleness: staleKey}},
		pushed:      map[string]time.Time{headA: pushedAt},
		commentRead: map[int64]int{},
		permRead:    map[string]int{},
		seenRead:    map[string]int{},
	}
}

// approval is the marker swarm-gate writes for comment 70.
func approval() Record {
	return Record{Version: 1, Command: ApprovePlanCritic, Actor: "maint", Reason: "verdict lost", RecordedAt: commentAt.Format(time.RFC3339),
		HeadSHA: headA, StructureHash: structure, CommentID: 70, CommentURL: "https://github.com/o/r/pull/7#issuecomment-70"}
}

func acknowledgment() Record {
	r := approval()
	r.Command, r.Reason, r.CommentID, r.SpecStaleness = AcknowledgeSpecDrift, "typo in spec", 71, staleKey
	return r
}

// TestVerifyOverrides is issue 9's review: a marker by swarm-gate's own
// identity is trusted only when the command comment it names, its author's
// permission now and the checkout all say the same.
func TestVerifyOverrides(t *testing.T) {
	with := func(edit func(r *Record)) Record { r := approval(); edit(&r); return r }
	cases := []struct {
		name   string
		rec    Record
		setup  func(f *fakeEvidence)
		policy gates.CommandsConfig
		want   string // "" = the override holds; else the note's reason
	}{
		{"the marker swarm-gate wrote", approval(), nil, gates.CommandsConfig{}, ""},
		{"the acknowledgment swarm-gate wrote", acknowledgment(), nil, gates.CommandsConfig{}, ""},
		{"forged: the comment does not exist", with(func(r *Record) { r.CommentID = 999 }), nil, gates.CommandsConfig{}, "the command comment 999 it names does not exist"},
		{"forged: a real comment by another user", with(func(r *Record) { r.CommentID = 72 }), nil, gates.CommandsConfig{}, "comment 72 was written by @octo, not by @maint as the marker says"},
		{"forged: another reason", with(func(r *Record) { r.Reason = "approve everything" }), nil, gates.CommandsConfig{}, "comment 70 holds `/swarm approve-plan-critic` with another reason than the marker records"},
		{"forged: a plan the comment never saw", with(func(r *Record) { r.StructureHash = strings.Repeat("6", 64) }), nil, gates.CommandsConfig{}, "the plan at its head aaaaaaaaaaaa has structure hash 555555555555, not 666666666666 as the marker says"},
		{"forged: a head not in the pull request", with(func(r *Record) { r.HeadSHA = headB }), nil, gates.CommandsConfig{}, "its head bbbbbbbbbbbb is not in the pull request's history"},
		{"edited bot reply naming a help request", with(func(r *Record) { r.CommentID = 73 }), nil, gates.CommandsConfig{}, "comment 73 holds `/swarm help` with another reason"},
		{"command comment edited", approval(), func(f *fakeEvidence) { f.comments[70].UpdatedAt = commentAt.Add(time.Second) }, gates.CommandsConfig{}, "comment 70 was edited after it was posted"},
		{"command comment on another pull request", approval(), func(f *fakeEvidence) { f.comments[70].Issue = 8 }, gates.CommandsConfig{}, "comment 70 is on #8, not on this pull request (#7)"},
		{"permission revoked", approval(), func(f *fakeEvidence) { f.perms["maint"] = ghapi.PermissionRead }, gates.CommandsConfig{}, "its author may not record it now: `/swarm approve-plan-critic` needs write permission"},
		{"permission unreadable", approval(), func(f *fakeEvidence) { delete(f.perms, "maint") }, gates.CommandsConfig{}, "could not read @maint's permission"},
		{"no longer in the policy's teams", approval(), nil, gates.CommandsConfig{Teams: []string{"o/core"}}, "needs an active membership of one of the teams o/core"},
		{"in the policy's teams", approval(), func(f *fakeEvidence) { f.teams = map[string]string{"maint": "o/core"} }, gates.CommandsConfig{Teams: []string{"o/core"}}, ""},
		{"the actor opened the pull request", with(func(r *Record) { r.Actor = "author" }), func(f *fakeEvidence) { f.comments[70].Author = "author" }, gates.CommandsConfig{}, "@author opened this pull request"},
		{"the actor committed to the pull request", approval(), func(f *fakeEvidence) { f.contributors = []string{"author", "Maint"} }, gates.CommandsConfig{}, "@maint authored, committed or pushed commits of this pull request"},
		{"the pull request's commits cannot be read", approval(), func(f *fakeEvidence) { f.contributorsErr = errors.New("502 Bad Gateway") }, gates.CommandsConfig{}, "could not read who authored, committed or pushed this pull request's commits"},
		{"the actor committed, self-approval allowed", approval(), func(f *fakeEvidence) { f.contributors = []string{"maint"} }, gates.CommandsConfig{AllowSelfApproval: true}, ""},
		{"the head was pushed the second the comment was posted", approval(), func(f *fakeEvidence) { f.pushed[headA] = commentAt }, gates.CommandsConfig{}, ""},
		{"forged: a head pushed after the comment, its committer time backdated", approval(), func(f *fakeEvidence) { f.pushed[headA] = commentAt.Add(time.Hour) }, gates.CommandsConfig{},
			"its head aaaaaaaaaaaa was first seen by GitHub at 2026-03-01T11:00:00Z, after comment 70 was posted (2026-03-01T10:00:00Z), so the comment did not see it"},
		{"forged acknowledgment: a head pushed after the comment", acknowledgment(), func(f *fakeEvidence) { f.pushed[headA] = commentAt.Add(time.Second) }, gates.CommandsConfig{},
			"its head aaaaaaaaaaaa was first seen by GitHub at 2026-03-01T10:00:01Z, after comment 71 was posted (2026-03-01T10:00:00Z)"},
		{"the head has no check suite", approval(), func(f *fakeEvidence) { delete(f.pushed, headA) }, gates.CommandsConfig{},
			"GitHub holds no check suite for its head aaaaaaaaaaaa, so swarm-gate cannot tell when it was pushed"},
		{"the head's check suites cannot be read", approval(), func(f *fakeEvidence) {
			f.pushedErr = errors.New("listing the check suites of o/r@aaaaaaaaaaaa: 502 Bad Gateway")
		}, gates.CommandsConfig{}, "swarm-gate cannot tell when GitHub first saw its head aaaaaaaaaaaa: listing the check suites of o/r@aaaaaaaaaaaa: 502 Bad Gateway"},
		{"the command comment cannot be read", approval(), func(f *fakeEvidence) { f.commentErr = errors.New("500") }, gates.CommandsConfig{}, "swarm-gate could not read the command comment 70: 500"},
		{"acknowledgment of other drift", func() Record { r := acknowledgment(); r.SpecStaleness = "spec:1111:3333"; return r }(), nil, gates.CommandsConfig{}, "the spec drift at its head aaaaaaaaaaaa is not the drift the marker says was acknowledged"},
		{"acknowledgment without its drift (an older swarm-gate)", func() Record { r := acknowledgment(); r.SpecStaleness = ""; return r }(), nil, gates.CommandsConfig{}, "is not the drift the marker says was acknowledged"},
		{"forged: the comment named another commit", approval(), func(f *fakeEvidence) { f.comments[70].Body = "/swarm approve-plan-critic bbbbbbb1 verdict lost" }, gates.CommandsConfig{},
			"comment 70 names commit `bbbbbbb1`, not the marker's head aaaaaaaaaaaa"},
		{"the comment's author became a bot", approval(), func(f *fakeEvidence) { f.comments[70].AuthorType = "Bot" }, gates.CommandsConfig{}, "@maint is a bot"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := evidence()
			if tc.setup != nil {
				tc.setup(f)
			}
			pr := Pull{Number: 7, Author: "author", Policy: tc.policy}
			got, notes := VerifyOverrides(context.Background(), []Marker{{Comment: Comment{ID: 100}, Record: tc.rec}}, pr, f)
			if tc.want == "" {
				if len(got) != 1 || len(notes) != 0 {
					t.Fatalf("got %+v, notes %q; want the override", got, notes)
				}
				o := got[0]
				if o.Actor != "maint" || o.RecordedAt != "2026-03-01T10:00:00Z" || o.StructureHash != structure || o.HeadSHA != headA || o.SpecStaleness != tc.rec.SpecStaleness ||
					!strings.HasPrefix(o.URL, "https://github.com/o/r/pull/7#issuecomment-7") {
					t.Errorf("override %+v", o)
				}
				return
			}
			if len(got) != 0 || len(notes) != 1 {
				t.Fatalf("got %+v, notes %q; want it ignored: %s", got, notes, tc.want)
			}
			if !strings.Contains(notes[0], tc.want) || !strings.HasPrefix(notes[0], "ignored the override recorded in comment 100 (`/swarm ") {
				t.Errorf("note %q\nwant it to contain %q", notes[0], tc.want)
			}
			if strings.Contains(notes[0], "https://") {
				t.Errorf("note names an API URL: %q", notes[0])
			}
		})
	}
}

// TestVerifyOverridesBounded: a forged marker that fails in the checkout
// costs no API call; each command comment is read once and each actor's
// permission once, however many markers name them; a forged marker before
// the real one does not hide it.
func TestVerifyOverridesBounded(t *testing.T) {
	f := evidence()
	forgedHead := approval()
	forgedHead.HeadSHA = headB
	forgedReason := approval()
	forgedReason.Reason = "approve everything"
	markers := []Marker{
		{Comment: Comment{ID: 100}, Record: forgedHead},
		{Comment: Comment{ID: 101}, Record: forgedReason},
		{Comment: Comment{ID: 102}, Record: approval()},
		{Comment: Comment{ID: 103}, Record: approval()}, // recorded twice
		{Comment: Comment{ID: 104}, Record: acknowledgment()},
	}
	got, notes := VerifyOverrides(context.Background(), markers, Pull{Number: 7, Author: "author"}, f)
	if len(got) != 2 || got[0].Command != ApprovePlanCritic || got[1].Command != AcknowledgeSpecDrift || len(notes) != 2 {
		t.Fatalf("got %+v, notes %q", got, notes)
	}
	if f.commentRead[70] != 1 || f.commentRead[71] != 1 || len(f.commentRead) != 2 {
		t.Errorf("comment reads %v, want one per command comment", f.commentRead)
	}
	if f.permRead["maint"] != 1 || len(f.permRead) != 1 {
		t.Errorf("permission reads %v, want one per actor", f.permRead)
	}
	if f.seenRead[headA] != 1 || len(f.seenRead) != 1 {
		t.Errorf("check suite reads %v, want one per head", f.seenRead)
	}
}

// TestVerifyOverridesFirstSeenLast: when GitHub first saw the head is read
// only for a marker that passed every check made without it, so a forged
// marker that fails a cheaper check costs no check suite read.
func TestVerifyOverridesFirstSeenLast(t *testing.T) {
	with := func(edit func(r *Record)) Record { r := approval(); edit(&r); return r }
	cases := []struct {
		name  string
		rec   Record
		setup func(f *fakeEvidence)
	}{
		{"a head not in the pull request", with(func(r *Record) { r.HeadSHA = headB }), nil},
		{"a plan the comment never saw", with(func(r *Record) { r.StructureHash = strings.Repeat("6", 64) }), nil},
		{"a comment that does not exist", with(func(r *Record) { r.CommentID = 999 }), nil},
		{"another author's comment", with(func(r *Record) { r.CommentID = 72 }), nil},
		{"another reason", with(func(r *Record) { r.Reason = "approve everything" }), nil},
		{"an edited comment", approval(), func(f *fakeEvidence) { f.comments[70].UpdatedAt = commentAt.Add(time.Second) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := evidence()
			if tc.setup != nil {
				tc.setup(f)
			}
			got, notes := VerifyOverrides(context.Background(), []Marker{{Comment: Comment{ID: 100}, Record: tc.rec}}, Pull{Number: 7, Author: "author"}, f)
			if len(got) != 0 || len(notes) != 1 {
				t.Fatalf("got %+v, notes %q; want it ignored", got, notes)
			}
			if len(f.seenRead) != 0 {
				t.Errorf("check suite reads %v for a marker that fails without them", f.seenRead)
			}
		})
	}
}

// TestVerifyOverridesReadBudget: markers are unsigned, so a pull request
// may carry any number of forged ones, each naming another comment or
// commit; VerifyOverrides makes at most MaxMarkerReads comment and check
// suite reads in all, checks the oldest markers first, and ignores the
// rest with a note saying why.
func TestVerifyOverridesReadBudget(t *testing.T) {
	f := evidence()
	markers := []Marker{{Comment: Comment{ID: 100}, Record: approval()}} // genuine: 1 comment read, 1 check suite read
	for i := range 2 * MaxMarkerReads {
		forged := approval()
		forged.CommentID = int64(5000 + i) // no such comment: one read each
		markers = append(markers, Marker{Comment: Comment{ID: int64(200 + i)}, Record: forged})
	}
	got, notes := VerifyOverrides(context.Background(), markers, Pull{Number: 7, Author: "author"}, f)
	if len(got) != 1 || got[0].Command != ApprovePlanCritic {
		t.Fatalf("got %+v: want the genuine approval, checked first", got)
	}
	reads := len(f.seenRead)
	for _, n := range f.commentRead {
		reads += n
	}
	if reads != MaxMarkerReads {
		t.Errorf("%d comment and check suite reads, want the budget, %d", reads, MaxMarkerReads)
	}
	unchecked := 0
	for _, n := range notes {
		if strings.Contains(n, "not checked: the pull request has more override markers") {
			unchecked++
		}
	}
	// 2 reads went to the genuine marker; each forged one checked cost one.
	if want := 2*MaxMarkerReads - (MaxMarkerReads - 2); len(notes) != 2*MaxMarkerReads || unchecked != want {
		t.Errorf("%d notes, %d of them for markers left unchecked: want %d and %d", len(notes), unchecked, 2*MaxMarkerReads, want)
	}
}
