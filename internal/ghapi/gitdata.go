package ghapi

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/gitsha"
)

// This file is the Git Data API part of the client: what swarm-gate needs
// to commit a record to a pull request's branch without a checkout (read
// the branch's head, its commit and files; write blobs, a tree, a commit;
// move the branch forward), plus whether a branch is protected.

// ErrNotFastForward is the error (wrapped) of UpdateBranch when the branch
// moved since its head was read: GitHub's 422 "Update is not a fast
// forward".
var ErrNotFastForward = errors.New("the branch moved since swarm-gate read it (GitHub: Update is not a fast forward)")

// GitCommit is a commit as the Git Data API returns it.
type GitCommit struct {
	SHA     string
	TreeSHA string
	HTMLURL string
	Message string
	Parents []string
	// Author and Committer are who wrote and who committed it, with when.
	Author, Committer GitPerson
}

// GitPerson is a commit's author or committer.
type GitPerson struct {
	Name, Email string
	Date        time.Time
}

func (p GitPerson) String() string { return p.Name + " <" + p.Email + ">" }

func fromGitCommit(c *github.Commit) *GitCommit {
	out := &GitCommit{SHA: c.GetSHA(), TreeSHA: c.GetTree().GetSHA(), HTMLURL: c.GetHTMLURL(), Message: c.GetMessage(),
		Author:    GitPerson{Name: c.GetAuthor().GetName(), Email: c.GetAuthor().GetEmail(), Date: c.GetAuthor().GetDate().Time},
		Committer: GitPerson{Name: c.GetCommitter().GetName(), Email: c.GetCommitter().GetEmail(), Date: c.GetCommitter().GetDate().Time}}
	for _, p := range c.Parents {
		out.Parents = append(out.Parents, p.GetSHA())
	}
	return out
}

// BranchHead returns the commit SHA branch points at (git/get-ref
// heads/<branch>).
func (c *Client) BranchHead(ctx context.Context, repo Repo, branch string) (string, error) {
	ref, _, err := c.gh.Git.GetRef(ctx, repo.Owner, repo.Name, "heads/"+branch)
	if err != nil {
		return "", apiError(fmt.Sprintf("reading branch %s of %s", branch, repo), err)
	}
	if ref.GetObject().GetType() != "commit" || !gitsha.Full(ref.GetObject().GetSHA()) {
		return "", fmt.Errorf("reading branch %s of %s: the ref points at a %s %q, not a commit", branch, repo, ref.GetObject().GetType(), ref.GetObject().GetSHA())
	}
	return ref.GetObject().GetSHA(), nil
}

// BranchProtected reports whether branch has branch protection
// (repos/get-branch, field protected).
//
// The request is made with go-github's Do rather than its GetBranch, which
// turns every error status into a bare "unexpected status code" (not a
// *github.ErrorResponse: a 404 or a rate limit could not be told apart).
func (c *Client) BranchProtected(ctx context.Context, repo Repo, branch string) (bool, error) {
	action := fmt.Sprintf("reading whether branch %s of %s is protected", branch, repo)
	req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/branches/%s", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), url.PathEscape(branch)), nil)
	if err != nil {
		return false, apiError(action, err)
	}
	b := new(github.Branch)
	if _, err := c.gh.Do(ctx, req, b); err != nil {
		return false, apiError(action, err)
	}
	return b.GetProtected(), nil
}

// GitCommit reads a commit (git/get-commit).
func (c *Client) GitCommit(ctx context.Context, repo Repo, sha string) (*GitCommit, error) {
	gc, _, err := c.gh.Git.GetCommit(ctx, repo.Owner, repo.Name, sha)
	if err != nil {
		return nil, apiError(fmt.Sprintf("reading commit %s of %s", shortRef(sha), repo), err)
	}
	return fromGitCommit(gc), nil
}

// FileAt returns the content of a file at ref (a commit SHA or branch)
// through the contents API; exists is false (and err nil) when GitHub
// answers 404. A path that is not a file, or a file over the contents
// API's 1 MB limit for base64 content, is an error.
func (c *Client) FileAt(ctx context.Context, repo Repo, path, ref string) (content []byte, exists bool, err error) {
	action := fmt.Sprintf("reading %s at %s of %s", path, shortRef(ref), repo)
	fc, _, _, err := c.gh.Repositories.GetContents(ctx, repo.Owner, repo.Name, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		if IsNotFound(err) {
			return nil, false, nil
		}
		return nil, false, apiError(action, err)
	}
	if fc == nil || fc.GetType() != "file" {
		return nil, false, fmt.Errorf("%s: not a file", action)
	}
	if fc.GetEncoding() != "base64" {
		return nil, false, fmt.Errorf("%s: the contents API returned encoding %q (files over 1 MB come without content)", action, fc.GetEncoding())
	}
	data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(deref(fc.Content), "\n", ""))
	if err != nil {
		return nil, false, fmt.Errorf("%s: the content is not valid base64: %v", action, err)
	}
	if fc.Size != nil && fc.GetSize() != len(data) {
		return nil, false, fmt.Errorf("%s: %d bytes read, the API says %d", action, len(data), fc.GetSize())
	}
	return data, true, nil
}

// IsNotFound reports whether err is GitHub's 404.
func IsNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}

// CreateBlob stores content as a blob (git/create-blob, base64, so that
// the bytes are kept exactly) and returns its SHA. Blobs are addressed by
// their content, so the request is safe to resend.
func (c *Client) CreateBlob(ctx context.Context, repo Repo, content []byte) (string, error) {
	b, _, err := c.gh.Git.CreateBlob(withPolicy(ctx, repeatable), repo.Owner, repo.Name, &github.Blob{
		Content: github.String(base64.StdEncoding.EncodeToString(content)), Encoding: github.String("base64")})
	if err != nil {
		return "", apiError(fmt.Sprintf("creating a blob of %d bytes in %s", len(content), repo), err)
	}
	return b.GetSHA(), nil
}

// TreeFile is one file of CreateTree: a blob at a repository path.
type TreeFile struct {
	Path    string
	BlobSHA string
	// Mode is "100644" (default) or "100755".
	Mode string
}

// CreateTree writes a tree that is baseTree with files set
// (git/create-tree) and returns its SHA. Trees are addressed by their
// content, so the request is safe to resend.
func (c *Client) CreateTree(ctx context.Context, repo Repo, baseTree string, files []TreeFile) (string, error) {
	entries := make([]*github.TreeEntry, 0, len(files))
	for _, f := range files {
		mode := f.Mode
		if mode == "" {
			mode = "100644"
		}
		entries = append(entries, &github.TreeEntry{Path: github.String(f.Path), Mode: github.String(mode), Type: github.String("blob"), SHA: github.String(f.BlobSHA)})
	}
	t, _, err := c.gh.Git.CreateTree(withPolicy(ctx, repeatable), repo.Owner, repo.Name, baseTree, entries)
	if err != nil {
		return "", apiError(fmt.Sprintf("creating a tree on %s in %s", shortRef(baseTree), repo), err)
	}
	return t.GetSHA(), nil
}

// CreateCommit writes a commit of tree with one parent (git/create-commit);
// the author and committer are the token's (GitHub signs such commits when
// the token is an App's). A resent request can leave an unreferenced
// commit behind, which is harmless, so it is resent like an idempotent one.
func (c *Client) CreateCommit(ctx context.Context, repo Repo, message, tree, parent string) (*GitCommit, error) {
	gc, _, err := c.gh.Git.CreateCommit(withPolicy(ctx, repeatable), repo.Owner, repo.Name, &github.Commit{
		Message: github.String(message), Tree: &github.Tree{SHA: github.String(tree)}, Parents: []*github.Commit{{SHA: github.String(parent)}}}, nil)
	if err != nil {
		return nil, apiError(fmt.Sprintf("creating a commit on %s in %s", shortRef(parent), repo), err)
	}
	return fromGitCommit(gc), nil
}

// UpdateBranch moves branch to sha, only forward (git/update-ref with
// force false). When the branch moved meanwhile the error wraps
// ErrNotFastForward.
func (c *Client) UpdateBranch(ctx context.Context, repo Repo, branch, sha string) error {
	_, _, err := c.gh.Git.UpdateRef(ctx, repo.Owner, repo.Name, &github.Reference{
		Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}, false)
	if err == nil {
		return nil
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity &&
		strings.Contains(strings.ToLower(er.Message), "fast forward") {
		return apiError(fmt.Sprintf("moving branch %s of %s to %s", branch, repo, shortRef(sha)), fmt.Errorf("%w: %v", ErrNotFastForward, err))
	}
	return apiError(fmt.Sprintf("moving branch %s of %s to %s", branch, repo, shortRef(sha)), err)
}

// StatusCode returns the HTTP status of a GitHub error response, 0 for any
// other error.
func StatusCode(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// short is a SHA's first 12 characters, for messages.
func shortRef(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
