package source

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestEnginesAgreeOnRandomEdits builds repositories with pseudo-random (but
// fixed-seed) edits, deletions, renames, mode changes and missing final
// newlines, and checks that both engines give the same ChangeSet. The lines
// are varied enough that a diff has one natural alignment; with many equal
// lines git's and go-git's line diffs may pick different lines as added.
func TestEnginesAgreeOnRandomEdits(t *testing.T) {
	needGit(t)
	rng := rand.New(rand.NewPCG(7, 9))
	words := strings.Fields("x y z { } return if else for TODO -- ++ a b c \t café")
	line := func() string {
		var b strings.Builder
		for i := 0; i < 1+rng.IntN(4); i++ {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	lines := func(n int) []string {
		var l []string
		for i := 0; i < n; i++ {
			l = append(l, line())
		}
		return l
	}
	for round := 0; round < 40; round++ {
		base, head := tree{}, tree{}
		for i := 0; i < 6; i++ {
			base[fmt.Sprintf("f%d.txt", i)] = file{content: strings.Join(lines(3+rng.IntN(15)), "\n") + "\n"}
		}
		for _, p := range sortedPaths(base) {
			f := base[p]
			switch rng.IntN(6) {
			case 0: // deleted
			case 1:
				head["moved/"+p] = f
			case 2:
				l := strings.Split(strings.TrimSuffix(f.content, "\n"), "\n")
				for k := 0; k < 1+rng.IntN(4); k++ {
					j := rng.IntN(len(l) + 1)
					switch rng.IntN(3) {
					case 0:
						l = append(l[:j], append([]string{line()}, l[j:]...)...)
					case 1:
						if j < len(l) {
							l = append(l[:j], l[j+1:]...)
						}
					default:
						if j < len(l) {
							l[j] = line()
						}
					}
				}
				content := strings.Join(l, "\n")
				if rng.IntN(3) > 0 {
					content += "\n"
				}
				head[p] = file{content: content}
			case 3:
				head[p] = file{content: f.content, exec: true}
			default:
				head[p] = f
			}
		}
		head["new.txt"] = file{content: strings.Join(lines(4), "\n")}

		r := newTestRepo(t)
		from, to := r.commit(base, "base"), r.commit(head, "head")
		var got [2]string
		for k, engine := range []DiffEngine{DiffEngineGit, DiffEngineGoGit} {
			g := r.open()
			g.Engine = engine
			cs, err := g.ChangeSet(context.Background(), from, to)
			if err != nil {
				t.Fatalf("round %d, %s: %v", round, engine, err)
			}
			got[k] = dump(cs.Files)
		}
		if !reflect.DeepEqual(got[0], got[1]) {
			t.Errorf("round %d: engines differ\ngit:   %s\ngo-git:%s", round, got[0], got[1])
		}
	}
}
