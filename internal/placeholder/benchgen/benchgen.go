// Package benchgen builds the synthetic change sets that the placeholder
// engine's and the placeholders gate's benchmarks scan, so that both
// measure the same input.
package benchgen

import (
	"fmt"
	"math/rand/v2"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// benchLines are typical source lines per file kind; about one line in a
// hundred carries a marker .
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

// Files builds new files (Go, TypeScript, Python, YAML, Markdown; 2,000
// lines at most each) with about n added lines in total, the same for
// every call: about one line in a hundred is a placeholder marker.
func Files(n int) []changeset.File {
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

// AddedBytes is the size of files' added lines, a newline each, for
// testing.B.SetBytes.
func AddedBytes(files []changeset.File) int64 {
	var n int64
	for i := range files {
		for _, l := range files[i].Added {
			n += int64(len(l.Text) + 1)
		}
	}
	return n
}
