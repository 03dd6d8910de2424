package gates

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// scopeBenchInput builds a phase of 100 tasks whose scopes hold n entries
// in all (half directories, half files) and a change set of n files, one in
// ten outside the scope (so that "did you mean" runs too).
func scopeBenchInput(b *testing.B, n int) *Input {
	b.Helper()
	var tasks []string
	per := n / 100
	var files []changeset.File
	for ti := 0; ti < 100; ti++ {
		var entries []string
		for e := 0; e < per; e++ {
			if e%2 == 0 {
				entries = append(entries, fmt.Sprintf(`"pkg%d/mod%d"`, ti, e))
			} else {
				entries = append(entries, fmt.Sprintf(`"pkg%d/file%d.go"`, ti, e))
			}
		}
		tasks = append(tasks, fmt.Sprintf(`{"id":"1.%d","phase":1,"description":"t","files_touched":[%s]}`, ti+1, strings.Join(entries, ",")))
		for e := 0; e < per; e++ {
			p := fmt.Sprintf("pkg%d/mod%d/deep/x.go", ti, e)
			switch {
			case e%10 == 9:
				p = fmt.Sprintf("pkg%d/other%d.go", ti, e) // outside
			case e%2 == 1:
				p = fmt.Sprintf("pkg%d/file%d.go", ti, e)
			}
			files = append(files, changeset.File{Status: changeset.Modified, OldPath: p, NewPath: p})
		}
	}
	plan := `{"schema_version":"1.0.0","title":"B","swarm":"s","phases":[{"id":1,"name":"P","tasks":[` + strings.Join(tasks, ",") + `]}]}`
	head := load(fstest.MapFS{".swarm/plan.json": {Data: []byte(plan)}})
	if head.PlanErr != nil {
		b.Fatal(head.PlanErr)
	}
	return &Input{Phase: 1, PhaseSource: PhaseFromFlag, Base: empty(), Head: head, Changes: &changeset.ChangeSet{Files: files}}
}

// BenchmarkScope measures swarm/scope on n scope entries against n changed
// files; the 1,000 and 10,000 cases show how it scales (one map lookup per
// path segment, "did you mean" over a bounded candidate list).
func BenchmarkScope(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("entries=%d,files=%d", n, n), func(b *testing.B) {
			in := scopeBenchInput(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := Scope{}.Evaluate(context.Background(), in)
				if r.Outcome != Failed || len(r.Findings) != n/10 {
					b.Fatalf("outcome %s with %d findings, want failed with %d", r.Outcome, len(r.Findings), n/10)
				}
			}
		})
	}
}
