package swarm

import (
	"errors"
	"testing"
	"testing/fstest"
)

func FuzzParseReviewReceipt(f *testing.F) {
	seeds(f, "*/.swarm/review-receipts/*.json",
		receiptJSON("a", "rejected", "2026-04-30T19:12:49.081Z"), `{"verdict":1}`, `[{"verdict":"approved"}]`, bom+`{"verdict":"approved"}`)
	const name = ReceiptsDir + "/2026-04-30-a.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		rr, err := ParseReviewReceipt(name, data)
		checkErr(t, name, err)
		if (err == nil) != (rr != nil) {
			t.Fatalf("receipt %+v with error %v", rr, err)
		}
		if rr != nil && (rr.Path != name || rr.BlockingFindings < 0) {
			t.Fatalf("bad receipt %+v", rr)
		}
		// Through Load, beside the index and a copy: one item or one broken
		// entry per file, never both.
		a := Load(fstest.MapFS{
			ReceiptsDir + "/index.json":          {Data: data},
			name:                                 {Data: data},
			ReceiptsDir + "/2026-04-30-a 2.json": {Data: data},
		})
		r := a.Receipts
		if len(r.Items)+len(r.Broken) != 2 || r.DirErr != nil {
			t.Fatalf("%d items, %d broken, dir error %v", len(r.Items), len(r.Broken), r.DirErr)
		}
		for _, e := range r.Broken {
			var ae *ArtifactError
			if !errors.As(e, &ae) {
				t.Fatalf("broken entry %v (%T) is not an *ArtifactError", e, e)
			}
		}
	})
}

func FuzzParseSpecStaleness(f *testing.F) {
	seeds(f, "*/.swarm/spec-staleness.json", `{"type":"spec_stale_detected","phase":1,"specHash_plan":"a","specHash_current":"b"}`, `{}`, `[]`, ``, bom+`{"phase":1e400}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpecStaleness(SpecStalenessPath, data)
		checkErr(t, SpecStalenessPath, err)
		if s == nil || s.Path != SpecStalenessPath {
			t.Fatalf("marker not reported as present: %+v", s)
		}
		if err != nil && *s != (SpecStaleness{Path: SpecStalenessPath}) {
			t.Fatalf("error %v but fields set: %+v", err, s)
		}
		// Through Load, with the ledger reset marker: presence is kept and
		// the ledger (the same bytes) is not read.
		a := Load(fstest.MapFS{SpecStalenessPath: {Data: data}, LedgerResettingPath: {}, LedgerPath: {Data: data}})
		if a.SpecStaleness == nil || (a.SpecStalenessErr == nil) != (err == nil) {
			t.Fatalf("Load: %+v, %v; parser: %v", a.SpecStaleness, a.SpecStalenessErr, err)
		}
		if !a.LedgerResetting || a.Ledger == nil || len(a.Ledger.Events) != 0 || a.LedgerErr != nil {
			t.Fatalf("resetting ledger: %+v, %v", a.Ledger, a.LedgerErr)
		}
	})
}
