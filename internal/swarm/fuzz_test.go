package swarm

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// seeds adds corpus files (when the shared corpus is present) and a few
// hand-made inputs to a fuzz target.
func seeds(f *testing.F, glob string, extra ...string) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, glob))
	for i, p := range files {
		if i >= 20 {
			break
		}
		if data, err := os.ReadFile(p); err == nil && len(data) < 1<<20 {
			f.Add(data)
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// checkErr requires every error to be an *ArtifactError naming the file.
func checkErr(t *testing.T, name string, err error) {
	if err == nil {
		return
	}
	var ae *ArtifactError
	if !errors.As(err, &ae) || ae.Path != name {
		t.Fatalf("error %v (%T) does not name %s", err, err, name)
	}
}

func FuzzParsePlan(f *testing.F) {
	seeds(f, "*/.swarm/plan.json", `{"schema_version":"1.0.0","title":"T","swarm":"s","phases":[{"id":1,"name":"P","tasks":[{"id":"1.1","phase":1,"description":"d"}]}]}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlan(PlanPath, data)
		checkErr(t, PlanPath, err)
		if err == nil && (p == nil || len(p.Digests.Ledger) != 64) {
			t.Fatal("no error and no plan")
		}
	})
}

func FuzzParseLedger(f *testing.F) {
	seeds(f, "*/.swarm/plan-ledger.jsonl", `{"seq":1,"timestamp":"t","plan_id":"p","event_type":"snapshot","source":"s","plan_hash_before":"","plan_hash_after":"x","schema_version":"1.0.0","payload":{"plan":{}}}`+"\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLedger(LedgerPath, data)
		checkErr(t, LedgerPath, err)
		if l == nil {
			t.Fatal("nil ledger")
		}
		VerifyLedger(l, nil)
		l.LastPlanCriticApproval("p")
	})
}

func FuzzParseEventLog(f *testing.F) {
	seeds(f, "*/.swarm/events.jsonl", `{"type":"a"}`+"\n"+`{"event":"phase_complete","phase":1}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseEventLog(EventsPath, data)
		checkErr(t, EventsPath, err)
	})
}

func FuzzParseTaskGates(f *testing.F) {
	seeds(f, "*/.swarm/evidence/*.json", `{"taskId":"1.1","required_gates":["reviewer"],"gates":{"reviewer":{}}}`, `{"task_id":"1.1","type":"review"}`)
	const name = EvidenceDir + "/1.1.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseTaskGates(name, data)
		checkErr(t, name, err)
	})
}

func FuzzParseScopeFile(f *testing.F) {
	seeds(f, "*/.swarm/scopes/*.json", `{"version":1,"taskId":"1.1","files":["a"]}`)
	const name = ScopesDir + "/scope-1.1.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseScopeFile(name, data)
		checkErr(t, name, err)
	})
}
