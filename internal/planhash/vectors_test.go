package planhash

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// specVector is one row of ../shared/spec/swarm-artifacts.md section 11.
// Rows whose source repository is not in the shared corpus are pinned in
// testdata/vectors (see SOURCES.md there); the rest are read from the corpus.
type specVector struct {
	name      string
	file      string // ledger (.jsonl) or plan.json
	seq       int    // ledger seq; 0 for a plan.json
	ledger    string // expected §2.2 hash of the embedded plan / plan.json ("" = not given)
	structure string // expected §2.4 hash ("" = not given)
	after     string // expected plan_hash_after ("" = not given)
	payload   string // expected payload_hash ("" = not given)
	rootLine  string // expected sha256 of the line's bytes ("" = not given)
}

var specVectors = []specVector{
	{name: "trainingapp seq 1 plan_created, em-dash title, 4-key profile", file: "testdata/vectors/ZaxbyHub__trainingapp@3677a06714.jsonl", seq: 1,
		ledger: "bee2bd19b93b5dcffc753eb994e47f8df6e400c8799243df5928650208085e81", structure: "dd2b250510be3e871746c5661b4310debf94c89adb0f49b22edc8ce58689bb0a",
		after: "bee2bd19b93b5dcffc753eb994e47f8df6e400c8799243df5928650208085e81", payload: "bee2bd19b93b5dcffc753eb994e47f8df6e400c8799243df5928650208085e81",
		rootLine: "947640314db60b5e2b906dcda12f2eee42b0933bfc0329a438f3585dfa83fad4"},
	{name: "trainingapp seq 12 old-style critic_approved stores the ledger hash", file: "testdata/vectors/ZaxbyHub__trainingapp@3677a06714.jsonl", seq: 12,
		ledger: "e3e12f49c538732609ebaad228ff6b0e07801a086b70baaa167bf0b94e5b8025", payload: "e3e12f49c538732609ebaad228ff6b0e07801a086b70baaa167bf0b94e5b8025"},
	{name: "trainingapp seq 101 plan_rebuilt", file: "testdata/vectors/ZaxbyHub__trainingapp@3677a06714.jsonl", seq: 101,
		after: "4aa37af1f761e6b9bded0f6a11eccd8809e74dc52f399107ead33f52a147c257"},
	{name: "trainingapp plan.json hashes to the last plan_hash_after", file: "testdata/vectors/ZaxbyHub__trainingapp@a4abf52dd5.plan.json",
		ledger: "4aa37af1f761e6b9bded0f6a11eccd8809e74dc52f399107ead33f52a147c257"},
	{name: "landingpage seq 1 plan_created with fr_refs", file: corpusDir + "/VerduzcoTristan__landingpage/.swarm/plan-ledger.jsonl", seq: 1,
		ledger: "888dbe4fa71df60707903f0047facd873e27b896ef8f7763c8e14ee5f9e51a65", rootLine: "faa861ebb364c39553726177f13c94848ca1c4639399229607b2cc251ae7b10a"},
	{name: "landingpage seq 3 plan_critic_gate approval stores the structure hash", file: corpusDir + "/VerduzcoTristan__landingpage/.swarm/plan-ledger.jsonl", seq: 3,
		ledger: "888dbe4fa71df60707903f0047facd873e27b896ef8f7763c8e14ee5f9e51a65", after: "888dbe4fa71df60707903f0047facd873e27b896ef8f7763c8e14ee5f9e51a65",
		structure: "237f8b3900ebed5bd0ae2deb4f56856868506b972c5bc4e397e241203dc7fa60", payload: "237f8b3900ebed5bd0ae2deb4f56856868506b972c5bc4e397e241203dc7fa60"},
	{name: "landingpage seq 9 task_status_changed", file: corpusDir + "/VerduzcoTristan__landingpage/.swarm/plan-ledger.jsonl", seq: 9,
		after: "af5c2f1617371b159f753422e715b071c3cb2ab29576d5161f389e5b5944da2a"},
	{name: "landingpage plan.json", file: corpusDir + "/VerduzcoTristan__landingpage/.swarm/plan.json",
		ledger: "af5c2f1617371b159f753422e715b071c3cb2ab29576d5161f389e5b5944da2a"},
	{name: "IMU-Parkinson seq 15 critic_approved", file: corpusDir + "/DediGadot__IMU-Parkinson/.swarm/plan-ledger.jsonl", seq: 15,
		ledger: "725ef10e547a5a4349d67d836bfb41f2aa4170f23faa22bc487f4a09ef535517", payload: "725ef10e547a5a4349d67d836bfb41f2aa4170f23faa22bc487f4a09ef535517"},
	{name: "IMU-Parkinson seq 5 locked profile", file: corpusDir + "/DediGadot__IMU-Parkinson/.swarm/plan-ledger.jsonl", seq: 5,
		ledger: "af5ca26fd6b4701b235507efb198534dff5c28535417b62e70ba4ef191fea2b0"},
	{name: "fm-value-scout seq 1 with < > &", file: corpusDir + "/JG1995__fm-value-scout/.swarm/plan-ledger.jsonl", seq: 1,
		ledger: "86c15ac3db35afd5e6b93fa6307ff42632a464a903d7eb4c729c22bfdc6dc9f2"},
	{name: "fm-value-scout seq 97 snapshot confirms the seq 80-96 batch", file: corpusDir + "/JG1995__fm-value-scout/.swarm/plan-ledger.jsonl", seq: 97,
		payload: "b41ac50a3aae6f68a35e7e51afd25c67f68cd1d8fd2f214e26802a7a9eca82c7"},
	{name: "clipsanitizer seq 2 backslashes", file: "testdata/vectors/zaxbysauce__clipsanitizer@3c32fd29f2.jsonl", seq: 2,
		ledger: "b8aaf5a57c5fb599299d123e6524e5838182ce5dd206178fc978f6ad388450bd"},
	{name: "quest-forge seq 7 task_status_changed", file: corpusDir + "/sleuthy-sloth__quest-forge/history/108df05bc6/plan-ledger.jsonl", seq: 7,
		after: "b0715ea7a8e5faf68efdf08edb2956b4106cf3c4a1294e0035962beb2f0fc9ff"},
	{name: "quest-forge plan.json", file: corpusDir + "/sleuthy-sloth__quest-forge/history/108df05bc6/plan.json",
		ledger: "b0715ea7a8e5faf68efdf08edb2956b4106cf3c4a1294e0035962beb2f0fc9ff"},
}

func TestSpecSection11Vectors(t *testing.T) {
	for _, v := range specVectors {
		t.Run(v.name, func(t *testing.T) {
			data, err := os.ReadFile(v.file)
			if os.IsNotExist(err) && filepath.IsAbs(v.file) == false && bytes.HasPrefix([]byte(v.file), []byte(corpusDir)) {
				sharedtest.Skip(t, "skipping: %s is absent (the shared corpus is not beside the repo)", v.file)
			}
			if err != nil {
				t.Fatal(err)
			}
			var value *jsjson.Value
			var line []byte
			if v.seq == 0 {
				value, err = jsjson.Parse(data)
				if err != nil {
					t.Fatal(err)
				}
			} else {
				line, value = findSeq(t, data, v.seq)
			}
			if v.rootLine != "" {
				sum := sha256.Sum256(line)
				if got := hex.EncodeToString(sum[:]); got != v.rootLine {
					t.Errorf("sha256(line) = %s, want %s", got, v.rootLine)
				}
			}
			plan := value
			if v.seq != 0 {
				plan = value.Get("payload").Get("plan")
				if after, _ := value.Get("plan_hash_after").AsString(); v.after != "" && after != v.after {
					t.Errorf("plan_hash_after = %s, want %s", after, v.after)
				}
				if ph, _ := value.Get("payload").Get("payload_hash").AsString(); v.payload != "" && ph != v.payload {
					t.Errorf("payload_hash = %s, want %s", ph, v.payload)
				}
			}
			if v.ledger == "" && v.structure == "" {
				return
			}
			d, err := Compute(plan)
			if err != nil {
				t.Fatal(err)
			}
			if v.ledger != "" && d.Ledger != v.ledger {
				t.Errorf("ledger hash = %s, want %s", d.Ledger, v.ledger)
			}
			if v.structure != "" && d.Structure != v.structure {
				t.Errorf("structure hash = %s, want %s", d.Structure, v.structure)
			}
		})
	}
}

func findSeq(t *testing.T, data []byte, seq int) ([]byte, *jsjson.Value) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		v, err := jsjson.Parse(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := v.Get("seq").AsInt(); n == seq {
			return bytes.Clone(sc.Bytes()), v
		}
	}
	t.Fatalf("seq %d not found", seq)
	return nil, nil
}

func TestPlanIdentity(t *testing.T) {
	// Spec section 11, trainingapp.
	swarm, title := "modelrelay", "HTML5 Web Version — Browser-Side Inference + API Hybrid Architecture"
	if got, want := PlanID(swarm, title), "modelrelay-HTML5_Web_Version___Browser-Side_Inference___API_Hybrid_Architecture"; got != want {
		t.Errorf("PlanID = %s, want %s", got, want)
	}
	if got, want := IdentityHash(swarm, title), "58f05a7866a073899c664272d3c9882be06fddadf8def09eb62c7bca3f6fc66a"; got != want {
		t.Errorf("IdentityHash = %s, want %s", got, want)
	}
	if got := PlanID("s", "a😀b"); got != "s-a__b" {
		t.Errorf("non-BMP character: got %s, want s-a__b", got)
	}
}
