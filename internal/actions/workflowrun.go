package actions

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/swarm-gate/swarm-gate/internal/gitsha"
)

// WorkflowRun is a workflow_run payload's workflow_run: the run that
// completed (or was requested) and triggered this workflow. Its fields come
// from GitHub, not from the triggering run's own files, so they can be
// trusted even when the run was for a fork's pull request: HeadSHA is the
// commit the run was for (a pull request's head, not its merge commit) and
// HeadRepository the repository it came from (a fork's for a pull request
// from a fork).
//
// PullRequests lists the pull requests GitHub links to the run; it is
// empty for pull requests from forks.
type WorkflowRun struct {
	ID             int64            `json:"id"`
	Name           string           `json:"name"`
	Path           string           `json:"path"`  // e.g. .github/workflows/swarm-gate.yml
	Event          string           `json:"event"` // the event that triggered the run, e.g. pull_request
	Status         string           `json:"status"`
	Conclusion     string           `json:"conclusion"`
	RunAttempt     int              `json:"run_attempt"`
	HeadSHA        string           `json:"head_sha"`
	HeadBranch     string           `json:"head_branch"`
	HTMLURL        string           `json:"html_url"`
	HeadRepository *Repository      `json:"head_repository"`
	Repository     *Repository      `json:"repository"`
	PullRequests   []PullRequestRef `json:"pull_requests"`
}

// WorkflowRun decodes the payload's workflow_run object (workflow_run
// events). It is an error when the payload has none, or when it has no
// head SHA.
func (e *Event) WorkflowRun() (*WorkflowRun, error) {
	raw, ok := e.Raw["workflow_run"]
	if !ok || string(raw) == "null" {
		return nil, errors.New("the event payload has no workflow_run object")
	}
	var wr WorkflowRun
	if err := json.Unmarshal(raw, &wr); err != nil {
		return nil, fmt.Errorf("reading the payload's workflow_run: %w", err)
	}
	if !gitsha.FullAny(wr.HeadSHA) {
		return nil, fmt.Errorf("the payload's workflow_run.head_sha %q is not a commit SHA", wr.HeadSHA)
	}
	return &wr, nil
}
