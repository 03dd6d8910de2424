package app

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
// escapes too), PKCS#1 (GitHub's) or PKCS#8; errors start with the
// setting, say in plain words what was given instead of the App's RSA
// private key, and quote neither the key nor the parsers' messages.
func TestLoadPrivateKey(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	encode := func(typ string, der []byte) string {
		return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
	}
	must := func(der []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return der
	}
	p := encode("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(k))
	dir := t.TempDir()
	file := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(file, []byte(p), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(p, "MII", "XXX", 1)
	pkcs8 := encode("PRIVATE KEY", must(x509.MarshalPKCS8PrivateKey(k)))
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	certDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(1), NotAfter: time.Now().Add(time.Hour)},
		&x509.Certificate{SerialNumber: big.NewInt(1)}, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	encrypted := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-128-CBC,00000000000000000000000000000000"},
		Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	publicFile := filepath.Join(dir, "public.pem")
	if err := os.WriteFile(publicFile, []byte(encode("PUBLIC KEY", must(x509.MarshalPKIXPublicKey(&k.PublicKey)))), 0o600); err != nil {
		t.Fatal(err)
	}
	emptyFile := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(emptyFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	const ecWhy = ": an EC private key; a GitHub App's key is RSA (download a new one from the App's settings"
	cases := []struct {
		name, path, value, err string
	}{
		{"file", file, "", ""},
		{"value", "", p, ""},
		{"one-line value", "", strings.ReplaceAll(p, "\n", `\n`), ""},
		{"PKCS#8 RSA", "", pkcs8, ""},
		{"PKCS#8 RSA labelled PKCS#1", "", strings.ReplaceAll(pkcs8, "PRIVATE KEY", "RSA PRIVATE KEY"), ""},
		{"neither", "", "", "SWARM_GATE_PRIVATE_KEY_PATH (--private-key-path) and SWARM_GATE_PRIVATE_KEY: neither is set: set SWARM_GATE_PRIVATE_KEY_PATH to the .pem file"},
		{"both", file, p, "SWARM_GATE_PRIVATE_KEY_PATH (--private-key-path) and SWARM_GATE_PRIVATE_KEY: both are set: set only one"},
		{"missing file", file + ".nope", "", "SWARM_GATE_PRIVATE_KEY_PATH (" + file + ".nope): cannot read the App's private key: no such file or directory"},
		{"directory", dir, "", "SWARM_GATE_PRIVATE_KEY_PATH (" + dir + "): cannot read the App's private key: is a directory"},
		{"empty file", emptyFile, "", "SWARM_GATE_PRIVATE_KEY_PATH (" + emptyFile + "): empty: not a PEM-encoded RSA private key"},
		{"damaged key", "", broken, "SWARM_GATE_PRIVATE_KEY: a PEM block \"RSA PRIVATE KEY\" whose contents are not a valid RSA private key (damaged or cut short?)"},
		{"not PEM", "", "hello", "SWARM_GATE_PRIVATE_KEY: not a PEM-encoded RSA private key (no \"BEGIN RSA PRIVATE KEY\" line)"},
		{"a file name as the value", "", "app.pem", "SWARM_GATE_PRIVATE_KEY: not a PEM-encoded RSA private key; it looks like a file name"},
		{"PKIX public key", publicFile, "", "SWARM_GATE_PRIVATE_KEY_PATH (" + publicFile + "): a PEM public key, not the App's private key"},
		{"PKCS#1 public key", "", encode("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&k.PublicKey)), "SWARM_GATE_PRIVATE_KEY: a PEM public key, not the App's private key"},
		{"SSH public key", "", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB user@host", "SWARM_GATE_PRIVATE_KEY: an SSH public key, not the App's private key"},
		{"EC key (SEC 1)", "", encode("EC PRIVATE KEY", must(x509.MarshalECPrivateKey(ec))), "SWARM_GATE_PRIVATE_KEY" + ecWhy},
		{"EC key (PKCS#8)", "", encode("PRIVATE KEY", must(x509.MarshalPKCS8PrivateKey(ec))), "SWARM_GATE_PRIVATE_KEY" + ecWhy},
		{"Ed25519 key", "", encode("PRIVATE KEY", must(x509.MarshalPKCS8PrivateKey(ed))), "SWARM_GATE_PRIVATE_KEY: an Ed25519 private key; a GitHub App's key is RSA"},
		{"OpenSSH key", "", encode("OPENSSH PRIVATE KEY", []byte("openssh-key-v1\x00")), "SWARM_GATE_PRIVATE_KEY: an OpenSSH private key, not the App's private key"},
		{"certificate", "", encode("CERTIFICATE", certDER), "SWARM_GATE_PRIVATE_KEY: a certificate, not the App's private key"},
		{"encrypted key", "", encrypted, "SWARM_GATE_PRIVATE_KEY: an encrypted private key"},
		{"other block", "", encode("X509 CRL", []byte{1, 2, 3}), "SWARM_GATE_PRIVATE_KEY: a PEM block \"X509 CRL\", not an RSA private key"},
	}
	for _, tc := range cases {
		got, err := LoadPrivateKey(tc.path, tc.value)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want it to start with %q", tc.name, err, tc.err)
				continue
			}
			// Neither key material nor the libraries' own words.
			body := strings.Split(strings.TrimSpace(tc.value), "\n")
			for _, s := range []string{"-----", "asn1", "x509", "ParseECPrivateKey", "structure error", "open /", "read /"} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("%s: the error holds %q: %v", tc.name, s, err)
				}
			}
			if len(body) > 2 && len(body[1]) >= 16 && strings.Contains(err.Error(), body[1][:16]) {
				t.Errorf("%s: the error quotes the key: %v", tc.name, err)
			}
			continue
		}
		if err != nil || !got.Equal(k) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
