package planhash

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// corpusDir is the shared corpus of real .swarm folders, read in place.
const corpusDir = "../../../shared/corpus"

func requireCorpus(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		sharedtest.Skip(t, "skipping: the shared corpus is not at %s (clone ../shared beside the repo to run corpus tests)", corpusDir)
	}
}

// ledgerFiles lists every plan-ledger*.jsonl under the corpus, the current
// ones, archived ones and history/ versions alike.
func ledgerFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(corpusDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "plan-ledger") && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorpusEmbeddedPlansRehash walks every ledger in the corpus and
// requires every embedded plan to re-hash to its event's plan_hash_after, and
// every payload_hash to equal the ledger hash or (critic approvals only) the
// structure hash.
func TestCorpusEmbeddedPlansRehash(t *testing.T) {
	requireCorpus(t)
	files := ledgerFiles(t)
	if len(files) == 0 {
		t.Fatal("no plan-ledger*.jsonl found in the corpus")
	}
	plans, structural := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		line := 0
		for sc.Scan() {
			line++
			ev, err := jsjson.Parse(bytes.TrimSuffix(sc.Bytes(), []byte("\r")))
			if err != nil {
				t.Errorf("%s:%d: %v", f, line, err)
				continue
			}
			plan := ev.Get("payload").Get("plan")
			if plan == nil {
				continue
			}
			d, err := Compute(plan)
			if err != nil {
				t.Errorf("%s:%d: %v", f, line, err)
				continue
			}
			plans++
			after, _ := ev.Get("plan_hash_after").AsString()
			if d.Ledger != after {
				t.Errorf("%s:%d: ledger hash %s, plan_hash_after %s", f, line, d.Ledger, after)
			}
			ph, _ := ev.Get("payload").Get("payload_hash").AsString()
			source, _ := ev.Get("source").AsString()
			switch {
			case ph == d.Ledger:
			case ph == d.Structure && source == "critic_approved":
				structural++
			default:
				t.Errorf("%s:%d: payload_hash %s is neither the ledger hash %s nor (critic approval) the structure hash %s", f, line, ph, d.Ledger, d.Structure)
			}
		}
		if err := sc.Err(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	t.Logf("%d ledgers, %d embedded plans re-hashed, %d critic approvals by structure hash", len(files), plans, structural)
	if plans == 0 {
		t.Error("no embedded plans found")
	}
	if structural < 2 {
		t.Errorf("expected the plan-critic approvals of landingpage and Burgonomics-App to match by structure hash, found %d", structural)
	}
}
