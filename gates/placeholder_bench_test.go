package gates

import (
	"context"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/placeholder/benchgen"
)

// BenchmarkPlaceholdersGate is the whole gate on 1,000,000 added lines.
func BenchmarkPlaceholdersGate(b *testing.B) {
	files := benchgen.Files(1_000_000)
	in := &Input{Head: empty(), Base: empty(), Changes: &changeset.ChangeSet{Files: files}}
	b.SetBytes(benchgen.AddedBytes(files))
	b.ResetTimer()
	for b.Loop() {
		if r := (Placeholders{}).Evaluate(context.Background(), in); r.Outcome != Failed {
			b.Fatal(r.Title)
		}
	}
}

// BenchmarkPlaceholdersGateHead is the whole gate on modified files lexed
// whole from their head contents: 1,000,000 head lines in 500 files, every
// other run of 10 lines added, in MB/s of added text.
func BenchmarkPlaceholdersGateHead(b *testing.B) {
	files := benchgen.Files(1_000_000)
	head := make(map[string][]byte, len(files))
	for i := range files {
		f := &files[i]
		var buf []byte
		kept := f.Added[:0]
		for _, l := range f.Added {
			buf = append(append(buf, l.Text...), '\n')
			if (l.Line-1)/10%2 == 0 {
				kept = append(kept, l)
			}
		}
		head[f.NewPath] = buf
		f.Status, f.OldPath, f.Size, f.Added = changeset.Modified, f.NewPath, int64(len(buf)), kept
	}
	in := &Input{Head: empty(), Base: empty(), Changes: &changeset.ChangeSet{Files: files},
		HeadFile: func(p string) ([]byte, bool) { c, ok := head[p]; return c, ok }}
	b.SetBytes(benchgen.AddedBytes(files))
	b.ResetTimer()
	for b.Loop() {
		if r := (Placeholders{}).Evaluate(context.Background(), in); r.Outcome != Failed || strings.Contains(r.Summary, "run of added lines at a time") {
			b.Fatal(r.Title, r.Summary)
		}
	}
}
