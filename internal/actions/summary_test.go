package actions

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func summaryEnv(path string) Env {
	return NewEnv(MapLookup(map[string]string{"GITHUB_STEP_SUMMARY": path}))
}

func TestAppendSummaryAppends(t *testing.T) {
	path := tempFile(t, "summary")
	env := summaryEnv(path)
	for _, md := range []string{"## swarm-gate: passed\n", "", "| a | b |\n"} {
		if err := env.AppendSummary(md); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, path); got != "## swarm-gate: passed\n| a | b |\n" {
		t.Errorf("summary = %q", got)
	}
	if err := NewEnv(MapLookup(nil)).AppendSummary("x"); err == nil || !strings.Contains(err.Error(), "GITHUB_STEP_SUMMARY") {
		t.Errorf("without GITHUB_STEP_SUMMARY: err = %v", err)
	}
}

func TestAppendSummaryExactlyAtLimitIsKept(t *testing.T) {
	path := tempFile(t, "summary")
	md := strings.Repeat("x", SummaryLimit-1) + "\n"
	if err := summaryEnv(path).AppendSummary(md); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != md {
		t.Errorf("a summary of exactly 1 MiB was changed (len %d)", len(got))
	}
}

func TestAppendSummaryCutsAtLimit(t *testing.T) {
	line := "- `gates/scope.go:12` **error** 日本語 finding text 😀\n"
	md := strings.Repeat(line, 2*SummaryLimit/len(line))
	path := tempFile(t, "summary")
	if err := summaryEnv(path).AppendSummary(md); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, path)
	if len(got) > SummaryLimit {
		t.Fatalf("summary is %d bytes, over the %d limit", len(got), SummaryLimit)
	}
	if len(got) < SummaryLimit-len(line)-200 {
		t.Errorf("summary is %d bytes: cut far more than needed", len(got))
	}
	if !utf8.ValidString(got) {
		t.Error("cut inside a UTF-8 sequence")
	}
	body, notice, ok := strings.Cut(got, "\n> **Summary cut:** ")
	if !ok || strings.Count(notice, "\n") != 1 || !strings.HasSuffix(notice, "GITHUB_STEP_SUMMARY).\n") {
		t.Fatalf("no clear final line; tail = %q", got[max(0, len(got)-300):])
	}
	if !strings.HasPrefix(md, body) || !strings.HasSuffix(body, line) {
		t.Error("kept text is not a whole-line prefix of the input")
	}
	dropped := len(md) - len(body)
	if !strings.HasPrefix(notice, strconv.Itoa(dropped)+" of "+strconv.Itoa(len(md))+" bytes left out") {
		t.Errorf("notice %q does not count %d dropped of %d", notice, dropped, len(md))
	}
}

func TestAppendSummaryCountsWhatIsAlreadyThere(t *testing.T) {
	path := tempFile(t, "summary")
	if err := os.WriteFile(path, []byte(strings.Repeat("y", SummaryLimit-1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := summaryEnv(path).AppendSummary(strings.Repeat("line\n", 1000)); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, path)
	if len(got) > SummaryLimit || !strings.Contains(got, "Summary cut:") {
		t.Errorf("len %d, cut notice present: %v", len(got), strings.Contains(got, "Summary cut:"))
	}

	if err := os.WriteFile(path, []byte(strings.Repeat("y", SummaryLimit-10)), 0o644); err != nil {
		t.Fatal(err)
	}
	err := summaryEnv(path).AppendSummary("more than ten bytes of markdown")
	if err == nil || !strings.Contains(err.Error(), "GITHUB_STEP_SUMMARY") {
		t.Errorf("full summary file: err = %v, want an error naming GITHUB_STEP_SUMMARY", err)
	}
	if len(readFile(t, path)) != SummaryLimit-10 {
		t.Error("wrote to a full summary file")
	}
}

func TestFitSummaryClosesOpenBlocks(t *testing.T) {
	cases := []struct {
		name, md string
		budget   int64
		want     []string // must appear after the kept text, in order
	}{
		{"open code fence", "intro\n```diff\n" + strings.Repeat("+ added line\n", 100), 600, []string{"```\n", "Summary cut:"}},
		{"long tilde fence", "~~~~\n" + strings.Repeat("~~~ not a close\n", 100), 500, []string{"~~~~\n", "Summary cut:"}},
		{"open details", "<details><summary>findings</summary>\n\n" + strings.Repeat("- finding\n", 200), 600, []string{"</details>", "Summary cut:"}},
		{"details inside a fence are code", "```\n<details>\n```\n" + strings.Repeat("text\n", 200), 400, []string{"Summary cut:"}},
		{"one long line", strings.Repeat("é", 1000), 500, []string{"Summary cut:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := fitSummary(c.md, c.budget)
			if !ok || int64(len(got)) > c.budget || !utf8.ValidString(got) {
				t.Fatalf("ok=%v len=%d budget=%d valid=%v", ok, len(got), c.budget, utf8.ValidString(got))
			}
			rest := got
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%q missing from the end of %q", w, got)
				}
				rest = rest[i+len(w):]
			}
			if c.name == "details inside a fence are code" && strings.Contains(got, "</details>") {
				t.Errorf("closed a <details> that was code: %q", got)
			}
		})
	}
	if _, ok := fitSummary(strings.Repeat("x", 100), 20); ok {
		t.Error("a budget smaller than the notice must fail")
	}
}
