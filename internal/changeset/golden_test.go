package changeset

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from what Parse returns (then check each by hand)")

// TestParseGolden parses every testdata/*.diff and compares the ChangeSet with
// the matching testdata/*.json, in the style of reviewdog's diff/testdata.
func TestParseGolden(t *testing.T) {
	diffs, err := filepath.Glob(filepath.Join("testdata", "*.diff"))
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) == 0 {
		t.Fatal("no testdata/*.diff files")
	}
	for _, path := range diffs {
		name := strings.TrimSuffix(filepath.Base(path), ".diff")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := Parse(bytes.NewReader(in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, err := json.MarshalIndent(cs, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(path, ".diff") + ".json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run `go test ./internal/changeset -run TestParseGolden -update` to create it, then check it by hand)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Parse(%s) differs from %s\ngot:\n%s\nwant:\n%s", path, golden, got, want)
			}
		})
	}
}
