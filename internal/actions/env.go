// Package actions is swarm-gate's side of the GitHub Actions runner
// protocol: it reads the step's environment, inputs and event payload, and
// writes outputs, the step summary and workflow commands (annotations,
// masks, groups) the way the runner and @actions/toolkit expect them.
//
// Nothing here decides anything about gates; it only speaks the runner's
// formats, and refuses (with an error naming the variable, input or file)
// whenever a value would be misread by the runner.
package actions

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/gitsha"
)

// LookupFunc reads one environment variable; os.LookupEnv is the default.
type LookupFunc func(name string) (value string, ok bool)

// Env is the environment of one Actions step. The zero Env reads the
// process environment; NewEnv lets tests inject a map.
type Env struct {
	lookup LookupFunc
	// random is where heredoc delimiters come from; nil means crypto/rand.
	// Tests set it to force a collision.
	random io.Reader
}

// NewEnv returns an Env reading variables through lookup (nil: os.LookupEnv).
func NewEnv(lookup LookupFunc) Env {
	return Env{lookup: lookup}
}

// MapLookup is a LookupFunc over a fixed map, for tests and for replaying a
// recorded environment.
func MapLookup(vars map[string]string) LookupFunc {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// Get returns the variable's value, "" when unset. The runner sets some
// variables to "" (GITHUB_HEAD_REF outside pull requests), so unset and empty
// are the same here.
func (e Env) Get(name string) string {
	lookup := e.lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	v, _ := lookup(name)
	return v
}

// required returns a variable the runner always sets, or an error saying
// that it is missing (we are not in a runner, or the runner is broken).
func (e Env) required(name string) (string, error) {
	v := e.Get(name)
	if v == "" {
		return "", fmt.Errorf("%s is not set: run swarm-gate as a GitHub Actions step, or set %s yourself", name, name)
	}
	return v, nil
}

// EventName is GITHUB_EVENT_NAME, e.g. "pull_request", "merge_group",
// "push", "issue_comment", "check_run", "schedule", "workflow_dispatch".
func (e Env) EventName() (string, error) {
	v, err := e.required("GITHUB_EVENT_NAME")
	if err != nil {
		return "", err
	}
	if !eventNameRE.MatchString(v) {
		return "", fmt.Errorf("GITHUB_EVENT_NAME %q is not an event name (want lower-case letters and _)", v)
	}
	return v, nil
}

var eventNameRE = regexp.MustCompile(`^[a-z][a-z_]*$`)

// EventPath is GITHUB_EVENT_PATH, the file holding the event's webhook
// payload (read it with ReadEvent or Env.Event).
func (e Env) EventPath() (string, error) {
	return e.required("GITHUB_EVENT_PATH")
}

// Repository splits GITHUB_REPOSITORY ("owner/name") into its two parts.
// Owners are letters, digits, '-' and '_' (enterprise managed users);
// names add '.', and are neither "." nor "..".
func (e Env) Repository() (owner, name string, err error) {
	v, err := e.required("GITHUB_REPOSITORY")
	if err != nil {
		return "", "", err
	}
	owner, name, ok := strings.Cut(v, "/")
	if !ok || !ownerRE.MatchString(owner) || !repoNameRE.MatchString(name) || name == "." || name == ".." {
		return "", "", fmt.Errorf("GITHUB_REPOSITORY %q is not owner/name", v)
	}
	return owner, name, nil
}

var (
	ownerRE    = regexp.MustCompile(`^[A-Za-z0-9_-]{1,100}$`)
	repoNameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

// Workspace is GITHUB_WORKSPACE, the absolute path of the checkout (in a
// container action, /github/workspace).
func (e Env) Workspace() (string, error) {
	v, err := e.required("GITHUB_WORKSPACE")
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(v) {
		return "", fmt.Errorf("GITHUB_WORKSPACE %q is not an absolute path", v)
	}
	return filepath.Clean(v), nil
}

// APIURL is GITHUB_API_URL without a trailing slash, default
// https://api.github.com (GitHub Enterprise Server: https://HOST/api/v3).
func (e Env) APIURL() (string, error) {
	return e.baseURL("GITHUB_API_URL", "https://api.github.com")
}

// ServerURL is GITHUB_SERVER_URL without a trailing slash, default
// https://github.com.
func (e Env) ServerURL() (string, error) {
	return e.baseURL("GITHUB_SERVER_URL", "https://github.com")
}

func (e Env) baseURL(name, def string) (string, error) {
	v := e.Get(name)
	if v == "" {
		return def, nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%s %q is not an http(s) base URL", name, v)
	}
	return strings.TrimRight(v, "/"), nil
}

// RunID is GITHUB_RUN_ID, a positive integer unique to the workflow run.
func (e Env) RunID() (int64, error) {
	v, err := e.required("GITHUB_RUN_ID")
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("GITHUB_RUN_ID %q is not a positive integer", v)
	}
	return n, nil
}

// RunAttempt is GITHUB_RUN_ATTEMPT, 1 for the first attempt of a run and
// one more for each re-run.
func (e Env) RunAttempt() (int, error) {
	v, err := e.required("GITHUB_RUN_ATTEMPT")
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("GITHUB_RUN_ATTEMPT %q is not a positive integer", v)
	}
	return n, nil
}

// SHA is GITHUB_SHA, the commit the workflow runs on: 40 lower-case hex
// digits (64 in a SHA-256 repository). For pull_request events this is the
// test merge commit, not the PR head; take the head from the payload.
func (e Env) SHA() (string, error) {
	v, err := e.required("GITHUB_SHA")
	if err != nil {
		return "", err
	}
	if !gitsha.FullAny(v) {
		return "", fmt.Errorf("GITHUB_SHA %q is not a full commit SHA", v)
	}
	return v, nil
}

// Token is the `github-token` input (INPUT_GITHUB-TOKEN), else
// GITHUB_TOKEN, else "". The caller decides whether no token is an error.
func (e Env) Token() string {
	if t := e.Input("github-token"); t != "" {
		return t
	}
	return strings.TrimSpace(e.Get("GITHUB_TOKEN"))
}

// Ref is GITHUB_REF, e.g. "refs/heads/main", "refs/pull/7/merge",
// "refs/tags/v1"; "" for events that have none.
func (e Env) Ref() string { return e.Get("GITHUB_REF") }

// HeadRef is GITHUB_HEAD_REF, the PR's head branch name (pull_request and
// pull_request_target events only, else "").
func (e Env) HeadRef() string { return e.Get("GITHUB_HEAD_REF") }

// BaseRef is GITHUB_BASE_REF, the PR's base branch name (pull_request and
// pull_request_target events only, else "").
func (e Env) BaseRef() string { return e.Get("GITHUB_BASE_REF") }

// Job is GITHUB_JOB, the job's id in the workflow file.
func (e Env) Job() string { return e.Get("GITHUB_JOB") }

// Workflow is GITHUB_WORKFLOW, the workflow's name (or its file path when
// it has no name).
func (e Env) Workflow() string { return e.Get("GITHUB_WORKFLOW") }

// OutputPath is GITHUB_OUTPUT, the file SetOutput appends to; "" when unset.
func (e Env) OutputPath() string { return e.Get("GITHUB_OUTPUT") }

// SummaryPath is GITHUB_STEP_SUMMARY, the file AppendSummary appends to;
// "" when unset.
func (e Env) SummaryPath() string { return e.Get("GITHUB_STEP_SUMMARY") }

// EnvPath is GITHUB_ENV, the file ExportVariable appends to; "" when unset.
func (e Env) EnvPath() string { return e.Get("GITHUB_ENV") }

// IsDebug reports whether step debug logging is on (RUNNER_DEBUG=1, set
// when a run is re-run with debug logging), as the toolkit's isDebug().
func (e Env) IsDebug() bool { return e.Get("RUNNER_DEBUG") == "1" }

// Event reads the payload at GITHUB_EVENT_PATH and names it with
// GITHUB_EVENT_NAME.
func (e Env) Event() (*Event, error) {
	name, err := e.EventName()
	if err != nil {
		return nil, err
	}
	path, err := e.EventPath()
	if err != nil {
		return nil, err
	}
	ev, err := ReadEvent(path)
	if err != nil {
		return nil, err
	}
	ev.Name = name
	return ev, nil
}
