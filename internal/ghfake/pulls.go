package ghfake

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// PullRequest is a pull request in the fake's store.
type PullRequest struct {
	Number  int
	Title   string
	State   string // open (default) or closed
	Draft   bool
	User    string
	HeadRef string
	HeadSHA string
	// HeadRepo is the head's repository ("owner/name"); "" means the base
	// repository (not a fork).
	HeadRepo string
	BaseRef  string
	BaseSHA  string
	Labels   []string
	Files    []PullFile
	// Commits are the pull request's commits, oldest first
	// (pulls/list-commits); none by default.
	Commits []PullCommit
}

// PullCommit is one commit of a pull request: the logins GitHub matched
// its author and committer to ("" for none) and its parent count.
type PullCommit struct {
	SHA               string
	Author, Committer string
	Parents           int // 1 when 0
}

// PullFile is one changed file of a pull request.
type PullFile struct {
	Filename         string
	PreviousFilename string // renames only
	Status           string // added, removed, modified, renamed, copied, changed, unchanged
	Additions        int
	Deletions        int
	// Patch is the unified diff hunk text; "" leaves patch out, as GitHub
	// does for binary and very large files.
	Patch string
}

// AddPullRequest stores a pull request of repo ("owner/name").
func (s *Server) AddPullRequest(repo string, pr PullRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pr.State == "" {
		pr.State = "open"
	}
	s.pulls[repo+"#"+strconv.Itoa(pr.Number)] = &pr
	// The head branch was pushed before the pull request was opened: give
	// the activity log a record of it when it has none (repos/list-activities).
	head := pr.HeadRepo
	if head == "" {
		head = repo
	}
	if pr.HeadRef != "" && pr.HeadSHA != "" && !s.hasActivity(head, pr.HeadRef) {
		s.recordActivity(head, Activity{Branch: pr.HeadRef, Before: strings.Repeat("0", 40), After: pr.HeadSHA, At: now().Add(-time.Second), Type: "branch_creation"})
	}
}

// SetPullCommits replaces the commits of pull request number of repo
// (pulls/list-commits); it is a no-op when there is no such pull request.
func (s *Server) SetPullCommits(repo string, number int, commits ...PullCommit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pr := s.pulls[repo+"#"+strconv.Itoa(number)]; pr != nil {
		pr.Commits = commits
	}
}

func (s *Server) findPull(r *request) *PullRequest {
	return s.pulls[r.repo()+"#"+r.Params["pull_number"]]
}

func (s *Server) getPull(r *request) (int, any) {
	pr := s.findPull(r)
	if pr == nil {
		return notFound()
	}
	return http.StatusOK, s.pullJSON(r.repo(), pr, "pull-request")
}

// listPulls answers pulls/list: the repository's pull requests filtered by
// state (default open), head ("owner:branch") and base (a branch name),
// newest (highest number) first.
func (s *Server) listPulls(r *request) (int, any) {
	repo := r.repo()
	state := r.Query.Get("state")
	if state == "" {
		state = "open"
	}
	var prs []*PullRequest
	for k, pr := range s.pulls {
		if !strings.HasPrefix(k, repo+"#") || (state != "all" && pr.State != state) {
			continue
		}
		if b := r.Query.Get("base"); b != "" && pr.BaseRef != b {
			continue
		}
		if h := r.Query.Get("head"); h != "" {
			headRepo := pr.HeadRepo
			if headRepo == "" {
				headRepo = repo
			}
			owner, _, _ := strings.Cut(headRepo, "/")
			if h != owner+":"+pr.HeadRef {
				continue
			}
		}
		prs = append(prs, pr)
	}
	sort.Slice(prs, func(i, j int) bool { return prs[i].Number > prs[j].Number })
	lo, hi := s.page(r, len(prs))
	list := []any{}
	for _, pr := range prs[lo:hi] {
		list = append(list, s.pullJSON(repo, pr, "pull-request-simple-items"))
	}
	return http.StatusOK, list
}

// listCommitPulls answers repos/list-pull-requests-associated-with-commit
// for a commit not on the default branch: the open pull requests whose
// head is the commit (GitHub also lists those whose history contains it;
// the fake knows only heads), newest first.
func (s *Server) listCommitPulls(r *request) (int, any) {
	repo, sha := r.repo(), r.Params["commit_sha"]
	var prs []*PullRequest
	for k, pr := range s.pulls {
		if strings.HasPrefix(k, repo+"#") && pr.State == "open" && pr.HeadSHA == sha {
			prs = append(prs, pr)
		}
	}
	sort.Slice(prs, func(i, j int) bool { return prs[i].Number > prs[j].Number })
	lo, hi := s.page(r, len(prs))
	list := []any{}
	for _, pr := range prs[lo:hi] {
		list = append(list, s.pullJSON(repo, pr, "pull-request-simple-items"))
	}
	return http.StatusOK, list
}

// listPullCommits answers pulls/list-commits: the stored Commits, paged,
// at most 250 as on GitHub.
func (s *Server) listPullCommits(r *request) (int, any) {
	pr := s.findPull(r)
	if pr == nil {
		return notFound()
	}
	commits := pr.Commits[:min(len(pr.Commits), 250)]
	lo, hi := s.page(r, len(commits))
	api := s.URL + "repos/" + r.repo()
	list := []any{}
	for _, pc := range commits[lo:hi] {
		m := s.spec.example("commit-items")
		m["sha"], m["node_id"] = pc.SHA, "C_fake"+pc.SHA
		m["url"], m["html_url"], m["comments_url"] = api+"/commits/"+pc.SHA, s.WebURL+"/"+r.repo()+"/commit/"+pc.SHA, api+"/commits/"+pc.SHA+"/comments"
		for key, login := range map[string]string{"author": pc.Author, "committer": pc.Committer} {
			if login == "" {
				m[key] = nil
				continue
			}
			u := copyJSON(m[key])
			if u == nil {
				u = copyJSON(s.spec.example("commit-items")["author"])
			}
			setUser(u, login)
			m[key] = u
		}
		parents := []any{}
		for i := range max(pc.Parents, 1) {
			p := fmt.Sprintf("%040x", i+1)
			parents = append(parents, map[string]any{"sha": p, "url": api + "/commits/" + p, "html_url": s.WebURL + "/" + r.repo() + "/commit/" + p})
		}
		m["parents"] = parents
		delete(m, "stats")
		delete(m, "files")
		list = append(list, m)
	}
	return http.StatusOK, list
}

// pullJSON is a stored pull request as GitHub returns it, built on the
// description's example (pull-request, or pull-request-simple-items for
// lists).
func (s *Server) pullJSON(repo string, pr *PullRequest, example string) map[string]any {
	m := s.spec.example(example)
	n := strconv.Itoa(pr.Number)
	m["id"] = int64(pr.Number) * 7
	m["node_id"] = "PR_fake" + n
	m["number"] = pr.Number
	m["title"] = pr.Title
	m["state"] = pr.State
	m["draft"] = pr.Draft
	m["body"] = nil
	m["url"] = s.URL + "repos/" + repo + "/pulls/" + n
	m["html_url"] = s.WebURL + "/" + repo + "/pull/" + n
	if _, ok := m["changed_files"]; ok {
		m["changed_files"] = len(pr.Files)
	}
	// The description's example has a team without its required "type".
	m["requested_teams"], m["requested_reviewers"] = []any{}, []any{}
	setUser(m["user"], pr.User)
	labels := []any{}
	for i, l := range pr.Labels {
		labels = append(labels, map[string]any{"id": i + 1, "node_id": "LA_fake" + strconv.Itoa(i+1),
			"url": s.URL + "repos/" + repo + "/labels/" + l, "name": l, "description": nil, "color": "ededed", "default": false})
	}
	m["labels"] = labels
	headRepo := pr.HeadRepo
	if headRepo == "" {
		headRepo = repo
	}
	setRef(m["head"], headRepo, pr.HeadRef, pr.HeadSHA)
	setRef(m["base"], repo, pr.BaseRef, pr.BaseSHA)
	return m
}

func setRef(v any, repo, ref, sha string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	owner, name, _ := strings.Cut(repo, "/")
	m["ref"], m["sha"], m["label"] = ref, sha, owner+":"+ref
	setUser(m["user"], owner)
	if r, ok := m["repo"].(map[string]any); ok {
		r["name"], r["full_name"] = name, repo
		setUser(r["owner"], owner)
	}
}

func (s *Server) listPullFiles(r *request) (int, any) {
	pr := s.findPull(r)
	if pr == nil {
		return notFound()
	}
	files := pr.Files
	if len(files) > 3000 { // GitHub lists at most 3000 files
		files = files[:3000]
	}
	lo, hi := s.page(r, len(files))
	list := []any{}
	for _, f := range files[lo:hi] {
		m := s.spec.example("diff-entry-items")
		m["sha"] = gitBlobSHA(f.Filename + f.Patch)
		m["filename"] = f.Filename
		m["status"] = f.Status
		m["additions"], m["deletions"], m["changes"] = f.Additions, f.Deletions, f.Additions+f.Deletions
		m["blob_url"] = s.WebURL + "/" + r.repo() + "/blob/" + pr.HeadSHA + "/" + f.Filename
		m["raw_url"] = s.WebURL + "/" + r.repo() + "/raw/" + pr.HeadSHA + "/" + f.Filename
		m["contents_url"] = s.URL + "repos/" + r.repo() + "/contents/" + f.Filename + "?ref=" + pr.HeadSHA
		delete(m, "patch")
		if f.Patch != "" {
			m["patch"] = f.Patch
		}
		if f.PreviousFilename != "" {
			m["previous_filename"] = f.PreviousFilename
		}
		list = append(list, m)
	}
	return http.StatusOK, list
}

// DefaultBranch is the ref the contents API reads when a request names
// none.
const DefaultBranch = "main"

// AddFile stores a file of repo ("owner/name") at ref (a branch name or a
// commit or tree SHA; "" is DefaultBranch), for the contents and git trees
// operations.
func (s *Server) AddFile(repo, ref, filePath, content string) {
	if ref == "" {
		ref = DefaultBranch
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := repo + "@" + ref
	if s.files[k] == nil {
		s.files[k] = map[string]string{}
	}
	s.files[k][filePath] = content
}

// getContent answers for a file only (directory listings are not faked).
func (s *Server) getContent(r *request) (int, any) {
	ref := r.Query.Get("ref")
	if ref == "" {
		ref = DefaultBranch
	}
	p := r.Params["path"]
	content, ok := s.files[r.repo()+"@"+ref][p]
	if !ok {
		return notFound()
	}
	m := s.spec.example("content-file-response-if-content-is-a-file")
	sha := gitBlobSHA(content)
	api := s.URL + "repos/" + r.repo() + "/contents/" + p + "?ref=" + ref
	web := s.WebURL + "/" + r.repo() + "/blob/" + ref + "/" + p
	m["name"], m["path"], m["sha"], m["size"] = path.Base(p), p, sha, len(content)
	m["content"] = wrapBase64(base64.StdEncoding.EncodeToString([]byte(content)))
	m["url"], m["html_url"] = api, web
	m["git_url"] = s.URL + "repos/" + r.repo() + "/git/blobs/" + sha
	m["download_url"] = s.WebURL + "/" + r.repo() + "/raw/" + ref + "/" + p
	m["_links"] = map[string]any{"self": api, "git": m["git_url"], "html": web}
	return http.StatusOK, m
}

// getTree lists the files stored under tree_sha (a ref given to AddFile);
// recursive lists every file with its directories, otherwise only the top
// level.
func (s *Server) getTree(r *request) (int, any) {
	sha := r.Params["tree_sha"]
	files, ok := s.files[r.repo()+"@"+sha]
	if !ok {
		return notFound()
	}
	recursive := r.Query.Get("recursive") != ""
	entries := map[string]map[string]any{}
	for p, content := range files {
		dirs := strings.Split(p, "/")
		for i := 1; i < len(dirs); i++ {
			d := strings.Join(dirs[:i], "/")
			if recursive || i == 1 {
				entries[d] = map[string]any{"path": d, "mode": "040000", "type": "tree", "sha": gitBlobSHA("tree:" + d),
					"url": s.URL + "repos/" + r.repo() + "/git/trees/" + gitBlobSHA("tree:"+d)}
			}
		}
		if recursive || len(dirs) == 1 {
			b := gitBlobSHA(content)
			entries[p] = map[string]any{"path": p, "mode": "100644", "type": "blob", "size": len(content), "sha": b,
				"url": s.URL + "repos/" + r.repo() + "/git/blobs/" + b}
		}
	}
	names := make([]string, 0, len(entries))
	for p := range entries {
		names = append(names, p)
	}
	sort.Strings(names)
	tree := []any{}
	for _, p := range names {
		tree = append(tree, entries[p])
	}
	m := s.spec.example("git-tree-response-recursively-retrieving-a-tree")
	m["sha"], m["url"], m["tree"], m["truncated"] = sha, s.URL+"repos/"+r.repo()+"/git/trees/"+sha, tree, false
	return http.StatusOK, m
}

// gitBlobSHA is git's object id of a blob with this content.
func gitBlobSHA(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}

// wrapBase64 breaks base64 text into 60-character lines, as the contents
// API does.
func wrapBase64(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}
