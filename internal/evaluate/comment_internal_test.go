package evaluate

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// TestCommentCutAt65536: a summary comment over GitHub's 65,536
// characters is cut at a line end with a last line naming the full report.
func TestCommentCutAt65536(t *testing.T) {
	var fs []gates.Finding
	for i := 0; i < 3000; i++ {
		fs = append(fs, gates.Finding{Path: "a/é.go", Line: i + 1, Message: strings.Repeat("ü", 40), Delta: gates.DeltaPreExisting, Severity: gates.SeverityWarning})
	}
	res := []gates.Result{{Name: "swarm/sast", Outcome: gates.Failed, Title: "1 new finding", Findings: fs}}
	cs := &Runs{}
	body := commentBody(&report.Report{Head: strings.Repeat("a", 40)}, res, cs, gates.Failed, "the `swarm-gate-report` artifact")
	if n := utf8.RuneCountInString(body); n > ghapi.MaxCommentRunes || n < ghapi.MaxCommentRunes-200 {
		t.Errorf("cut comment is %d characters, want at most %d and close to it", n, ghapi.MaxCommentRunes)
	}
	if !strings.HasPrefix(body, summaryMarker) || !strings.HasSuffix(body, "the full report is in the `swarm-gate-report` artifact.\n") {
		t.Errorf("cut comment starts %q, ends %q", body[:40], body[len(body)-120:])
	}
	short := commentBody(&report.Report{Head: strings.Repeat("a", 40)}, res[:0], cs, gates.Passed, "x")
	if strings.Contains(short, "cut here") || !strings.Contains(short, "all checks pass") {
		t.Errorf("short comment:\n%s", short)
	}
}
