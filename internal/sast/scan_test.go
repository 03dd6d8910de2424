package sast

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// referenceScan is ScanFile without the literal prefilter: every rule against
// every line. ScanFile must agree with it exactly.
func referenceScan(path string, content []byte) []Finding {
	lang, _ := LanguageOf(path)
	text := jsText(content)
	lines := strings.Split(text, "\n")
	var out []Finding
	for _, r := range Rules(lang) {
		if r.validate != nil && !r.validate(text) {
			continue
		}
		for i, line := range lines {
			out = r.matchLineRE(line, path, i+1, out)
		}
	}
	return out
}

func TestScanFileSkips(t *testing.T) {
	big := bytes.Repeat([]byte("x = eval(y)\n"), MaxScanSize/12+1)
	binary := append([]byte("eval(x)\n"), make([]byte, 100)...)
	for _, tc := range []struct {
		name, path string
		content    []byte
		want       string
	}{
		{"over 512 KiB", "a.py", big, SkipTooLarge},
		{"exactly 512 KiB", "a.py", big[:MaxScanSize], ""},
		{"empty", "a.py", nil, SkipEmpty},
		{"binary", "a.py", binary, SkipBinary},
		{"10% NUL is not binary", "a.py", append([]byte("eval(x)\n\n"), make([]byte, 1)...), ""},
		{"non-code", "README.md", []byte("eval(x)"), SkipNonCode},
		{"no extension", "Makefile", []byte("eval(x)"), SkipNonCode},
		{"known language without rules", "a.rb", []byte("eval(x)"), ""},
		{"size is checked before the language", "README.md", big, SkipTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			findings, skipped := ScanFile(tc.path, tc.content)
			if skipped != tc.want {
				t.Fatalf("skipped %q, want %q", skipped, tc.want)
			}
			if skipped != "" && findings != nil {
				t.Fatalf("a skipped file has findings: %v", findings)
			}
		})
	}
}

// TestScanFileLineEndings: CRLF and BOM files give the same lines, columns
// and fingerprints as their plain LF form; excerpts carry no CR.
func TestScanFileLineEndings(t *testing.T) {
	lf := "package main\n\nfunc f() {\n\tcmd := exec.Command(\"sh\")\n\t_ = exec.Command(\"ls\")\n}\n"
	base, _ := ScanFile("a.go", []byte(lf))
	FingerprintFile(base, []byte(lf))
	for name, content := range map[string]string{
		"crlf":         strings.ReplaceAll(lf, "\n", "\r\n"),
		"bom":          "\ufeff" + lf,
		"bom and crlf": "\ufeff" + strings.ReplaceAll(lf, "\n", "\r\n"),
		"no final eol": strings.TrimSuffix(lf, "\n"),
	} {
		t.Run(name, func(t *testing.T) {
			got, _ := ScanFile("a.go", []byte(content))
			FingerprintFile(got, []byte(content))
			if !reflect.DeepEqual(got, base) {
				t.Fatalf("got\n%+v\nwant\n%+v", got, base)
			}
		})
	}
	if len(base) != 2 || base[0].Line != 4 || base[0].Column != 9 || base[1].Line != 5 || base[0].Excerpt != "\tcmd := exec.Command(\"sh\")" {
		t.Fatalf("unexpected base findings %+v", base)
	}
}

// TestScanFileBOMColumn: on the first line a BOM counts as one UTF-16 unit,
// as in the plugin's string.
func TestScanFileBOMColumn(t *testing.T) {
	got, _ := ScanFile("a.py", []byte("\ufeffx = eval(s)\n"))
	if len(got) != 1 || got[0].Column != 6 {
		t.Fatalf("got %+v, want one finding at column 6", got)
	}
}

func TestScanFileColumnsUTF16(t *testing.T) {
	for _, tc := range []struct {
		line string
		col  int
	}{
		{"x = eval(s)", 5},
		{"é = eval(s)", 5},            // one unit
		{"😀 = eval(s)", 6},            // a surrogate pair: two units
		{"中文 = eval(s)", 6},           // one unit each
		{"\xff = eval(s)", 5},         // U+FFFD
		{"\xe2\x82 = eval(s)", 5},     // one maximal ill-formed subsequence, one U+FFFD
		{"\xed\xa0\x80 = eval(s)", 7}, // a surrogate's encoding is three U+FFFD
	} {
		got, _ := ScanFile("a.py", []byte(tc.line))
		if len(got) != 1 || got[0].Column != tc.col {
			t.Errorf("%q: got %+v, want column %d", tc.line, got, tc.col)
		}
	}
}

// TestScanFileOrder: rule by rule, then line, then column; several matches on
// one line are several findings.
func TestScanFileOrder(t *testing.T) {
	src := "x = eval(a) + eval(b)\nos.system(c)\ny = eval(d)\n"
	got, _ := ScanFile("a.py", []byte(src))
	var seq []string
	for _, f := range got {
		seq = append(seq, f.RuleID[5:]+"@"+strconv.Itoa(f.Line)+":"+strconv.Itoa(f.Column))
	}
	want := []string{"py-eval@1:5", "py-eval@1:15", "py-eval@3:5", "py-os-system@2:1"}
	if !reflect.DeepEqual(seq, want) {
		t.Fatalf("got %v, want %v", seq, want)
	}
}

// TestScanFileMatchesReference runs the prefiltered scanner and the plain one
// on every rule case and on the parity fixtures.
func TestScanFileMatchesReference(t *testing.T) {
	check := func(name, path string, content []byte) {
		got, _ := ScanFile(path, content)
		if want := referenceScan(path, content); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: prefiltered scan differs\n got %+v\nwant %+v", name, got, want)
		}
	}
	for _, tc := range ruleCases {
		check(tc.rule, tc.path, []byte(tc.content))
	}
	files, _ := filepath.Glob("testdata/parity/*")
	for _, f := range files {
		b, err := readFixture(f)
		if err != nil {
			t.Fatal(err)
		}
		check(f, strings.TrimSuffix(filepath.Base(f), ".txt"), b)
	}
}

// TestParityWithPlugin compares findings and fingerprints with what the
// plugin's own algorithm (run in Node on the same files: rule patterns,
// validators, split('\n'), trim(), sha256) produced, recorded in
// testdata/parity.json as [rule, line, column, h16, k, reflow h16] (the
// fixtures carry an extra .txt so that Go tools leave them alone). The
// fixtures mix CRLF, BOMs, ill-formed UTF-8, Unicode spaces, U+2028, lone
// CRs, emoji and case variants around rule triggers.
func TestParityWithPlugin(t *testing.T) {
	raw, err := os.ReadFile("testdata/parity.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][][]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	total := 0
	for _, name := range names {
		content, err := readFixture(filepath.Join("testdata/parity", name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		got, skipped := ScanFile(name, content)
		if skipped != "" {
			t.Fatalf("%s skipped: %s", name, skipped)
		}
		Fingerprints(got, map[string][]byte{name: content})
		var rows [][]any
		for _, f := range got {
			fp := strings.Split(f.Fingerprint, "|")
			k, _ := strconv.Atoi(strings.TrimPrefix(fp[3], "#"))
			rows = append(rows, []any{f.RuleID[5:], float64(f.Line), float64(f.Column), fp[2], float64(k), strings.Split(f.ReflowKey, "|")[2]})
		}
		if len(rows) == 0 {
			rows = [][]any{}
		}
		if !reflect.DeepEqual(rows, want[name]) {
			t.Errorf("%s:\n got %v\nwant %v", name, rows, want[name])
		}
		total += len(rows)
	}
	if total < 500 {
		t.Fatalf("only %d findings in the parity fixtures", total)
	}
}

// benchSource is a plausible mixed Go file: mostly ordinary code, a few
// findings.
func benchSource() []byte {
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t\"os/exec\"\n)\n\n")
	for i := 0; b.Len() < 256<<10; i++ {
		b.WriteString("// handler" + strconv.Itoa(i) + " serves one request and returns its token count.\n")
		b.WriteString("func handler" + strconv.Itoa(i) + "(w http.ResponseWriter, r *http.Request) error {\n")
		b.WriteString("\tname := r.URL.Query().Get(\"name\")\n\tif name == \"\" {\n\t\treturn fmt.Errorf(\"missing name\")\n\t}\n")
		b.WriteString("\tfor i := 0; i < len(name); i++ {\n\t\tcount += strings.Count(name[i:], \"a\")\n\t}\n")
		if i%50 == 0 {
			b.WriteString("\tout, _ := exec.Command(\"git\", \"log\").Output()\n")
			b.WriteString("\tcfg := Config{Token: \"abcdefghijklmnop\"}\n")
		}
		b.WriteString("\treturn nil\n}\n\n")
	}
	return []byte(b.String())
}

func BenchmarkScanFile(b *testing.B) {
	src := benchSource()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		ScanFile("bench.go", src)
	}
}

func BenchmarkScanFileJS(b *testing.B) {
	src := bytes.ReplaceAll(benchSource(), []byte("exec.Command"), []byte("eval"))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		ScanFile("bench.ts", src)
	}
}
