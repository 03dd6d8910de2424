package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/swarm-gate/swarm-gate/internal/demo"
	"github.com/swarm-gate/swarm-gate/internal/ghfake"
	"github.com/swarm-gate/swarm-gate/internal/sharedtest"
)

// serveEnv are the variables serve reads; each test starts from none.
var serveEnv = []string{"SWARM_GATE_APP_ID", "SWARM_GATE_PRIVATE_KEY_PATH", "SWARM_GATE_PRIVATE_KEY", "SWARM_GATE_WEBHOOK_SECRET",
	"SWARM_GATE_GITHUB_API_URL", "SWARM_GATE_LISTEN", "SWARM_GATE_WORKERS", "SWARM_GATE_QUEUE_SIZE", "SWARM_GATE_JOB_TIMEOUT",
	"SWARM_GATE_SHUTDOWN_DELAY", "SWARM_GATE_SHUTDOWN_TIMEOUT", "SWARM_GATE_WORK_DIR", "SWARM_GATE_FETCH_DEPTH", "SWARM_GATE_REDELIVER_FAILED", "SWARM_GATE_LOG",
	"SWARM_GATE_RECONCILE", "SWARM_GATE_RECONCILE_INTERVAL", "SWARM_GATE_RECONCILE_MIN_BUDGET", "SWARM_GATE_EVALUATOR"}

func clearServeEnv(t *testing.T) {
	for _, k := range serveEnv {
		t.Setenv(k, "")
	}
	// Not the default port: two serve tests (or a server on the machine)
	// would collide on it.
	t.Setenv("SWARM_GATE_METRICS_LISTEN", "127.0.0.1:0")
	t.Setenv("SWARM_GATE_METRICS_TOKEN", "")
}

var serveKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func keyPEM() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(serveKey())}))
}

// TestServeSettings: serve refuses to start, with exit code 3 and a
// message naming the setting, when a setting is missing or wrong; it never
// prints the key or the secret.
func TestServeSettings(t *testing.T) {
	secret := "s3cret-" + strings.Repeat("x", 8)
	ok := map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1", "SWARM_GATE_PRIVATE_KEY": keyPEM()}
	with := func(kv ...string) map[string]string {
		env := map[string]string{}
		for k, v := range ok {
			env[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			env[kv[i]] = kv[i+1]
		}
		return env
	}
	dir := t.TempDir()
	regular := filepath.Join(dir, "file")
	if err := os.WriteFile(regular, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	publicKey := filepath.Join(dir, "public.pem")
	pub, err := x509.MarshalPKIXPublicKey(&serveKey().PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(publicKey, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600); err != nil {
		t.Fatal(err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sec1, err := x509.MarshalECPrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	ecKey := filepath.Join(dir, "ec.pem")
	if err := os.WriteFile(ecKey, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}), 0o600); err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	ecPKCS8 := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no webhook secret", map[string]string{"SWARM_GATE_APP_ID": "1", "SWARM_GATE_PRIVATE_KEY": keyPEM()}, nil,
			"SWARM_GATE_WEBHOOK_SECRET: not set: the server refuses to start without the App's webhook secret"},
		{"evaluator neither in process nor a process", with("SWARM_GATE_EVALUATOR", "child"), nil,
			`SWARM_GATE_EVALUATOR (--evaluator): "child" is not inprocess or process`},
		{"no app id", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_PRIVATE_KEY": keyPEM()}, nil,
			"SWARM_GATE_APP_ID (--app-id): not set"},
		{"app id not a number", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_PRIVATE_KEY": keyPEM()}, []string{"--app-id", "my-app"},
			`SWARM_GATE_APP_ID (--app-id): "my-app" is not a positive number`},
		{"no private key", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1"}, nil,
			"\n  SWARM_GATE_PRIVATE_KEY_PATH (--private-key-path) and SWARM_GATE_PRIVATE_KEY: neither is set: set SWARM_GATE_PRIVATE_KEY_PATH to the .pem file"},
		{"both private keys", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1", "SWARM_GATE_PRIVATE_KEY": keyPEM(),
			"SWARM_GATE_PRIVATE_KEY_PATH": "/nonexistent/key.pem"}, nil, "\n  SWARM_GATE_PRIVATE_KEY_PATH (--private-key-path) and SWARM_GATE_PRIVATE_KEY: both are set: set only one"},
		{"private key not PEM", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1", "SWARM_GATE_PRIVATE_KEY": "not-a-key-" + secret}, nil,
			"\n  SWARM_GATE_PRIVATE_KEY: not a PEM-encoded RSA private key"},
		{"private key file missing", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1"}, []string{"--private-key-path", "missing.pem"},
			"\n  SWARM_GATE_PRIVATE_KEY_PATH (missing.pem): cannot read the App's private key: no such file or directory"},
		{"private key file is a public key", with("SWARM_GATE_PRIVATE_KEY", ""), []string{"--private-key-path", publicKey},
			"\n  SWARM_GATE_PRIVATE_KEY_PATH (" + publicKey + "): a PEM public key, not the App's private key"},
		{"private key file is an EC key", with("SWARM_GATE_PRIVATE_KEY", "", "SWARM_GATE_PRIVATE_KEY_PATH", ecKey), nil,
			"\n  SWARM_GATE_PRIVATE_KEY_PATH (" + ecKey + "): an EC private key; a GitHub App's key is RSA (download a new one from the App's settings"},
		{"private key is a PKCS#8 EC key", with("SWARM_GATE_PRIVATE_KEY", ecPKCS8), nil,
			"\n  SWARM_GATE_PRIVATE_KEY: an EC private key; a GitHub App's key is RSA"},
		{"private key is a file name", with("SWARM_GATE_PRIVATE_KEY", "/etc/swarm-gate/app.pem"), nil,
			"\n  SWARM_GATE_PRIVATE_KEY: not a PEM-encoded RSA private key; it looks like a file name: give the file's path in SWARM_GATE_PRIVATE_KEY_PATH"},
		{"listen: no port", with("SWARM_GATE_LISTEN", "nonsense"), nil,
			`SWARM_GATE_LISTEN (--listen): "nonsense" is not HOST:PORT (missing port): give HOST:PORT or :PORT`},
		{"listen: port out of range", with(), []string{"--listen", ":99999"},
			`SWARM_GATE_LISTEN (--listen): ":99999": the port "99999" is not a number from 0 to 65535`},
		{"listen: too many colons", with("SWARM_GATE_LISTEN", "host:port:extra"), nil,
			`SWARM_GATE_LISTEN (--listen): "host:port:extra" is not HOST:PORT (too many colons)`},
		{"listen: port by name", with(), []string{"--listen", "localhost:http"},
			`SWARM_GATE_LISTEN (--listen): "localhost:http": the port "http" is not a number from 0 to 65535`},
		{"listen: a path in the host", with("SWARM_GATE_LISTEN", "localhost/webhook:8080"), nil,
			`SWARM_GATE_LISTEN (--listen): "localhost/webhook:8080": the host "localhost/webhook" is not a host name or an IP address`},
		{"listen: empty flag", with(), []string{"--listen="}, `SWARM_GATE_LISTEN (--listen): empty: give HOST:PORT or :PORT`},
		{"work dir missing", with("SWARM_GATE_WORK_DIR", missing), nil,
			"SWARM_GATE_WORK_DIR (--work-dir): \"" + missing + "\" does not exist: give a writable directory"},
		{"work dir is a file", with(), []string{"--work-dir", regular},
			"SWARM_GATE_WORK_DIR (--work-dir): \"" + regular + "\" is a file, not a directory"},
		{"work dir unset, TMPDIR missing", with("TMPDIR", missing), nil,
			"SWARM_GATE_WORK_DIR (--work-dir): not set, and the system's temporary directory \"" + missing + "\" (TMPDIR) does not exist: set TMPDIR or SWARM_GATE_WORK_DIR to a writable directory"},
		{"work dir unset, TMPDIR a file", with("TMPDIR", regular), nil,
			"SWARM_GATE_WORK_DIR (--work-dir): not set, and the system's temporary directory \"" + regular + "\" (TMPDIR) is a file, not a directory"},
		{"bad API URL", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1", "SWARM_GATE_PRIVATE_KEY": keyPEM()},
			[]string{"--github-api-url", "https://github.com/"}, "SWARM_GATE_GITHUB_API_URL \"https://github.com/\": that is the web site, not the API"},
		{"bad duration", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1", "SWARM_GATE_JOB_TIMEOUT": "ten minutes"}, nil,
			`SWARM_GATE_JOB_TIMEOUT (--job-timeout): "ten minutes" is not a positive duration`},
		{"bad redeliver flag", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1"}, []string{"--redeliver-failed=maybe"},
			`SWARM_GATE_REDELIVER_FAILED (--redeliver-failed): "maybe" is not true or false`},
		{"bad redeliver variable", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1", "SWARM_GATE_REDELIVER_FAILED": "yes please"}, nil,
			`SWARM_GATE_REDELIVER_FAILED (--redeliver-failed): "yes please" is not true or false`},
		{"bad reconcile switch", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1", "SWARM_GATE_RECONCILE": "on"}, nil,
			`SWARM_GATE_RECONCILE (--reconcile): "on" is not 1 or 0 (true or false)`},
		{"zero reconcile interval", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1"}, []string{"--reconcile-interval", "0"},
			`SWARM_GATE_RECONCILE_INTERVAL (--reconcile-interval): "0" is not a positive duration`},
		{"reconcile budget under -1", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1", "SWARM_GATE_RECONCILE_MIN_BUDGET": "-5"}, nil,
			`SWARM_GATE_RECONCILE_MIN_BUDGET (--reconcile-min-budget): "-5" is not a whole number >= -1`},
		{"webhook secret of white space", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": " \t ", "SWARM_GATE_APP_ID": "1", "SWARM_GATE_PRIVATE_KEY": keyPEM()}, nil,
			"SWARM_GATE_WEBHOOK_SECRET: only white space: the server refuses to start"},
		{"unknown log level", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1", "SWARM_GATE_PRIVATE_KEY": keyPEM(), "SWARM_GATE_LOG": "verbose"}, nil,
			`SWARM_GATE_LOG: "verbose" is not a log level: use debug, info, warn or error`},
		{"workers: an extra zero or three", with("SWARM_GATE_WORKERS", "100000"), nil, "SWARM_GATE_WORKERS (--workers): 100000 is more than 4096"},
		{"queue size over the bound", with(), []string{"--queue-size", "1000001"}, "SWARM_GATE_QUEUE_SIZE (--queue-size): 1000001 is more than 100000"},
		{"negative shutdown delay", map[string]string{"SWARM_GATE_WEBHOOK_SECRET": secret, "SWARM_GATE_APP_ID": "1", "SWARM_GATE_PRIVATE_KEY": keyPEM()}, []string{"--shutdown-delay", "-1s"},
			`SWARM_GATE_SHUTDOWN_DELAY (--shutdown-delay): "-1s" is not a non-negative duration`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clearServeEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, stdout, stderr := runCLI(t, append([]string{"serve"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if n := strings.Count(stderr, tc.want); n != 1 {
				t.Errorf("stderr says %q %d times, want once:\n%s", tc.want, n, stderr)
			}
			for _, s := range []string{secret, "PRIVATE KEY-----", "PUBLIC KEY-----"} {
				if strings.Contains(stdout+stderr, s) {
					t.Errorf("the output shows a secret (%q)", s)
				}
			}
			// The Go libraries' own words stay out of the messages.
			for _, s := range []string{"asn1", "x509", "ParseECPrivateKey", "structure error", "open /", "stat /", "mkdir /"} {
				if strings.Contains(stderr, s) {
					t.Errorf("stderr shows a library's message (%q):\n%s", s, stderr)
				}
			}
		})
	}
}

// TestServeSettingsAccepted: the settings checks let good values through:
// addresses with and without a host, IPv6 in brackets, port 0; a PKCS#8
// RSA key as well as GitHub's PKCS#1 one; a work directory that exists.
func TestServeSettingsAccepted(t *testing.T) {
	der, err := x509.MarshalPKCS8PrivateKey(serveKey())
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	for _, tc := range []struct {
		name, key string
		args      []string
	}{
		{"PKCS#1 key, default address", keyPEM(), nil},
		{"PKCS#8 key", pkcs8, []string{"--listen", "127.0.0.1:0"}},
		{"IPv6 address", keyPEM(), []string{"--listen", "[::1]:8080"}},
		{"host name and highest port", keyPEM(), []string{"--listen", "localhost:65535", "--work-dir", t.TempDir()}},
		{"port only", keyPEM(), []string{"--listen", ":0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearServeEnv(t)
			t.Setenv("SWARM_GATE_WEBHOOK_SECRET", "s")
			t.Setenv("SWARM_GATE_APP_ID", "1")
			t.Setenv("SWARM_GATE_PRIVATE_KEY", tc.key)
			var stderr bytes.Buffer
			cfg, code := serveFlags(tc.args, &bytes.Buffer{}, &stderr)
			if cfg == nil {
				t.Fatalf("serveFlags refused (exit %d):\n%s", code, stderr.String())
			}
			if !cfg.privateKey.Equal(serveKey()) {
				t.Error("the key read is not the key given")
			}
		})
	}
}

// TestServeWorkDirNotWritable: a work directory in which nothing can be
// made is refused at start-up, exit 3.
func TestServeWorkDirNotWritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	if probe, err := os.MkdirTemp(dir, "probe-*"); err == nil {
		os.Remove(probe)
		t.Skip("this user can write in a directory of mode 0500 (root): no unwritable directory to test with")
	}
	clearServeEnv(t)
	t.Setenv("SWARM_GATE_WEBHOOK_SECRET", "s")
	t.Setenv("SWARM_GATE_APP_ID", "1")
	t.Setenv("SWARM_GATE_PRIVATE_KEY", keyPEM())
	code, _, stderr := runCLI(t, "serve", "--work-dir", dir)
	if want := "SWARM_GATE_WORK_DIR (--work-dir): \"" + dir + "\" is not writable (permission denied)"; code != exitUsage || strings.Count(stderr, want) != 1 {
		t.Errorf("exit %d, want %d, with %q once:\n%s", code, exitUsage, want, stderr)
	}
}

// TestServeListenFails: an address that parses but cannot be bound (taken,
// or not one of this machine's) stops serve with exit code 2, naming the
// setting, before it asks GitHub anything (and so before any worker
// starts).
func TestServeListenFails(t *testing.T) {
	var calls atomic.Int32
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "not now", http.StatusInternalServerError)
	}))
	defer gh.Close()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct{ name, addr, why string }{
		{"address taken", taken.Addr().String(), "address already in use"},
		{"address not local", "192.0.2.1:0", "cannot assign requested address"}, // TEST-NET-1
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			clearServeEnv(t)
			t.Setenv("SWARM_GATE_WEBHOOK_SECRET", "s")
			t.Setenv("SWARM_GATE_APP_ID", "1")
			t.Setenv("SWARM_GATE_PRIVATE_KEY", keyPEM())
			t.Setenv("SWARM_GATE_GITHUB_API_URL", gh.URL)
			code, _, stderr := runCLI(t, "serve", "--listen", tc.addr, "--work-dir", t.TempDir())
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			want := `SWARM_GATE_LISTEN (--listen) \"` + tc.addr + `\": cannot listen there: bind: ` + tc.why
			if n := strings.Count(stderr, want); n != 1 {
				t.Errorf("stderr says %s %d times, want once:\n%s", want, n, stderr)
			}
			if n := calls.Load(); n != 0 {
				t.Errorf("GitHub was called %d times before the address was bound", n)
			}
			for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if !json.Valid([]byte(line)) {
					t.Errorf("stderr line is not a JSON log record: %s", line)
				}
			}
		})
	}
}

// TestServeSettingsOnePass: every wrong setting is reported at once (the
// secret, the App id and the private key included), each once, before
// anything starts.
func TestServeSettingsOnePass(t *testing.T) {
	clearServeEnv(t)
	t.Setenv("SWARM_GATE_WEBHOOK_SECRET", "   ")
	t.Setenv("SWARM_GATE_PRIVATE_KEY", "not a key")
	t.Setenv("SWARM_GATE_LOG", "loud")
	missing := filepath.Join(t.TempDir(), "missing")
	code, _, stderr := runCLI(t, "serve", "--app-id", "zero", "--github-api-url", "https://github.com/", "--workers", "-2",
		"--listen", "host:port:extra", "--work-dir", missing)
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{
		"SWARM_GATE_WEBHOOK_SECRET: only white space",
		`SWARM_GATE_APP_ID (--app-id): "zero" is not a positive number`,
		"SWARM_GATE_PRIVATE_KEY: not a PEM-encoded RSA private key",
		`SWARM_GATE_GITHUB_API_URL "https://github.com/": that is the web site, not the API`,
		`SWARM_GATE_WORKERS (--workers): "-2" is not a whole number >= 0`,
		`SWARM_GATE_LOG: "loud" is not a log level`,
		`SWARM_GATE_LISTEN (--listen): "host:port:extra" is not HOST:PORT`,
		`SWARM_GATE_WORK_DIR (--work-dir): "` + missing + `" does not exist`,
	} {
		if n := strings.Count(stderr, want); n != 1 {
			t.Errorf("stderr says %q %d times, want once:\n%s", want, n, stderr)
		}
	}
	if n := strings.Count(stderr, "cannot start"); n != 1 {
		t.Errorf("\"cannot start\" %d times, want once:\n%s", n, stderr)
	}
}

// TestServeRedeliverFailedIsASwitch: --redeliver-failed takes no value
// (the next argument stays a flag), --redeliver-failed=false turns off
// SWARM_GATE_REDELIVER_FAILED=true.
func TestServeRedeliverFailedIsASwitch(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  string
		args []string
		want bool
	}{
		{"switch before another flag", "", []string{"--redeliver-failed", "--listen", "127.0.0.1:9999"}, true},
		{"switch last", "", []string{"--listen", "127.0.0.1:9999", "--redeliver-failed"}, true},
		{"off by default", "", []string{"--listen", "127.0.0.1:9999"}, false},
		{"from the environment", "true", []string{"--listen", "127.0.0.1:9999"}, true},
		{"flag turns the variable off", "true", []string{"--redeliver-failed=false", "--listen", "127.0.0.1:9999"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearServeEnv(t)
			t.Setenv("SWARM_GATE_WEBHOOK_SECRET", "s")
			t.Setenv("SWARM_GATE_APP_ID", "1")
			t.Setenv("SWARM_GATE_PRIVATE_KEY", keyPEM())
			t.Setenv("SWARM_GATE_REDELIVER_FAILED", tc.env)
			var stderr bytes.Buffer
			cfg, code := serveFlags(tc.args, &bytes.Buffer{}, &stderr)
			if cfg == nil {
				t.Fatalf("serveFlags refused (exit %d):\n%s", code, stderr.String())
			}
			if cfg.redeliverFailed != tc.want || cfg.listen != "127.0.0.1:9999" {
				t.Errorf("redeliver %v, listen %q; want %v, 127.0.0.1:9999", cfg.redeliverFailed, cfg.listen, tc.want)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
// waitListening waits (up to 30 s) for serve's "listening" log record in
// stderr and returns its address; it fails the test when serve exits
// first or does not start.
func waitListening(t *testing.T, stderr *syncBuffer, exited <-chan int) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case code := <-exited:
			t.Fatalf("serve exited %d before listening:\n%s", code, stderr.String())
		default:
		}
		if m := listeningRE.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listeningRE = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)

var metricsRE = regexp.MustCompile(`"msg":"serving /metrics","addr":"([^"]+)"`)

// TestServeEndToEnd runs `swarm-gate serve` against the fake GitHub: a
// signed pull_request synchronize delivery for the demo's phase pull
// request ends with its check runs completed; cancelling the context (as
// SIGTERM does) drains and exits 0; the logs are JSON and hold no secret.
func TestServeEndToEnd(t *testing.T) {
	for _, mode := range []string{"inprocess", "process"} {
		t.Run(mode, func(t *testing.T) { testServeEndToEnd(t, mode) })
	}
}

// testServeEndToEnd evaluates one delivery with SWARM_GATE_EVALUATOR=mode;
// "process" runs the evaluator child as this test binary (TestMain).
func testServeEndToEnd(t *testing.T, mode string) {
	const appID, installation, repo = 31, 5, "Codertocat/Hello-World"
	fake := ghfake.New(t)
	dir := t.TempDir()
	base, head, err := demo.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	fake.RegisterApp(appID, "swarm-gate", &serveKey().PublicKey)
	fake.AddInstallation(appID, installation)
	fake.ServeGit(repo, dir)

	secret := "serve secret " + t.Name()
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	if err := os.WriteFile(keyFile, []byte(keyPEM()), 0o600); err != nil {
		t.Fatal(err)
	}
	clearServeEnv(t)
	t.Setenv("SWARM_GATE_WEBHOOK_SECRET", secret)
	t.Setenv("SWARM_GATE_APP_ID", "31")
	t.Setenv("SWARM_GATE_PRIVATE_KEY_PATH", keyFile)
	t.Setenv("SWARM_GATE_GITHUB_API_URL", fake.URL)
	const metricsToken = "metrics token for the test"
	t.Setenv("SWARM_GATE_METRICS_TOKEN", metricsToken)
	t.Setenv("SWARM_GATE_EVALUATOR", mode)
	// The evaluator child, this test binary, runs main.
	t.Setenv("SWARM_GATE_TEST_MAIN", "1")
	// The App's metrics of the evaluations are labelled in process mode.
	evalLabel := ""
	if mode == "process" {
		evalLabel = `{process="evaluator"}`
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--workers", "2", "--work-dir", t.TempDir(), "--shutdown-delay", "0s"}, &bytes.Buffer{}, &stderr)
	}()
	addr := waitListening(t, &stderr, exited)
	m := metricsRE.FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no \"serving /metrics\" line:\n%s", stderr.String())
	}
	metricsAddr := m[1]
	if resp, err := http.Get("http://" + addr + "/metrics"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /metrics on the webhook port: %v %v, want 404", resp, err)
	}
	if resp, err := http.Get("http://" + metricsAddr + "/metrics"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /metrics without the token: %v %v, want 401", resp, err)
	}

	data, err := os.ReadFile("../../../shared/github/webhooks/pull_request/synchronize.json")
	if err != nil {
		sharedtest.Skip(t, "GitHub's example payloads are not available: %v", err)
	}
	var p map[string]any
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	pr := p["pull_request"].(map[string]any)
	pr["base"].(map[string]any)["sha"], pr["base"].(map[string]any)["ref"] = base, demo.BaseBranch
	pr["head"].(map[string]any)["sha"], pr["head"].(map[string]any)["ref"] = head, demo.HeadBranch
	pr["head"].(map[string]any)["repo"].(map[string]any)["full_name"] = repo
	p["repository"].(map[string]any)["full_name"] = repo
	p["repository"].(map[string]any)["clone_url"] = fake.WebURL + "/" + repo + ".git"
	p["installation"] = map[string]any{"id": installation, "node_id": "x"}
	body, _ := json.Marshal(p)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	for _, tc := range []struct {
		sig  string
		want int
	}{{"sha256=" + strings.Repeat("0", 64), http.StatusUnauthorized}, {"sha256=" + hex.EncodeToString(mac.Sum(nil)), http.StatusAccepted}} {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(body))
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set("X-GitHub-Delivery", "serve-1")
		req.Header.Set("X-Hub-Signature-256", tc.sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Fatalf("delivery with signature %.15s… answered %d, want %d", tc.sig, resp.StatusCode, tc.want)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		done := false
		for _, cr := range fake.CheckRuns(repo) {
			done = done || (cr.Name == "swarm-gate" && cr.Status == "completed")
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the aggregate check run was not completed:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The evaluation's API calls are observed when it returns, just after
	// the aggregate is completed.
	var metrics string
	for !strings.Contains(metrics, "swarm_gate_evaluation_api_calls_count"+evalLabel+" 1") {
		if time.Now().After(deadline) {
			t.Fatalf("/metrics never counted the evaluation's API calls:\n%s", metrics)
		}
		req, _ := http.NewRequest(http.MethodGet, "http://"+metricsAddr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+metricsToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		resp.Body.Close()
		metrics = b.String()
		time.Sleep(10 * time.Millisecond)
	}
	posts := `swarm_gate_api_calls_total{method="POST"}`
	if mode == "process" {
		posts = `swarm_gate_api_calls_total{method="POST",process="evaluator"}`
	}
	for _, want := range []string{posts, "swarm_gate_rate_limit_remaining", "swarm_gate_deliveries_total", "go_goroutines"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, metrics)
		}
	}

	cancel()
	select {
	case code := <-exited:
		if code != 0 {
			t.Errorf("serve exited %d after the context was cancelled, want 0", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after the context was cancelled")
	}
	runs := fake.CheckRuns(repo)
	if len(runs) != 9 {
		t.Errorf("%d check runs, want 9", len(runs))
	}
	for _, cr := range runs {
		if cr.Status != "completed" || cr.HeadSHA != head {
			t.Errorf("%s@%.7s is %s", cr.Name, cr.HeadSHA, cr.Status)
		}
	}
	logs := stderr.String()
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("log line is not JSON: %s", line)
		}
	}
	secrets := []string{secret, "PRIVATE KEY"}
	for _, tok := range fake.InstallationTokens() {
		secrets = append(secrets, tok.Token)
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("the logs hold a secret (%.12s…)", s)
		}
	}
	wantLogs := []string{`"msg":"stopping: no new deliveries; draining the queue"`, `"msg":"stopped"`, `"msg":"evaluation finished"`}
	if mode == "process" {
		// The child's records reach the server's log; it stops with it.
		wantLogs = append(wantLogs, `"msg":"evaluations run in a child process (SWARM_GATE_EVALUATOR=process)"`, `"process":"evaluator"`,
			`"msg":"evaluator process started"`)
		if strings.Contains(logs, "the evaluator process exited") {
			t.Error("the evaluator process's exit at shutdown was logged as a crash")
		}
	}
	for _, want := range wantLogs {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s", want)
		}
	}
}

// TestServeRefusedCredentials: GitHub refusing the App's JWT at start-up
// (the App id is not the key's) stops serve with exit code 2 and says
// which settings to check.
func TestServeRefusedCredentials(t *testing.T) {
	fake := ghfake.New(t)
	fake.RegisterApp(31, "swarm-gate", &serveKey().PublicKey)
	clearServeEnv(t)
	t.Setenv("SWARM_GATE_WEBHOOK_SECRET", "x")
	t.Setenv("SWARM_GATE_PRIVATE_KEY", keyPEM())
	t.Setenv("SWARM_GATE_GITHUB_API_URL", fake.URL)
	code, _, stderr := runCLI(t, "serve", "--app-id", "32", "--listen", "127.0.0.1:0")
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	// Once: as the JSON log record, the only thing on stderr.
	if n := strings.Count(stderr, "GitHub refused the App's JWT (401): check SWARM_GATE_APP_ID (32)"); n != 1 {
		t.Errorf("the error is on stderr %d times, want once:\n%s", n, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("stderr line is not a JSON log record: %s", line)
		}
	}
}

// TestAppManifest: app.yml asks for exactly the permissions swarm-gate
// uses and subscribes to the events the server acts on.
func TestAppManifest(t *testing.T) {
	data, err := os.ReadFile("../../app.yml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name           string            `yaml:"name"`
		Public         bool              `yaml:"public"`
		HookAttributes map[string]any    `yaml:"hook_attributes"`
		Permissions    map[string]string `yaml:"default_permissions"`
		Events         []string          `yaml:"default_events"`
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatalf("app.yml: %v", err)
	}
	wantPerms := map[string]string{"checks": "write", "contents": "write", "pull_requests": "write", "issues": "write", "metadata": "read",
		"merge_queues": "read", // without it GitHub does not let the App subscribe to merge_group
		"members":      "read", // organization: team lists in commands.teams
	}
	if !reflect.DeepEqual(m.Permissions, wantPerms) {
		t.Errorf("default_permissions %v, want %v", m.Permissions, wantPerms)
	}
	if want := []string{"check_run", "check_suite", "issue_comment", "merge_group", "pull_request"}; !reflect.DeepEqual(m.Events, want) {
		t.Errorf("default_events %v, want %v", m.Events, want)
	}
	if u, _ := m.HookAttributes["url"].(string); !strings.HasSuffix(u, "/webhook") || m.Name == "" || m.Public {
		t.Errorf("hook url %q, name %q, public %v: want the server's /webhook, a name, a private App", u, m.Name, m.Public)
	}
}

// TestServeShutdown: on SIGTERM (the context cancelled) /readyz answers
// 503 at once while deliveries are still taken for the shutdown delay;
// then the queue drains until the shutdown timeout, the running evaluation
// is cancelled (its check runs completed as failure), the waiting ones
// are dropped with their aggregate check run completed as failure saying
// how to re-run, and serve exits 1.
func TestServeShutdown(t *testing.T) {
	const appID, installation, repo = 31, 5, "Codertocat/Hello-World"
	fake := ghfake.New(t)
	dir := t.TempDir()
	base, head, err := demo.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	fake.RegisterApp(appID, "swarm-gate", &serveKey().PublicKey)
	fake.AddInstallation(appID, installation)
	fake.ServeGit(repo, dir)
	fake.SetLatency(150 * time.Millisecond) // a slow GitHub: the evaluation is still running at SIGTERM

	secret := "serve secret " + t.Name()
	clearServeEnv(t)
	t.Setenv("SWARM_GATE_WEBHOOK_SECRET", secret)
	t.Setenv("SWARM_GATE_APP_ID", "31")
	t.Setenv("SWARM_GATE_PRIVATE_KEY", keyPEM())
	t.Setenv("SWARM_GATE_GITHUB_API_URL", fake.URL)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--workers", "1", "--work-dir", t.TempDir(),
			"--shutdown-delay", "500ms", "--shutdown-timeout", "200ms"}, &bytes.Buffer{}, &stderr)
	}()
	addr := waitListening(t, &stderr, exited)
	deliver := func(event, id string, p map[string]any) int {
		body, _ := json.Marshal(p)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(body))
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", id)
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	common := func(p map[string]any) map[string]any {
		p["repository"] = map[string]any{"full_name": repo, "clone_url": fake.WebURL + "/" + repo + ".git"}
		p["installation"] = map[string]any{"id": installation}
		return p
	}
	push := common(map[string]any{"action": "synchronize", "number": 2, "pull_request": map[string]any{"number": 2,
		"head": map[string]any{"sha": head, "ref": demo.HeadBranch, "repo": map[string]any{"full_name": repo}},
		"base": map[string]any{"sha": base, "ref": demo.BaseBranch, "repo": map[string]any{"full_name": repo}}}})
	queued := func(sha string) map[string]any {
		return common(map[string]any{"action": "checks_requested", "merge_group": map[string]any{"head_sha": sha, "base_sha": base,
			"head_ref": "refs/heads/gh-readonly-queue/main/pr-2-" + base, "base_ref": "refs/heads/main"}})
	}
	mg1, mg2 := strings.Repeat("1", 40), strings.Repeat("2", 40)
	if code := deliver("pull_request", "d-push", push); code != http.StatusAccepted {
		t.Fatalf("d-push answered %d", code)
	}
	if code := deliver("merge_group", "d-queue-1", queued(mg1)); code != http.StatusAccepted {
		t.Fatalf("d-queue-1 answered %d", code)
	}
	cancel() // SIGTERM
	for !strings.Contains(stderr.String(), `"msg":"stopping: /readyz answers 503`) {
		time.Sleep(5 * time.Millisecond)
	}
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the shutdown delay answered %d, want 503", resp.StatusCode)
	}
	if code := deliver("merge_group", "d-queue-2", queued(mg2)); code != http.StatusAccepted {
		t.Errorf("a delivery during the shutdown delay answered %d, want 202", code)
	}
	select {
	case code := <-exited:
		if code != 1 {
			t.Errorf("serve exited %d, want 1 (evaluations were cancelled and dropped)", code)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not stop")
	}
	failed := map[string]bool{}
	for _, cr := range fake.CheckRuns(repo) {
		if cr.Status != "completed" {
			t.Errorf("%s@%.7s is %s", cr.Name, cr.HeadSHA, cr.Status)
		}
		if cr.Name == "swarm-gate" && cr.Conclusion == "failure" && strings.Contains(cr.Summary, "did not evaluate it: the swarm-gate server shut down") &&
			strings.Contains(cr.Summary, "/swarm recheck") {
			failed[cr.HeadSHA] = true
		}
	}
	if !failed[mg1] || !failed[mg2] {
		t.Errorf("the dropped merge groups' aggregates failed: %v, want both %.7s and %.7s", failed, mg1, mg2)
	}
	if !strings.Contains(stderr.String(), `"msg":"stopped","exit_code":1`) {
		t.Errorf("the last log record does not give exit code 1:\n%s", stderr.String())
	}
}
