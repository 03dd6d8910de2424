package actions

import (
	"strings"
	"testing"
)

// runnerEnv is what the runner sets for a pull_request run of a container
// action.
func runnerEnv() map[string]string {
	return map[string]string{
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   "/github/workflow/event.json",
		"GITHUB_REPOSITORY":   "swarm-gate/swarm-gate",
		"GITHUB_WORKSPACE":    "/github/workspace",
		"GITHUB_API_URL":      "https://api.github.com",
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_RUN_ID":       "1658821493",
		"GITHUB_RUN_ATTEMPT":  "2",
		"GITHUB_SHA":          "ffac537e6cbbf934b08745a378932722df287a53",
		"GITHUB_REF":          "refs/pull/7/merge",
		"GITHUB_HEAD_REF":     "swarm/phase-3",
		"GITHUB_BASE_REF":     "main",
		"GITHUB_JOB":          "verify",
		"GITHUB_WORKFLOW":     "swarm-gate",
		"GITHUB_OUTPUT":       "/github/file_commands/set_output_1",
		"GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary_1",
		"GITHUB_ENV":          "/github/file_commands/set_env_1",
		"GITHUB_TOKEN":        "ghs_fromenv",
		"RUNNER_DEBUG":        "1",
	}
}

func TestEnvReadsTheRunnersVariables(t *testing.T) {
	env := NewEnv(MapLookup(runnerEnv()))
	must := func(v string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	owner, name, err := env.Repository()
	if err != nil || owner != "swarm-gate" || name != "swarm-gate" {
		t.Errorf("Repository() = %q, %q, %v", owner, name, err)
	}
	runID, err := env.RunID()
	if err != nil || runID != 1658821493 {
		t.Errorf("RunID() = %d, %v", runID, err)
	}
	attempt, err := env.RunAttempt()
	if err != nil || attempt != 2 {
		t.Errorf("RunAttempt() = %d, %v", attempt, err)
	}
	got := map[string]string{
		"EventName":   must(env.EventName()),
		"EventPath":   must(env.EventPath()),
		"Workspace":   must(env.Workspace()),
		"APIURL":      must(env.APIURL()),
		"ServerURL":   must(env.ServerURL()),
		"SHA":         must(env.SHA()),
		"Token":       env.Token(),
		"Ref":         env.Ref(),
		"HeadRef":     env.HeadRef(),
		"BaseRef":     env.BaseRef(),
		"Job":         env.Job(),
		"Workflow":    env.Workflow(),
		"OutputPath":  env.OutputPath(),
		"SummaryPath": env.SummaryPath(),
		"EnvPath":     env.EnvPath(),
	}
	want := map[string]string{
		"EventName": "pull_request", "EventPath": "/github/workflow/event.json", "Workspace": "/github/workspace",
		"APIURL": "https://api.github.com", "ServerURL": "https://github.com", "SHA": "ffac537e6cbbf934b08745a378932722df287a53",
		"Token": "ghs_fromenv", "Ref": "refs/pull/7/merge", "HeadRef": "swarm/phase-3", "BaseRef": "main", "Job": "verify",
		"Workflow": "swarm-gate", "OutputPath": "/github/file_commands/set_output_1",
		"SummaryPath": "/github/file_commands/step_summary_1", "EnvPath": "/github/file_commands/set_env_1",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s() = %q, want %q", k, got[k], w)
		}
	}
	if !env.IsDebug() {
		t.Error("IsDebug() = false with RUNNER_DEBUG=1")
	}
}

func TestEnvDefaults(t *testing.T) {
	env := NewEnv(MapLookup(map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3/", "GITHUB_HEAD_REF": ""}))
	if u, err := env.APIURL(); err != nil || u != "https://ghe.example.com/api/v3" {
		t.Errorf("APIURL() = %q, %v (trailing slash must go)", u, err)
	}
	if u, err := env.ServerURL(); err != nil || u != "https://github.com" {
		t.Errorf("ServerURL() default = %q, %v", u, err)
	}
	if u, err := NewEnv(MapLookup(nil)).APIURL(); err != nil || u != "https://api.github.com" {
		t.Errorf("APIURL() default = %q, %v", u, err)
	}
	if env.HeadRef() != "" || env.Token() != "" || env.IsDebug() || env.OutputPath() != "" {
		t.Error("unset variables must read as empty")
	}
}

func TestEnvTokenPrefersTheInput(t *testing.T) {
	vars := runnerEnv()
	vars["INPUT_GITHUB-TOKEN"] = "  ghs_frominput\n"
	if got := NewEnv(MapLookup(vars)).Token(); got != "ghs_frominput" {
		t.Errorf("Token() = %q, want the github-token input, trimmed", got)
	}
	vars["INPUT_GITHUB-TOKEN"] = ""
	if got := NewEnv(MapLookup(vars)).Token(); got != "ghs_fromenv" {
		t.Errorf("Token() = %q, want GITHUB_TOKEN when the input is empty", got)
	}
}

func TestEnvValidationErrorsNameTheVariable(t *testing.T) {
	cases := []struct {
		variable, value string
		read            func(Env) error
	}{
		{"GITHUB_EVENT_NAME", "", func(e Env) error { _, err := e.EventName(); return err }},
		{"GITHUB_EVENT_NAME", "pull_request\n", func(e Env) error { _, err := e.EventName(); return err }},
		{"GITHUB_EVENT_PATH", "", func(e Env) error { _, err := e.EventPath(); return err }},
		{"GITHUB_REPOSITORY", "", func(e Env) error { _, _, err := e.Repository(); return err }},
		{"GITHUB_REPOSITORY", "no-slash", func(e Env) error { _, _, err := e.Repository(); return err }},
		{"GITHUB_REPOSITORY", "a/b/c", func(e Env) error { _, _, err := e.Repository(); return err }},
		{"GITHUB_REPOSITORY", "/name", func(e Env) error { _, _, err := e.Repository(); return err }},
		{"GITHUB_REPOSITORY", "owner/", func(e Env) error { _, _, err := e.Repository(); return err }},
		{"GITHUB_REPOSITORY", "owner/..", func(e Env) error { _, _, err := e.Repository(); return err }},
		{"GITHUB_REPOSITORY", "own er/name", func(e Env) error { _, _, err := e.Repository(); return err }},
		{"GITHUB_WORKSPACE", "", func(e Env) error { _, err := e.Workspace(); return err }},
		{"GITHUB_WORKSPACE", "relative/dir", func(e Env) error { _, err := e.Workspace(); return err }},
		{"GITHUB_API_URL", "api.github.com", func(e Env) error { _, err := e.APIURL(); return err }},
		{"GITHUB_API_URL", "ftp://api.github.com", func(e Env) error { _, err := e.APIURL(); return err }},
		{"GITHUB_API_URL", "https://user:pw@api.github.com", func(e Env) error { _, err := e.APIURL(); return err }},
		{"GITHUB_SERVER_URL", "https://", func(e Env) error { _, err := e.ServerURL(); return err }},
		{"GITHUB_RUN_ID", "", func(e Env) error { _, err := e.RunID(); return err }},
		{"GITHUB_RUN_ID", "12a", func(e Env) error { _, err := e.RunID(); return err }},
		{"GITHUB_RUN_ID", "0", func(e Env) error { _, err := e.RunID(); return err }},
		{"GITHUB_RUN_ATTEMPT", "-1", func(e Env) error { _, err := e.RunAttempt(); return err }},
		{"GITHUB_RUN_ATTEMPT", "", func(e Env) error { _, err := e.RunAttempt(); return err }},
		{"GITHUB_SHA", "", func(e Env) error { _, err := e.SHA(); return err }},
		{"GITHUB_SHA", "ffac537", func(e Env) error { _, err := e.SHA(); return err }},
		{"GITHUB_SHA", "FFAC537E6CBBF934B08745A378932722DF287A53", func(e Env) error { _, err := e.SHA(); return err }},
	}
	for _, c := range cases {
		vars := runnerEnv()
		vars[c.variable] = c.value
		err := c.read(NewEnv(MapLookup(vars)))
		if err == nil {
			t.Errorf("%s=%q accepted", c.variable, c.value)
			continue
		}
		if !strings.Contains(err.Error(), c.variable) {
			t.Errorf("%s=%q: error %q does not name the variable", c.variable, c.value, err)
		}
	}
}

func TestEnvAcceptsRealisticValues(t *testing.T) {
	for _, repo := range []string{"octo-org/hello.world", "a/b", "user_shortcode/repo_name", "Org/.github"} {
		vars := runnerEnv()
		vars["GITHUB_REPOSITORY"] = repo
		if _, _, err := NewEnv(MapLookup(vars)).Repository(); err != nil {
			t.Errorf("Repository(%q): %v", repo, err)
		}
	}
	vars := runnerEnv()
	vars["GITHUB_SHA"] = strings.Repeat("ab", 32)
	if _, err := NewEnv(MapLookup(vars)).SHA(); err != nil {
		t.Errorf("SHA-256 commit id: %v", err)
	}
}

func TestZeroEnvReadsTheProcessEnvironment(t *testing.T) {
	t.Setenv("GITHUB_JOB", "from-process")
	if got := (Env{}).Job(); got != "from-process" {
		t.Errorf("Env{}.Job() = %q", got)
	}
	if got := NewEnv(nil).Job(); got != "from-process" {
		t.Errorf("NewEnv(nil).Job() = %q", got)
	}
}
