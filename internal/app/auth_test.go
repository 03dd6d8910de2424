package app

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newTextLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
}

// TestAPIRoots: SWARM_GATE_GITHUB_API_URL gives the API root and the web
// host the repositories are fetched from.
func TestAPIRoots(t *testing.T) {
	cases := []struct {
		in, api, web, err string
	}{
		{"", "https://api.github.com", "https://github.com", ""},
		{"https://api.github.com/", "https://api.github.com", "https://github.com", ""},
		{"https://ghe.example/api/v3/", "https://ghe.example/api/v3", "https://ghe.example", ""},
		{"https://ghe.example", "https://ghe.example/api/v3", "https://ghe.example", ""},
		{"http://127.0.0.1:8080/api/v3", "http://127.0.0.1:8080/api/v3", "http://127.0.0.1:8080", ""},
		{"https://api.octo.ghe.com/", "https://api.octo.ghe.com", "https://octo.ghe.com", ""},
		{"https://github.com/", "", "", "that is the web site, not the API"},
		{"ftp://ghe.example/", "", "", "the scheme must be https"},
		{"https://user:pw@ghe.example/api/v3", "", "", "credentials do not belong in the URL"},
		{"https://ghe.example/api/v4", "", "", "the path must be empty or /api/v3"},
	}
	for _, tc := range cases {
		api, web, err := apiRoots(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "SWARM_GATE_GITHUB_API_URL") {
				t.Errorf("%q: error %v, want %q naming the setting", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || api != tc.api || web != tc.web {
			t.Errorf("%q: %q %q %v, want %q %q", tc.in, api, web, err, tc.api, tc.web)
		}
	}
}

// TestLoadPrivateKey: from a file or a value (one-line values with \n
// escapes too); errors name the setting and never quote the key.
func TestLoadPrivateKey(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	file := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(file, []byte(p), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(p, "MII", "XXX", 1)
	cases := []struct {
		name, path, value, err string
	}{
		{"file", file, "", ""},
		{"value", "", p, ""},
		{"one-line value", "", strings.ReplaceAll(p, "\n", `\n`), ""},
		{"neither", "", "", "no private key"},
		{"both", file, p, "set only one"},
		{"missing file", file + ".nope", "", "SWARM_GATE_PRIVATE_KEY_PATH"},
		{"not a key", "", broken, "SWARM_GATE_PRIVATE_KEY is not a PEM-encoded RSA private key"},
	}
	for _, tc := range cases {
		got, err := LoadPrivateKey(tc.path, tc.value)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "PRIVATE KEY-----") {
				t.Errorf("%s: the error quotes the key", tc.name)
			}
			continue
		}
		if err != nil || !got.Equal(k) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
