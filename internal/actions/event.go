package actions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// MaxEventSize is the largest event payload ReadEvent accepts: 25 MB, the
// size GitHub caps webhook payloads at.
const MaxEventSize = 25 << 20

// Event is the part of a webhook event payload (the file at
// GITHUB_EVENT_PATH) that swarm-gate uses. Only the fields of the event
// that occurred are set; the others are zero or nil. Raw holds every
// top-level field as it came, for anything else.
//
//	pull_request:      Action, Number, PullRequest, Changes (edited: Changes.Base)
//	merge_group:       Action, MergeGroup
//	push:              Ref, Before, After, Created, Deleted, Forced, Repository.DefaultBranch
//	issue_comment:     Action, Comment, Issue (Issue.IsPullRequest), Changes (edited: Changes.Body)
//	check_run:         Action, CheckRun, RequestedAction (requested_action)
//	check_suite:       Action, CheckSuite
//	workflow_dispatch: Ref, Inputs (DispatchInput)
//	schedule:          Schedule
type Event struct {
	// Name is the event's name (GITHUB_EVENT_NAME); the payload does not
	// carry it, so ReadEvent leaves it empty and Env.Event sets it.
	Name string `json:"-"`

	Action      string       `json:"action"`
	Number      int          `json:"number"`
	PullRequest *PullRequest `json:"pull_request"`
	MergeGroup  *MergeGroup  `json:"merge_group"`
	Comment     *Comment     `json:"comment"`
	Issue       *Issue       `json:"issue"`
	CheckRun    *CheckRun    `json:"check_run"`
	CheckSuite  *CheckSuite  `json:"check_suite"`
	Changes     *Changes     `json:"changes"`
	// Label is the label added or removed (pull_request labeled/unlabeled).
	Label        *Label        `json:"label"`
	Repository   *Repository   `json:"repository"`
	Sender       *User         `json:"sender"`
	Installation *Installation `json:"installation"`

	// RequestedAction is the button pressed on a check run
	// (check_run requested_action).
	RequestedAction *RequestedAction `json:"requested_action"`

	// push (Before and After are also set on pull_request synchronize).
	Ref     string `json:"ref"`
	Before  string `json:"before"`
	After   string `json:"after"`
	Created bool   `json:"created"`
	Deleted bool   `json:"deleted"`
	Forced  bool   `json:"forced"`

	// Inputs are workflow_dispatch inputs: strings, or booleans and
	// numbers for typed inputs. Read them with DispatchInput.
	Inputs map[string]any `json:"inputs"`
	// Schedule is the cron expression of a schedule event.
	Schedule string `json:"schedule"`

	Raw map[string]json.RawMessage `json:"-"`
}

// PullRequest is a payload's pull_request object.
type PullRequest struct {
	Number  int     `json:"number"`
	State   string  `json:"state"` // open or closed
	Draft   bool    `json:"draft"`
	Merged  bool    `json:"merged"`
	HTMLURL string  `json:"html_url"`
	User    User    `json:"user"`
	Head    Branch  `json:"head"`
	Base    Branch  `json:"base"`
	Labels  []Label `json:"labels"`
}

// LabelNames returns the names of the pull request's labels.
func (p *PullRequest) LabelNames() []string {
	if p == nil {
		return nil
	}
	names := make([]string, 0, len(p.Labels))
	for _, l := range p.Labels {
		names = append(names, l.Name)
	}
	return names
}

// Branch is a pull request's head or base: the branch name (Ref, without
// refs/heads/), its commit and its repository. Repo is nil when a fork was
// deleted.
type Branch struct {
	Ref   string      `json:"ref"`
	SHA   string      `json:"sha"`
	Label string      `json:"label"` // owner:branch
	Repo  *Repository `json:"repo"`
}

// RepoFullName is the branch's repository as owner/name, "" when unknown.
func (b Branch) RepoFullName() string {
	if b.Repo == nil {
		return ""
	}
	return b.Repo.FullName
}

// Repository is a payload's repository object (in pull request references
// inside check payloads only ID, Name and URL are set).
type Repository struct {
	ID            int64  `json:"id"`
	Name          string `json:"name"`
	FullName      string `json:"full_name"`
	URL           string `json:"url"`
	DefaultBranch string `json:"default_branch"`
	Private       bool   `json:"private"`
	Fork          bool   `json:"fork"`
	Owner         *User  `json:"owner"`
}

// User is an account: Type is "User", "Bot" or "Organization".
type User struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
	Type  string `json:"type"`
}

// Label is a label on a pull request or issue.
type Label struct {
	Name string `json:"name"`
}

// Installation is the GitHub App installation an App event is for.
type Installation struct {
	ID int64 `json:"id"`
}

// MergeGroup is a merge_group payload's merge_group object. The refs are
// full (refs/heads/gh-readonly-queue/main/pr-104-...).
type MergeGroup struct {
	HeadSHA string `json:"head_sha"`
	HeadRef string `json:"head_ref"`
	BaseSHA string `json:"base_sha"`
	BaseRef string `json:"base_ref"`
}

// Comment is an issue_comment payload's comment.
type Comment struct {
	ID                int64  `json:"id"`
	Body              string `json:"body"`
	HTMLURL           string `json:"html_url"`
	User              User   `json:"user"`
	AuthorAssociation string `json:"author_association"`
	CreatedAt         string `json:"created_at"`
}

// Issue is an issue_comment payload's issue; a pull request is an issue
// with a pull_request object.
type Issue struct {
	Number      int               `json:"number"`
	PullRequest *IssuePullRequest `json:"pull_request"`
	Labels      []Label           `json:"labels"`
}

// IsPullRequest reports whether the issue is a pull request, i.e. the
// comment was made on a PR's conversation.
func (i *Issue) IsPullRequest() bool { return i != nil && i.PullRequest != nil }

// IssuePullRequest is the pull_request link object on an issue.
type IssuePullRequest struct {
	URL     string `json:"url"`
	HTMLURL string `json:"html_url"`
}

// CheckRun is a check_run payload's check_run.
type CheckRun struct {
	ID           int64            `json:"id"`
	Name         string           `json:"name"`
	HeadSHA      string           `json:"head_sha"`
	Status       string           `json:"status"`
	Conclusion   string           `json:"conclusion"`
	ExternalID   string           `json:"external_id"`
	PullRequests []PullRequestRef `json:"pull_requests"`
	CheckSuite   *CheckSuite      `json:"check_suite"`
	App          *App             `json:"app"`
}

// CheckSuite is a check_suite payload's check_suite, or a check run's
// suite.
type CheckSuite struct {
	ID           int64            `json:"id"`
	HeadBranch   string           `json:"head_branch"`
	HeadSHA      string           `json:"head_sha"`
	Before       string           `json:"before"`
	After        string           `json:"after"`
	PullRequests []PullRequestRef `json:"pull_requests"`
	App          *App             `json:"app"`
}

// PullRequestRef is a pull request as check payloads list it: number,
// head and base (their Repo has no FullName). GitHub lists only pull
// requests whose head is in the same repository.
type PullRequestRef struct {
	Number int    `json:"number"`
	Head   Branch `json:"head"`
	Base   Branch `json:"base"`
}

// App is the GitHub App that owns a check run or suite.
type App struct {
	ID   int64  `json:"id"`
	Slug string `json:"slug"`
}

// RequestedAction is a check run button's identifier.
type RequestedAction struct {
	Identifier string `json:"identifier"`
}

// Changes is what an edited event changed, old values in From. On
// pull_request edited, Base is set when the base branch was changed (the
// PR is now against another branch: re-evaluate with the new base).
type Changes struct {
	Base  *BaseChange `json:"base"`
	Title *Change     `json:"title"`
	Body  *Change     `json:"body"`
}

// BaseChange is a pull request's previous base.
type BaseChange struct {
	Ref Change `json:"ref"`
	SHA Change `json:"sha"`
}

// Change holds one previous value.
type Change struct {
	From string `json:"from"`
}

// DispatchInput returns the workflow_dispatch input name as text
// (booleans as true/false, numbers in shortest form) and whether it was
// given.
func (e *Event) DispatchInput(name string) (string, bool) {
	v, ok := e.Inputs[name]
	if !ok {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case nil:
		return "", true
	default:
		b, _ := json.Marshal(v)
		return string(b), true
	}
}

// ReadEvent reads and decodes the event payload at path (GITHUB_EVENT_PATH).
// It must be one JSON object of at most MaxEventSize bytes; unknown fields
// are ignored. Errors name the file.
func ReadEvent(path string) (*Event, error) {
	data, err := readLimited(path, MaxEventSize)
	if err != nil {
		return nil, fmt.Errorf("reading event payload %s: %w", path, err)
	}
	ev, err := ParseEvent(data)
	if err != nil {
		return nil, fmt.Errorf("reading event payload %s: %w", path, err)
	}
	return ev, nil
}

// ParseEvent decodes an event payload (see ReadEvent).
func ParseEvent(data []byte) (*Event, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	var raw map[string]json.RawMessage
	if err := decodeOne(data, &raw); err != nil {
		return nil, err
	}
	var ev Event
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, err
	}
	ev.Raw = raw
	return &ev, nil
}

// decodeOne decodes exactly one JSON value from data.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON object")
	}
	return nil
}

func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d MB", limit>>20)
	}
	return data, nil
}
