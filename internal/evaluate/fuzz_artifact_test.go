package evaluate

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/report"
)

// FuzzReadArtifact feeds arbitrary files to readArtifact, which reads the
// report a fork's own run wrote (untrusted). A report it accepts is about
// the run's head, has an exit code that follows from its outcome, only
// swarm-gate's checks (each once) with the fixed summary, clean paths and
// at most MaxArtifactFindings findings; and written back as JSON it reads
// back the same.
func FuzzReadArtifact(f *testing.F) {
	head, base := strings.Repeat("a", 40), strings.Repeat("b", 40)
	f.Add([]byte(`{"version":1,"outcome":"failed","exit_code":0,"base":"` + base + `","head":"` + head + `","merge_base":"` + base + `","phase":2,"phase_source":"branch","gates":[` +
		`{"name":"swarm/scope","outcome":"failed","title":"1 file outside","summary":"![x](https://evil.example/x.png)","findings":[{"path":"src/a.go","line":3,"end_line":3,"column":2,"rule":"scope/out-of-scope","severity":"error","message":"outside"}]},` +
		`{"name":"swarm/critic","outcome":"passed","title":"APPROVED","summary":"","findings":[]}],"tool":{"name":"swarm-gate","version":"dev"}}`))
	f.Add([]byte(`{"version":1,"outcome":"error","exit_code":2,"base":"","head":"` + head + `","merge_base":"","phase":0,"gates":[],"error":"no .swarm folder"}`))
	f.Add([]byte(`{"version":1,"outcome":"passed","head":"` + head + `","base":"` + base + `","merge_base":"` + base + `","gates":[{"name":"swarm/placeholders","outcome":"overridden","findings":null},{"name":"swarm/sast","outcome":"not_applicable"}]}`))
	f.Add([]byte(`{"version":1}{"version":1}`))
	file := filepath.Join(f.TempDir(), "report.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err := readArtifact(file, head)
		if err != nil {
			if rep != nil {
				t.Fatalf("report %+v with error %v", rep, err)
			}
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		checkAcceptedReport(t, rep, head)
		var b bytes.Buffer
		if err := report.WriteJSON(&b, rep); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		again, err := readArtifact(file, head)
		if err != nil {
			t.Fatalf("an accepted report written back is refused: %v\n%s", err, b.Bytes())
		}
		if !reflect.DeepEqual(again, rep) {
			t.Fatalf("read back differently:\n%+v\n%+v", again, rep)
		}
		if _, err := readArtifact(file, base); err == nil {
			t.Fatal("a report about another commit is accepted")
		}
	})
}

// checkAcceptedReport checks what readArtifact promises of a report it
// accepts.
func checkAcceptedReport(t *testing.T, rep *report.Report, head string) {
	t.Helper()
	if rep.Version != report.Version || rep.Head != head || rep.ExitCode != report.ExitCode(rep.Outcome) {
		t.Fatalf("version %d, head %q, exit code %d for %s", rep.Version, rep.Head, rep.ExitCode, rep.Outcome)
	}
	switch rep.Outcome {
	case gates.Passed, gates.Failed, gates.Error:
	default:
		t.Fatalf("outcome %q", rep.Outcome)
	}
	if rep.Error == "" && rep.Outcome != report.Overall(rep.Gates) {
		t.Fatalf("outcome %s, gates say %s", rep.Outcome, report.Overall(rep.Gates))
	}
	seen, findings, evaluated := map[string]bool{}, 0, 0
	for _, g := range rep.Gates {
		if !OwnCheck(g.Name) || g.Name == AggregateCheck || seen[g.Name] {
			t.Fatalf("check %q (seen %v)", g.Name, seen[g.Name])
		}
		seen[g.Name] = true
		if !strings.HasPrefix(g.Summary, "Result as reported by the pull request's own workflow run") {
			t.Fatalf("summary kept: %q", g.Summary)
		}
		if g.Outcome != gates.NotApplicable {
			evaluated++
		}
		findings += len(g.Findings)
		for _, fd := range g.Findings {
			if err := checkFinding(fd); err != nil {
				t.Fatalf("accepted finding %+v: %v", fd, err)
			}
			if strings.HasPrefix(fd.Path, "/") || fd.Path == ".." || strings.HasPrefix(fd.Path, "../") || strings.Contains(fd.Path, "/../") {
				t.Fatalf("path %q leaves the repository", fd.Path)
			}
		}
	}
	if findings > MaxArtifactFindings {
		t.Fatalf("%d findings", findings)
	}
	if rep.Error == "" && evaluated == 0 {
		t.Fatal("accepted a report in which no gate was evaluated")
	}
}
