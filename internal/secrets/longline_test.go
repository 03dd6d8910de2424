package secrets

import (
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

// longLine is about n bytes of "api_key=<24 random characters>" tokens,
// space-separated: one added line that holds thousands of findings.
func longLine(n int) string {
	r := rand.New(rand.NewSource(1))
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var b strings.Builder
	for b.Len() < n {
		b.WriteString("api_key=")
		for range 24 {
			b.WriteByte(alnum[r.Intn(len(alnum))])
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// TestLongLineBounded: a long line of credentials costs memory linear in
// its length, not in findings × length (each finding's excerpt is a
// window around its match, not the whole line masked).
func TestLongLineBounded(t *testing.T) {
	s := scanner(t)
	for _, tc := range []struct {
		name      string
		size      int
		bound     uint64 // bytes allocated by one scan
		raceBound uint64 // under -race (0: skipped there, too slow)
	}{
		// Before the fix, 100 KB took 205 MB (several GB under -race).
		{"100KB", 100 << 10, 16 << 20, 1 << 30},
		{"1MB", 1 << 20, 128 << 20, 0}, // linear: about 90 MB for 32,000 findings
	} {
		t.Run(tc.name, func(t *testing.T) {
			if raceDetector {
				if tc.raceBound == 0 {
					t.Skip("over a minute under the race detector; the run without -race checks it")
				}
				tc.bound = tc.raceBound
			}
			ls := []Line{{1, longLine(tc.size)}}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			fs, _, omitted := s.ScanLines("config.txt", ls)
			runtime.ReadMemStats(&after)
			if len(fs) != MaxPerFile || omitted == 0 {
				t.Errorf("%d findings, %d omitted; want %d and more", len(fs), omitted, MaxPerFile)
			}
			for _, f := range fs {
				if len(f.Excerpt) > 400 || strings.Contains(f.Excerpt, f.Secret) {
					t.Fatalf("excerpt %d bytes, secret shown: %q", len(f.Excerpt), f.Excerpt)
				}
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > tc.bound {
				t.Errorf("scan allocated %d MB; want under %d MB", got>>20, tc.bound>>20)
			}
		})
	}
}

func BenchmarkLongLine(b *testing.B) {
	s := scanner(b)
	ls := []Line{{1, longLine(100 << 10)}}
	b.ReportAllocs()
	for b.Loop() {
		s.ScanLines("config.txt", ls)
	}
}

// TestExcerptWindow: a long line's excerpt is a window around the match
// that never cuts a copy of the secret (a cut copy would show part of it).
func TestExcerptWindow(t *testing.T) {
	secret := "Zq8" + "Lm2Xw9Pt4Rk7"
	pad := strings.Repeat("x", MaxExcerptLine)
	for _, tc := range []struct {
		name, line string
		from       int
		want       string
	}{
		{"short line whole", "key=" + secret + " " + secret, 4, "key=Zq…(15) Zq…(15)"},
		{"long line cut between words", pad + " a key=" + secret + " b " + pad, MaxExcerptLine + 7, "…a key=Zq…(15) b…"},
		{"copy across the window's start", pad + secret + strings.Repeat("y", ExcerptContext-5) + "k=" + secret + " " + pad,
			MaxExcerptLine + len(secret) + ExcerptContext - 3, "…Zq…(15)" + strings.Repeat("y", ExcerptContext-5) + "k=Zq…(15)…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := excerpt(tc.line, tc.from, tc.from+len(secret), secret); got != tc.want {
				t.Errorf("excerpt = %q, want %q", got, tc.want)
			}
		})
	}
}
