//go:build unix

package app_test

import (
	"bufio"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// TestKilledReplicaReconciled: replica A (the real binary, `swarm-gate
// serve`, its reconciler off) answers a delivery 202 and starts evaluating
// it; the fake holds its first check-run creation, and A is killed there
// (SIGKILL: no drain, no Abandon). GitHub considers the delivery
// delivered, so nothing would ever evaluate the commit again but the
// reconciler: replica B's first pass, one short interval after it starts,
// finds the head without swarm-gate checks and evaluates it. Every gate
// gets exactly one check run, completed.
func TestKilledReplicaReconciled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildServe(t)
	h := newHarness(t)
	h.fake.SetInstallationRepos(installationID, testRepo)
	h.fake.AddPullRequest(testRepo, ghfake.PullRequest{Number: 2, Title: "phase 1", HeadRef: demo.HeadBranch, HeadSHA: h.head,
		BaseRef: demo.BaseBranch, BaseSHA: h.base})
	held := make(chan struct{})
	h.fake.Fail(ghfake.Fault{Method: http.MethodPost, Operation: "checks/create", Hang: true, First: func() { close(held) }})

	a := startReplica(t, bin, h, "a", map[string]string{"SWARM_GATE_RECONCILE": "0"})
	if code := h.deliver(a.url, "pull_request", "d-killed", h.synchronize(nil)); code != http.StatusAccepted {
		t.Fatalf("the delivery to replica A answered %d, want 202", code)
	}
	select {
	case <-held:
	case <-time.After(5 * time.Minute):
		t.Fatalf("replica A never created a check run; its log:\n%s", a.log())
	}
	a.kill(t)
	for _, cr := range h.fake.CheckRuns(testRepo) {
		t.Fatalf("check run %s exists before the reconciler ran; the test wants none", cr.Name)
	}

	const interval = 2 * time.Second
	killed := time.Now()
	b := startReplica(t, bin, h, "b", map[string]string{"SWARM_GATE_RECONCILE": "1", "SWARM_GATE_RECONCILE_INTERVAL": interval.String()})
	want := len(demoRuns(h.head))
	deadline := time.Now().Add(5 * time.Minute) // generous: a loaded 2-core machine
	for {
		done := 0
		for _, cr := range h.fake.CheckRuns(testRepo) {
			if cr.HeadSHA == h.head && cr.Status == "completed" {
				done++
			}
		}
		if done >= want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica B completed %d of %d check runs in 5 minutes: %v\nB's log:\n%s", done, want, h.runs(), b.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("the checks were completed %s after the kill (interval %s, B started then)", time.Since(killed).Round(10*time.Millisecond), interval)
	b.stop(t)
	if n := uniqueCompleted(t, h); n != want {
		t.Errorf("%d distinct check runs, want %d: %v", n, want, h.runs())
	}
	if log := b.log(); !strings.Contains(log, `"msg":"reconciler queued an evaluation: the head's swarm-gate checks are missing"`) ||
		!strings.Contains(log, `"reason":"missing"`) {
		t.Errorf("replica B's log does not say its reconciler queued the evaluation (reason missing):\n%s", log)
	}
}

// buildServe builds the swarm-gate binary into the test's directory.
func buildServe(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "swarm-gate")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/swarm-gate")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// replica is one `swarm-gate serve` process.
type replica struct {
	cmd  *exec.Cmd
	url  string
	logs *syncBuffer
	done chan struct{}
}

// startReplica runs `swarm-gate serve` against the harness's fake with
// env on top of the App's settings, and waits for it to listen.
func startReplica(t *testing.T, bin string, h *harness, name string, env map[string]string) *replica {
	t.Helper()
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(appKey())})
	vars := map[string]string{
		"SWARM_GATE_APP_ID": fmt.Sprint(appID), "SWARM_GATE_PRIVATE_KEY": string(keyPEM), "SWARM_GATE_WEBHOOK_SECRET": string(h.secret),
		"SWARM_GATE_GITHUB_API_URL": h.fake.URL, "SWARM_GATE_LISTEN": "127.0.0.1:0", "SWARM_GATE_METRICS_LISTEN": "off",
		"SWARM_GATE_WORK_DIR": t.TempDir(), "SWARM_GATE_SHUTDOWN_DELAY": "0", "SWARM_GATE_WORKERS": "2", "SWARM_GATE_LOG": "debug",
	}
	for k, v := range env {
		vars[k] = v
	}
	cmd := exec.Command(bin, "serve")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SWARM_GATE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &replica{cmd: cmd, logs: &syncBuffer{}, done: make(chan struct{})}
	addr := make(chan string, 1)
	var once sync.Once
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(r.logs, line)
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "listening" {
				once.Do(func() { addr <- rec.Addr })
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		_ = cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-r.done
		if t.Failed() {
			t.Logf("replica %s log:\n%s", name, r.log())
		}
	})
	select {
	case a := <-addr:
		r.url = "http://" + a
	case <-r.done:
		t.Fatalf("replica %s exited before listening:\n%s", name, r.log())
	case <-time.After(2 * time.Minute):
		t.Fatalf("replica %s did not listen within 2 minutes:\n%s", name, r.log())
	}
	return r
}

func (r *replica) log() string { return r.logs.String() }

// kill sends SIGKILL and waits for the process to end.
func (r *replica) kill(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-r.done
}

// stop sends SIGTERM and waits (at most 2 minutes) for the drain.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.done:
	case <-time.After(2 * time.Minute):
		t.Errorf("the replica did not stop within 2 minutes of SIGTERM")
	}
}
