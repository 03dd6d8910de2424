package placeholder

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkMayHitDiff runs MayHit on every added line of the unified diff
// SWARM_GATE_PLACEHOLDER_DIFF names (bench/RESULTS.md: the 1M benchmark's
// diff), as the placeholder gate does on every file before deciding to
// read and lex it.
func BenchmarkMayHitDiff(b *testing.B) {
	name := os.Getenv("SWARM_GATE_PLACEHOLDER_DIFF")
	if name == "" {
		b.Skip("SWARM_GATE_PLACEHOLDER_DIFF names no diff")
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	var lines []string
	size := 0
	for l := range strings.Lines(string(data)) {
		if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++ ") {
			l = strings.TrimSuffix(l[1:], "\n")
			lines = append(lines, l)
			size += len(l)
		}
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	hits := 0
	for range b.N {
		hits = 0
		for _, l := range lines {
			if MayHit(l) {
				hits++
			}
		}
	}
	b.ReportMetric(float64(hits), "hits")
}
