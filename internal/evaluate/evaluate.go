// Package evaluate is swarm-gate's one evaluation core, for both front
// doors (the Action and the GitHub App): it evaluates what an event asks
// and posts the verdict, one check run per gate and the aggregate, plus
// the summary comment (Check, PhaseWrap, Publish), or answers a `/swarm`
// comment command (Command), through the small ports on GitHub declared
// here, which *ghapi.Client satisfies; what differs between the doors
// comes in Deps and Checkout.
package evaluate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/commands"
	"github.com/swarm-gate/swarm-gate/internal/event"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// AggregateCheck is the name of the aggregate check run, the one branch
// protection requires.
const AggregateCheck = event.AggregateCheck

// OwnCheck is true for swarm-gate's check names: the aggregate and the
// gates'.
func OwnCheck(name string) bool { return event.OwnCheck(name) }

// WorkflowKey is the part of external ids that tells workflows and jobs
// apart: 12 hex digits of sha256(workflow name NUL job id).
func WorkflowKey(workflow, job string) string {
	sum := sha256.Sum256([]byte(workflow + "\x00" + job))
	return hex.EncodeToString(sum[:6])
}

// ExternalID is the check runs' external_id: "swarm-gate:<kind>:<key>".
// kind is the evaluation (pull_request, merge_group, push, manual,
// phase-wrap); key is WorkflowKey's. Runs on one commit with the same
// external id are updated by a re-run instead of duplicated.
func ExternalID(kind, key string) string {
	return "swarm-gate:" + kind + ":" + key
}

// CheckRuns is what an evaluation needs to post its check runs: start
// them in progress and complete them, or (to save requests) start only
// the aggregate and post each gate's run once its result is known.
type CheckRuns interface {
	ghapi.Checks
	ghapi.DeferredChecks
	CheckRun(ctx context.Context, repo ghapi.Repo, id int64) (*ghapi.CheckRun, error)
	CheckRunsOnRef(ctx context.Context, repo ghapi.Repo, sha string, app ghapi.App) ([]*ghapi.CheckRun, error)
	FirstCheckSuite(ctx context.Context, repo ghapi.Repo, sha string) (time.Time, error)
}

// Comments is what an evaluation needs of a pull request's conversation:
// the summary comment, override records, command replies and reactions.
type Comments interface {
	CreateComment(ctx context.Context, repo ghapi.Repo, issue int, body string) (*ghapi.Comment, error)
	UpdateComment(ctx context.Context, repo ghapi.Repo, commentID int64, body string) (*ghapi.Comment, error)
	ListComments(ctx context.Context, repo ghapi.Repo, issue int) ([]*ghapi.Comment, error)
	IssueComment(ctx context.Context, repo ghapi.Repo, id int64) (*ghapi.Comment, error)
	AddReaction(ctx context.Context, repo ghapi.Repo, commentID int64, content string) error
}

// Permissions is what an evaluation needs to know of who may do what: a
// commenter's permission on the repository and team memberships.
type Permissions interface {
	Permission(ctx context.Context, repo ghapi.Repo, user string) (ghapi.Permission, error)
	commands.Teams
}

// Contents is what an evaluation reads of the repository through the API:
// pull requests, files on other refs (the owner's policy), git data and
// branch activity.
type Contents interface {
	PullRequest(ctx context.Context, repo ghapi.Repo, number int) (*ghapi.PullRequest, error)
	OpenPullRequests(ctx context.Context, repo ghapi.Repo, head string) ([]*ghapi.PullRequest, error)
	PullRequestsWithCommit(ctx context.Context, repo ghapi.Repo, sha string) ([]*ghapi.PullRequest, error)
	PullRequestContributors(ctx context.Context, repo ghapi.Repo, number int) ([]string, error)
	FileAt(ctx context.Context, repo ghapi.Repo, path, ref string) ([]byte, bool, error)
	BranchActivity(ctx context.Context, repo ghapi.Repo, branch string, since time.Time) ([]ghapi.RefActivity, *ghapi.RefActivity, error)
	commands.GitData
}

// Links is how an evaluation points the check runs it posts from now on
// at a page (details_url): the summary comment's, when there is no
// workflow run to link (the App).
type Links interface {
	SetDetailsURL(u string)
}

// Meter is what the client counts of its requests, for the step's log.
type Meter interface {
	Stats() ghapi.Stats
}

// API is every port an evaluation uses; *ghapi.Client implements it.
type API interface {
	CheckRuns
	Comments
	Permissions
	Contents
	Links
	Meter
}

var (
	_ CheckRuns   = (*ghapi.Client)(nil)
	_ Comments    = (*ghapi.Client)(nil)
	_ Permissions = (*ghapi.Client)(nil)
	_ Contents    = (*ghapi.Client)(nil)
	_ Links       = (*ghapi.Client)(nil)
	_ Meter       = (*ghapi.Client)(nil)
	_ API         = (*ghapi.Client)(nil)
)
