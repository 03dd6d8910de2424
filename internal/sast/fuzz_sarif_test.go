package sast

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// FuzzReadSARIF: ReadSARIF never panics, every error is an
// *swarm.ArtifactError naming the file, and every finding has a rule and an
// engine.
func FuzzReadSARIF(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "sarif", "*.sarif"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(sarifRun1(`{"ruleIndex":0,"message":{"id":"x","arguments":["{0}"]},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a/%2e%2e/b","uriBaseId":"B"},"region":{"startLine":1}}}]}`)))
	f.Add([]byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"n"},"extensions":[{"name":"e","rules":[{"id":"r"}]}]},"originalUriBaseIds":{"B":{"uri":"x/","uriBaseId":"B"}},"artifacts":[{"location":{"index":0}}],"results":[{"rule":{"index":0,"toolComponent":{"name":"e"}},"message":{},"locations":[{"physicalLocation":{"artifactLocation":{"index":0,"uriBaseId":"B"}}}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		findings, err := ReadSARIF("scan.sarif", data)
		if err != nil {
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) || ae.Path != "scan.sarif" {
				t.Fatalf("error %v (%T) is not an ArtifactError naming scan.sarif", err, err)
			}
			return
		}
		for _, fd := range findings {
			if fd.RuleID == "" || fd.Engine == "" || fd.Severity.Rank() == 0 || fd.Line < 0 || fd.Column < 0 {
				t.Fatalf("bad finding %+v", fd)
			}
		}
	})
}
