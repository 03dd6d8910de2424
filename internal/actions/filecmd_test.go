package actions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tempFile creates an empty file, as the runner does before a step.
func tempFile(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func outputEnv(path string) Env {
	return NewEnv(MapLookup(map[string]string{"GITHUB_OUTPUT": path, "GITHUB_ENV": path}))
}

func TestSetOutputRoundTripsHostileValues(t *testing.T) {
	values := []struct{ name, value string }{
		{"outcome", "passed"},
		{"empty", ""},
		{"eof_line", "first\nEOF\nlast"},
		{"eof_only", "EOF"},
		{"delimiter_prefix", "x\nghadelimiter_\nghadelimiter_00000000-0000-4000-8000-000000000000\ny"},
		{"escaped_newline", "a%0Ab%25c"},
		{"workflow_command", "::error::all gates passed\n::set-output name=outcome::passed"},
		{"crlf", "line one\r\nline two\r\n"},
		{"trailing_cr", "ends with cr\r"},
		{"lone_cr", "a\rb"},
		{"multibyte", "café — ünïcode 😀 日本語\n\u202eevil"},
		{"looks_like_assignment", "outcome=passed\nother<<EOF"},
		{"blank_lines", "\n\n\n"},
		{"trailing_newline", "value\n"},
		{"leading_spaces", "   indented   "},
		{"hyphen-name", "v"},
		{"_underscore", "v"},
		{"nul", "a\x00b"},
	}
	path := tempFile(t, "output")
	env := outputEnv(path)
	for _, v := range values {
		if err := env.SetOutput(v.name, v.value); err != nil {
			t.Fatalf("SetOutput(%q): %v", v.name, err)
		}
	}
	got, err := parseFileCommands(readFile(t, path))
	if err != nil {
		t.Fatalf("the runner could not read the output file: %v", err)
	}
	if len(got) != len(values) {
		t.Fatalf("runner read %d outputs, want %d: %q", len(got), len(values), got)
	}
	for i, v := range values {
		if got[i].name != v.name || got[i].value != v.value {
			t.Errorf("output %d = %q=%q, want %q=%q", i, got[i].name, got[i].value, v.name, v.value)
		}
	}
}

func TestSetOutputFormat(t *testing.T) {
	path := tempFile(t, "output")
	if err := outputEnv(path).SetOutput("outcome", "passed"); err != nil {
		t.Fatal(err)
	}
	text := readFile(t, path)
	lines := strings.Split(text, "\n")
	if len(lines) != 4 || lines[3] != "" {
		t.Fatalf("want 3 lines ending in a newline, got %q", text)
	}
	name, delim, _ := strings.Cut(lines[0], "<<")
	if name != "outcome" || lines[1] != "passed" || lines[2] != delim {
		t.Fatalf("not name<<DELIM / value / DELIM: %q", text)
	}
	if !strings.HasPrefix(delim, "ghadelimiter_") || len(delim) != len("ghadelimiter_")+36 || delim[len("ghadelimiter_")+14] != '4' {
		t.Errorf("delimiter %q is not ghadelimiter_ + a version 4 UUID", delim)
	}
	if err := outputEnv(path).SetOutput("outcome", "passed"); err != nil {
		t.Fatal(err)
	}
	second := strings.Split(readFile(t, path), "\n")[4]
	if _, d2, _ := strings.Cut(second, "<<"); d2 == delim {
		t.Errorf("two outputs used the same delimiter %q", delim)
	}
}

// fixedReader returns chunks in turn, then repeats the last one.
type fixedReader struct{ chunks [][]byte }

func (r *fixedReader) Read(p []byte) (int, error) {
	c := r.chunks[0]
	if len(r.chunks) > 1 {
		r.chunks = r.chunks[1:]
	}
	return copy(p, c), nil
}

func TestSetOutputRedrawsDelimiterFoundInValue(t *testing.T) {
	zeros, ones := bytes.Repeat([]byte{0}, 16), bytes.Repeat([]byte{0x11}, 16)
	first, _ := newDelimiter(bytes.NewReader(zeros))
	second, _ := newDelimiter(bytes.NewReader(ones))
	value := "before\n" + first + "\nouter=injected\nafter"

	path := tempFile(t, "output")
	env := outputEnv(path)
	env.random = &fixedReader{chunks: [][]byte{zeros, ones}}
	if err := env.SetOutput("report", value); err != nil {
		t.Fatal(err)
	}
	text := readFile(t, path)
	if !strings.HasPrefix(text, "report<<"+second+"\n") {
		t.Errorf("delimiter not redrawn: %q", text)
	}
	got, err := parseFileCommands(text)
	if err != nil || len(got) != 1 || got[0] != (kv{"report", value}) {
		t.Errorf("runner read %q, %v; want the one value back", got, err)
	}

	env.random = &fixedReader{chunks: [][]byte{zeros}}
	if err := env.SetOutput("report", value); err == nil {
		t.Error("a delimiter source that always collides must fail, not write")
	}
	if readFile(t, path) != text {
		t.Error("a failed SetOutput wrote to the file")
	}
}

func TestSetOutputRejects(t *testing.T) {
	path := tempFile(t, "output")
	env := outputEnv(path)
	for _, name := range []string{"", "a\nb", "a\rb", "a<<b", "<<EOF", "a=b", "9lives", "a b", "a:b", "é"} {
		if err := env.SetOutput(name, "v"); err == nil {
			t.Errorf("SetOutput(%q) accepted a name the runner would misread", name)
		}
	}
	if err := env.SetOutput("ok", "bad\xffutf8"); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("invalid UTF-8 value: err = %v", err)
	}
	if text := readFile(t, path); text != "" {
		t.Errorf("rejected outputs were written: %q", text)
	}

	err := NewEnv(MapLookup(nil)).SetOutput("outcome", "passed")
	if err == nil || !strings.Contains(err.Error(), "GITHUB_OUTPUT is not set") {
		t.Errorf("without GITHUB_OUTPUT: err = %v, want an error naming it", err)
	}
	missing := filepath.Join(t.TempDir(), "no-such-file")
	err = outputEnv(missing).SetOutput("outcome", "passed")
	if err == nil || !strings.Contains(err.Error(), "GITHUB_OUTPUT") || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: err = %v, want an error naming GITHUB_OUTPUT and the path", err)
	}
}

func TestExportVariable(t *testing.T) {
	path := tempFile(t, "env")
	env := outputEnv(path)
	if err := env.ExportVariable("SWARM_GATE_PHASE", "3\nEOF\n"); err != nil {
		t.Fatal(err)
	}
	got, err := parseFileCommands(readFile(t, path))
	if err != nil || len(got) != 1 || got[0] != (kv{"SWARM_GATE_PHASE", "3\nEOF\n"}) {
		t.Errorf("runner read %q, %v", got, err)
	}
	for _, name := range []string{"NODE_OPTIONS", "node_options", "A-B", "A=B", "A\nB", ""} {
		if err := env.ExportVariable(name, "x"); err == nil {
			t.Errorf("ExportVariable(%q) accepted", name)
		}
	}
	if err := NewEnv(MapLookup(nil)).ExportVariable("A", "b"); err == nil || !strings.Contains(err.Error(), "GITHUB_ENV") {
		t.Errorf("without GITHUB_ENV: err = %v", err)
	}
}

// FuzzSetOutput: whatever SetOutput accepts, the runner reads back exactly;
// whatever it refuses leaves the file as it was.
func FuzzSetOutput(f *testing.F) {
	f.Add("outcome", "passed")
	f.Add("report", "EOF\nghadelimiter_\n::error::x\r\n%0A")
	f.Add("a<<b", "v")
	f.Add("a=b", "c\nd")
	f.Add("x", "日本語\r\n\r\n")
	f.Fuzz(func(t *testing.T, name, value string) {
		path := tempFile(t, "output")
		env := outputEnv(path)
		if err := env.SetOutput("before", "1"); err != nil {
			t.Fatal(err)
		}
		err := env.SetOutput(name, value)
		if err := env.SetOutput("after", "2"); err != nil {
			t.Fatal(err)
		}
		got, perr := parseFileCommands(readFile(t, path))
		if perr != nil {
			t.Fatalf("runner cannot read the file: %v", perr)
		}
		want := []kv{{"before", "1"}, {name, value}, {"after", "2"}}
		if err != nil {
			want = []kv{{"before", "1"}, {"after", "2"}}
		}
		if len(got) != len(want) {
			t.Fatalf("runner read %q, want %q (SetOutput err %v)", got, want, err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("runner read %q, want %q", got[i], want[i])
			}
		}
	})
}
