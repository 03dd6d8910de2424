package ghfake

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/gitsha"
)

// compareCommits answers repos/compare-commits for a repository served
// with ServeGit, from the repository on disk: the merge base (git
// merge-base), ahead_by and behind_by (git rev-list --count base..head and
// head..base), and the commits of base..head, oldest first, paged as
// GitHub pages them (per_page, page). BASE and HEAD in {basehead} may be
// commit SHAs or branch names; the cross-repository form (USER:BRANCH) is
// not served. Unknown commits and unrelated histories get 404, as on
// GitHub; the files list is left out. The caller holds s.mu.
func (s *Server) compareCommits(r *request) (int, any) {
	served, ok := s.git.repos[r.repo()]
	if !ok {
		return notFound()
	}
	baseRef, headRef, ok := strings.Cut(r.Params["basehead"], "...")
	if !ok || baseRef == "" || headRef == "" || strings.Contains(baseRef+headRef, ":") {
		return notFound()
	}
	git := func(args ...string) (string, error) {
		cmd := exec.Command(served.git, append([]string{"--git-dir=" + served.dir}, args...)...)
		cmd.Env = append(gitEnv(served), "PATH="+os.Getenv("PATH"))
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	resolve := func(ref string) (string, bool) {
		sha, err := git("rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
		return sha, err == nil && gitsha.Full(sha)
	}
	base, okBase := resolve(baseRef)
	head, okHead := resolve(headRef)
	if !okBase || !okHead {
		return notFound()
	}
	mb, err := git("merge-base", base, head)
	if err != nil {
		return http.StatusNotFound, errorBody(fmt.Sprintf("No common ancestor between %s and %s.", baseRef, headRef), "")
	}
	count := func(rng string) (int, error) {
		out, err := git("rev-list", "--count", rng)
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(out)
	}
	ahead, aerr := count(base + ".." + head)
	behind, berr := count(head + ".." + base)
	list, lerr := git("rev-list", "--reverse", base+".."+head)
	if err := errors.Join(aerr, berr, lerr); err != nil {
		s.t.Errorf("ghfake: comparing %s...%s of %s: %v", base, head, r.repo(), err)
		return http.StatusInternalServerError, errorBody("ghfake could not compare the commits", "")
	}
	m := s.spec.example("commit-comparison")
	template := copyJSON(m["merge_base_commit"]).(map[string]any)
	commit := func(sha string) (any, bool) {
		c, err := s.servedCommitJSON(r.repo(), template, git, sha)
		if err != nil {
			s.t.Errorf("ghfake: comparing %s...%s of %s: reading commit %s: %v", base, head, r.repo(), sha, err)
		}
		return c, err == nil
	}
	var okMB bool
	if m["base_commit"], ok = commit(base); ok {
		m["merge_base_commit"], okMB = commit(mb)
	}
	if !ok || !okMB {
		return http.StatusInternalServerError, errorBody("ghfake could not read the commits", "")
	}
	shas := strings.Fields(list)
	lo, hi := s.page(r, len(shas))
	commits := []any{}
	for _, sha := range shas[lo:hi] {
		c, ok := commit(sha)
		if !ok {
			return http.StatusInternalServerError, errorBody("ghfake could not read the commits", "")
		}
		commits = append(commits, c)
	}
	status := "diverged"
	switch {
	case ahead == 0 && behind == 0:
		status = "identical"
	case behind == 0:
		status = "ahead"
	case ahead == 0:
		status = "behind"
	}
	web := s.WebURL + "/" + r.repo() + "/compare/" + baseRef + "..." + headRef
	m["url"] = s.URL + "repos/" + r.repo() + "/compare/" + baseRef + "..." + headRef
	m["html_url"], m["diff_url"], m["patch_url"] = web, web+".diff", web+".patch"
	m["permalink_url"] = s.WebURL + "/" + r.repo() + "/compare/" + base + "..." + head
	m["status"], m["ahead_by"], m["behind_by"], m["total_commits"] = status, ahead, behind, ahead
	m["commits"] = commits
	delete(m, "files")
	return http.StatusOK, m
}

// servedCommitJSON is commit sha of a served repository as the commits
// API returns it (schema commit), built on template.
func (s *Server) servedCommitJSON(repo string, template map[string]any, git func(args ...string) (string, error), sha string) (map[string]any, error) {
	out, err := git("show", "-s", "--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B", sha)
	if err != nil {
		return nil, err
	}
	f := strings.SplitN(out, "\x00", 10)
	if len(f) != 10 {
		return nil, fmt.Errorf("git show printed %d fields, want 10", len(f))
	}
	person := func(name, email, date string) map[string]any {
		if t, err := time.Parse(time.RFC3339, date); err == nil {
			date = t.UTC().Format(time.RFC3339)
		}
		return map[string]any{"name": name, "email": email, "date": date}
	}
	m := copyJSON(template).(map[string]any)
	api := s.URL + "repos/" + repo
	m["sha"], m["node_id"] = f[0], "C_fake"+f[0][:12]
	m["url"], m["html_url"], m["comments_url"] = api+"/commits/"+f[0], s.WebURL+"/"+repo+"/commit/"+f[0], api+"/commits/"+f[0]+"/comments"
	m["author"], m["committer"] = nil, nil // no GitHub user behind the fake's commits
	c, _ := m["commit"].(map[string]any)
	if c == nil {
		c = map[string]any{}
		m["commit"] = c
	}
	c["url"] = s.commitURL(repo, f[0])
	c["author"], c["committer"] = person(f[3], f[4], f[5]), person(f[6], f[7], f[8])
	c["message"], c["comment_count"] = f[9], 0
	c["tree"] = map[string]any{"sha": f[1], "url": api + "/git/trees/" + f[1]}
	parents := []any{}
	for _, p := range strings.Fields(f[2]) {
		parents = append(parents, map[string]any{"sha": p, "url": api + "/commits/" + p, "html_url": s.WebURL + "/" + repo + "/commit/" + p})
	}
	m["parents"] = parents
	delete(m, "stats")
	delete(m, "files")
	return m, nil
}
