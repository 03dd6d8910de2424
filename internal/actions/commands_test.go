package actions

import (
	"errors"
	"strings"
	"testing"
)

func TestEscapeData(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"100%", "100%25"},
		{"a\nb", "a%0Ab"},
		{"a\r\nb", "a%0D%0Ab"},
		{"literal %0A stays literal", "literal %250A stays literal"},
		{"%25", "%2525"},
		{"key: value, more", "key: value, more"},
		{"::error::x", "::error::x"},
		{"日本語 😀", "日本語 😀"},
	}
	for _, c := range cases {
		if got := EscapeData(c.in); got != c.want {
			t.Errorf("EscapeData(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEscapeProperty(t *testing.T) {
	cases := []struct{ in, want string }{
		{"gates/scope.go", "gates/scope.go"},
		{"swarm/scope: out of scope", "swarm/scope%3A out of scope"},
		{"a,b", "a%2Cb"},
		{"C:\\x,y%z\n", "C%3A\\x%2Cy%25z%0A"},
		{"title=x", "title=x"},
		{"::", "%3A%3A"},
		{"\r", "%0D"},
	}
	for _, c := range cases {
		if got := EscapeProperty(c.in); got != c.want {
			t.Errorf("EscapeProperty(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAnnotationCommand(t *testing.T) {
	cases := []struct {
		name string
		a    Annotation
		want string
	}{
		{"message only", Annotation{Level: LevelError, Message: "plan changed"}, "::error::plan changed"},
		{"file and line", Annotation{Level: LevelWarning, File: "src/a.go", Line: 12, Message: "placeholder"}, "::warning file=src/a.go,line=12::placeholder"},
		{"all properties", Annotation{Level: LevelNotice, Title: "swarm/scope", File: "a.go", Line: 3, EndLine: 3, Col: 2, EndColumn: 9, Message: "m"},
			"::notice file=a.go,line=3,endLine=3,col=2,endColumn=9,title=swarm/scope::m"},
		{"columns dropped across lines", Annotation{Level: LevelError, File: "a.go", Line: 3, EndLine: 5, Col: 2, EndColumn: 9, Message: "m"},
			"::error file=a.go,line=3,endLine=5::m"},
		{"end line before line dropped", Annotation{Level: LevelError, File: "a.go", Line: 5, EndLine: 3, Col: 1, Message: "m"},
			"::error file=a.go,line=5,col=1::m"},
		{"title with colon and comma", Annotation{Level: LevelError, Title: "swarm/sast: rule, new", Message: "x"},
			"::error title=swarm/sast%3A rule%2C new::x"},
		{"file name forging properties", Annotation{Level: LevelError, File: "a.go,line=1,title=ok::", Message: "x"},
			"::error file=a.go%2Cline=1%2Ctitle=ok%3A%3A::x"},
		{"multi-line message", Annotation{Level: LevelError, Message: "line 1\nline 2\r\n::error::forged\n100%"},
			"::error::line 1%0Aline 2%0D%0A::error::forged%0A100%25"},
		{"title trimmed", Annotation{Level: LevelError, Title: "  t  ", File: " ", Message: "m"}, "::error title=t::m"},
		{"multibyte", Annotation{Level: LevelWarning, File: "docs/日本語.md", Title: "é", Message: "😀"}, "::warning file=docs/日本語.md,title=é::😀"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.a.Command()
			if err != nil || got != c.want {
				t.Fatalf("Command() = %q, %v\nwant          %q", got, err, c.want)
			}
			parsed, ok := parseWorkflowCommand(got)
			if !ok || parsed.name != string(c.a.Level) || parsed.data != c.a.Message {
				t.Errorf("runner reads %+v, want level %s and message %q", parsed, c.a.Level, c.a.Message)
			}
			if f := strings.TrimSpace(c.a.File); parsed.props["file"] != f {
				t.Errorf("runner reads file %q, want %q", parsed.props["file"], f)
			}
			if ti := strings.TrimSpace(c.a.Title); parsed.props["title"] != ti {
				t.Errorf("runner reads title %q, want %q", parsed.props["title"], ti)
			}
		})
	}
	if _, err := (Annotation{Level: "fatal", Message: "x"}).Command(); err == nil {
		t.Error("unknown level accepted")
	}
	if _, err := (Annotation{Message: "x"}).Command(); err == nil {
		t.Error("empty level accepted")
	}
}

func TestLogCommands(t *testing.T) {
	var b strings.Builder
	log := NewLog(&b)
	steps := []error{
		log.Group("swarm-gate: gates"),
		log.Debug("evaluating 7 gates\nsecond line"),
		log.Annotate(Annotation{Level: LevelError, File: "a.go", Line: 1, Message: "m"}),
		log.EndGroup(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := "::group::swarm-gate: gates\n::debug::evaluating 7 gates%0Asecond line\n::error file=a.go,line=1::m\n::endgroup::\n"
	if b.String() != want {
		t.Errorf("log = %q\nwant  %q", b.String(), want)
	}
	if err := log.Annotate(Annotation{Level: "bogus"}); err == nil {
		t.Error("Annotate accepted an unknown level")
	}
}

func TestAddMask(t *testing.T) {
	cases := []struct {
		name, secret string
		want         []string // secrets the runner registers
	}{
		{"single", "ghs_abc123", []string{"ghs_abc123"}},
		{"empty", "", nil},
		{"blank lines only", "\n \r\n\t\n", nil},
		{"multi-line PEM", "-----BEGIN KEY-----\nMIIEabc\r\nxyz==\n-----END KEY-----\n", []string{"-----BEGIN KEY-----", "MIIEabc", "xyz==", "-----END KEY-----"}},
		{"percent and colons", "p%0Ass::w,rd", []string{"p%0Ass::w,rd"}},
		{"surrounding spaces", "  s3cret  ", []string{"s3cret"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := NewLog(&b).AddMask(c.secret); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, cmd := range commandsIn(b.String()) {
				if cmd.name != "add-mask" {
					t.Fatalf("unexpected command %q", cmd.name)
				}
				got = append(got, cmd.data)
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Errorf("registered %q, want %q (log %q)", got, c.want, b.String())
			}
		})
	}
}

func TestStopCommandsSilencesUntrustedText(t *testing.T) {
	untrusted := "::error file=a.go::all gates passed\n::add-mask::x\r::set-output name=outcome::passed\n  ::warning::indented\n::endgroup::"
	var b strings.Builder
	log := NewLog(&b)
	if err := log.Group("plan"); err != nil {
		t.Fatal(err)
	}
	if err := log.PrintUntrusted(untrusted); err != nil {
		t.Fatal(err)
	}
	if err := log.EndGroup(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range commandsIn(b.String()) {
		names = append(names, c.name)
	}
	if strings.Join(names, ",") != "group,endgroup" {
		t.Errorf("runner acted on %v, want only our group and endgroup; log:\n%s", names, b.String())
	}
	if !strings.Contains(b.String(), untrusted) {
		t.Error("untrusted text was not printed as is")
	}

	// Without the guard the same text would issue commands.
	if n := len(commandsIn(untrusted)); n != 5 {
		t.Errorf("the unguarded text issues %d commands, want 5 (test data lost its teeth)", n)
	}
}

func TestStopCommandsTokens(t *testing.T) {
	a, b := NewStopToken(), NewStopToken()
	if a == b || len(a) != 32 {
		t.Errorf("NewStopToken gave %q and %q", a, b)
	}
	var out strings.Builder
	resume, err := NewLog(&out).StopCommands(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := resume(); err != nil {
		t.Fatal(err)
	}
	if want := "::stop-commands::" + a + "\n::" + a + "::\n"; out.String() != want {
		t.Errorf("log = %q, want %q", out.String(), want)
	}
	for _, bad := range []string{"", "pause-logging", "error", "WARNING", "add-mask", "short", "has space in it ok?", "token::with::colons", "0123456789abcdef\n"} {
		if _, err := NewLog(&out).StopCommands(bad); err == nil {
			t.Errorf("StopCommands(%q) accepted", bad)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

func TestLogReturnsWriteErrors(t *testing.T) {
	log := NewLog(failWriter{})
	for i, err := range []error{
		log.Group("g"), log.EndGroup(), log.Debug("d"), log.AddMask("s"),
		log.Annotate(Annotation{Level: LevelNotice, Message: "m"}), log.PrintUntrusted("x"),
	} {
		if err == nil {
			t.Errorf("call %d hid a write error", i)
		}
	}
}

// FuzzAnnotationCommand: whatever the text, the command is one line with
// no CR or LF, and the runner reads back the level, message, file and
// title (trimmed) that went in.
func FuzzAnnotationCommand(f *testing.F) {
	f.Add("a.go", "title", "message", 1, 2)
	f.Add("a.go,line=9", "t: x, y", "line\r\n::error::forged%0A", 3, 3)
	f.Add("%25%", "::", "%", 0, 0)
	f.Add("\u2028x", " \t", "\x00\x85", -1, 5)
	f.Fuzz(func(t *testing.T, file, title, message string, line, endLine int) {
		a := Annotation{Level: LevelWarning, File: file, Title: title, Message: message, Line: line, EndLine: endLine, Col: 1, EndColumn: 2}
		cmd, err := a.Command()
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(cmd, "\r\n") {
			t.Fatalf("raw line break in command %q", cmd)
		}
		if cmd2 := EscapeData(message); strings.ContainsAny(cmd2, "\r\n") {
			t.Fatalf("EscapeData left a line break: %q", cmd2)
		}
		c, ok := parseWorkflowCommand(cmd)
		if !ok || c.name != "warning" {
			t.Fatalf("runner does not read %q as a warning", cmd)
		}
		if c.data != message {
			t.Fatalf("message %q read back as %q", message, c.data)
		}
		if want := strings.TrimSpace(file); !strings.HasPrefix(want, "=") && c.props["file"] != want {
			t.Fatalf("file %q read back as %q", want, c.props["file"])
		}
		if want := strings.TrimSpace(title); !strings.HasPrefix(want, "=") && c.props["title"] != want {
			t.Fatalf("title %q read back as %q", want, c.props["title"])
		}
		for k := range c.props {
			switch k {
			case "file", "line", "endLine", "col", "endColumn", "title":
			default:
				t.Fatalf("text forged property %q in %q", k, cmd)
			}
		}
	})
}
