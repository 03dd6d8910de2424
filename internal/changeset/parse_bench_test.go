package changeset

import (
	"bytes"
	"fmt"
	"testing"
)

// benchDiff is a diff of files new files and modified ones, lines added
// lines in all, lines of about 40 bytes, as bench/gen makes them.
func benchDiff(files, lines int) []byte {
	var b bytes.Buffer
	per := lines / files
	for i := 0; i < files; i++ {
		p := fmt.Sprintf("src/pkg%d/file%d.go", i%50, i)
		if i%2 == 0 {
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..1111111111111111111111111111111111111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", p, p, p, per)
			for j := 0; j < per; j++ {
				fmt.Fprintf(&b, "+\tvalue%d := compute(%d, \"text\") // note\n", j, j)
			}
			continue
		}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 2222222222222222222222222222222222222222..3333333333333333333333333333333333333333 100644\n--- a/%s\n+++ b/%s\n@@ -1,2 +1,%d @@\n line one\n-removed\n", p, p, p, p, per+1)
		for j := 0; j < per; j++ {
			fmt.Fprintf(&b, "+\tvalue%d := compute(%d, \"text\") // note\n", j, j)
		}
	}
	return b.Bytes()
}

// BenchmarkParse measures Parse on 100,000 added lines in 1,000 files
// (SetBytes: MB/s of diff text); BenchmarkParseGoDiff the parser it
// replaced, on the same text.
func BenchmarkParse(b *testing.B) {
	in := benchDiff(1000, 100000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseGoDiff(b *testing.B) {
	in := benchDiff(1000, 100000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseGoDiff(bytes.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}
