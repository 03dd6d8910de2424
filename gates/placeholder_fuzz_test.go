package gates

import (
	"strings"
	"testing"
)

// fuzzPaths pick the family a fuzz input is lexed as.
var fuzzPaths = []string{"a.go", "a.rs", "a.py", "a.ts", "run.sh", "ci.yml", "q.sql", "a.html", "README.md", "notes.txt", ".swarm/plan.md", "main.tf", "a.rb"}

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
		"panic(\"not implemented\")\ntodo!()\n// TODO swarm-gate:allow placeholder\n// TODO swarm-gate:allow placeholder why",
		"- [ ] [task] [Project] [date]",
		"'\"`\\",
		"/*\x00*/\r\n\xff\xfe TODO",
	}
	for i, s := range seeds {
		f.Add(s, uint8(i), uint8(i*7))
	}
	f.Fuzz(func(t *testing.T, text string, which, gaps uint8) {
		path := fuzzPaths[int(which)%len(fuzzPaths)]
		sc := &lineScanner{opt: newScanOptions(PlaceholdersConfig{})}
		sc.file(path, IsPlanMarkdown(path))
		lines := map[int]string{}
		n := 0
		for i, l := range strings.Split(text, "\n") {
			n++
			if gaps != 0 && (i*int(gaps))%5 == 4 {
				n++ // a gap: the next line starts a new run
			}
			lines[n] = l
			sc.line(n, l)
		}
		for _, fd := range sc.out {
			l, ok := lines[fd.Line]
			if !ok {
				t.Fatalf("finding on line %d, which was not added: %+v", fd.Line, fd)
			}
			if fd.Column < 1 || fd.Column > len(l) {
				t.Fatalf("column %d outside line %d (%d bytes %q): %+v", fd.Column, fd.Line, len(l), l, fd)
			}
			if fd.Path != path || fd.EndLine != fd.Line {
				t.Fatalf("bad finding %+v", fd)
			}
		}
	})
}
