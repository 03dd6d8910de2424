package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// maxPeakRSS is the memory a check of a hostile repository may take: the
// peak resident set size of the process that runs it.
const maxPeakRSS = 300 << 20

// Environment of TestHostileMemory's child process.
const (
	childRepoEnv   = "SWARM_GATE_HOSTILE_CHILD_REPO"
	childEngineEnv = "SWARM_GATE_HOSTILE_CHILD_ENGINE"
	childMarker    = "HOSTILE-CHILD-RESULT "
)

// childResult is what the child process reports.
type childResult struct {
	Err    string            `json:"err,omitempty"`
	Gates  map[string]string `json:"gates"` // name -> outcome + ": " + title and findings
	PeakKB int64             `json:"peak_kb"`
	// ChildPeakKB is the peak RSS of the largest process the check ran
	// and waited for (git), from getrusage(RUSAGE_CHILDREN).
	ChildPeakKB int64   `json:"child_peak_kb"`
	Seconds     float64 `json:"seconds"`
}

// TestHostileMemory runs the big hostile repositories in a child process
// (this test binary again, in child mode) and reads the child's peak RSS
// from /proc/self/status (VmHWM), so that the figure is the check's own.
// See the table in hostile_test.go.
func TestHostileMemory(t *testing.T) {
	if dir := os.Getenv(childRepoEnv); dir != "" {
		hostileChild(dir, os.Getenv(childEngineEnv))
		return
	}
	if raceDetector {
		t.Skip("the race detector multiplies memory use, so the peak RSS figures say nothing under -race; run `go test -run TestHostileMemory ./internal/pipeline` without -race")
	}
	if testing.Short() {
		t.Skip("builds blobs of hundreds of MB and runs each check in a child process (about a minute); skipped with -short")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("reads the peak RSS from /proc/self/status, which this system lacks")
	}
	type memCase struct {
		name   string
		mutate func(g *hostileGit, base, head hostileTree)
		gate   string
		want   gates.Outcome
		says   string
	}
	const mb = 1_000_000
	cases := []memCase{
		{"200 MB plan.json", func(g *hostileGit, b, h hostileTree) {
			h[".swarm/plan.json"] = blobRef(modeFile, g.blobFrom(func(w *bufio.Writer) {
				w.WriteString("{\n  \"padding\": [\n")
				line := "    \"" + strings.Repeat("x", 92) + "\",\n"
				for n := 0; n < 200*mb; n += len(line) {
					w.WriteString(line)
				}
				w.WriteString("    \"\"\n  ]\n}\n")
			}))
		}, "swarm/plan-freeze", gates.Error, ".swarm/plan.json: is 2000"},
		{"200 MB plan-ledger.jsonl", func(g *hostileGit, b, h hostileTree) {
			on, off, seq := toggleEvents(t, h[".swarm/plan-ledger.jsonl"].data)
			h[".swarm/plan-ledger.jsonl"] = blobRef(modeFile, g.blobFrom(func(w *bufio.Writer) {
				w.Write(h[".swarm/plan-ledger.jsonl"].data)
				for i, n := 1, 0; n < 200*mb; i++ {
					ev := on
					if i%2 == 0 {
						ev = off
					}
					k, _ := fmt.Fprintf(w, ev+"\n", seq+i)
					n += k
				}
			}))
		}, "swarm/plan-freeze", gates.Error, ".swarm/plan-ledger.jsonl: is 200"},
		{"1,000,000-event ledger", func(g *hostileGit, b, h hostileTree) {
			on, off, seq := toggleEvents(t, h[".swarm/plan-ledger.jsonl"].data)
			h[".swarm/plan-ledger.jsonl"] = blobRef(modeFile, g.blobFrom(func(w *bufio.Writer) {
				w.Write(h[".swarm/plan-ledger.jsonl"].data)
				for i := 1; i <= 1_000_000; i++ {
					ev := on
					if i%2 == 0 {
						ev = off
					}
					fmt.Fprintf(w, ev+"\n", seq+i)
				}
			}))
		}, "swarm/plan-freeze", gates.Error, "over the 16777216-byte limit"},
		{"40,000-event ledger on both sides (the most within the limits)", func(g *hostileGit, b, h hostileTree) {
			on, off, seq := toggleEvents(t, h[".swarm/plan-ledger.jsonl"].data)
			ledger := func(n int) string {
				return g.blobFrom(func(w *bufio.Writer) {
					w.Write(h[".swarm/plan-ledger.jsonl"].data)
					for i := 1; i <= n; i++ {
						ev := on
						if i%2 == 0 {
							ev = off
						}
						fmt.Fprintf(w, ev+"\n", seq+i)
					}
				})
			}
			// The base holds all but the last two events and the head's
			// plan.json; the head extends it.
			b[".swarm/plan-ledger.jsonl"] = blobRef(modeFile, ledger(39_998))
			b[".swarm/plan.json"] = h[".swarm/plan.json"]
			h[".swarm/plan-ledger.jsonl"] = blobRef(modeFile, ledger(40_000))
		}, "swarm/plan-freeze", gates.Passed, "40004 events replayed"},
		{"more events than MaxLedgerEvents", func(g *hostileGit, b, h hostileTree) {
			h[".swarm/plan-ledger.jsonl"] = blobRef(modeFile, g.blobFrom(func(w *bufio.Writer) {
				w.Write(h[".swarm/plan-ledger.jsonl"].data)
				for i := 5; i <= swarm.MaxLedgerEvents+10; i++ {
					fmt.Fprintf(w, `{"seq":%d,"timestamp":"","plan_id":"","event_type":"plan_exported","source":"","plan_hash_before":"","plan_hash_after":"","schema_version":""}`+"\n", i)
				}
			}))
		}, "swarm/plan-freeze", gates.Error, fmt.Sprintf("line %d: more than %d events", swarm.MaxLedgerEvents+1, swarm.MaxLedgerEvents)},
		{"ledger of embedded plans over MaxLedgerPayload", func(g *hostileGit, b, h hostileTree) {
			data := h[".swarm/plan-ledger.jsonl"].data
			lines := strings.SplitAfter(string(data), "\n")
			snapshot := strings.TrimSuffix(lines[1], "\n") // seq 2, the critic's approval with its plan
			h[".swarm/plan-ledger.jsonl"] = blobRef(modeFile, g.blobFrom(func(w *bufio.Writer) {
				w.Write(data)
				for i, n := 5, 0; n < 12*mb; i++ {
					k, _ := w.WriteString(strings.Replace(snapshot, `"seq":2,`, `"seq":`+strconv.Itoa(i)+`,`, 1) + "\n")
					n += k
				}
			}))
		}, "swarm/plan-freeze", gates.Error, "add up to more than 8388608 bytes"},
		{"16 MB plan.json of 49,000 tasks", func(g *hostileGit, b, h hostileTree) {
			h[".swarm/plan.json"] = blobRef(modeFile, g.blobFrom(func(w *bufio.Writer) {
				w.WriteString(`{"schema_version":"1.0.0","title":"CSV export","swarm":"default","current_phase":1,"migration_status":"native","phases":[{"id":1,"name":"Export","status":"pending","tasks":[`)
				for i, n := 1, 0; n < 16*mb; i++ {
					if i > 1 {
						w.WriteString(",\n")
					}
					k, _ := fmt.Fprintf(w, `{"id":"1.%d","phase":1,"status":"pending","size":"small","description":"Add an RFC 4180 CSV writer in internal/export with quoting of commas, quotes and newlines.","depends":[],"acceptance":"Round-trip test passes.","files_touched":["internal/export/csv.go"]}`, i)
					n += k
				}
				w.WriteString("]}]}\n")
			}))
		}, "swarm/plan-freeze", gates.Error, fmt.Sprintf("more than %d tasks and phases", swarm.MaxPlanTasks)},
		{"16 MB plan.json of 8 million JSON values", func(g *hostileGit, b, h hostileTree) {
			h[".swarm/plan.json"] = blobRef(modeFile, g.blobFrom(func(w *bufio.Writer) {
				w.WriteString(`{"schema_version":"1.0.0","title":"CSV export","swarm":"default","phases":[],"padding":[0`)
				for n := 0; n < 16*mb; n += 2 {
					w.WriteString(",1")
				}
				w.WriteString("]}\n")
			}))
		}, "swarm/plan-freeze", gates.Error, "JSON values"},
	}
	cases = append(cases, memCase{"1 GiB added source file of zeros", func(g *hostileGit, b, h hostileTree) {
		// Over limits.max_file_bytes (16 MiB by default): neither engine may
		// read it, nor may git's rename and copy detection.
		h["big.go"] = blobRef(modeFile, g.blobFrom(func(w *bufio.Writer) {
			zeros := make([]byte, 1<<20)
			for range 1 << 10 {
				w.Write(zeros)
			}
		}))
	}, "swarm/sast", gates.Failed, "too large to scan"})
	base, head := demoTrees(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, h := base.clone(), head.clone()
			g := newHostileGit(t)
			start := time.Now()
			c.mutate(g, b, h)
			bc := g.commit("main", g.writeTree(b), "")
			g.commit("swarm/phase-1", g.writeTree(h), bc)
			t.Logf("repository built in %s", time.Since(start).Round(time.Millisecond))
			for _, engine := range []string{"git", "go-git"} {
				res := runHostileChild(t, g.dir, engine)
				t.Logf("%s engine: %.2f s, peak RSS %.0f MB (largest git process %.0f MB); %s: %s", engine, res.Seconds, float64(res.PeakKB)/1024, float64(res.ChildPeakKB)/1024, c.gate, clip(res.Gates[c.gate]))
				if res.Err != "" {
					t.Errorf("%s engine: Check refused: %s", engine, res.Err)
					continue
				}
				got := res.Gates[c.gate]
				if !strings.HasPrefix(got, string(c.want)+": ") || !strings.Contains(got, c.says) {
					t.Errorf("%s engine: %s is %q, want %s mentioning %q", engine, c.gate, clip(got), c.want, c.says)
				}
				if res.PeakKB<<10 > maxPeakRSS {
					t.Errorf("%s engine: peak RSS %d MB, over %d MB", engine, res.PeakKB>>10, maxPeakRSS>>20)
				}
				// The git processes the check runs (git diff, cat-file)
				// count too: the memory is the runner's either way.
				if res.ChildPeakKB<<10 > maxPeakRSS {
					t.Errorf("%s engine: a git process's peak RSS %d MB, over %d MB", engine, res.ChildPeakKB>>10, maxPeakRSS>>20)
				}
			}
		})
	}
}

// runHostileChild checks repo in a child process and returns its report.
func runHostileChild(t *testing.T, repo, engine string) childResult {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileMemory$", "-test.count=1")
	cmd.Env = append(os.Environ(), childRepoEnv+"="+repo, childEngineEnv+"="+engine)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("child process: %v\n%s%s", err, clip(out.String()), clip(errb.String()))
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if js, ok := strings.CutPrefix(line, childMarker); ok {
			var res childResult
			if err := json.Unmarshal([]byte(js), &res); err != nil {
				t.Fatalf("child result %q: %v", clip(js), err)
			}
			return res
		}
	}
	t.Fatalf("the child printed no result:\n%s", clip(out.String()))
	return childResult{}
}

// hostileChild is the child process: one Check, then the verdict and the
// process's peak RSS on stdout.
func hostileChild(dir, engine string) {
	start := time.Now()
	r, err := Check(context.Background(), Options{RepoDir: dir, Base: "main", Head: "swarm/phase-1", DiffEngine: engine})
	res := childResult{Seconds: time.Since(start).Seconds(), Gates: map[string]string{}}
	if err != nil {
		res.Err = err.Error()
	} else {
		for i := range r.Gates {
			g := &r.Gates[i]
			res.Gates[g.Name] = string(g.Outcome) + ": " + gateText(g)
		}
	}
	res.PeakKB = peakRSSKB()
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		res.ChildPeakKB = ru.Maxrss // kB on Linux, the only system this test runs on
	}
	js, _ := json.Marshal(res)
	fmt.Println(childMarker + string(js))
}

// peakRSSKB reads VmHWM (the peak resident set size, in kB) from
// /proc/self/status; -1 when it cannot.
func peakRSSKB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}
