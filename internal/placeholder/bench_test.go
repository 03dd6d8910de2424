package placeholder

import (
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/placeholder/benchgen"
)

// BenchmarkPlaceholderScanner is the scanner alone (lexing and rules),
// in MB/s of added text.
func BenchmarkPlaceholderScanner(b *testing.B) {
	files := benchgen.Files(100_000)
	b.SetBytes(benchgen.AddedBytes(files))
	sc := NewScanner(Options{})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i := range files {
			sc.File(files[i].NewPath, false)
			for _, l := range files[i].Added {
				sc.Line(l.Line, l.Text)
			}
		}
	}
}
