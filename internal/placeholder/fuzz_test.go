package placeholder

import (
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// fuzzPaths pick the family a fuzz input is lexed as; isPlanPath picks the
// plan.md rules among them (gates.IsPlanMarkdown).
var fuzzPaths = []string{"a.go", "a.rs", "a.py", "a.ts", "run.sh", "ci.yml", "q.sql", "a.html", "README.md", "page.mdx", "notes.txt", ".swarm/plan.md", "main.tf", "a.rb",
	"a.cs", "a.php", "a.ps1", "a.css", "a.scss", "a.cpp", "A.java", "a.pl"}

func isPlanPath(p string) bool { return p == ".swarm/plan.md" }

// FuzzPlaceholderScanner feeds arbitrary added lines, with gaps, to the
// scanner of each family: it must not panic, and every finding must be on
// a given added line of the file, with a column inside that line.
func FuzzPlaceholderScanner(f *testing.F) {
	seeds := []string{
		"x := 1 // TODO\n/* a\n * FIXME\n */",
		"s := `raw\n// TODO\n`",
		"def f():\n    \"\"\"Doc\n    TODO\n    \"\"\"\n    raise NotImplementedError",
		"let r = r##\"a\"#\"##; // XXX\nfn f<'a>() {} /* /* HACK */ */",
		"```go\n// TODO\n```\n# TODO\n<!--\nFIXME\n-->",
		"echo \"# TODO\" # HACK\nurl: http://x/#TODO",
		"SELECT '--'; -- TODO\nreturn null;\nthrow new Error(\"TODO\")",
		"function f() {\n  return null;\n}\ndef g(\n    a,\n) -> None:\n    \"\"\"Doc.\"\"\"\n    raise NotImplementedError(\n        \"stub\"\n    )\n",
		"x = {\"spec\": \"placeholder\"}\n- TODO: write\n```\n// TODO\n```\nf\"{placeholder}\" ['TODO', 'TBD']",
		"panic(\"not implemented\")\ntodo!()\n// TODO swarm-gate:allow placeholder\n// TODO swarm-gate:allow placeholder why",
		"- [ ] [task] [Project] [date]",
		"'\"`\\",
		"/*\x00*/\r\n\xff\xfe TODO",
		"const r = /\"[/]/; // TODO\nconst t = `a ${ `b ${c}` } ${ \"}\" }`; // FIXME\n`\n${\n",
		"var a = @\"x\"\"y\"; var b = $@\"{x}\\\"; var c = $\"\"\"raw\"\"\"; var d = $\"{{ {(a ? \"x\" : \"y\")} }}\";",
		"auto s = u8R\"d(a )\" b)d\"; String t = \"\"\"\n  text\n  \"\"\";",
		"x=\"$(a \"$b\" \"${c:-\"d\"}\")\" # TODO\ny=\"$(\n# FIXME\n)\"",
		"cat <<-'EOF' <<B\n\t# TODO\n\tEOF\nx\nB\necho $((1 << 2)) <<< x",
		"=begin\nTODO\n=end\n<# FIXME #>\n$h = @\"\n# x\n\"@\n#[Attr] # TODO",
		"\ufeff# TODO bom\na { b: url(//x/#TODO) } // TODO",
		"var password = \"" + fakePassword + "\" // TODO\nx := \"" + fakeGitHubToken + "\"\nSecret: abcdefgh12 # TODO\nAPI-KEY => 'abcdefgh' // TODO",
	}
	for i, s := range seeds {
		f.Add(s, uint8(i), uint8(i*7))
	}
	f.Fuzz(func(t *testing.T, text string, which, gaps uint8) {
		path := fuzzPaths[int(which)%len(fuzzPaths)]
		for _, l := range strings.Split(text, "\n") {
			if !mayHoldSecret(l) && sast.MaskLine(l) != l {
				t.Fatalf("mayHoldSecret(%q) is false, but sast.MaskLine masks it", l)
			}
		}
		// Run by run: the lines, with gaps between some of them.
		sc := NewScanner(Options{})
		sc.File(path, isPlanPath(path))
		lines := map[int]string{}
		n := 0
		for i, l := range strings.Split(text, "\n") {
			n++
			if gaps != 0 && (i*int(gaps))%5 == 4 {
				n++ // a gap: the next line starts a new run
			}
			lines[n] = l
			sc.Line(n, l)
		}
		sc.Finish(gaps%2 == 0)
		checkFuzzFindings(t, lines, sc.out)
		// A file none of whose lines may hit has no findings, however lexed.
		quiet := !isPlanPath(path)
		for _, l := range lines {
			quiet = quiet && !MayHit(l)
		}
		if quiet && len(sc.out) > 0 {
			t.Fatalf("no line may hit, but there are findings: %+v", sc.out)
		}

		// Whole: the text is the head content, and every other line (by
		// gaps) is added.
		sc = NewScanner(Options{})
		sc.File(path, isPlanPath(path))
		var added []changeset.AddedLine
		lines = map[int]string{}
		all := strings.Split(strings.TrimSuffix(text, "\n"), "\n") // no line after the last newline
		if text == "" {
			all = nil
		}
		for i, l := range all {
			if gaps == 0 || (i*int(gaps))%3 != 1 {
				l = strings.TrimSuffix(l, "\r") // as the change set has it
				added = append(added, changeset.AddedLine{Line: i + 1, Text: l})
				lines[i+1] = l
			}
		}
		if len(added) > 0 && !sc.Whole(text, added) {
			t.Fatalf("whole refused its own content")
		}
		checkFuzzFindings(t, lines, sc.out)
		if quiet && len(sc.out) > 0 {
			t.Fatalf("no line may hit, but there are findings: %+v", sc.out)
		}
	})
}

// checkFuzzFindings checks that every finding is on a given added line of
// the file, with a column inside that line.
func checkFuzzFindings(t *testing.T, lines map[int]string, out []Finding) {
	t.Helper()
	for _, fd := range out {
		l, ok := lines[fd.Line]
		if !ok {
			t.Fatalf("finding on line %d, which was not added: %+v", fd.Line, fd)
		}
		if fd.Column < 1 || fd.Column > len(l) {
			t.Fatalf("column %d outside line %d (%d bytes %q): %+v", fd.Column, fd.Line, len(l), l, fd)
		}
	}
}
