package pipeline

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/gates"
)

// TestFileScansInOrder: the SAST rules run on worker goroutines
// (fileScans), and the findings come out in the order the files were
// added, head and merge base apart, as scanning them one by one gives.
func TestFileScansInOrder(t *testing.T) {
	var want gates.SASTScan
	got := gates.SASTScan{}
	q := startFileScans()
	defer q.stop()
	for i := range 200 {
		path := fmt.Sprintf("cmd/f%03d.go", i)
		head := []byte("package main\n\n" + strings.Repeat("// filler\n", i%17) + "func run() {\n\t_ = exec.Command(\"sh\", \"-c\", x)\n\ttls := &tls.Config{InsecureSkipVerify: true}\n}\n")
		old := []byte("package main\n\n" + strings.Repeat("\n", i%5) + "var c = &tls.Config{InsecureSkipVerify: true}\n")
		hasOld := i%3 != 0
		f, d, _ := gates.ScanSASTFile(path, head)
		want.Head = append(want.Head, f...)
		want.Dismissed = append(want.Dismissed, d...)
		if hasOld {
			b, _, _ := gates.ScanSASTFile(path, old)
			want.MergeBase = append(want.MergeBase, b...)
		}
		q.add(path, head, old, hasOld)
	}
	q.collect(&got)
	if len(want.Head) < 200 || len(want.MergeBase) < 100 {
		t.Fatalf("too few findings to compare: %d at head, %d at the merge base", len(want.Head), len(want.MergeBase))
	}
	if !reflect.DeepEqual(got.Head, want.Head) || !reflect.DeepEqual(got.Dismissed, want.Dismissed) || !reflect.DeepEqual(got.MergeBase, want.MergeBase) {
		t.Errorf("findings differ from scanning one file after the other: %d/%d/%d against %d/%d/%d (head, dismissed, merge base)",
			len(got.Head), len(got.Dismissed), len(got.MergeBase), len(want.Head), len(want.Dismissed), len(want.MergeBase))
	}
}
