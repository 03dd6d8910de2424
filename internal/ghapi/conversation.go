package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
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
	// AuthorType is the author's account type: "User", "Bot" or
	// "Organization" ("" when GitHub does not say).
	AuthorType string
	// Issue is the number of the issue or pull request the comment is on,
	// read from its issue_url (0 when GitHub does not give one).
	Issue int
	// CreatedAt and UpdatedAt differ when the comment was edited.
	CreatedAt, UpdatedAt time.Time
}

func fromComment(c *github.IssueComment) *Comment {
	return &Comment{ID: c.GetID(), HTMLURL: c.GetHTMLURL(), Body: c.GetBody(), Author: c.GetUser().GetLogin(), AuthorType: c.GetUser().GetType(),
		Issue: issueNumber(c.GetIssueURL()), CreatedAt: c.GetCreatedAt().Time, UpdatedAt: c.GetUpdatedAt().Time}
}

// issueNumber is the number at the end of an issue's API URL
// (".../repos/o/r/issues/7"), 0 when there is none.
func issueNumber(u string) int {
	i := strings.LastIndex(u, "/issues/")
	if i < 0 {
		return 0
	}
	n, err := strconv.Atoi(u[i+len("/issues/"):])
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// IssueComment reads one issue or pull request comment by its id (GET
// /repos/{owner}/{repo}/issues/comments/{comment_id}): its body, author,
// issue number and times as GitHub holds them now. A deleted comment is a
// 404 (IsNotFound).
func (c *Client) IssueComment(ctx context.Context, repo Repo, id int64) (*Comment, error) {
	gc, _, err := c.gh.Issues.GetComment(ctx, repo.Owner, repo.Name, id)
	if err != nil {
		return nil, apiError(fmt.Sprintf("reading comment %d of %s", id, repo), err)
	}
	if gc.GetID() != id {
		return nil, fmt.Errorf("reading comment %d of %s: GitHub returned comment %d", id, repo, gc.GetID())
	}
	return fromComment(gc), nil
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

// Permission is a user's role on a repository, as GitHub's collaborator
// permission endpoint reports it: its role_name when that is one of
// GitHub's five roles, else its legacy permission field (which reports
// maintain as write and triage as read, and a custom role as the role it
// builds on).
type Permission string

// The permission levels, lowest first.
const (
	PermissionNone     Permission = "none"
	PermissionRead     Permission = "read"
	PermissionTriage   Permission = "triage"
	PermissionWrite    Permission = "write"
	PermissionMaintain Permission = "maintain"
	PermissionAdmin    Permission = "admin"
)

// AtLeast is true when p grants at least min. Unknown values grant nothing.
func (p Permission) AtLeast(min Permission) bool {
	return p.rank() >= min.rank() && p.rank() > 0
}

func (p Permission) rank() int {
	switch p {
	case PermissionRead:
		return 1
	case PermissionTriage:
		return 2
	case PermissionWrite:
		return 3
	case PermissionMaintain:
		return 4
	case PermissionAdmin:
		return 5
	}
	return 0
}

// permissionLevel is the collaborator permission response; go-github's
// RepositoryPermissionLevel lacks role_name.
type permissionLevel struct {
	Permission string `json:"permission"`
	RoleName   string `json:"role_name"`
}

// level is the permission the response grants: role_name when it is one
// of GitHub's roles (so maintain and triage are told apart from write and
// read), else the legacy permission field (a custom role's name is not a
// level; its permission field is the role it builds on). An unknown value
// is PermissionNone.
func (l permissionLevel) level() Permission {
	if p := Permission(strings.ToLower(l.RoleName)); p.rank() > 0 {
		return p
	}
	switch p := Permission(l.Permission); p {
	case PermissionRead, PermissionWrite, PermissionAdmin:
		return p
	}
	return PermissionNone
}

// Permission returns user's permission on repo (GET
// /repos/{owner}/{repo}/collaborators/{username}/permission, role_name
// first, see Permission). It fails closed: on any error (the user is not
// found, the token may not read collaborators, the API is down) it returns
// PermissionNone with the error, and an unknown value is PermissionNone
// too.
func (c *Client) Permission(ctx context.Context, repo Repo, user string) (Permission, error) {
	action := fmt.Sprintf("reading %s's permission on %s", user, repo)
	req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), url.PathEscape(user)), nil)
	if err != nil {
		return PermissionNone, apiError(action, err)
	}
	var lvl permissionLevel
	if _, err := c.gh.Do(ctx, req, &lvl); err != nil {
		return PermissionNone, apiError(action, err)
	}
	return lvl.level(), nil
}

// apiURL is a URL in an error text.
var apiURL = regexp.MustCompile(`"?https?://[^\s"]+"?`)

// Brief is err's text for a pull request comment: GitHub's answer as
// "HTTP 404 Not Found" (its message, without the request's method and API
// URL and without go-github's trailing list of validation errors when it
// is empty), and any other URL left out. It returns "" for nil.
func Brief(err error) string {
	if err == nil {
		return ""
	}
	text := err.Error()
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		answer := fmt.Sprintf("GitHub answered HTTP %d", er.Response.StatusCode)
		if msg := strings.TrimSpace(er.Message); msg != "" {
			answer += ": " + msg
		}
		for _, e := range er.Errors {
			if e.Message != "" {
				answer += "; " + e.Message
			}
		}
		text = strings.Replace(text, er.Error(), answer, 1)
	}
	text = strings.ReplaceAll(text, " []", "")
	return apiURL.ReplaceAllString(text, "the API")
}

// PullRequest is what swarm-gate reads of a pull request.
type PullRequest struct {
	Number  int
	Title   string
	State   string // open or closed
	Merged  bool
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
	out := &PullRequest{Number: pr.GetNumber(), Title: pr.GetTitle(), State: pr.GetState(), Merged: pr.GetMerged(), Draft: pr.GetDraft(),
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
