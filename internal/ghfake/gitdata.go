package ghfake

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// gitDataState is the fake's Git Data API: per repository, a git object
// database (real git objects with real SHA-1 ids, in go-git's in-memory
// storage), its branches, and which branches are protected; plus the team
// memberships of the unvalidated extra routes. Guarded by Server.mu and
// created on first use.
type gitDataState struct {
	repos map[string]*gitDataRepo
	// teams maps "org/slug/user" to a membership state (active, pending).
	teams map[string]string
}

type gitDataRepo struct {
	st        *memory.Storage
	branches  map[string]plumbing.Hash
	protected map[string]bool
}

// GitIdentity is who the fake's token creates commits as (GitHub uses the
// token's user or App bot when the request names no author).
var GitIdentity = object.Signature{Name: Login, Email: "41898282+swarm-gate[bot]@users.noreply.github.com"}

func (s *Server) gitRepo(repo string) *gitDataRepo {
	if s.gitdata.repos == nil {
		s.gitdata.repos = map[string]*gitDataRepo{}
	}
	r := s.gitdata.repos[repo]
	if r == nil {
		r = &gitDataRepo{st: memory.NewStorage(), branches: map[string]plumbing.Hash{}, protected: map[string]bool{}}
		s.gitdata.repos[repo] = r
	}
	return r
}

// ImportGit copies every object and branch of the git repository at dir (a
// working tree or a bare repository) into repo ("owner/name"), for the Git
// Data API operations, repos/get-branch, and the contents API at each
// branch and commit (as AddFile would store them). It fails the test when
// dir cannot be read.
func (s *Server) ImportGit(repo, dir string) {
	s.t.Helper()
	g, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		s.t.Fatalf("ghfake: opening %s: %v", dir, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.gitRepo(repo)
	iter, err := g.Storer.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		s.t.Fatalf("ghfake: reading %s: %v", dir, err)
	}
	err = iter.ForEach(func(o plumbing.EncodedObject) error {
		_, err := r.st.SetEncodedObject(o)
		return err
	})
	if err != nil {
		s.t.Fatalf("ghfake: copying the objects of %s: %v", dir, err)
	}
	refs, err := g.Branches()
	if err != nil {
		s.t.Fatalf("ghfake: listing the branches of %s: %v", dir, err)
	}
	// Imported branches count as pushed just before whatever the test does
	// next (a comment in the same second would make the order unknown).
	pushedAt := now().Add(-time.Second)
	_ = refs.ForEach(func(ref *plumbing.Reference) error {
		old, found := r.branches[ref.Name().Short()]
		s.branchMoved(repo, ref.Name().Short(), old, ref.Hash(), found, false, pushedAt)
		r.branches[ref.Name().Short()] = ref.Hash()
		s.storeFiles(repo, ref.Name().Short(), ref.Hash())
		return nil
	})
	iter, err = r.st.IterEncodedObjects(plumbing.CommitObject)
	if err != nil {
		s.t.Fatalf("ghfake: listing the commits of %s: %v", dir, err)
	}
	_ = iter.ForEach(func(o plumbing.EncodedObject) error {
		s.storeFiles(repo, o.Hash().String(), o.Hash())
		return nil
	})
}

// storeFiles makes the files of commit readable through the contents API
// at ref (a branch name or the commit SHA). The caller holds s.mu.
func (s *Server) storeFiles(repo, ref string, commit plumbing.Hash) {
	files, err := s.commitFiles(repo, commit)
	if err != nil {
		s.t.Errorf("ghfake: reading the files of %s@%s: %v", repo, commit, err)
		return
	}
	s.files[repo+"@"+ref] = files
}

// commitFiles lists the blobs of a commit's tree by path. The caller holds
// s.mu.
func (s *Server) commitFiles(repo string, commit plumbing.Hash) (map[string]string, error) {
	c, err := object.GetCommit(s.gitRepo(repo).st, commit)
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	err = tree.Files().ForEach(func(f *object.File) error {
		content, err := f.Contents()
		out[f.Name] = content
		return err
	})
	return out, err
}

// GitFile returns a file's content at a commit, branch or tag of repo as
// the fake's object database holds it; ok is false when it is absent.
func (s *Server) GitFile(repo, ref, filePath string) (content string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, found := s.resolve(repo, ref)
	if !found {
		return "", false
	}
	files, err := s.commitFiles(repo, h)
	if err != nil {
		return "", false
	}
	content, ok = files[filePath]
	return content, ok
}

// GitCommit returns a commit of repo (its message, parents, tree).
func (s *Server) GitCommit(repo, ref string) (*object.Commit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, found := s.resolve(repo, ref)
	if !found {
		return nil, false
	}
	c, err := object.GetCommit(s.gitRepo(repo).st, h)
	return c, err == nil
}

// ChangedFiles lists the paths whose blobs differ between two commits of
// repo (added, removed or modified), sorted.
func (s *Server) ChangedFiles(repo, from, to string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, _ := s.resolve(repo, from)
	b, _ := s.resolve(repo, to)
	fa, errA := s.commitFiles(repo, a)
	fb, errB := s.commitFiles(repo, b)
	if errA != nil || errB != nil {
		s.t.Errorf("ghfake: ChangedFiles %s..%s: %v %v", from, to, errA, errB)
		return nil
	}
	var out []string
	for p, c := range fa {
		if d, ok := fb[p]; !ok || d != c {
			out = append(out, p)
		}
	}
	for p := range fb {
		if _, ok := fa[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Branch returns the commit SHA a branch of repo points at ("" if none).
func (s *Server) Branch(repo, branch string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.gitRepo(repo).branches[branch]
	if !ok {
		return ""
	}
	return h.String()
}

// SetBranch points a branch of repo at sha (a commit already in the fake),
// as a push by someone else would.
func (s *Server) SetBranch(repo, branch, sha string) {
	s.SetBranchAt(repo, branch, sha, now())
}

// SetBranchAt is SetBranch with the push recorded in the activity log at
// time at (a force push, or a branch creation).
func (s *Server) SetBranchAt(repo, branch, sha string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := plumbing.NewHash(sha)
	old, found := s.gitRepo(repo).branches[branch]
	s.branchMoved(repo, branch, old, h, found, true, at)
	s.gitRepo(repo).branches[branch] = h
	s.storeFiles(repo, branch, h)
}

// ProtectBranch marks a branch of repo protected: repos/get-branch says so
// and git/update-ref refuses to move it (422, as GitHub's "Protected branch
// update failed").
func (s *Server) ProtectBranch(repo, branch string) {
	s.mu.Lock()
	s.gitRepo(repo).protected[branch] = true
	s.mu.Unlock()
}

// resolve reads a branch name or a commit SHA. The caller holds s.mu.
func (s *Server) resolve(repo, ref string) (plumbing.Hash, bool) {
	r := s.gitRepo(repo)
	if h, ok := r.branches[strings.TrimPrefix(ref, "heads/")]; ok {
		return h, true
	}
	if !shaPattern.MatchString(ref) {
		return plumbing.ZeroHash, false
	}
	h := plumbing.NewHash(ref)
	_, err := r.st.EncodedObject(plumbing.AnyObject, h)
	return h, err == nil
}

var shaPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

func (s *Server) commitURL(repo, sha string) string {
	return s.URL + "repos/" + repo + "/git/commits/" + sha
}

func (s *Server) refJSON(repo, branch string, h plumbing.Hash) map[string]any {
	m := s.spec.example("git-ref")
	m["ref"] = "refs/heads/" + branch
	m["node_id"] = "REF_fake" + base64.RawURLEncoding.EncodeToString([]byte(repo+"/"+branch))
	m["url"] = s.URL + "repos/" + repo + "/git/refs/heads/" + branch
	m["object"] = map[string]any{"type": "commit", "sha": h.String(), "url": s.commitURL(repo, h.String())}
	return m
}

// getRef answers git/get-ref for branches ("heads/<branch>").
func (s *Server) getRef(r *request) (int, any) {
	ref := r.Params["ref"]
	branch, ok := strings.CutPrefix(ref, "heads/")
	h, found := s.gitRepo(r.repo()).branches[branch]
	if !ok || !found {
		return notFound()
	}
	return http.StatusOK, s.refJSON(r.repo(), branch, h)
}

// updateRef answers git/update-ref: it moves a branch to a commit of the
// repository, only forward unless force is true, and never a protected one.
func (s *Server) updateRef(r *request) (int, any) {
	repo := r.repo()
	branch, ok := strings.CutPrefix(r.Params["ref"], "heads/")
	g := s.gitRepo(repo)
	old, found := g.branches[branch]
	if !ok || !found {
		return http.StatusUnprocessableEntity, errorBody("Reference does not exist", "https://docs.github.com/rest/git/refs#update-a-reference")
	}
	sha, _ := str(r.body(), "sha")
	force, _ := r.body()["force"].(bool)
	next, err := object.GetCommit(g.st, plumbing.NewHash(sha))
	if err != nil {
		return http.StatusUnprocessableEntity, errorBody("Object does not exist", "https://docs.github.com/rest/git/refs#update-a-reference")
	}
	if g.protected[branch] {
		return http.StatusUnprocessableEntity, errorBody("Protected branch update failed for refs/heads/"+branch+".", "https://docs.github.com/rest/git/refs#update-a-reference")
	}
	if !force && old != next.Hash {
		if isAncestor, err := ancestor(g.st, old, next); err != nil || !isAncestor {
			return http.StatusUnprocessableEntity, errorBody("Update is not a fast forward", "https://docs.github.com/rest/git/refs#update-a-reference")
		}
	}
	s.branchMoved(repo, branch, old, next.Hash, true, force, now())
	g.branches[branch] = next.Hash
	s.storeFiles(repo, branch, next.Hash)
	return http.StatusOK, s.refJSON(repo, branch, next.Hash)
}

// ancestor reports whether old is next or one of its ancestors.
func ancestor(st *memory.Storage, old plumbing.Hash, next *object.Commit) (bool, error) {
	found := false
	err := object.NewCommitPreorderIter(next, nil, nil).ForEach(func(c *object.Commit) error {
		if c.Hash == old {
			found = true
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return found, err
}

var errStop = errors.New("stop")

// getBranch answers repos/get-branch from the branch-get example: the
// branch's name, commit and protection.
func (s *Server) getBranch(r *request) (int, any) {
	branch := r.Params["branch"]
	g := s.gitRepo(r.repo())
	h, ok := g.branches[branch]
	if !ok {
		return notFound()
	}
	m := s.spec.example("branch-get")
	m["name"] = branch
	if c, ok := m["commit"].(map[string]any); ok {
		c["sha"] = h.String()
		c["url"] = s.URL + "repos/" + r.repo() + "/commits/" + h.String()
	}
	m["protected"] = g.protected[branch]
	return http.StatusOK, m
}

// createBlob answers git/create-blob (encoding utf-8, the default, or
// base64).
func (s *Server) createBlob(r *request) (int, any) {
	content, _ := str(r.body(), "content")
	data := []byte(content)
	if enc, _ := str(r.body(), "encoding"); enc == "base64" {
		var err error
		if data, err = base64.StdEncoding.DecodeString(content); err != nil {
			return s.invalid(r, "content is not valid base64: %v", err)
		}
	}
	h, err := writeBlob(s.gitRepo(r.repo()).st, data)
	if err != nil {
		return s.invalid(r, "%v", err)
	}
	m := s.spec.example("short-blob")
	m["sha"], m["url"] = h.String(), s.URL+"repos/"+r.repo()+"/git/blobs/"+h.String()
	return http.StatusCreated, m
}

func writeBlob(st *memory.Storage, data []byte) (plumbing.Hash, error) {
	o := st.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	w, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(o)
}

// leaf is a non-tree entry of a flattened tree.
type leaf struct {
	mode filemode.FileMode
	hash plumbing.Hash
}

// createTree answers git/create-tree: the entries (by sha, by content, or
// deleted with sha null) applied to base_tree's files, the new trees written
// bottom-up.
func (s *Server) createTree(r *request) (int, any) {
	g := s.gitRepo(r.repo())
	files := map[string]leaf{}
	if base, ok := str(r.body(), "base_tree"); ok {
		t, err := object.GetTree(g.st, plumbing.NewHash(base))
		if err != nil {
			return s.invalid(r, "base_tree %s is not a tree of the repository", base)
		}
		if err := flatten(g.st, t, "", files); err != nil {
			return s.invalid(r, "reading base_tree: %v", err)
		}
	}
	entries, _ := r.body()["tree"].([]any)
	for i, raw := range entries {
		e, _ := raw.(map[string]any)
		p, _ := str(e, "path")
		mode, _ := str(e, "mode")
		content, hasContent := str(e, "content")
		sha, hasSHA := e["sha"]
		switch {
		case p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || path.Clean(p) != p:
			return s.invalid(r, "tree[%d].path %q is not a clean relative path", i, p)
		case hasContent && hasSHA:
			return s.invalid(r, "tree[%d]: use either sha or content", i)
		case hasSHA && sha == nil:
			delete(files, p)
			continue
		}
		fm, err := filemode.New(mode)
		if err != nil || fm == filemode.Dir || fm == filemode.Submodule {
			return s.invalid(r, "tree[%d].mode %q: the fake writes blobs only", i, mode)
		}
		var h plumbing.Hash
		if hasContent {
			if h, err = writeBlob(g.st, []byte(content)); err != nil {
				return s.invalid(r, "%v", err)
			}
		} else {
			shaStr, _ := sha.(string)
			h = plumbing.NewHash(shaStr)
			if _, err := g.st.EncodedObject(plumbing.BlobObject, h); err != nil {
				return s.invalid(r, "tree[%d].sha %s is not a blob of the repository", i, shaStr)
			}
		}
		files[p] = leaf{mode: fm, hash: h}
	}
	root, err := buildTree(g.st, files)
	if err != nil {
		return s.invalid(r, "%v", err)
	}
	t, _ := object.GetTree(g.st, root)
	list := []any{}
	for _, e := range t.Entries {
		typ := "blob"
		if e.Mode == filemode.Dir {
			typ = "tree"
		}
		list = append(list, map[string]any{"path": e.Name, "mode": fmt.Sprintf("%06o", uint32(e.Mode)), "type": typ, "sha": e.Hash.String(),
			"url": s.URL + "repos/" + r.repo() + "/git/" + typ + "s/" + e.Hash.String()})
	}
	m := s.spec.example("git-tree")
	m["sha"], m["url"], m["tree"], m["truncated"] = root.String(), s.URL+"repos/"+r.repo()+"/git/trees/"+root.String(), list, false
	return http.StatusCreated, m
}

// flatten lists a tree's non-tree entries by full path.
func flatten(st *memory.Storage, t *object.Tree, prefix string, out map[string]leaf) error {
	for _, e := range t.Entries {
		p := path.Join(prefix, e.Name)
		if e.Mode == filemode.Dir {
			sub, err := object.GetTree(st, e.Hash)
			if err != nil {
				return err
			}
			if err := flatten(st, sub, p, out); err != nil {
				return err
			}
			continue
		}
		out[p] = leaf{mode: e.Mode, hash: e.Hash}
	}
	return nil
}

// buildTree writes the trees of a flattened file list and returns the root
// tree's id.
func buildTree(st *memory.Storage, files map[string]leaf) (plumbing.Hash, error) {
	type dir struct {
		leaves map[string]leaf
		dirs   map[string]bool
	}
	dirs := map[string]*dir{"": {leaves: map[string]leaf{}, dirs: map[string]bool{}}}
	get := func(p string) *dir {
		d := dirs[p]
		if d == nil {
			d = &dir{leaves: map[string]leaf{}, dirs: map[string]bool{}}
			dirs[p] = d
		}
		return d
	}
	for p, l := range files {
		parent, name := path.Split(p)
		parent = strings.TrimSuffix(parent, "/")
		get(parent).leaves[name] = l
		for parent != "" {
			up, base := path.Split(parent)
			up = strings.TrimSuffix(up, "/")
			get(up).dirs[base] = true
			parent = up
		}
	}
	var write func(p string) (plumbing.Hash, error)
	write = func(p string) (plumbing.Hash, error) {
		d := dirs[p]
		var entries []object.TreeEntry
		for name, l := range d.leaves {
			entries = append(entries, object.TreeEntry{Name: name, Mode: l.mode, Hash: l.hash})
		}
		for name := range d.dirs {
			h, err := write(path.Join(p, name))
			if err != nil {
				return plumbing.ZeroHash, err
			}
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
		sort.Sort(object.TreeEntrySorter(entries))
		o := st.NewEncodedObject()
		if err := (&object.Tree{Entries: entries}).Encode(o); err != nil {
			return plumbing.ZeroHash, err
		}
		return st.SetEncodedObject(o)
	}
	return write("")
}

// createCommit answers git/create-commit: a commit by GitIdentity (or the
// request's author and committer) at the current time, unsigned.
func (s *Server) createCommit(r *request) (int, any) {
	g := s.gitRepo(r.repo())
	b := r.body()
	msg, _ := str(b, "message")
	treeSHA, _ := str(b, "tree")
	if _, err := object.GetTree(g.st, plumbing.NewHash(treeSHA)); err != nil {
		return s.invalid(r, "tree %s is not a tree of the repository", treeSHA)
	}
	c := &object.Commit{Message: msg, TreeHash: plumbing.NewHash(treeSHA)}
	parents, _ := b["parents"].([]any)
	for _, p := range parents {
		ps, _ := p.(string)
		if _, err := object.GetCommit(g.st, plumbing.NewHash(ps)); err != nil {
			return s.invalid(r, "parent %s is not a commit of the repository", ps)
		}
		c.ParentHashes = append(c.ParentHashes, plumbing.NewHash(ps))
	}
	when := now()
	c.Author = signature(b["author"], GitIdentity, when)
	c.Committer = signature(b["committer"], c.Author, when)
	o := g.st.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		return s.invalid(r, "%v", err)
	}
	h, err := g.st.SetEncodedObject(o)
	if err != nil {
		return s.invalid(r, "%v", err)
	}
	c.Hash = h
	s.storeFiles(r.repo(), h.String(), h)
	return http.StatusCreated, s.commitJSON(r.repo(), c, "git-commit")
}

func signature(v any, def object.Signature, when time.Time) object.Signature {
	m, ok := v.(map[string]any)
	if !ok {
		def.When = when
		return def
	}
	sig := object.Signature{When: when}
	sig.Name, _ = str(m, "name")
	sig.Email, _ = str(m, "email")
	if d, ok := str(m, "date"); ok {
		if t, err := time.Parse(time.RFC3339, d); err == nil {
			sig.When = t
		}
	}
	return sig
}

// getCommit answers git/get-commit.
func (s *Server) getCommit(r *request) (int, any) {
	c, err := object.GetCommit(s.gitRepo(r.repo()).st, plumbing.NewHash(r.Params["commit_sha"]))
	if err != nil {
		return notFound()
	}
	return http.StatusOK, s.commitJSON(r.repo(), c, "git-commit-2")
}

func (s *Server) commitJSON(repo string, c *object.Commit, example string) map[string]any {
	m := s.spec.example(example)
	sha := c.Hash.String()
	m["sha"], m["node_id"] = sha, "C_fake"+sha[:12]
	m["url"], m["html_url"] = s.commitURL(repo, sha), s.WebURL+"/"+repo+"/commit/"+sha
	person := func(sig object.Signature) map[string]any {
		return map[string]any{"name": sig.Name, "email": sig.Email, "date": sig.When.UTC().Format(time.RFC3339)}
	}
	m["author"], m["committer"], m["message"] = person(c.Author), person(c.Committer), c.Message
	m["tree"] = map[string]any{"sha": c.TreeHash.String(), "url": s.URL + "repos/" + repo + "/git/trees/" + c.TreeHash.String()}
	parents := []any{}
	for _, p := range c.ParentHashes {
		parents = append(parents, map[string]any{"sha": p.String(), "url": s.commitURL(repo, p.String()), "html_url": s.WebURL + "/" + repo + "/commit/" + p.String()})
	}
	m["parents"] = parents
	m["verification"] = map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
	return m
}

// Team memberships are not in the OpenAPI subset, so they are answered by
// the extra routes below without request or response validation.

// SetTeamMember records user's membership of team "org/slug" with state
// active or pending (what teams/get-membership-for-user-in-org answers; a
// user not recorded gets 404, as GitHub answers for a non-member).
func (s *Server) SetTeamMember(team, user, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gitdata.teams == nil {
		s.gitdata.teams = map[string]string{}
	}
	s.gitdata.teams[strings.ToLower(team+"/"+user)] = state
}

// extraRoute is an operation outside the OpenAPI subset that the fake
// answers anyway, without validating the request or its response against a
// description: each one is listed in extraRoutes with GitHub's operationId
// and documentation, so that it is clear which calls are unchecked.
type extraRoute struct {
	method    string
	re        *regexp.Regexp // over the escaped path without /api/v3
	operation string         // GitHub's operationId
	doc       string
	handle    func(s *Server, params []string, q url.Values) (int, any)
}

// withHeader is an extra route's body with response headers (a Link).
type withHeader struct {
	header http.Header
	body   any
}

// extraRoutes are the unvalidated routes, all of them. Keep this list
// short: prefer adding an operation to the subset.
var extraRoutes = []extraRoute{
	{
		method:    http.MethodGet,
		re:        regexp.MustCompile(`^/orgs/([^/]+)/teams/([^/]+)/memberships/([^/]+)$`),
		operation: "teams/get-membership-for-user-in-org",
		doc:       "https://docs.github.com/rest/teams/members#get-team-membership-for-a-user",
		handle:    func(s *Server, p []string, _ url.Values) (int, any) { return s.getTeamMembership(p) },
	},
	{
		method:    http.MethodGet,
		re:        regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/activity$`),
		operation: "repos/list-activities",
		doc:       "https://docs.github.com/rest/repos/repos#list-repository-activities",
		handle:    (*Server).listActivities,
	},
}

// serveExtra answers a request that matched no operation of the subset if
// it matches an extra route: authenticated like every operation, recorded
// as a Call with the route's operation, not validated. It reports whether
// it answered.
func (s *Server) serveExtra(w http.ResponseWriter, call *Call, r *http.Request) bool {
	escaped := strings.TrimPrefix(r.URL.EscapedPath(), apiPrefix)
	for _, rt := range extraRoutes {
		m := rt.re.FindStringSubmatch(escaped)
		if m == nil || r.Method != rt.method {
			continue
		}
		call.Operation = rt.operation
		if !s.allowed(rt.operation, r.Header.Get("Authorization")) {
			s.finish(w, call, http.StatusUnauthorized, nil, errorBody("Bad credentials", rt.doc))
			return true
		}
		s.mu.Lock()
		f := s.matchFault(call)
		s.mu.Unlock()
		if f != nil && (f.Status != 0 || f.drops()) {
			hdr := http.Header{}
			for k, v := range f.Header {
				hdr[k] = v
			}
			s.answer(w, r, call, f, f.Status, hdr, rawBody(f.body()))
			return true
		}
		s.mu.Lock()
		status, body := rt.handle(s, m[1:], r.URL.Query())
		s.mu.Unlock()
		var hdr http.Header
		if hb, ok := body.(withHeader); ok {
			hdr, body = hb.header, hb.body
		}
		s.answer(w, r, call, f, status, hdr, body)
		return true
	}
	return false
}

// getTeamMembership answers GET /orgs/{org}/teams/{team_slug}/memberships/{username}.
func (s *Server) getTeamMembership(params []string) (int, any) {
	org, slug, user := params[0], params[1], params[2]
	state, ok := s.gitdata.teams[strings.ToLower(org+"/"+slug+"/"+user)]
	if !ok {
		return notFound()
	}
	return http.StatusOK, map[string]any{
		"url":   s.URL + "organizations/1/team/1/memberships/" + user,
		"role":  "member",
		"state": state,
	}
}
