package swarm

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

const corpusDir = "../../../shared/corpus"

func corpusRepos(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		sharedtest.Skip(t, "skipping: the shared corpus is not at %s (clone ../shared beside the repo to run corpus tests)", corpusDir)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		t.Fatal("corpus has no repository folders")
	}
	return out
}

// allErrors lists every artifact error of a load, for assertions.
func allErrors(a *Artifacts) []error {
	var errs []error
	for _, err := range []error{a.PlanErr, a.LedgerErr, a.EventsErr, a.SpecErr, a.Evidence.DirErr, a.Scopes.DirErr,
		a.Receipts.DirErr, a.SpecStalenessErr} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, err := range a.Evidence.Broken {
		errs = append(errs, err)
	}
	for _, err := range a.Scopes.Broken {
		errs = append(errs, err)
	}
	errs = append(errs, a.Receipts.Broken...)
	return errs
}

// TestCorpusLoads reads every repository folder of the corpus through Load,
// the loader the gates use: every file must parse, the committed plan.json
// must hash to the ledger's last plan_hash_after where both exist, and every
// embedded plan must be readable.
func TestCorpusLoads(t *testing.T) {
	var plans, ledgers, events, evidence, scopes int
	for _, repo := range corpusRepos(t) {
		t.Run(repo, func(t *testing.T) {
			a := Load(os.DirFS(filepath.Join(corpusDir, repo)))
			if !a.Present {
				t.Fatal(".swarm not found")
			}
			for _, err := range allErrors(a) {
				t.Errorf("unexpected error: %v", err)
			}
			if a.Plan != nil {
				plans++
			}
			if a.Events != nil {
				events += len(a.Events.Events)
			}
			evidence += len(a.Evidence.TaskGates)
			scopes += len(a.Scopes.Declared) + len(a.Scopes.Bindings)
			if a.Ledger == nil {
				return
			}
			ledgers++
			for _, ev := range a.Ledger.Events {
				if ev.PlanErr != nil {
					t.Errorf("seq %d: %v", ev.Seq, ev.PlanErr)
				}
			}
			if a.Plan != nil {
				if last := a.Ledger.Last(); last.PlanHashAfter != a.Plan.Digests.Ledger {
					t.Errorf("plan.json hashes to %s, last plan_hash_after (seq %d) is %s", a.Plan.Digests.Ledger, last.Seq, last.PlanHashAfter)
				}
			}
		})
	}
	t.Logf("corpus: %d plans, %d ledgers, %d events.jsonl lines, %d task gate files, %d scope files", plans, ledgers, events, evidence, scopes)
}

// TestCorpusHistoryPlansParse parses every older plan.json and ledger kept
// under history/.
func TestCorpusHistoryPlansParse(t *testing.T) {
	n := 0
	for _, repo := range corpusRepos(t) {
		files, _ := filepath.Glob(filepath.Join(corpusDir, repo, "history", "*", "*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			switch filepath.Base(f) {
			case "plan.json":
				_, err = ParsePlan(f, data)
			case "plan-ledger.jsonl":
				_, err = ParseLedger(f, data)
			default:
				continue
			}
			n++
			if err != nil {
				t.Errorf("%v", err)
			}
		}
	}
	t.Logf("%d history files parsed", n)
}

// TestCorpusFilesDamaged damages real corpus files the ways real bugs do
// (truncated write, lost brace, garbage line) and requires an error that
// names the file and the line, never a panic or a silent pass.
func TestCorpusFilesDamaged(t *testing.T) {
	corpusRepos(t)
	root := filepath.Join(corpusDir, "VerduzcoTristan__landingpage")
	plan, err := os.ReadFile(filepath.Join(root, PlanPath))
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := os.ReadFile(filepath.Join(root, LedgerPath))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(ledger), "\n"), "\n")
	cases := []struct {
		name     string
		path     string
		data     string
		wantLine int
		pick     func(*Artifacts) error
	}{
		{"plan.json truncated", PlanPath, string(plan[:len(plan)/2]), strings.Count(string(plan[:len(plan)/2]), "\n") + 1, func(a *Artifacts) error { return a.PlanErr }},
		{"plan.json task status outside the schema", PlanPath, strings.Replace(string(plan), `"status": "completed"`, `"status": "done"`, 1), lineOf(string(plan), `"status": "completed"`), func(a *Artifacts) error { return a.PlanErr }},
		{"plan.json phase status outside the schema", PlanPath, strings.Replace(string(plan), `"status": "pending"`, `"status": "Complete"`, 1), lineOf(string(plan), `"status": "pending"`), func(a *Artifacts) error { return a.PlanErr }},
		{"plan.json missing title", PlanPath, strings.Replace(string(plan), `"title"`, `"titel"`, 1), 1, func(a *Artifacts) error { return a.PlanErr }},
		{"ledger last line truncated", LedgerPath, strings.Join(lines[:len(lines)-1], "") + lines[len(lines)-1][:40], len(lines), func(a *Artifacts) error { return a.LedgerErr }},
		{"ledger garbage line 4", LedgerPath, strings.Join(lines[:3], "") + "not json\n" + strings.Join(lines[3:], ""), 4, func(a *Artifacts) error { return a.LedgerErr }},
		{"ledger blank line 2", LedgerPath, lines[0] + "\n" + strings.Join(lines[1:], ""), 2, func(a *Artifacts) error { return a.LedgerErr }},
		{"ledger seq not a number", LedgerPath, strings.Replace(string(ledger), `"seq":1,`, `"seq":"1",`, 1), 1, func(a *Artifacts) error { return a.LedgerErr }},
		{"ledger blank line before the last line", LedgerPath, strings.Join(lines[:8], "") + "\n\n" + lines[8], 9, func(a *Artifacts) error { return a.LedgerErr }},
		{"events array line", EventsPath, "{\"type\":\"a\"}\n[1,2]\n", 2, func(a *Artifacts) error { return a.EventsErr }},
		{"evidence file truncated", EvidenceDir + "/1.1.json", "{\n  \"taskId\": \"1.1\",\n  \"gates\": {", 3, func(a *Artifacts) error { return a.Evidence.Broken[EvidenceDir+"/1.1.json"] }},
		{"evidence id mismatch", EvidenceDir + "/1.1.json", `{"taskId":"1.2","required_gates":[],"gates":{}}`, 1, func(a *Artifacts) error { return a.Evidence.Broken[EvidenceDir+"/1.1.json"] }},
		{"scope file wrong type", ScopesDir + "/scope-1.1.json", "{\"taskId\":\"1.1\",\n\"files\":[1]}", 2, func(a *Artifacts) error { return a.Scopes.Broken[ScopesDir+"/scope-1.1.json"] }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				PlanPath:   {Data: plan},
				LedgerPath: {Data: ledger},
				c.path:     {Data: []byte(c.data)},
			}
			err := c.pick(Load(fsys))
			var ae *ArtifactError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want an ArtifactError", err)
			}
			if ae.Path != c.path || ae.Line != c.wantLine {
				t.Errorf("error at %s line %d (%v), want %s line %d", ae.Path, ae.Line, err, c.path, c.wantLine)
			}
			if !strings.HasPrefix(err.Error(), c.path+": ") {
				t.Errorf("message %q does not start with the file name", err)
			}
		})
	}
}

func TestLedgerTrailingBlankLines(t *testing.T) {
	corpusRepos(t)
	data, err := os.ReadFile(filepath.Join(corpusDir, "VerduzcoTristan__landingpage", LedgerPath))
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseLedger(LedgerPath, append(data, "\n\r\n"...))
	if err != nil || len(l.Events) != 9 {
		t.Errorf("blank lines at the end: %d events, %v", len(l.Events), err)
	}
}

func TestLoadWithoutSwarm(t *testing.T) {
	a := Load(fstest.MapFS{"README.md": {Data: []byte("hi")}})
	if a.Present || a.Plan != nil || a.PlanErr != nil {
		t.Errorf("absent .swarm: %+v", a)
	}
	a = Load(fstest.MapFS{".swarm": {Data: []byte("a file, not a folder")}})
	if !a.Present || a.PlanErr == nil {
		t.Errorf(".swarm as a file must be present and broken: %+v", a)
	}
}

func TestLoadRefusesOversizedFile(t *testing.T) {
	a := Load(bigFS{})
	if a.PlanErr == nil || !strings.Contains(a.PlanErr.Error(), "limit") {
		t.Errorf("PlanErr = %v, want a size-limit error", a.PlanErr)
	}
}

// bigFS claims a plan.json far over MaxFileSize; reading it would fail the
// test, so the size check must come first.
type bigFS struct{}

func (bigFS) Open(name string) (fs.File, error) {
	switch name {
	case Dir:
		return fstest.MapFS{".swarm/x": {}}.Open(Dir)
	case PlanPath:
		return bigFile{}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

type bigFile struct{}

func (bigFile) Stat() (fs.FileInfo, error) { return bigInfo{}, nil }
func (bigFile) Read([]byte) (int, error)   { panic("read before the size check") }
func (bigFile) Close() error               { return nil }

type bigInfo struct{ fs.FileInfo }

func (bigInfo) Size() int64       { return 200 << 20 }
func (bigInfo) IsDir() bool       { return false }
func (bigInfo) Name() string      { return "plan.json" }
func (bigInfo) Mode() fs.FileMode { return 0o644 }

// lineOf is the 1-based line of the first occurrence of sub in s.
func lineOf(s, sub string) int {
	return strings.Count(s[:strings.Index(s, sub)], "\n") + 1
}

func TestVerifyLedgerSeqOrder(t *testing.T) {
	line := func(seq int) string {
		return `{"seq":` + strconv.Itoa(seq) + `,"timestamp":"t","plan_id":"p","event_type":"task_status_changed","source":"savePlan","plan_hash_before":"a","plan_hash_after":"b","schema_version":"1.0.0"}` + "\n"
	}
	cases := []struct {
		seqs []int
		bad  int // number of seq-order problems
	}{
		{[]int{1, 2, 3}, 0}, {[]int{2, 3}, 1}, {[]int{1, 1, 2}, 1}, {[]int{1, 3, 2}, 2}, {[]int{1, 2, 4}, 1},
	}
	for _, c := range cases {
		var data string
		for _, s := range c.seqs {
			data += line(s)
		}
		l, err := ParseLedger(LedgerPath, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range VerifyLedger(l, nil) {
			if p.Kind == "seq-order" {
				n++
			}
		}
		if n != c.bad {
			t.Errorf("seqs %v: %d seq-order problems, want %d", c.seqs, n, c.bad)
		}
	}
}
