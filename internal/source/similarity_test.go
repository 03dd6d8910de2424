package source

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// similarityPairs are file pairs covering what git's similarity estimate
// depends on: line edits, lines longer than 64 bytes, CRLF, a last line
// without newline, binary data and size ratios near the 50% cut.
func similarityPairs() [][2]string {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon")
	line := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	var pairs [][2]string
	for i := 0; i < 40; i++ {
		var lines []string
		for j := 0; j < 5+rng.IntN(30); j++ {
			lines = append(lines, line(1+rng.IntN(20))) // up to ~150 bytes: some lines span several 64-byte chunks
		}
		src := strings.Join(lines, "\n") + "\n"
		edited := append([]string(nil), lines...)
		for k := 0; k < 1+rng.IntN(len(lines)/3+1); k++ {
			switch j := rng.IntN(len(edited)); rng.IntN(3) {
			case 0:
				edited[j] = line(3)
			case 1:
				edited = append(edited[:j], edited[j+1:]...)
			default:
				edited = append(edited[:j], append([]string{line(4)}, edited[j:]...)...)
			}
			if len(edited) == 0 {
				edited = []string{line(2)}
			}
		}
		dst := strings.Join(edited, "\n")
		switch i % 4 {
		case 1:
			src, dst = strings.ReplaceAll(src, "\n", "\r\n"), strings.ReplaceAll(dst, "\n", "\r\n")
		case 2:
			// The same last line without newline on both sides: git ignores
			// a chunk still open at the end, so it does not count as copied.
			tail := line(3)
			src, dst = src+tail, dst+"\n"+tail
		case 3:
			dst += "\n"
			if i%8 == 3 {
				src, dst = "\x00"+src, "\x00"+dst // binary: CR is not special
			}
		}
		pairs = append(pairs, [2]string{src, dst})
	}
	return pairs
}

// TestGitSimilarityMatchesGit checks gitSimilarity against the similarity
// index git itself prints, over renames of the pairs above, by comparing
// the whole ChangeSet of both engines (go-git's renames carry the score
// computed here, the git engine's the one git printed).
func TestGitSimilarityMatchesGit(t *testing.T) {
	needGit(t)
	pairs := similarityPairs()
	r := newTestRepo(t)
	renames := 0
	for i, p := range pairs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			base := r.commit(tree{"src.txt": {content: p[0]}}, "base")
			head := r.commit(tree{"dst.txt": {content: p[1]}}, "head")
			var got [2][]string
			for k, engine := range []DiffEngine{DiffEngineGit, DiffEngineGoGit} {
				g := r.open()
				g.Engine = engine
				cs, err := g.ChangeSet(context.Background(), base, head)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range cs.Files {
					got[k] = append(got[k], fmt.Sprintf("%s %s->%s %d%%", f.Status, f.OldPath, f.NewPath, f.Similarity))
				}
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Errorf("git says %q, go-git engine says %q (gitSimilarity = %d)", got[0], got[1], gitSimilarity([]byte(p[0]), []byte(p[1])))
			}
			if strings.HasPrefix(got[0][0], "renamed") {
				renames++
			}
		})
	}
	if renames < len(pairs)/2 {
		t.Errorf("only %d of %d pairs were renames; the pairs do not exercise the score", renames, len(pairs))
	}
}

// TestGitSimilarity pins values git 2.39 printed for these pairs.
func TestGitSimilarity(t *testing.T) {
	tests := []struct {
		name     string
		src, dst string
		want     int
	}{
		{"identical", "a\nb\n", "a\nb\n", 100},
		{"one line of five changed", "package src\n\nfunc A() {}\nfunc B() {}\nfunc C() {}\n", "package src\n\nfunc A() {}\nfunc B() {} // HACK\nfunc C() {}\n", 64},
		{"last line without newline not counted", "line one here\nline two here\nline three\nthe last line without a newline",
			"line one here\nline two here\nCHANGED\nthe last line without a newline", 40},
		{"sizes too far apart", "a\n", "a\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n", 0},
		{"empty destination", "a\n", "", 0},
	}
	for _, tt := range tests {
		if got := gitSimilarity([]byte(tt.src), []byte(tt.dst)); got != tt.want {
			t.Errorf("%s: gitSimilarity = %d, want %d", tt.name, got, tt.want)
		}
	}
}
