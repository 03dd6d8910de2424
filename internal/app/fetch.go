package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/gitsha"
	"github.com/swarm-gate/swarm-gate/internal/source"
)

// DefaultFetchDepth is how many commits of history the first fetch takes
// from the base and the head.
const DefaultFetchDepth = 50

// GitNice is how much lower than the server's the priority of the git
// processes an evaluation starts is (a nice increment): on a busy server
// the kernel then runs the webhook intake first (docs/app.md, "Capacity").
const GitNice = 10

// deepenFactor is how much deeper the second fetch goes before the full
// one.
const deepenFactor = 8

// fetchSpec is what one evaluation fetches.
type fetchSpec struct {
	// URL is the repository's HTTPS clone URL; Token the installation
	// token, sent as the password of user x-access-token.
	URL, Token string
	// Base and Head are full commit SHAs; Base may be "" (a comment
	// command whose pull request could not be read has none).
	Base, Head string
	// Refs carry Base and Head, for a server that does not serve commits
	// by SHA.
	Refs []string
	// Depth is the first fetch's depth (0: DefaultFetchDepth).
	Depth int
	// Compare, when not nil, asks GitHub's compare API for the merge base
	// of Base and Head (one REST call: ghapi.Client.Compare). It is called
	// only when the first fetch does not reach the merge base.
	Compare func(ctx context.Context) (*ghapi.Comparison, error)
}

// fetchResult says how the commits were fetched.
type fetchResult struct {
	// Mode is shallow (the first depth sufficed), merge-base (GitHub's
	// compare API gave the merge base, and the head's history was fetched
	// down to it), deepened, full (the whole history of the two commits)
	// or refs (by ref, not by SHA).
	Mode     string
	Depth    int // the last fetch's; 0 for full and refs
	Duration time.Duration
	// MergeBase is the merge base GitHub's compare API gave, in mode
	// merge-base only: a commit of the fetched head's history (checked),
	// which the base's fetched history may not reach; the pipeline must
	// measure the changes from it (pipeline.Options.MergeBase). "" in the
	// other modes: the pipeline finds the merge base itself.
	MergeBase string
	// CompareErr is why GitHub's compare API could not be used when it was
	// asked (the fetch then went on as without it: deeper, then whole);
	// nil when it was not asked or it answered.
	CompareErr error
	// Repo is the fetched repository, opened once for the whole
	// evaluation (it keeps its pack files open): the check that the merge
	// base is there read through it already, and the runner reads through
	// it. nil when the fetch failed or the repository could not be opened
	// (the runner then opens it itself and says why). Closed by close.
	Repo *source.Git
}

// close closes Repo, if any; the repository's files must be closed before
// the work directory is removed.
func (r *fetchResult) close() error {
	if r.Repo == nil {
		return nil
	}
	err := r.Repo.Close()
	r.Repo = nil
	return err
}

// fetchCommits creates a git repository in dir (which must not exist, or be
// empty) and fetches the base and head commits into it over HTTPS with
// go-git, shallow first: depth Depth, then Depth*8, then the whole history
// (in a fresh repository: go-git cannot unshallow), until the merge base
// can be found as the pipeline finds it (source.Git.MergeBase). The
// commits themselves are compared afterwards, so a pull request of any size
// is judged (the pull request files API's 3,000-file cap does not apply).
//
// When the first fetch does not reach the merge base and f.Compare is
// set, GitHub is asked for the merge base instead of going deeper (mode
// merge-base): when it is not in the head's fetched history yet, the head
// is fetched again at depth ahead_by+1 (at least Depth), with the merge
// base itself, in one fetch. The merge base must then be the head or an
// ancestor of it in the fetched history: else the fetch fails (a
// *mergeBaseError naming the SHAs), whatever else could be fetched. When
// the compare API fails, the fetch goes on as without it (CompareErr says
// why).
//
// When the server does not serve commits by SHA (no
// allow-reachable-sha1-in-want), or refuses one, the refs that carry them
// are fetched (whole history) and the commits looked up there.
//
// Errors name the URL (never the token) and what failed; a fetch that
// found the commits but no merge base is not an error: the pipeline
// reports unrelated histories itself.
func fetchCommits(ctx context.Context, dir string, f fetchSpec) (fetchResult, error) {
	start := time.Now()
	depth := f.Depth
	if depth <= 0 {
		depth = DefaultFetchDepth
	}
	res, err := fetchBySHA(ctx, dir, f, depth)
	var mbErr *mergeBaseError
	if err != nil && len(f.Refs) > 0 && ctx.Err() == nil && !noAccess(err) && !errors.As(err, &mbErr) {
		shaErr, compareErr := err, res.CompareErr
		res, err = fetchByRefs(ctx, dir, f)
		res.CompareErr = compareErr
		if err != nil {
			err = fmt.Errorf("%w; fetching the refs that carry them instead (%s) failed too: %v", shaErr, strings.Join(f.Refs, ", "), err)
		}
	}
	res.Duration = time.Since(start)
	return res, err
}

func fetchBySHA(ctx context.Context, dir string, f fetchSpec, depth int) (fetchResult, error) {
	want := wanted(f)
	if len(want) == 0 {
		return fetchResult{}, errors.New("fetching the commits: the event names no commit to fetch")
	}
	specs := make([]config.RefSpec, 0, len(want))
	for i, sha := range want {
		specs = append(specs, config.RefSpec(fmt.Sprintf("%s:refs/swarm-gate/want%d", sha, i)))
	}
	repo, err := initRepo(dir, f.URL)
	if err != nil {
		return fetchResult{}, err
	}
	var compareErr error
	for _, d := range []int{depth, depth * deepenFactor} {
		if err := fetch(ctx, repo, f, specs, d); err != nil {
			return fetchResult{CompareErr: compareErr}, err
		}
		if g, ok := ready(dir, f); ok {
			mode := "shallow"
			if d != depth {
				mode = "deepened"
			}
			return fetchResult{Mode: mode, Depth: d, Repo: g, CompareErr: compareErr}, nil
		}
		if d == depth && f.Compare != nil {
			cmp, err := f.Compare(ctx)
			if err == nil {
				return fetchToMergeBase(ctx, dir, repo, f, cmp, depth)
			}
			compareErr = err
		}
	}
	// go-git cannot unshallow a repository: start again, whole history.
	if repo, err = initRepo(dir, f.URL); err != nil {
		return fetchResult{CompareErr: compareErr}, err
	}
	if err := fetch(ctx, repo, f, specs, 0); err != nil {
		return fetchResult{CompareErr: compareErr}, err
	}
	return fetchResult{Mode: "full", Repo: openFetched(dir), CompareErr: compareErr}, nil
}

// fetchToMergeBase completes a first fetch at depth that did not reach the
// merge base, with the merge base GitHub's compare API gave (cmp): when it
// is not in the head's fetched history yet, the head and the merge base
// are fetched at depth max(ahead_by+1, depth), which reaches it along the
// head's shortest path to it (ahead_by commits at most). The merge base
// must then be the head or one of its ancestors in the fetched history;
// else the error is a *mergeBaseError.
func fetchToMergeBase(ctx context.Context, dir string, repo *git.Repository, f fetchSpec, cmp *ghapi.Comparison, depth int) (fetchResult, error) {
	mb := cmp.MergeBase
	if !gitsha.Full(mb) || cmp.AheadBy < 0 {
		return fetchResult{}, &mergeBaseError{msg: fmt.Sprintf("GitHub's compare API gives %q as the merge base of base %s and head %s, %d commits behind the head: not a commit SHA and a count", mb, f.Base, f.Head, cmp.AheadBy)}
	}
	if g, ok, err := hasAncestor(dir, mb, f.Head); err != nil {
		return fetchResult{}, err
	} else if ok {
		return fetchResult{Mode: "merge-base", Depth: depth, Repo: g, MergeBase: mb}, nil
	}
	d := max(cmp.AheadBy+1, depth)
	specs := []config.RefSpec{config.RefSpec(fmt.Sprintf("%s:refs/swarm-gate/want0", f.Head))}
	if mb != f.Head {
		specs = append(specs, config.RefSpec(fmt.Sprintf("%s:refs/swarm-gate/merge-base", mb)))
	}
	if err := fetch(ctx, repo, f, specs, d); err != nil {
		return fetchResult{}, err
	}
	g, ok, err := hasAncestor(dir, mb, f.Head)
	if err != nil {
		return fetchResult{}, err
	}
	if !ok {
		return fetchResult{}, &mergeBaseError{msg: fmt.Sprintf("GitHub's compare API gives %s as the merge base of base %s and head %s, %d commits behind the head, but it is not an ancestor of head %s in the head's history fetched from %s (depth %d): the changes cannot be measured from it; swarm-gate does not evaluate against a merge base it cannot check", mb, f.Base, f.Head, cmp.AheadBy, f.Head, f.URL, d)}
	}
	return fetchResult{Mode: "merge-base", Depth: d, Repo: g, MergeBase: mb}, nil
}

// hasAncestor reports whether commit mb is head or one of its ancestors
// in the repository fetched into dir; when it is, it returns the
// repository opened (openFetched), which the caller must close.
func hasAncestor(dir, mb, head string) (*source.Git, bool, error) {
	g, err := source.OpenGitWith(dir, source.OpenOptions{KeepFilesOpen: true, ChildNice: GitNice})
	if err != nil {
		return nil, false, fmt.Errorf("checking that %s is an ancestor of %s: %w", mb, head, err)
	}
	ok, err := g.IsAncestor(plumbing.NewHash(mb), plumbing.NewHash(head))
	if err != nil || !ok {
		_ = g.Close()
		if err != nil {
			return nil, false, fmt.Errorf("checking that %s is an ancestor of %s in the fetched repository: %w", mb, head, err)
		}
		return nil, false, nil
	}
	return g, true, nil
}

// mergeBaseError is a merge base from GitHub's compare API that the
// fetched history contradicts: the evaluation fails closed on it (no other
// fetch is tried).
type mergeBaseError struct{ msg string }

func (e *mergeBaseError) Error() string { return e.msg }

func fetchByRefs(ctx context.Context, dir string, f fetchSpec) (fetchResult, error) {
	repo, err := initRepo(dir, f.URL)
	if err != nil {
		return fetchResult{}, err
	}
	specs := make([]config.RefSpec, 0, len(f.Refs))
	for i, ref := range f.Refs {
		specs = append(specs, config.RefSpec(fmt.Sprintf("+%s:refs/swarm-gate/ref%d", ref, i)))
	}
	if err := fetch(ctx, repo, f, specs, 0); err != nil {
		return fetchResult{}, err
	}
	for _, sha := range wanted(f) {
		if _, err := repo.CommitObject(plumbing.NewHash(sha)); err != nil {
			return fetchResult{}, fmt.Errorf("fetching %s: commit %s is not in %s (a newer push may have replaced it; the delivery for that push evaluates the new head)", f.URL, sha[:12], strings.Join(f.Refs, ", "))
		}
	}
	return fetchResult{Mode: "refs", Repo: openFetched(dir)}, nil
}

// wanted are the distinct commits to fetch, head first.
func wanted(f fetchSpec) []string {
	var out []string
	for _, sha := range []string{f.Head, f.Base} {
		if sha != "" && (len(out) == 0 || out[0] != sha) {
			out = append(out, sha)
		}
	}
	return out
}

// initRepo makes an empty repository in dir (removing what was there)
// with the remote origin at url (the token is never stored).
func initRepo(dir, url string) (*git.Repository, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("preparing the work directory %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("preparing the work directory %s: %w", dir, err)
	}
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return nil, fmt.Errorf("creating a git repository in %s: %w", dir, err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{url}}); err != nil {
		return nil, fmt.Errorf("creating a git repository in %s: %w", dir, err)
	}
	return repo, nil
}

func fetch(ctx context.Context, repo *git.Repository, f fetchSpec, specs []config.RefSpec, depth int) error {
	err := repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin",
		RefSpecs:   specs,
		Depth:      depth,
		Tags:       git.NoTags,
		Force:      true,
		Auth:       &githttp.BasicAuth{Username: "x-access-token", Password: f.Token},
	})
	if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	what := "the commits"
	if len(specs) > 0 && !gitsha.Full(specs[0].Src()) {
		what = "the refs"
	}
	if ctx.Err() != nil {
		return fmt.Errorf("fetching %s from %s: stopped: %w", what, f.URL, context.Cause(ctx))
	}
	return &fetchError{msg: fmt.Sprintf("fetching %s from %s%s: %s", what, f.URL, depthNote(depth), redact(strings.TrimSpace(err.Error()), f.Token)), err: err}
}

// fetchError is a failed fetch: its message is redacted; Unwrap gives
// go-git's error, for noAccess.
type fetchError struct {
	msg string
	err error
}

func (e *fetchError) Error() string { return e.msg }
func (e *fetchError) Unwrap() error { return e.err }

// noAccess is true when the server refused the repository itself (not
// found, or the token refused), so that asking for other refs is no use.
func noAccess(err error) bool {
	return errors.Is(err, transport.ErrRepositoryNotFound) || errors.Is(err, transport.ErrAuthenticationRequired) ||
		errors.Is(err, transport.ErrAuthorizationFailed)
}

func depthNote(depth int) string {
	if depth > 0 {
		return fmt.Sprintf(" (depth %d)", depth)
	}
	return ""
}

// ready reports whether the pipeline will find the merge base of the base
// and the head in dir. When it will, it returns the repository opened
// (openFetched; nil when it cannot be opened and there is no merge base to
// find), which the caller must close; else it returns nil, having closed
// it.
func ready(dir string, f fetchSpec) (*source.Git, bool) {
	g := openFetched(dir)
	if f.Base == "" || f.Base == f.Head {
		return g, true
	}
	if g == nil {
		return nil, false
	}
	if _, err := g.MergeBase(plumbing.NewHash(f.Base), plumbing.NewHash(f.Head)); err != nil {
		_ = g.Close()
		return nil, false
	}
	return g, true
}

// openFetched opens the fetched repository in dir keeping its pack files
// open, or returns nil when it cannot be opened (the runner opens it again
// and reports why).
func openFetched(dir string) *source.Git {
	g, err := source.OpenGitWith(dir, source.OpenOptions{KeepFilesOpen: true, ChildNice: GitNice})
	if err != nil {
		return nil
	}
	return g
}

// redact removes a secret from a message.
func redact(msg, secret string) string {
	if secret == "" {
		return msg
	}
	return strings.ReplaceAll(msg, secret, "[redacted]")
}
