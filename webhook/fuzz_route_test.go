package webhook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRoute feeds event names and payloads (GitHub's example deliveries
// from ../shared/github/webhooks, mutated, when ../shared is present) to
// route. Whatever the payload says, a delivery is answered one way only
// (a job, an error, or ignored with a reason or a pong); a job belongs to
// the event, names an installation and an owner/name repository, carries a
// full commit SHA when it has one (always, but for comment commands), and
// has the key and coalescing its event calls for; an event swarm-gate does
// not handle is never an error.
func FuzzRoute(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("../../shared/github/webhooks", "*", "*.json"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatalf("reading seed %s: %v", p, err)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, data); err != nil {
			f.Fatalf("seed %s: %v", p, err)
		}
		f.Add(filepath.Base(filepath.Dir(p)), b.Bytes())
	}
	sha := strings.Repeat("a", 40)
	f.Add("merge_group", []byte(`{"action":"checks_requested","installation":{"id":1},"repository":{"full_name":"o/r"},"merge_group":{"head_sha":"`+sha+`"}}`))
	f.Add("check_suite", []byte(`{"action":"requested","installation":{"id":1},"repository":{"full_name":"o/r"},"check_suite":{"head_sha":"`+sha+`","pull_requests":[{"number":0},{"number":2}]}}`))
	f.Add("ping", []byte(`{"zen":"Design for failure."}`))
	f.Add("push", []byte(`{`))

	routed := map[string]bool{"pull_request": true, "check_suite": true, "check_run": true, "merge_group": true, "issue_comment": true}
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		d, err := route(event, body)
		ways := 0
		for _, b := range []bool{err != nil, d.job != nil, d.pong, d.ignored != ""} {
			if b {
				ways++
			}
		}
		if ways != 1 {
			t.Fatalf("%s: error %v, job %+v, pong %v, ignored %q", event, err, d.job, d.pong, d.ignored)
		}
		if err != nil && err.Error() == "" {
			t.Fatal("empty error")
		}
		if !routed[event] && event != "ping" && event != "installation" && event != "installation_repositories" && (err != nil || d.job != nil) {
			t.Fatalf("event %q not handled, but error %v, job %+v", event, err, d.job)
		}
		j := d.job
		if j == nil {
			return
		}
		if !routed[event] || j.Event != event {
			t.Fatalf("event %q gave a job for %q", event, j.Event)
		}
		owner, name, ok := strings.Cut(j.Repo, "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") || j.Installation <= 0 {
			t.Fatalf("job repository %q, installation %d", j.Repo, j.Installation)
		}
		if j.HeadSHA != "" && !fullSHA(j.HeadSHA) || j.HeadSHA == "" && event != "issue_comment" {
			t.Fatalf("%s job with head SHA %q", event, j.HeadSHA)
		}
		if j.PR < 0 || (event == "pull_request" || event == "issue_comment") && j.PR == 0 {
			t.Fatalf("%s job for pull request %d", event, j.PR)
		}
		want := shaKey(j.Repo, j.HeadSHA)
		if j.PR > 0 {
			want = prKey(j.Repo, j.PR)
		}
		if j.Key != want || j.Coalesce != (event != "issue_comment") {
			t.Fatalf("%s job key %q (want %q), coalesce %v", event, j.Key, want, j.Coalesce)
		}
	})
}

// fullSHA reports whether s is 40 or 64 lowercase hex digits.
func fullSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
