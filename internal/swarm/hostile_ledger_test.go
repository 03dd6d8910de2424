package swarm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// Hostile .swarm/ files (issue 11, item 2): the streaming ledger reader and
// its append-only check, the JSON value budget, and LFS pointers.

func TestCheckAppendOnly(t *testing.T) {
	const a, b, c = `{"seq":1}`, `{"seq":2}`, `{"seq":3}`
	cases := []struct {
		name, base, head string
		want             AppendOnly // HeadBytes and BaseBytes are not compared
	}{
		{"no base", "", a + "\n", AppendOnly{Extends: true}},
		{"same", a + "\n" + b + "\n", a + "\n" + b + "\n", AppendOnly{Extends: true}},
		{"appended", a + "\n", a + "\n" + b + "\n" + c + "\n", AppendOnly{Extends: true}},
		{"base ends without a newline", a + "\n" + b, a + "\n" + b + "\n" + c + "\n", AppendOnly{Extends: true}},
		{"line 2 rewritten", a + "\n" + b + "\n", a + "\n" + c + "\n" + b + "\n", AppendOnly{Line: 2}},
		{"line 1 rewritten", a + "\n", b + "\n", AppendOnly{Line: 1}},
		{"truncated", a + "\n" + b + "\n" + c + "\n", a + "\n" + b + "\n", AppendOnly{Line: 3, Truncated: true}},
		{"truncated mid-line", a + "\n" + b + "\n", a + "\n" + b[:3], AppendOnly{Line: 2}},
		{"emptied", a + "\n", "", AppendOnly{Line: 1, Truncated: true}},
		{"CRLF", a + "\n" + b + "\n", a + "\r\n" + b + "\r\n" + c + "\r\n", AppendOnly{Line: 1, OnlyEOL: true}},
		{"BOM", a + "\n", "\xef\xbb\xbf" + a + "\n" + b + "\n", AppendOnly{Line: 1, OnlyBOM: true}},
		{"BOM on both", "\xef\xbb\xbf" + a + "\n", "\xef\xbb\xbf" + a + "\n" + b + "\n", AppendOnly{Extends: true}},
		{"a blank line at the base's end", a + "\n\n", a + "\n" + b + "\n", AppendOnly{Line: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, _ := ParseLedger(LedgerPath, []byte(c.base))
			head, _ := ParseLedger(LedgerPath, []byte(c.head))
			got := CheckAppendOnly(base, head)
			if got.HeadBytes != int64(len(c.head)) || got.BaseBytes != int64(len(c.base)) && c.base != "" {
				t.Errorf("sizes %d, %d; want %d, %d", got.HeadBytes, got.BaseBytes, len(c.head), len(c.base))
			}
			got.HeadBytes, got.BaseBytes = 0, 0
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			// The byte-level rule it stands for.
			if prefix := strings.HasPrefix(c.head, c.base); prefix != got.Extends {
				t.Errorf("Extends %v, but strings.HasPrefix says %v", got.Extends, prefix)
			}
		})
	}
}

func TestReadLedgerKeepsOnlyPayloadLines(t *testing.T) {
	data := readCorpusLedger(t)
	l, err := ParseLedger(LedgerPath, data)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, ev := range l.Events {
		want := ""
		if ev.Payload != nil {
			want = strings.TrimSuffix(lines[ev.Line-1], "\r")
		}
		if string(ev.Raw) != want {
			t.Errorf("seq %d: Raw %q, want %q", ev.Seq, clipS(string(ev.Raw)), clipS(want))
		}
	}
	if l.Data != nil {
		t.Error("Data is kept")
	}
}

func TestReadLedgerLimits(t *testing.T) {
	ev := `{"seq":1,"timestamp":"t","plan_id":"p","event_type":"plan_exported","source":"s","plan_hash_before":"","plan_hash_after":"","schema_version":"1.1.0"}`
	cases := []struct {
		name   string
		data   string
		budget int // 0: none
		line   int
		says   string
	}{
		{"a line over MaxLedgerLine", ev + "\n" + `{"x":"` + strings.Repeat("a", MaxLedgerLine) + `"}` + "\n" + ev + "\n", 0, 2, "longer than"},
		{"a line over the JSON budget", ev + "\n" + `{"x":[` + strings.Repeat("1,", 50) + `1]}` + "\n", 20, 2, "JSON values"},
		{"deep nesting", ev + "\n" + strings.Repeat("[", 100_000) + "\n", 0, 2, "nesting deeper than"},
		{"an empty line in the middle", ev + "\n\n" + ev + "\n", 0, 2, "empty line"},
		{"an LFS-looking line", "version https://git-lfs.github.com/spec/v1\n", 0, 1, "unexpected"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var budget *budgetFS
			if c.budget > 0 {
				budget = WithJSONBudget(fstest.MapFS{}, c.budget).(*budgetFS)
			}
			l, err := readLedgerLines(LedgerPath, strings.NewReader(c.data), budget)
			var ae *ArtifactError
			if !errors.As(err, &ae) || ae.Line != c.line || !strings.Contains(ae.Error(), c.says) {
				t.Fatalf("err %v, want line %d saying %q", err, c.line, c.says)
			}
			// The file is still read to its end, for the append-only check.
			if l.size != int64(len(c.data)) || len(l.lines) != strings.Count(c.data, "\n") {
				t.Errorf("read %d bytes in %d lines, want %d in %d", l.size, len(l.lines), len(c.data), strings.Count(c.data, "\n"))
			}
		})
	}
	// Blank lines at the very end are not an error.
	if _, err := ParseLedger(LedgerPath, []byte(ev+"\n\n\r\n")); err != nil {
		t.Errorf("trailing blank lines: %v", err)
	}
}

func TestCountJSONValues(t *testing.T) {
	cases := []string{`1`, `[]`, `[1,2,3]`, `{"a":[1,{"b":"x,y[z{"}],"c":"\"],"}`, `["\\",1]`, `{"a":1,"b":{"c":[true,null]}}`}
	if data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "corpus", "JG1995__fm-value-scout", ".swarm", "plan.json")); err == nil {
		cases = append(cases, string(data))
	}
	for _, c := range cases {
		v, err := jsjson.Parse([]byte(c))
		if err != nil {
			t.Fatalf("%q: %v", clipS(c), err)
		}
		if got, want := CountJSONValues([]byte(c)), countNodes(v); got < want || got > 2*want+1 {
			t.Errorf("%q: %d, parsed %d values", clipS(c), got, want)
		}
	}
}

func countNodes(v *jsjson.Value) int {
	n := 1
	for _, e := range v.Elems {
		n += countNodes(e)
	}
	for _, m := range v.Members {
		n += countNodes(m.Value)
	}
	return n
}

func TestLoadHostileFiles(t *testing.T) {
	lfs := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	padded := "[" + strings.Repeat("1,", MaxJSONValues/2) + "1]"
	cases := []struct {
		name  string
		files fstest.MapFS
		err   func(a *Artifacts) error
		says  string
	}{
		{"plan.json an LFS pointer", fstest.MapFS{PlanPath: {Data: []byte(lfs)}}, func(a *Artifacts) error { return a.PlanErr }, "is a Git LFS pointer"},
		{"ledger an LFS pointer", fstest.MapFS{LedgerPath: {Data: []byte(lfs)}}, func(a *Artifacts) error { return a.LedgerErr }, "commit .swarm/ without LFS"},
		{"evidence an LFS pointer", fstest.MapFS{EvidenceDir + "/1.1.json": {Data: []byte(lfs)}}, func(a *Artifacts) error { return a.Evidence.Broken[EvidenceDir+"/1.1.json"] }, "is a Git LFS pointer"},
		{"over MaxFileSize", fstest.MapFS{PlanPath: {Data: make([]byte, MaxFileSize+1)}}, func(a *Artifacts) error { return a.PlanErr }, "over the 16777216-byte limit"},
		// Two files under the budget each, over it together: the second
		// one read (evidence after the plan) is refused.
		{"over the JSON budget in all", fstest.MapFS{PlanPath: {Data: []byte(padded)}, EvidenceDir + "/1.1.json": {Data: []byte(padded)}},
			func(a *Artifacts) error { return a.Evidence.Broken[EvidenceDir+"/1.1.json"] }, "JSON values"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.err(Load(c.files))
			var ae *ArtifactError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("err %v, want an ArtifactError saying %q", err, c.says)
			}
		})
	}
}

func readCorpusLedger(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "corpus", "JG1995__fm-value-scout", ".swarm", "plan-ledger.jsonl"))
	if err != nil {
		sharedtest.Skip(t, "skipping: ../shared/corpus is absent (it sits beside this repository): %v", err)
	}
	return data
}

func clipS(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}
