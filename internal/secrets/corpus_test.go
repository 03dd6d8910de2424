package secrets

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// diffFile is one file's added lines, read from a unified diff.
type diffFile struct {
	path  string
	lines []Line
}

// readDiff reads the added lines of each file of a unified diff (git
// diff's output): "+++ b/PATH" names the file, "@@ -a,b +c,d @@" numbers
// the lines after it, "+" lines are added, " " lines are context.
func readDiff(tb testing.TB, name string) []diffFile {
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []diffFile
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	inHunk := false
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "diff --git "):
			inHunk = false
		case !inHunk && strings.HasPrefix(l, "+++ "):
			p := strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			out = append(out, diffFile{path: p})
		case strings.HasPrefix(l, "@@ "):
			inHunk = true
			plus := strings.Index(l, " +")
			rest := l[plus+2:]
			if i := strings.IndexAny(rest, ", "); i >= 0 {
				rest = rest[:i]
			}
			n, _ = strconv.Atoi(rest)
		case inHunk && strings.HasPrefix(l, "+"):
			if len(out) > 0 {
				out[len(out)-1].lines = append(out[len(out)-1].lines, Line{N: n, Text: strings.TrimSuffix(l[1:], "\r")})
			}
			n++
		case inHunk && strings.HasPrefix(l, " "):
			n++
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkScanDiff scans the added lines of the unified diff named by
// SWARM_GATE_SECRETS_DIFF (for instance git diff -U1 of the repository
// bench/gen makes; skipped without it), file by file as the pipeline does:
//
//	git -C /tmp/sgb-1m diff -M -C --full-index -U1 main...swarm/phase-1 >/tmp/1m.diff
//	SWARM_GATE_SECRETS_DIFF=/tmp/1m.diff go test ./internal/secrets -run '^$' -bench ScanDiff -cpuprofile /tmp/cpu.out
func BenchmarkScanDiff(b *testing.B) {
	name := os.Getenv("SWARM_GATE_SECRETS_DIFF")
	if name == "" {
		b.Skip("SWARM_GATE_SECRETS_DIFF names no diff")
	}
	files := readDiff(b, name)
	s, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	lines, size := 0, 0
	for _, f := range files {
		lines += len(f.lines)
		for _, l := range f.lines {
			size += len(l.Text) + 1
		}
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	found := 0
	for range b.N {
		found = 0
		for _, f := range files {
			fs, ds, _ := s.ScanLines(f.path, f.lines)
			found += len(fs) + len(ds)
		}
	}
	b.ReportMetric(float64(lines), "lines")
	b.ReportMetric(float64(found), "findings")
}
