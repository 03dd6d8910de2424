package swarm

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// TestReplayRetriedWrite: a real ledger (the corpus's fm-value-scout) with
// one status event written twice is explained, the second as a retry; the
// same line edited, or not at the next seq, is not a retry.
func TestReplayRetriedWrite(t *testing.T) {
	path := filepath.Join(corpusDir, "JG1995__fm-value-scout", LedgerPath)
	data, err := os.ReadFile(path)
	if err != nil {
		sharedtest.Skip(t, "skipping: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if n := len(ReplayLedger(mustLedger(t, data)).Unexplained); n != 0 {
		t.Fatalf("the real ledger has %d unexplained events", n)
	}
	k := -1
	for i, l := range lines[:len(lines)-1] {
		if strings.Contains(l, `"event_type":"task_status_changed"`) && strings.Contains(l, `"to_status":"completed"`) {
			k = i
			break
		}
	}
	if k < 0 {
		t.Fatal("no completing status event in the corpus ledger")
	}
	seq := regexp.MustCompile(`"seq":(\d+)`)
	renumber := func(l string, by int) string {
		return seq.ReplaceAllStringFunc(l, func(m string) string {
			n, _ := strconv.Atoi(seq.FindStringSubmatch(m)[1])
			return `"seq":` + strconv.Itoa(n+by)
		})
	}
	// insert writes dup after line k and shifts the later seqs by one.
	insert := func(dup string) []byte {
		out := append([]string{}, lines[:k+1]...)
		out = append(out, dup)
		for _, l := range lines[k+1:] {
			out = append(out, renumber(l, 1))
		}
		return []byte(strings.Join(out, "\n") + "\n")
	}
	cases := []struct {
		name       string
		dup        string
		how        string
		unexplains bool
	}{
		{"the same event at the next seq", renumber(lines[k], 1), HowRetry, false},
		{"the next seq with another timestamp", regexp.MustCompile(`"timestamp":"[^"]*"`).ReplaceAllString(renumber(lines[k], 1), `"timestamp":"2099-01-01T00:00:00.000Z"`), HowRetry, false},
		{"the next seq, to_status edited", strings.Replace(renumber(lines[k], 1), `"to_status":"completed"`, `"to_status":"blocked"`, 1), HowUnexplained, true},
		{"a seq later, the same event", renumber(lines[k], 2), HowUnexplained, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ReplayLedger(mustLedger(t, insert(c.dup)))
			st := r.Steps[k+1]
			if st.How != c.how || (len(r.Unexplained) > 0) != c.unexplains {
				t.Fatalf("step %d: %+v; %d unexplained: %+v", k+1, st, len(r.Unexplained), r.Unexplained)
			}
		})
	}
}

func mustLedger(t *testing.T, data []byte) *Ledger {
	t.Helper()
	l, err := ParseLedger(LedgerPath, data)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
