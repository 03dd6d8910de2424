package ghfake

import (
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"
)

// Comment is an issue or pull request comment in the fake's store.
type Comment struct {
	ID        int64
	Repo      string
	Issue     int
	Body      string
	User      string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Reactions are the reactions on the comment, as "user:content".
	Reactions []string
}

// maxCommentBody is the longest comment body GitHub accepts, in characters
// (known from its 422 "Body is too long (maximum is 65536 characters)";
// github/README.md).
const maxCommentBody = 65536

// Comments returns copies of the comments on an issue or pull request,
// oldest first.
func (s *Server) Comments(repo string, issue int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments[repo] {
		if c.Issue == issue {
			cp := *c
			cp.Reactions = append([]string(nil), c.Reactions...)
			out = append(out, cp)
		}
	}
	return out
}

// AddComment stores a comment written by user (as if a person had posted
// it now) and returns its id.
func (s *Server) AddComment(repo string, issue int, user, body string) int64 {
	return s.AddCommentAt(repo, issue, user, body, now())
}

// AddCommentAt stores a comment written by user as posted at time at
// (created_at and updated_at, to the second) and returns its id.
func (s *Server) AddCommentAt(repo string, issue int, user, body string, at time.Time) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	at = at.UTC().Truncate(time.Second)
	c := &Comment{ID: s.newID(), Repo: repo, Issue: issue, Body: body, User: user, CreatedAt: at, UpdatedAt: at}
	s.comments[repo] = append(s.comments[repo], c)
	return c.ID
}

// SetPermission sets a user's role on a repository: admin, maintain,
// write, triage, read or none. The response's role_name is the role, its
// legacy permission field what GitHub reports there (maintain as write,
// triage as read).
func (s *Server) SetPermission(repo, user, permission string) {
	s.mu.Lock()
	s.permissions[repo+"/"+user] = permission
	s.mu.Unlock()
}

func (s *Server) findComment(r *request) *Comment {
	id := r.int64Param("comment_id")
	for _, c := range s.comments[r.repo()] {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func (s *Server) createComment(r *request) (int, any) {
	body, _ := str(r.body(), "body")
	if utf8.RuneCountInString(body) > maxCommentBody {
		return http.StatusUnprocessableEntity, validationFailed("Body is too long (maximum is 65536 characters)")
	}
	n, _ := strconv.Atoi(r.Params["issue_number"])
	c := &Comment{ID: s.newID(), Repo: r.repo(), Issue: n, Body: body, User: Login, CreatedAt: now(), UpdatedAt: now()}
	s.comments[c.Repo] = append(s.comments[c.Repo], c)
	return http.StatusCreated, s.commentJSON(c)
}

func (s *Server) listComments(r *request) (int, any) {
	n, _ := strconv.Atoi(r.Params["issue_number"])
	var cs []*Comment
	for _, c := range s.comments[r.repo()] {
		if c.Issue == n {
			cs = append(cs, c)
		}
	}
	lo, hi := s.page(r, len(cs))
	list := []any{}
	for _, c := range cs[lo:hi] {
		list = append(list, s.commentJSON(c))
	}
	return http.StatusOK, list
}

func (s *Server) getComment(r *request) (int, any) {
	c := s.findComment(r)
	if c == nil {
		return notFound()
	}
	return http.StatusOK, s.commentJSON(c)
}

func (s *Server) updateComment(r *request) (int, any) {
	c := s.findComment(r)
	if c == nil {
		return notFound()
	}
	body, _ := str(r.body(), "body")
	if utf8.RuneCountInString(body) > maxCommentBody {
		return http.StatusUnprocessableEntity, validationFailed("Body is too long (maximum is 65536 characters)")
	}
	c.Body, c.UpdatedAt = body, now()
	return http.StatusOK, s.commentJSON(c)
}

// createReaction answers 201 for a new reaction and 200 when the token's
// user already reacted with the same content, as GitHub does.
func (s *Server) createReaction(r *request) (int, any) {
	c := s.findComment(r)
	if c == nil {
		return notFound()
	}
	content, _ := str(r.body(), "content")
	key := Login + ":" + content
	status := http.StatusCreated
	idx := len(c.Reactions)
	for i, k := range c.Reactions {
		if k == key {
			status, idx = http.StatusOK, i
		}
	}
	if status == http.StatusCreated {
		c.Reactions = append(c.Reactions, key)
	}
	m := s.spec.example("reaction")
	m["id"] = c.ID*100 + int64(idx) + 1
	m["content"] = content
	m["created_at"] = stamp(now())
	setUser(m["user"], Login)
	return status, m
}

func (s *Server) getPermission(r *request) (int, any) {
	user := r.Params["username"]
	p, ok := s.permissions[r.repo()+"/"+user]
	if !ok {
		return notFound()
	}
	m := s.spec.example("repository-collaborator-permission-response-if-user-has-admin-permissions")
	// GitHub's legacy permission field reports maintain as write and
	// triage as read; role_name names the role.
	legacy := map[string]string{"maintain": "write", "triage": "read"}[p]
	if legacy == "" {
		legacy = p
	}
	m["permission"] = legacy
	m["role_name"] = p
	setUser(m["user"], user)
	// The example's user lacks the role_name the schema requires.
	m["user"].(map[string]any)["role_name"] = p
	return http.StatusOK, m
}

func (s *Server) commentJSON(c *Comment) map[string]any {
	m := s.spec.example("issue-comment")
	id := strconv.FormatInt(c.ID, 10)
	issue := strconv.Itoa(c.Issue)
	m["id"] = c.ID
	m["node_id"] = "IC_fake" + id
	m["url"] = s.URL + "repos/" + c.Repo + "/issues/comments/" + id
	m["html_url"] = s.WebURL + "/" + c.Repo + "/issues/" + issue + "#issuecomment-" + id
	m["issue_url"] = s.URL + "repos/" + c.Repo + "/issues/" + issue
	m["body"] = c.Body
	m["created_at"] = stamp(c.CreatedAt)
	m["updated_at"] = stamp(c.UpdatedAt)
	m["author_association"] = "NONE"
	setUser(m["user"], c.User)
	return m
}

// setUser renames the example's simple-user object.
func setUser(v any, login string) {
	if u, ok := v.(map[string]any); ok {
		u["login"] = login
		u["html_url"] = "https://github.com/" + login
		u["url"] = "https://api.github.com/users/" + login
		if len(login) > 5 && login[len(login)-5:] == "[bot]" {
			u["type"] = "Bot"
		}
	}
}

// DeleteComment removes a comment from the store, as a person deleting it
// on GitHub would; it reports whether the comment was there.
func (s *Server) DeleteComment(repo string, id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range s.comments[repo] {
		if c.ID == id {
			s.comments[repo] = append(s.comments[repo][:i:i], s.comments[repo][i+1:]...)
			return true
		}
	}
	return false
}

// EditComment replaces a comment's body, as a person editing it on GitHub
// would (the author stays the same; updated_at moves); it reports whether
// the comment was there.
func (s *Server) EditComment(repo string, id int64, body string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.comments[repo] {
		if c.ID == id {
			c.Body, c.UpdatedAt = body, now()
			return true
		}
	}
	return false
}
