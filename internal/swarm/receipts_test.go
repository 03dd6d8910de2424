package swarm

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

const bom = "\xef\xbb\xbf"

// receiptJSON is a receipt as the plugin writes it (JSON.stringify(r, null, 2)).
func receiptJSON(id, verdict, at string) string {
	s := `{
  "schema_version": 1,
  "id": "` + id + `",
  "receipt_type": "` + verdict + `",
  "verdict": "` + verdict + `",
  "reviewer": {
    "agent": "curator"
  },
  "reviewed_at": "` + at + `",
  "scope_fingerprint": {
    "hash": "h-` + id + `",
    "scope_description": "phase-digest",
    "content_length": 66
  },
  "x_unknown_field": {"nested": [1, 2, 3]},`
	if verdict == "rejected" {
		return s + `
  "blocking_findings": [
    {"location": "phase-3", "summary": "a", "severity": "medium"},
    {"location": "phase-3", "summary": "b", "severity": "medium"}
  ],
  "evidence_references": [],
  "pass_conditions": ["resolve"]
}`
	}
	return s + `
  "checked_aspects": ["phase_compliance"],
  "validated_claims": ["phase: 1"]
}`
}

const receiptIndex = `{
  "schema_version": 1,
  "entries": [
    {"id": "a", "verdict": "approved", "reviewed_at": "2026-04-30T14:31:13.477Z", "scope_hash": "h", "agent": "curator", "filename": "2026-04-30-a.json"}
  ]
}`

// wantBroken is an expected entry of Receipts.Broken.
type wantBroken struct {
	path string
	line int
	msg  string // a substring of the message
}

func TestLoadReceipts(t *testing.T) {
	rd := ReceiptsDir + "/"
	cases := []struct {
		name       string
		fsys       fstest.MapFS
		wantDirErr bool
		wantIDs    []string // Items' IDs, in order
		wantBroken []wantBroken
	}{
		{
			name: "missing dir",
			fsys: fstest.MapFS{PlanPath: {Data: []byte("{}")}},
		},
		{
			name: "empty dir",
			fsys: fstest.MapFS{ReceiptsDir: {Mode: fs.ModeDir | 0o755}},
		},
		{
			name: "index.json only",
			fsys: fstest.MapFS{rd + "index.json": {Data: []byte(receiptIndex)}},
		},
		{
			name: "index copies and garbage index are skipped",
			fsys: fstest.MapFS{
				rd + "index.json":        {Data: []byte("not json at all")},
				rd + "index 2.json":      {Data: []byte(receiptIndex)},
				rd + "2026-04-30-a.json": {Data: []byte(receiptJSON("a", "approved", "2026-04-30T14:31:13.477Z"))},
			},
			wantIDs: []string{"a"},
		},
		{
			name: "real shapes, sorted by reviewed_at then path, Finder duplicate kept",
			fsys: fstest.MapFS{
				rd + "index.json":          {Data: []byte(receiptIndex)},
				rd + "2026-04-30-a.json":   {Data: []byte(receiptJSON("a", "approved", "2026-04-30T18:00:00.000Z"))},
				rd + "2026-04-30-b.json":   {Data: []byte(receiptJSON("b", "rejected", "2026-04-30T10:00:00.000Z"))},
				rd + "2026-04-30-c 2.json": {Data: []byte(receiptJSON("c2", "approved", "2026-04-30T12:00:00.000Z"))},
				rd + "2026-04-30-c.json":   {Data: []byte(receiptJSON("c", "approved", "2026-04-30T12:00:00.000Z"))},
			},
			wantIDs: []string{"b", "c2", "c", "a"},
		},
		{
			name: "broken receipt names file and line",
			fsys: fstest.MapFS{
				rd + "2026-04-30-a.json": {Data: []byte(receiptJSON("a", "approved", "2026-04-30T14:31:13.477Z"))},
				rd + "2026-04-30-b.json": {Data: []byte("{\n  \"id\": \"b\",\n  \"verdict\": \"approved\",\n  \"reviewer\": {\n")},
			},
			wantIDs:    []string{"a"},
			wantBroken: []wantBroken{{rd + "2026-04-30-b.json", 5, ""}},
		},
		{
			name:    "BOM is trimmed",
			fsys:    fstest.MapFS{rd + "2026-04-30-a.json": {Data: []byte(bom + receiptJSON("a", "approved", "2026-04-30T14:31:13.477Z"))}},
			wantIDs: []string{"a"},
		},
		{
			name:       "receipt that is a JSON array",
			fsys:       fstest.MapFS{rd + "2026-04-30-a.json": {Data: []byte("\n[\n" + receiptJSON("a", "approved", "t") + "\n]\n")}},
			wantBroken: []wantBroken{{rd + "2026-04-30-a.json", 2, "want a JSON object"}},
		},
		{
			name:       "missing verdict",
			fsys:       fstest.MapFS{rd + "2026-04-30-a.json": {Data: []byte(`{"id":"a","reviewed_at":"t"}`)}},
			wantBroken: []wantBroken{{rd + "2026-04-30-a.json", 1, `"verdict"`}},
		},
		{
			name:       "verdict not a string",
			fsys:       fstest.MapFS{rd + "2026-04-30-a.json": {Data: []byte("{\n\"id\": \"a\",\n\"verdict\": true\n}")}},
			wantBroken: []wantBroken{{rd + "2026-04-30-a.json", 3, `"verdict" must be a string`}},
		},
		{
			name:       "empty file",
			fsys:       fstest.MapFS{rd + "2026-04-30-a.json": {Data: nil}},
			wantBroken: []wantBroken{{rd + "2026-04-30-a.json", 1, ""}},
		},
		{
			name: "directory named x.json is not followed",
			fsys: fstest.MapFS{
				rd + "x.json":                {Mode: fs.ModeDir | 0o755},
				rd + "sub.json/bad.json":     {Data: []byte("garbage")},
				rd + "sub/2026-04-30-z.json": {Data: []byte(receiptJSON("z", "approved", "t"))},
				rd + "2026-04-30-a.json":     {Data: []byte(receiptJSON("a", "approved", "t"))},
			},
			wantIDs: []string{"a"},
		},
		{
			name: "other names are ignored",
			fsys: fstest.MapFS{
				rd + "2026-04-30-a.json.tmp.1777.abc": {Data: []byte("{half")},
				rd + ".DS_Store":                      {Data: []byte{0, 1, 2}},
				rd + "README.md":                      {Data: []byte("# receipts")},
				rd + "2026-04-30-a.json":              {Data: []byte(receiptJSON("a", "approved", "t"))},
			},
			wantIDs: []string{"a"},
		},
		{
			name:       "review-receipts is a file",
			fsys:       fstest.MapFS{ReceiptsDir: {Data: []byte("not a folder")}},
			wantDirErr: true,
		},
		{
			name:       ".swarm is a file",
			fsys:       fstest.MapFS{Dir: {Data: []byte("not a folder")}},
			wantDirErr: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Load(c.fsys)
			r := a.Receipts
			if r == nil {
				t.Fatal("Receipts is nil")
			}
			if (r.DirErr != nil) != c.wantDirErr {
				t.Errorf("DirErr = %v, want error: %v", r.DirErr, c.wantDirErr)
			}
			if r.DirErr != nil {
				requireArtifactError(t, r.DirErr)
			}
			var ids []string
			for _, it := range r.Items {
				ids = append(ids, it.ID)
				if !strings.HasPrefix(it.Path, ReceiptsDir+"/") {
					t.Errorf("item path %q is not under %s", it.Path, ReceiptsDir)
				}
			}
			if strings.Join(ids, ",") != strings.Join(c.wantIDs, ",") {
				t.Errorf("items %v, want %v", ids, c.wantIDs)
			}
			if len(r.Broken) != len(c.wantBroken) {
				t.Fatalf("broken %v, want %d", r.Broken, len(c.wantBroken))
			}
			for i, w := range c.wantBroken {
				ae := requireArtifactError(t, r.Broken[i])
				if ae.Path != w.path || ae.Line != w.line {
					t.Errorf("broken[%d] at %s line %d (%v), want %s line %d", i, ae.Path, ae.Line, ae, w.path, w.line)
				}
				if !strings.Contains(ae.Error(), w.msg) || !strings.HasPrefix(ae.Error(), w.path+": ") {
					t.Errorf("broken[%d] message %q: want it to start with the path and contain %q", i, ae, w.msg)
				}
			}
		})
	}
}

func TestParseReviewReceiptFields(t *testing.T) {
	rr, err := ParseReviewReceipt("r.json", []byte(receiptJSON("b", "rejected", "2026-04-30T19:12:49.081Z")))
	if err != nil {
		t.Fatal(err)
	}
	want := ReviewReceipt{Path: "r.json", ID: "b", ReceiptType: "rejected", Verdict: "rejected", ReviewerAgent: "curator",
		ReviewedAt: "2026-04-30T19:12:49.081Z", ScopeHash: "h-b", ScopeDescription: "phase-digest", BlockingFindings: 2}
	if *rr != want {
		t.Errorf("got %+v\nwant %+v", *rr, want)
	}
	// Lenient: known fields of another type read as empty, only verdict counts.
	rr, err = ParseReviewReceipt("r.json", []byte(`{"verdict":"approved","id":7,"reviewer":"curator","scope_fingerprint":[],"blocking_findings":{"a":1},"reviewed_at":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := (ReviewReceipt{Path: "r.json", Verdict: "approved"}); *rr != want {
		t.Errorf("got %+v, want %+v", *rr, want)
	}
}

func TestLoadSpecStaleness(t *testing.T) {
	valid := `{
  "type": "spec_stale_detected",
  "timestamp": "2026-04-30T17:22:16.012Z",
  "phase": 1,
  "specHash_plan": "aa",
  "specHash_current": "bb",
  "reason": "spec.md has been modified since plan was saved",
  "planTitle": "T",
  "extra": [1]
}`
	full := &SpecStaleness{Path: SpecStalenessPath, Timestamp: "2026-04-30T17:22:16.012Z", Phase: 1, SpecHashPlan: "aa",
		SpecHashCurrent: "bb", Reason: "spec.md has been modified since plan was saved", PlanTitle: "T"}
	only := &SpecStaleness{Path: SpecStalenessPath}
	cases := []struct {
		name     string
		fsys     fstest.MapFS
		want     *SpecStaleness
		wantLine int // -1: no error
	}{
		{"absent", fstest.MapFS{PlanPath: {Data: []byte("{}")}}, nil, -1},
		{"valid", fstest.MapFS{SpecStalenessPath: {Data: []byte(valid)}}, full, -1},
		{"BOM", fstest.MapFS{SpecStalenessPath: {Data: []byte(bom + valid)}}, full, -1},
		{"empty object (the plugin only checks existence)", fstest.MapFS{SpecStalenessPath: {Data: []byte("{}")}}, only, -1},
		{"wrong field types read as empty", fstest.MapFS{SpecStalenessPath: {Data: []byte(`{"phase":"1","reason":3}`)}}, only, -1},
		{"marker present, file truncated", fstest.MapFS{SpecStalenessPath: {Data: []byte(valid[:60])}}, only, 3},
		{"marker present, file empty", fstest.MapFS{SpecStalenessPath: {Data: nil}}, only, 1},
		{"marker present, JSON array", fstest.MapFS{SpecStalenessPath: {Data: []byte("\n\n[" + valid + "]")}}, only, 3},
		{"marker present as a directory", fstest.MapFS{SpecStalenessPath + "/x": {Data: []byte("x")}}, only, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Load(c.fsys)
			if (a.SpecStaleness == nil) != (c.want == nil) || (c.want != nil && *a.SpecStaleness != *c.want) {
				t.Errorf("SpecStaleness = %+v, want %+v", a.SpecStaleness, c.want)
			}
			if c.wantLine < 0 {
				if a.SpecStalenessErr != nil {
					t.Errorf("unexpected error %v", a.SpecStalenessErr)
				}
				return
			}
			ae := requireArtifactError(t, a.SpecStalenessErr)
			if ae.Path != SpecStalenessPath || ae.Line != c.wantLine {
				t.Errorf("error at %s line %d (%v), want %s line %d", ae.Path, ae.Line, ae, SpecStalenessPath, c.wantLine)
			}
		})
	}
	a := Load(fstest.MapFS{Dir: {Data: []byte("a file")}})
	if a.SpecStaleness != nil || a.SpecStalenessErr == nil {
		t.Errorf(".swarm as a file: SpecStaleness %+v, err %v; want unknown (nil) with an error", a.SpecStaleness, a.SpecStalenessErr)
	}
}

const ledgerLine = `{"seq":1,"timestamp":"2026-01-01T00:00:00.000Z","plan_id":"p","event_type":"plan_created","source":"initLedger","plan_hash_before":"","plan_hash_after":"x","schema_version":"1.0.0"}` + "\n"

func TestLoadLedgerResetting(t *testing.T) {
	garbage := []byte("{\"seq\":1,\n not json\n\x00\xff")
	cases := []struct {
		name      string
		fsys      fstest.MapFS
		resetting bool
		events    int // -1: Ledger must be nil
		wantErr   bool
	}{
		{"marker and garbage ledger", fstest.MapFS{LedgerResettingPath: {}, LedgerPath: {Data: garbage}}, true, 0, false},
		{"marker and valid ledger", fstest.MapFS{LedgerResettingPath: {Data: []byte("1777")}, LedgerPath: {Data: []byte(ledgerLine)}}, true, 0, false},
		{"marker without ledger", fstest.MapFS{LedgerResettingPath: {}}, true, 0, false},
		{"marker is a directory", fstest.MapFS{LedgerResettingPath + "/x": {}, LedgerPath: {Data: garbage}}, true, 0, false},
		{"marker and oversized ledger is never read", nil, true, 0, false},
		{"no marker, garbage ledger", fstest.MapFS{LedgerPath: {Data: garbage}}, false, 0, true},
		{"no marker, valid ledger", fstest.MapFS{LedgerPath: {Data: []byte(ledgerLine)}}, false, 1, false},
		{"no marker, no ledger", fstest.MapFS{PlanPath: {Data: []byte("{}")}}, false, -1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a *Artifacts
			if c.fsys == nil {
				a = Load(resettingBigLedgerFS{})
			} else {
				a = Load(c.fsys)
			}
			if a.LedgerResetting != c.resetting {
				t.Errorf("LedgerResetting = %v, want %v", a.LedgerResetting, c.resetting)
			}
			if (a.LedgerErr != nil) != c.wantErr {
				t.Errorf("LedgerErr = %v, want error: %v", a.LedgerErr, c.wantErr)
			}
			if c.events < 0 {
				if a.Ledger != nil {
					t.Errorf("Ledger = %+v, want nil", a.Ledger)
				}
				return
			}
			if a.Ledger == nil {
				t.Fatal("Ledger is nil")
			}
			if a.Ledger.Path != LedgerPath || len(a.Ledger.Events) != c.events {
				t.Errorf("Ledger at %q with %d events, want %q with %d", a.Ledger.Path, len(a.Ledger.Events), LedgerPath, c.events)
			}
			if c.resetting && (a.Ledger.Data != nil || a.Ledger.Last() != nil) {
				t.Errorf("resetting ledger must be empty: %+v", a.Ledger)
			}
		})
	}
}

// resettingBigLedgerFS has the reset marker and a ledger that panics when
// read: while resetting, the ledger must not be read at all.
type resettingBigLedgerFS struct{}

func (resettingBigLedgerFS) Open(name string) (fs.File, error) {
	switch name {
	case Dir, LedgerResettingPath:
		return fstest.MapFS{LedgerResettingPath: {}}.Open(name)
	case LedgerPath:
		return bigFile{}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// TestLedgerSiblingsIgnored proves the plugin's ledger siblings (spec
// section 3.1) change nothing, whatever they hold.
func TestLedgerSiblingsIgnored(t *testing.T) {
	ledger := []byte(ledgerLine + strings.Replace(strings.Replace(ledgerLine, `"seq":1`, `"seq":2`, 1), "plan_created", "task_status_changed", 1))
	base := fstest.MapFS{LedgerPath: {Data: ledger}}
	garbage := []byte("garbage\x00{\"seq\":\n")
	withSiblings := fstest.MapFS{LedgerPath: {Data: ledger}}
	for _, name := range []string{
		"plan-ledger.quarantine.1777569755681.0123456789ab",
		"plan-ledger.archived-1777569755681-334981585.jsonl",
		"plan-ledger.backup-1777569755681.jsonl",
		"plan-ledger.legacy-archive.0123456789abcdef.jsonl",
		"plan-ledger.reconcile-archive.1777569755681.jsonl",
		"plan-ledger.jsonl.tmp.1777.abc",
		"plan-ledger 2.jsonl",
	} {
		withSiblings[Dir+"/"+name] = &fstest.MapFile{Data: garbage}
	}
	want, got := Load(base), Load(withSiblings)
	if got.LedgerErr != nil || want.LedgerErr != nil {
		t.Fatalf("LedgerErr = %v / %v", got.LedgerErr, want.LedgerErr)
	}
	if got.LedgerResetting || len(got.Ledger.Events) != 2 || !bytes.Equal(got.Ledger.Data, want.Ledger.Data) {
		t.Errorf("siblings changed the ledger: resetting %v, %d events", got.LedgerResetting, len(got.Ledger.Events))
	}
	if errs := allErrors(got); len(errs) != 0 {
		t.Errorf("siblings caused errors: %v", errs)
	}
}

// TestCorpusReceiptsAndMarkers reads the corpus in place: every receipt
// store loads without a broken file, and quest-forge's receipts and spec
// staleness marker read as written.
func TestCorpusReceiptsAndMarkers(t *testing.T) {
	total, stale := 0, 0
	for _, repo := range corpusRepos(t) {
		a := Load(os.DirFS(filepath.Join(corpusDir, repo)))
		if a.Receipts.DirErr != nil || len(a.Receipts.Broken) != 0 {
			t.Errorf("%s: receipts: %v %v", repo, a.Receipts.DirErr, a.Receipts.Broken)
		}
		if a.SpecStalenessErr != nil {
			t.Errorf("%s: %v", repo, a.SpecStalenessErr)
		}
		if a.SpecStaleness != nil {
			stale++
		}
		if a.LedgerResetting {
			t.Errorf("%s: unexpected plan-ledger.resetting", repo)
		}
		for i, it := range a.Receipts.Items {
			if it.Verdict != "approved" && it.Verdict != "rejected" || it.ID == "" || it.ReviewedAt == "" || it.ScopeHash == "" || it.ReviewerAgent == "" {
				t.Errorf("%s: incomplete receipt %+v", repo, it)
			}
			if i > 0 && it.ReviewedAt < a.Receipts.Items[i-1].ReviewedAt {
				t.Errorf("%s: receipts out of order at %s", repo, it.Path)
			}
		}
		total += len(a.Receipts.Items)
	}
	t.Logf("corpus: %d review receipts, %d spec staleness markers", total, stale)

	a := Load(os.DirFS(filepath.Join(corpusDir, "sleuthy-sloth__quest-forge")))
	r := a.Receipts
	if len(r.Items) != 8 {
		t.Fatalf("quest-forge: %d receipts, want 8 (index.json skipped, the \" 2.json\" copy kept)", len(r.Items))
	}
	var rejected, findings, dup int
	for _, it := range r.Items {
		if it.Verdict == "rejected" {
			rejected++
			findings += it.BlockingFindings
		}
		if strings.HasSuffix(it.Path, " 2.json") {
			dup++
		}
	}
	if rejected != 2 || findings != 4 || dup != 1 {
		t.Errorf("quest-forge: %d rejected with %d blocking findings, %d Finder copies; want 2, 4, 1", rejected, findings, dup)
	}
	first := r.Items[0]
	if first.ID != "636d4760-72d6-4768-9467-f9374b6efd5d" || first.ReviewedAt != "2026-04-30T14:31:13.477Z" ||
		first.ReviewerAgent != "curator" || first.ScopeDescription != "curator-init-briefing" ||
		first.ScopeHash != "b7a7a46964cdb0a524338598716cf516115bd97ce6083a1bb9c79245ca490d7f" {
		t.Errorf("quest-forge: first receipt %+v", first)
	}
	want := SpecStaleness{Path: SpecStalenessPath, Timestamp: "2026-04-30T17:22:16.012Z", Phase: 1,
		SpecHashPlan:    "c7211bf247e44e2c17574f1fe78d2efc3a89b7713e526ff016a62a821973d361",
		SpecHashCurrent: "2848b6e561a19a29f70532b76e37df079ab91b5120b249a96d109dd4d14828f0",
		Reason:          "spec.md has been modified since plan was saved", PlanTitle: "Quest Forge Full Application Audit"}
	if a.SpecStaleness == nil || *a.SpecStaleness != want {
		t.Errorf("quest-forge: SpecStaleness = %+v, want %+v", a.SpecStaleness, want)
	}
	// quest-forge keeps a plan-ledger.archived-*.jsonl beside its ledger.
	if a.Ledger == nil || a.LedgerErr != nil || len(a.Ledger.Events) == 0 {
		t.Errorf("quest-forge: ledger %v, %v", a.Ledger, a.LedgerErr)
	}
}

func requireArtifactError(t *testing.T, err error) *ArtifactError {
	t.Helper()
	var ae *ArtifactError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v (%T), want an *ArtifactError", err, err)
	}
	return ae
}

// TestSpecHashMatchesNode compares SpecHash with the plugin's own
// computation (computeSpecHash: readFile utf-8, sha256) run by Node, on
// valid, BOM-prefixed and ill-formed UTF-8. It skips where node is absent.
func TestSpecHashMatchesNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot compare with the plugin's computation")
	}
	inputs := [][]byte{[]byte("# Spec\n- FR-001 MUST\n"), []byte("\uFEFFbom"), []byte("a\xe2\x82b\xff\xc0\xaf\xed\xa0\x80\xf0\x9f\x98"), {}}
	for i, in := range inputs {
		name := filepath.Join(t.TempDir(), "spec.md")
		if err := os.WriteFile(name, in, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(node, "-e", `const c=require("fs").readFileSync(process.argv[1],"utf-8");process.stdout.write(require("crypto").createHash("sha256").update(c,"utf-8").digest("hex"))`, name).Output()
		if err != nil {
			t.Fatalf("node: %v", err)
		}
		if got := SpecHash(in); got != string(out) {
			t.Errorf("input %d %q: SpecHash %s, node %s", i, in, got, out)
		}
	}
}
