package gates

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// benchLines are typical source lines per file kind; about one line in a
// hundred carries a marker (as in internal/placeholder's benchmark).
var benchLines = map[string][]string{
	"go": {
		"func (s *Server) handle(w http.ResponseWriter, r *http.Request) {",
		"\tif err := s.store.Put(ctx, key, value); err != nil {",
		"\t\treturn fmt.Errorf(\"putting %s: %w\", key, err)",
		"\t}",
		"\tfor i, item := range items { // walk the items in order",
		"\tmsg := `raw string with // slashes and # hashes`",
		"\tlog.Printf(\"served %d bytes to %s\", n, r.RemoteAddr)",
		"",
	},
	"ts": {
		"export async function loadUser(id: string): Promise<User | undefined> {",
		"  const res = await fetch(`/api/users/${id}`, { headers });",
		"  if (!res.ok) { throw new HttpError(res.status, 'user lookup failed'); }",
		"  /* the response is cached for a minute */",
		"  return (await res.json()) as User;",
		"}",
		"const url = \"https://example.com/docs#section\";",
	},
	"py": {
		"def compute(values: list[float]) -> float:",
		"    \"\"\"Return the weighted mean of values.\"\"\"",
		"    total = sum(v * w for v, w in zip(values, weights))  # weighted",
		"    if not values:",
		"        raise ValueError('values must not be empty')",
		"    return total / len(values)",
		"",
	},
	"yml": {
		"jobs:",
		"  build:",
		"    runs-on: ubuntu-latest # pinned image",
		"    steps:",
		"      - uses: actions/checkout@v4",
		"      - run: go test ./... -count=1",
	},
	"md": {
		"## Usage",
		"Run the tool with `swarm-gate check --base main` and read the report.",
		"See https://example.com/guide#install for details.",
		"```sh",
		"go build ./cmd/swarm-gate # builds the binary",
		"```",
	},
}

var benchMarkers = []string{"// TODO: handle the error", "# FIXME: flaky", "/* XXX: bounds */", "panic(\"not implemented\")", "return null;"}

// benchFiles builds files with about n added lines in total.
func benchFiles(n int) []changeset.File {
	rng := rand.New(rand.NewPCG(1, 2))
	exts := []string{"go", "ts", "py", "yml", "md"}
	var files []changeset.File
	for k := 0; n > 0; k++ {
		ext := exts[k%len(exts)]
		f := changeset.File{Status: changeset.Added, NewPath: fmt.Sprintf("src/pkg%d/file%d.%s", k%50, k, ext), Size: -1}
		lines := benchLines[ext]
		for i := 1; i <= 2000 && n > 0; i++ {
			text := lines[rng.IntN(len(lines))]
			if rng.IntN(100) == 0 {
				text = benchMarkers[rng.IntN(len(benchMarkers))]
			}
			f.Added = append(f.Added, changeset.AddedLine{Line: i, Text: text})
			n--
		}
		files = append(files, f)
	}
	return files
}

func addedBytes(files []changeset.File) int64 {
	var n int64
	for i := range files {
		for _, l := range files[i].Added {
			n += int64(len(l.Text) + 1)
		}
	}
	return n
}

// BenchmarkPlaceholdersGate is the whole gate on 1,000,000 added lines.
func BenchmarkPlaceholdersGate(b *testing.B) {
	files := benchFiles(1_000_000)
	in := &Input{Head: empty(), Base: empty(), Changes: &changeset.ChangeSet{Files: files}}
	b.SetBytes(addedBytes(files))
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
	files := benchFiles(1_000_000)
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
	b.SetBytes(addedBytes(files))
	b.ResetTimer()
	for b.Loop() {
		if r := (Placeholders{}).Evaluate(context.Background(), in); r.Outcome != Failed || strings.Contains(r.Summary, "run of added lines at a time") {
			b.Fatal(r.Title, r.Summary)
		}
	}
}
