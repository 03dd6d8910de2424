package config

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"regexp"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// readmeYAML is a ```yaml block of README.md.
var readmeYAML = regexp.MustCompile("(?ms)^```yaml\n(.*?)^```")

// FuzzParseConfig seeds Parse with the YAML blocks of README.md (the
// documented policy file, and workflow files, which it must refuse with an
// error rather than misread) and checks that an error names the file and
// a line the file has, and that the same bytes always give the same result.
func FuzzParseConfig(f *testing.F) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		f.Fatalf("reading the seeds: %v", err)
	}
	for _, m := range readmeYAML.FindAllSubmatch(readme, -1) {
		f.Add(m[1])
	}
	f.Add([]byte("version: 1\nplan_freeze: {approval: base-anchored}\nscope:\n  extras: [docs/**]\n---\nversion: 1\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(Path, data)
		if err != nil {
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) || ae.Path != Path {
				t.Fatalf("error %T %v does not name the file", err, err)
			}
			// YAML ends a line at LF, CRLF or a lone CR, and (the YAML
			// library, as YAML 1.1) at NEL, LS and PS too.
			norm := bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
			for _, brk := range []string{"\u0085", "\u2028", "\u2029"} {
				norm = bytes.ReplaceAll(norm, []byte(brk), []byte("\n"))
			}
			if lines := bytes.Count(norm, []byte("\n")) + 1; ae.Line < 0 || ae.Line > lines {
				t.Fatalf("error at line %d of a %d-line file: %v", ae.Line, lines, err)
			}
		}
		c2, err2 := Parse(Path, data)
		if !reflect.DeepEqual(c, c2) || (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("two parses differ: %v / %v", err, err2)
		}
	})
}
