package actions

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/gitsha"
)

// addWebhookSeeds adds GitHub's example webhook payloads (octokit/webhooks
// and the OpenAPI description's check_run examples, read in place from
// ../shared; nothing when it is absent), compacted: white space only
// slows the mutator.
func addWebhookSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(webhooksDir, "*", "*.json"))
	more, _ := filepath.Glob(filepath.Join(webhooksDir+"-openapi", "*", "*.json"))
	for _, p := range append(files, more...) {
		if strings.HasSuffix(p, ".form-urlencoded.json") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatalf("reading seed %s: %v", p, err)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, data); err != nil {
			f.Fatalf("seed %s: %v", p, err)
		}
		f.Add(b.Bytes())
	}
}

// FuzzParseEventPayload feeds GitHub's example payloads, mutated, to
// ParseEvent: it accepts exactly the JSON objects whose fields have the
// types Event gives them, keeps every top-level key in Raw, and the
// accessors and WorkflowRun never panic; a workflow run it returns has a
// commit SHA.
func FuzzParseEventPayload(f *testing.F) {
	addWebhookSeeds(f)
	f.Add([]byte(`{"workflow_run":{"id":1,"head_sha":"` + strings.Repeat("a", 40) + `","pull_requests":[{"number":1,"head":{"sha":"x"}}]}}`))
	f.Add([]byte(` {"workflow_run":null,"inputs":{"a":true,"b":1e400}} `))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ParseEvent(data)
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		isObject := json.Valid(data) && len(trimmed) > 0 && trimmed[0] == '{'
		var typed Event
		wellTyped := isObject && json.Unmarshal(data, &typed) == nil
		if (err == nil) != wellTyped {
			t.Fatalf("ParseEvent error %v; JSON object %v, fields well typed %v", err, isObject, wellTyped)
		}
		if err != nil {
			if ev != nil {
				t.Fatalf("event %+v with error %v", ev, err)
			}
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		keys, rawKeys := mapKeys(m), mapKeys(ev.Raw)
		if !slices.Equal(keys, rawKeys) {
			t.Fatalf("Raw keys %q, payload keys %q", rawKeys, keys)
		}
		ev.Issue.IsPullRequest()
		ev.PullRequest.LabelNames()
		if ev.PullRequest != nil {
			ev.PullRequest.Head.RepoFullName()
			ev.PullRequest.Base.RepoFullName()
		}
		for k := range ev.Inputs {
			if _, ok := ev.DispatchInput(k); !ok {
				t.Fatalf("input %q given but not found", k)
			}
		}
		if wr, err := ev.WorkflowRun(); err == nil && !gitsha.FullAny(wr.HeadSHA) {
			t.Fatalf("workflow run head SHA %q", wr.HeadSHA)
		} else if err != nil && wr != nil {
			t.Fatalf("workflow run %+v with error %v", wr, err)
		}
	})
}

func mapKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
