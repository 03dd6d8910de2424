package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// decision is what route makes of one verified delivery.
type decision struct {
	// job is the work to queue (Delivery, Payload and Received unset); nil
	// when the delivery is not acted on.
	job *Job
	// ignored says why job is nil, for the debug log.
	ignored string
	// action is the payload's action field, when it was read.
	action string
	// pong is true for GitHub's ping.
	pong bool
	// note, when set, is an info-level log line about the delivery
	// (installation changes), with its attributes in noteAttrs.
	note      string
	noteAttrs []any
}

// payload holds the only fields of a delivery that routing reads.
type payload struct {
	Action       string `json:"action"`
	Installation *struct {
		ID      int64 `json:"id"`
		Account *struct {
			Login string `json:"login"`
		} `json:"account"`
	} `json:"installation"`
	Repository *struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
	Number      int `json:"number"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
		UpdatedAt *string `json:"updated_at"`
	} `json:"pull_request"`
	Changes *struct {
		Base json.RawMessage `json:"base"`
	} `json:"changes"`
	Label *struct {
		Name string `json:"name"`
	} `json:"label"`
	CheckSuite *checkHead `json:"check_suite"`
	CheckRun   *checkHead `json:"check_run"`
	MergeGroup *struct {
		HeadSHA string `json:"head_sha"`
	} `json:"merge_group"`
	Issue *struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	Repositories        []repoName `json:"repositories"`
	RepositoriesAdded   []repoName `json:"repositories_added"`
	RepositoriesRemoved []repoName `json:"repositories_removed"`
}

// checkHead is the part of a check_suite or check_run object routing reads.
type checkHead struct {
	HeadSHA      string `json:"head_sha"`
	PullRequests []struct {
		Number int `json:"number"`
	} `json:"pull_requests"`
}

type repoName struct {
	FullName string `json:"full_name"`
}

// route decides what to do with a delivery of event whose signature has
// been checked: intake only (whether to queue it, under which key); what
// a queued job asks for is the Evaluator's to decide again from the
// payload. It parses only the fields it needs. Errors (the delivery
// is answered 400 with them): invalid JSON, a routed delivery without
// installation.id, repository.full_name, the pull request number or a
// commit SHA where the event needs one, a pull_request.updated_at that is
// not an RFC 3339 time.
//
// What is routed (every job but comment commands coalesces):
//
//	pull_request   opened, synchronize, reopened, ready_for_review; edited
//	               when changes.base is present; labeled, unlabeled with a
//	               swarm:phase-<N> label (it may name the phase)
//	                                                 key owner/name#N,
//	                                                 Updated pull_request.updated_at
//	check_suite    requested, rerequested            key owner/name#N of the
//	check_run      rerequested                       first pull request, else
//	                                                 owner/name@head_sha
//	merge_group    checks_requested                  key owner/name@head_sha
//	issue_comment  created, on a pull request        key owner/name#N
func route(event string, body []byte) (decision, error) {
	switch event {
	case "ping":
		return decision{pong: true}, nil
	case "pull_request", "check_suite", "check_run", "merge_group", "issue_comment",
		"installation", "installation_repositories":
	default:
		return decision{ignored: "swarm-gate does not act on this event"}, nil
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return decision{}, jsonError(err)
	}
	d, err := routeEvent(event, &p)
	d.action = p.Action
	return d, err
}

func routeEvent(event string, p *payload) (decision, error) {
	switch event {
	case "pull_request":
		return routePullRequest(p)
	case "check_suite":
		if p.Action != "requested" && p.Action != "rerequested" {
			return ignoreAction(p.Action)
		}
		return routeCheck(p, event, p.CheckSuite)
	case "check_run":
		if p.Action != "rerequested" {
			return ignoreAction(p.Action)
		}
		return routeCheck(p, event, p.CheckRun)
	case "merge_group":
		return routeMergeGroup(p)
	case "issue_comment":
		return routeIssueComment(p)
	default: // installation, installation_repositories
		return noteInstallation(p, event), nil
	}
}

func ignoreAction(action string) (decision, error) {
	return decision{ignored: fmt.Sprintf("swarm-gate does not act on action %q of this event", action)}, nil
}

func routePullRequest(p *payload) (decision, error) {
	switch p.Action {
	case "opened", "synchronize", "reopened", "ready_for_review":
	case "edited":
		if p.Changes == nil || !present(p.Changes.Base) {
			return decision{ignored: "pull request edited without a change of base branch"}, nil
		}
	case "labeled", "unlabeled":
		if p.Label == nil || !strings.HasPrefix(p.Label.Name, "swarm:phase-") {
			return decision{ignored: "pull request labeled or unlabeled with a label other than swarm:phase-<N>"}, nil
		}
	default:
		return ignoreAction(p.Action)
	}
	j, err := newJob(p, "pull_request")
	if err != nil {
		return decision{}, err
	}
	if p.PullRequest == nil {
		return decision{}, errors.New("payload has no pull_request object")
	}
	j.PR = p.PullRequest.Number
	if j.PR == 0 {
		j.PR = p.Number
	}
	if j.PR <= 0 {
		return decision{}, errors.New("payload has no pull_request.number")
	}
	if j.HeadSHA, err = commitSHA("pull_request.head.sha", p.PullRequest.Head.SHA); err != nil {
		return decision{}, err
	}
	if u := p.PullRequest.UpdatedAt; u != nil && *u != "" {
		if j.Updated, err = time.Parse(time.RFC3339, *u); err != nil {
			return decision{}, fmt.Errorf("pull_request.updated_at %q is not an RFC 3339 time (GitHub sends e.g. 2019-05-15T15:20:33Z)", truncate(*u, 80))
		}
	}
	j.Key = prKey(j.Repo, j.PR)
	j.Coalesce = true
	return decision{job: j}, nil
}

// routeCheck routes check_suite and check_run: the checks go on head_sha,
// for the first pull request GitHub lists with it when there is one.
func routeCheck(p *payload, event string, c *checkHead) (decision, error) {
	j, err := newJob(p, event)
	if err != nil {
		return decision{}, err
	}
	if c == nil {
		return decision{}, fmt.Errorf("payload has no %s object", event)
	}
	if j.HeadSHA, err = commitSHA(event+".head_sha", c.HeadSHA); err != nil {
		return decision{}, err
	}
	if len(c.PullRequests) > 0 && c.PullRequests[0].Number > 0 {
		j.PR = c.PullRequests[0].Number
		j.Key = prKey(j.Repo, j.PR)
	} else {
		j.Key = shaKey(j.Repo, j.HeadSHA)
	}
	j.Coalesce = true
	return decision{job: j}, nil
}

func routeMergeGroup(p *payload) (decision, error) {
	if p.Action != "checks_requested" {
		return ignoreAction(p.Action)
	}
	j, err := newJob(p, "merge_group")
	if err != nil {
		return decision{}, err
	}
	if p.MergeGroup == nil {
		return decision{}, errors.New("payload has no merge_group object")
	}
	if j.HeadSHA, err = commitSHA("merge_group.head_sha", p.MergeGroup.HeadSHA); err != nil {
		return decision{}, err
	}
	j.Key = shaKey(j.Repo, j.HeadSHA)
	j.Coalesce = true
	return decision{job: j}, nil
}

// routeIssueComment routes new comments on pull requests: each may be a
// command, so they never coalesce. Edited and deleted comments are ignored.
func routeIssueComment(p *payload) (decision, error) {
	if p.Action != "created" {
		return ignoreAction(p.Action)
	}
	if p.Issue == nil || !present(p.Issue.PullRequest) {
		return decision{ignored: "comment on an issue, not on a pull request"}, nil
	}
	j, err := newJob(p, "issue_comment")
	if err != nil {
		return decision{}, err
	}
	if p.Issue.Number <= 0 {
		return decision{}, errors.New("payload has no issue.number")
	}
	j.PR = p.Issue.Number
	j.Key = prKey(j.Repo, j.PR)
	j.Coalesce = false
	return decision{job: j}, nil
}

// noteInstallation logs installation and installation_repositories
// deliveries: swarm-gate keeps no state about them.
func noteInstallation(p *payload, event string) decision {
	attrs := []any{"event", event, "action", p.Action}
	if p.Installation != nil {
		attrs = append(attrs, "installation", p.Installation.ID)
		if p.Installation.Account != nil {
			attrs = append(attrs, "account", p.Installation.Account.Login)
		}
	}
	for _, l := range []struct {
		name  string
		repos []repoName
	}{{"repos", p.Repositories}, {"repos_added", p.RepositoriesAdded}, {"repos_removed", p.RepositoriesRemoved}} {
		if len(l.repos) > 0 {
			attrs = append(attrs, l.name, repoList(l.repos))
		}
	}
	return decision{note: "GitHub App installation changed", noteAttrs: attrs, ignored: "installation events need no work"}
}

// repoList joins up to 20 repository names, then says how many more.
func repoList(repos []repoName) string {
	const max = 20
	names := make([]string, 0, min(len(repos), max))
	for i, r := range repos {
		if i == max {
			names = append(names, fmt.Sprintf("… %d more", len(repos)-max))
			break
		}
		names = append(names, r.FullName)
	}
	return strings.Join(names, ",")
}

// newJob starts a Job with the fields every routed event has: installation
// and repository.
func newJob(p *payload, event string) (*Job, error) {
	if p.Installation == nil || p.Installation.ID <= 0 {
		return nil, errors.New("payload has no installation.id (is this a GitHub App's webhook? a repository or organization webhook carries none)")
	}
	if p.Repository == nil || p.Repository.FullName == "" {
		return nil, errors.New("payload has no repository.full_name")
	}
	owner, name, ok := strings.Cut(p.Repository.FullName, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("repository.full_name %q is not owner/name", p.Repository.FullName)
	}
	return &Job{Event: event, Action: p.Action, Repo: p.Repository.FullName, Installation: p.Installation.ID}, nil
}

// commitSHA checks that sha is a full commit id: 40 (SHA-1) or 64 (SHA-256)
// lowercase hex digits.
func commitSHA(field, sha string) (string, error) {
	if len(sha) != 40 && len(sha) != 64 {
		return "", fmt.Errorf("%s %q is not a full commit SHA (40 or 64 hex digits)", field, truncate(sha, 80))
	}
	for i := 0; i < len(sha); i++ {
		if c := sha[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", fmt.Errorf("%s %q is not a full commit SHA (40 or 64 lowercase hex digits)", field, sha)
		}
	}
	return sha, nil
}

func prKey(repo string, pr int) string { return repo + "#" + strconv.Itoa(pr) }
func shaKey(repo, sha string) string   { return repo + "@" + sha }
func present(raw json.RawMessage) bool { return len(raw) > 0 && !bytes.Equal(raw, []byte("null")) }
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// jsonError says what is wrong with a payload that does not decode.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON payload: %v at byte %d (GitHub App deliveries are application/json)", syn, syn.Offset)
	case errors.As(err, &typ):
		return fmt.Errorf("invalid JSON payload: field %s is a JSON %s, want %s", typ.Field, typ.Value, typ.Type)
	default:
		return fmt.Errorf("invalid JSON payload: %v", err)
	}
}
