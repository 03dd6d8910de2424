package ghfake

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/internal/gitsha"
)

// CheckRun is a check run in the fake's store (a copy, for assertions).
type CheckRun struct {
	ID          int64
	Repo        string // owner/name
	Name        string
	HeadSHA     string
	ExternalID  string
	DetailsURL  string
	Status      string // queued, in_progress or completed
	Conclusion  string // "" until completed
	StartedAt   time.Time
	CompletedAt time.Time
	Title       string
	Summary     string
	Text        string
	Annotations []Annotation
	SuiteID     int64
	// AppID and AppSlug are the GitHub App that created the run: the App
	// of the installation token used, or TokenApp for Token. AddCheckRun
	// takes TokenApp's when AppID is 0.
	AppID   int64
	AppSlug string
}

// TokenAppID and TokenAppSlug are the App that Token acts as: the App
// whose bot is Login.
const (
	TokenAppID   = 1
	TokenAppSlug = "swarm-gate"
)

// Annotation is one check-run annotation as GitHub stores it.
type Annotation struct {
	Path        string
	StartLine   int
	EndLine     int
	StartColumn int
	EndColumn   int
	Level       string // notice, warning or failure
	Message     string
	Title       string
	RawDetails  string
}

// CheckRuns returns copies of a repository's check runs ("owner/name"),
// oldest first.
func (s *Server) CheckRuns(repo string) []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckRun
	for _, cr := range s.checkRuns[repo] {
		c := *cr
		c.Annotations = append([]Annotation(nil), cr.Annotations...)
		out = append(out, c)
	}
	return out
}

// AddCheckRun stores a check run as if another process had created it
// (say, an earlier attempt of the same workflow run) and returns its id.
func (s *Server) AddCheckRun(repo string, cr CheckRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	cr.ID = s.newID()
	cr.Repo = repo
	if cr.AppID == 0 {
		cr.AppID, cr.AppSlug = TokenAppID, TokenAppSlug
	}
	if cr.Status == "" {
		cr.Status = "completed"
	}
	if cr.StartedAt.IsZero() {
		cr.StartedAt = now()
	}
	cr.SuiteID = s.suite(repo, cr.HeadSHA)
	s.checkRuns[repo] = append(s.checkRuns[repo], &cr)
	return cr.ID
}

func (s *Server) findRun(r *request) *CheckRun {
	id := r.int64Param("check_run_id")
	for _, cr := range s.checkRuns[r.repo()] {
		if cr.ID == id {
			return cr
		}
	}
	return nil
}

func (s *Server) createCheckRun(r *request) (int, any) {
	b := r.body()
	sha, _ := str(b, "head_sha")
	if !gitsha.Full(sha) {
		return http.StatusUnprocessableEntity, validationFailed("No commit found for SHA: " + sha)
	}
	cr := &CheckRun{Repo: r.repo(), HeadSHA: sha, Status: "queued", StartedAt: now()}
	cr.AppID, cr.AppSlug = s.tokenApp(r.Header.Get("Authorization"))
	if st, code, body := s.applyCheckRun(r, cr, b); st != 0 {
		return code, body
	}
	cr.ID = s.newID()
	cr.SuiteID = s.suite(cr.Repo, sha)
	s.checkRuns[cr.Repo] = append(s.checkRuns[cr.Repo], cr)
	return http.StatusCreated, s.checkRunJSON(cr)
}

func (s *Server) updateCheckRun(r *request) (int, any) {
	cr := s.findRun(r)
	if cr == nil {
		return notFound()
	}
	next := *cr
	next.Annotations = append([]Annotation(nil), cr.Annotations...)
	if st, code, body := s.applyCheckRun(r, &next, r.body()); st != 0 {
		return code, body
	}
	*cr = next
	return http.StatusOK, s.checkRunJSON(cr)
}

// applyCheckRun applies a create or update body: fields replace, output
// title, summary and text replace, annotations append (GitHub: "each time
// you update the check run, annotations are appended"), a conclusion
// completes the run and an in_progress or queued status reopens it. It
// returns st != 0 with a response when the body breaks a documented rule.
func (s *Server) applyCheckRun(r *request, cr *CheckRun, b map[string]any) (st, code int, body any) {
	fail := func(format string, args ...any) (int, int, any) {
		code, body := s.invalid(r, format, args...)
		return 1, code, body
	}
	if name, ok := str(b, "name"); ok {
		if name == "" {
			return fail("name is empty")
		}
		cr.Name = name
	}
	if v, ok := str(b, "external_id"); ok {
		cr.ExternalID = v
	}
	if v, ok := str(b, "details_url"); ok {
		cr.DetailsURL = v
	}
	if v, ok := str(b, "started_at"); ok {
		t, _ := time.Parse(time.RFC3339, v)
		cr.StartedAt = t
	}
	if v, ok := str(b, "status"); ok {
		cr.Status = v
		if v != "completed" {
			cr.Conclusion, cr.CompletedAt = "", time.Time{}
		}
	}
	if v, ok := str(b, "conclusion"); ok {
		cr.Status, cr.Conclusion = "completed", v
		cr.CompletedAt = now()
		if c, ok := str(b, "completed_at"); ok {
			cr.CompletedAt, _ = time.Parse(time.RFC3339, c)
		}
	}
	if out, ok := b["output"].(map[string]any); ok {
		if v, ok := str(out, "title"); ok {
			cr.Title = v
		}
		if v, ok := str(out, "summary"); ok {
			cr.Summary = v
		}
		if v, ok := str(out, "text"); ok {
			cr.Text = v
		}
		list, _ := out["annotations"].([]any)
		for i, item := range list {
			a, err := annotation(item.(map[string]any))
			if err != nil {
				return fail("output.annotations[%d]: %v", i, err)
			}
			cr.Annotations = append(cr.Annotations, a)
		}
	}
	return 0, 0, nil
}

// annotation reads one annotation and enforces the limits GitHub documents
// in the descriptions of its fields but the schema does not: message and
// raw_details at most 64 KB, title at most 255 characters, lines from 1,
// end_line >= start_line, columns only on a one-line annotation.
func annotation(m map[string]any) (Annotation, error) {
	a := Annotation{StartLine: num(m, "start_line"), EndLine: num(m, "end_line"),
		StartColumn: num(m, "start_column"), EndColumn: num(m, "end_column")}
	a.Path, _ = str(m, "path")
	a.Level, _ = str(m, "annotation_level")
	a.Message, _ = str(m, "message")
	a.Title, _ = str(m, "title")
	a.RawDetails, _ = str(m, "raw_details")
	switch {
	case a.Path == "":
		return a, fmt.Errorf("path is empty")
	case a.StartLine < 1 || a.EndLine < a.StartLine:
		return a, fmt.Errorf("lines %d-%d: lines start at 1 and end_line must not be before start_line", a.StartLine, a.EndLine)
	case (m["start_column"] != nil || m["end_column"] != nil) && a.StartLine != a.EndLine:
		return a, fmt.Errorf("start_column and end_column are only allowed when start_line == end_line")
	case len(a.Message) > 64<<10 || len(a.RawDetails) > 64<<10:
		return a, fmt.Errorf("message or raw_details is over 64 KB")
	case utf8.RuneCountInString(a.Title) > 255:
		return a, fmt.Errorf("title is over 255 characters")
	}
	return a, nil
}

func (s *Server) getCheckRun(r *request) (int, any) {
	cr := s.findRun(r)
	if cr == nil {
		return notFound()
	}
	return http.StatusOK, s.checkRunJSON(cr)
}

// listCheckRunsForRef answers with the runs on a commit (the ref must be the
// head SHA), filtered by check_name, status and app_id; filter=latest (the
// default) keeps the newest run of each name.
func (s *Server) listCheckRunsForRef(r *request) (int, any) {
	var runs []*CheckRun
	for _, cr := range s.checkRuns[r.repo()] {
		if cr.HeadSHA != r.Params["ref"] {
			continue
		}
		if n := r.Query.Get("check_name"); n != "" && cr.Name != n {
			continue
		}
		if st := r.Query.Get("status"); st != "" && cr.Status != st {
			continue
		}
		if id := r.Query.Get("app_id"); id != "" && id != strconv.FormatInt(cr.AppID, 10) {
			continue
		}
		runs = append(runs, cr)
	}
	if r.Query.Get("filter") != "all" {
		newest := map[string]*CheckRun{}
		for _, cr := range runs {
			newest[cr.Name] = cr
		}
		runs = runs[:0]
		for _, cr := range newest {
			runs = append(runs, cr)
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	lo, hi := s.page(r, len(runs))
	list := []any{}
	for _, cr := range runs[lo:hi] {
		list = append(list, s.checkRunJSON(cr))
	}
	return http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": list}
}

func (s *Server) listAnnotations(r *request) (int, any) {
	cr := s.findRun(r)
	if cr == nil {
		return notFound()
	}
	lo, hi := s.page(r, len(cr.Annotations))
	list := []any{}
	for _, a := range cr.Annotations[lo:hi] {
		list = append(list, map[string]any{
			"path": a.Path, "start_line": a.StartLine, "end_line": a.EndLine,
			"start_column": nullInt(a.StartColumn), "end_column": nullInt(a.EndColumn),
			"annotation_level": a.Level, "message": a.Message, "title": a.Title, "raw_details": a.RawDetails,
			"blob_href": fmt.Sprintf("%s/%s/blob/%s/%s", s.WebURL, cr.Repo, cr.HeadSHA, a.Path),
		})
	}
	return http.StatusOK, list
}

func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func nullStr(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// checkRunJSON is the run as GitHub returns it, built on the description's
// own example.
func (s *Server) checkRunJSON(cr *CheckRun) map[string]any {
	m := s.spec.example("check-run")
	id := strconv.FormatInt(cr.ID, 10)
	api := s.URL + "repos/" + cr.Repo + "/check-runs/" + id
	m["id"] = cr.ID
	m["node_id"] = "CR_fake" + id
	m["head_sha"] = cr.HeadSHA
	m["external_id"] = cr.ExternalID
	m["url"] = api
	m["html_url"] = s.WebURL + "/" + cr.Repo + "/runs/" + id
	m["details_url"] = nullStr(cr.DetailsURL)
	m["status"] = cr.Status
	m["conclusion"] = nullStr(cr.Conclusion)
	m["started_at"] = stamp(cr.StartedAt)
	m["completed_at"] = stamp(cr.CompletedAt)
	m["name"] = cr.Name
	m["check_suite"] = map[string]any{"id": cr.SuiteID}
	m["app"] = s.integrationJSON(cr.AppID, cr.AppSlug)
	m["pull_requests"] = []any{}
	m["output"] = map[string]any{
		"title": nullStr(cr.Title), "summary": nullStr(cr.Summary), "text": nullStr(cr.Text),
		"annotations_count": len(cr.Annotations), "annotations_url": api + "/annotations",
	}
	return m
}
