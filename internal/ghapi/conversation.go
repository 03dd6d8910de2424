package ghapi

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"
)

// MaxCommentRunes is the longest comment body GitHub accepts, in
// characters (known only from its 422 "Body is too long (maximum is 65536
// characters)"; github/README.md).
const MaxCommentRunes = 65536

// Comment is an issue or pull request comment.
type Comment struct {
	ID      int64
	HTMLURL string
	Body    string
	Author  string // login
	// CreatedAt and UpdatedAt differ when the comment was edited.
	CreatedAt, UpdatedAt time.Time
}

func fromComment(c *github.IssueComment) *Comment {
	return &Comment{ID: c.GetID(), HTMLURL: c.GetHTMLURL(), Body: c.GetBody(), Author: c.GetUser().GetLogin(),
		CreatedAt: c.GetCreatedAt().Time, UpdatedAt: c.GetUpdatedAt().Time}
}

// ListComments returns every comment on an issue or pull request, oldest
// first (all pages).
func (c *Client) ListComments(ctx context.Context, repo Repo, issue int) ([]*Comment, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var out []*Comment
	for {
		page, resp, err := c.gh.Issues.ListComments(ctx, repo.Owner, repo.Name, issue, opts)
		if err != nil {
			return nil, apiError(fmt.Sprintf("listing the comments of %s#%d", repo, issue), err)
		}
		for _, gc := range page {
			if gc != nil {
				out = append(out, fromComment(gc))
			}
		}
		if nextPage(resp) == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func checkBody(body string) error {
	if n := utf8.RuneCountInString(body); n > MaxCommentRunes {
		return fmt.Errorf("the comment is %d characters; GitHub accepts at most %d", n, MaxCommentRunes)
	}
	return nil
}

// CreateComment posts a comment on an issue or pull request. The POST is
// not resent after a failure that leaves open whether it was posted (a
// 5xx, a broken connection), so a comment is never posted twice; the error
// is returned instead. A body over MaxCommentRunes characters is an error.
func (c *Client) CreateComment(ctx context.Context, repo Repo, issue int, body string) (*Comment, error) {
	action := fmt.Sprintf("commenting on %s#%d", repo, issue)
	if err := checkBody(body); err != nil {
		return nil, apiError(action, err)
	}
	gc, _, err := c.gh.Issues.CreateComment(ctx, repo.Owner, repo.Name, issue, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return nil, apiError(action, err)
	}
	return fromComment(gc), nil
}

// UpdateComment replaces a comment's body (retried like any idempotent
// request). A body over MaxCommentRunes characters is an error.
func (c *Client) UpdateComment(ctx context.Context, repo Repo, commentID int64, body string) (*Comment, error) {
	action := fmt.Sprintf("updating comment %d in %s", commentID, repo)
	if err := checkBody(body); err != nil {
		return nil, apiError(action, err)
	}
	gc, _, err := c.gh.Issues.EditComment(ctx, repo.Owner, repo.Name, commentID, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return nil, apiError(action, err)
	}
	return fromComment(gc), nil
}

// AddReaction reacts to an issue or pull request comment with content (+1,
// -1, laugh, confused, heart, hooray, rocket or eyes). Reacting twice is
// harmless (GitHub answers 200 with the existing reaction), so the request
// is retried like an idempotent one.
func (c *Client) AddReaction(ctx context.Context, repo Repo, commentID int64, content string) error {
	_, _, err := c.gh.Reactions.CreateIssueCommentReaction(withPolicy(ctx, repeatable), repo.Owner, repo.Name, commentID, content)
	if err != nil {
		return apiError(fmt.Sprintf("reacting %s to comment %d in %s", content, commentID, repo), err)
	}
	return nil
}

// Permission is a user's permission on a repository, as GitHub's
// collaborator permission endpoint reports it (maintain is reported as
// write, triage as read).
type Permission string

// The permission levels, lowest first.
const (
	PermissionNone  Permission = "none"
	PermissionRead  Permission = "read"
	PermissionWrite Permission = "write"
	PermissionAdmin Permission = "admin"
)

// AtLeast is true when p grants at least min. Unknown values grant nothing.
func (p Permission) AtLeast(min Permission) bool {
	return p.rank() >= min.rank() && p.rank() > 0
}

func (p Permission) rank() int {
	switch p {
	case PermissionRead:
		return 1
	case PermissionWrite:
		return 2
	case PermissionAdmin:
		return 3
	}
	return 0
}

// Permission returns user's permission on repo. It fails closed: on any
// error (the user is not found, the token may not read collaborators, the
// API is down) it returns PermissionNone with the error, and an unknown
// value is PermissionNone too.
func (c *Client) Permission(ctx context.Context, repo Repo, user string) (Permission, error) {
	lvl, _, err := c.gh.Repositories.GetPermissionLevel(ctx, repo.Owner, repo.Name, user)
	if err != nil {
		return PermissionNone, apiError(fmt.Sprintf("reading %s's permission on %s", user, repo), err)
	}
	p := Permission(lvl.GetPermission())
	if p.rank() == 0 {
		return PermissionNone, nil
	}
	return p, nil
}

// PullRequest is what swarm-gate reads of a pull request.
type PullRequest struct {
	Number  int
	Title   string
	State   string // open or closed
	Draft   bool
	Author  string // login
	HTMLURL string
	// HeadRepo is the head's repository ("owner/name"), a fork's for a pull
	// request from a fork.
	HeadRepo, HeadRef, HeadSHA string
	BaseRef, BaseSHA           string
	Labels                     []string
}

// PullRequest reads a pull request.
func (c *Client) PullRequest(ctx context.Context, repo Repo, number int) (*PullRequest, error) {
	pr, _, err := c.gh.PullRequests.Get(ctx, repo.Owner, repo.Name, number)
	if err == nil && pr.GetNumber() != number {
		err = fmt.Errorf("GitHub returned pull request %d", pr.GetNumber())
	}
	if err != nil {
		return nil, apiError(fmt.Sprintf("reading pull request %s#%d", repo, number), err)
	}
	return fromPull(pr), nil
}

// fromPull reads a pull request of the API; every field may be missing.
func fromPull(pr *github.PullRequest) *PullRequest {
	out := &PullRequest{Number: pr.GetNumber(), Title: pr.GetTitle(), State: pr.GetState(), Draft: pr.GetDraft(),
		Author: pr.GetUser().GetLogin(), HTMLURL: pr.GetHTMLURL(),
		HeadRepo: pr.GetHead().GetRepo().GetFullName(), HeadRef: pr.GetHead().GetRef(), HeadSHA: pr.GetHead().GetSHA(),
		BaseRef: pr.GetBase().GetRef(), BaseSHA: pr.GetBase().GetSHA()}
	if pr == nil {
		return out
	}
	for _, l := range pr.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	return out
}
