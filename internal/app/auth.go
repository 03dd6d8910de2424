package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// LoadPrivateKey returns the App's private key (PEM) from exactly one of a
// file path (SWARM_GATE_PRIVATE_KEY_PATH) and a value
// (SWARM_GATE_PRIVATE_KEY, the PEM text itself; "\n" escapes are turned
// into newlines, as some secret stores keep one line). The key is checked
// to be an RSA private key, PKCS#1 ("RSA PRIVATE KEY", what GitHub gives)
// or PKCS#8 ("PRIVATE KEY"). Errors start with the setting, say in plain
// words what was given instead, and never quote the key nor the parsers'
// messages.
func LoadPrivateKey(path, value string) (*rsa.PrivateKey, error) {
	var pemBytes []byte
	var from string
	switch {
	case path != "" && value != "":
		return nil, errors.New("SWARM_GATE_PRIVATE_KEY_PATH (--private-key-path) and SWARM_GATE_PRIVATE_KEY: both are set: set only one")
	case path != "":
		from = "SWARM_GATE_PRIVATE_KEY_PATH (" + path + ")"
		b, err := os.ReadFile(path)
		if err != nil {
			why := err
			if u := errors.Unwrap(err); u != nil {
				why = u
			}
			return nil, fmt.Errorf("%s: cannot read the App's private key: %v", from, why)
		}
		pemBytes = b
	case value != "":
		from = "SWARM_GATE_PRIVATE_KEY"
		if !strings.Contains(value, "\n") {
			value = strings.ReplaceAll(value, `\n`, "\n")
		}
		pemBytes = []byte(value)
	default:
		return nil, errors.New("SWARM_GATE_PRIVATE_KEY_PATH (--private-key-path) and SWARM_GATE_PRIVATE_KEY: neither is set: set SWARM_GATE_PRIVATE_KEY_PATH to the .pem file GitHub generated for the App (App settings > Private keys), or SWARM_GATE_PRIVATE_KEY to its contents")
	}
	key, why := parseRSAPrivateKey(pemBytes, from == "SWARM_GATE_PRIVATE_KEY")
	if why != "" {
		return nil, fmt.Errorf("%s: %s", from, why)
	}
	return key, nil
}

// newKeyHint ends the messages about a key of the wrong kind.
const newKeyHint = "a GitHub App's key is RSA (download a new one from the App's settings, Private keys)"

// parseRSAPrivateKey reads the first PEM block of b as an RSA private key.
// Otherwise it returns why not, in words that hold nothing of b but the
// block's type.
func parseRSAPrivateKey(b []byte, isValue bool) (*rsa.PrivateKey, string) {
	block, _ := pem.Decode(b)
	if block == nil {
		text := strings.TrimSpace(string(b))
		switch {
		case text == "":
			return nil, "empty: not a PEM-encoded RSA private key"
		case strings.HasPrefix(text, "ssh-rsa ") || strings.HasPrefix(text, "ssh-ed25519 ") || strings.HasPrefix(text, "ecdsa-sha2-"):
			return nil, "an SSH public key, not the App's private key: " + newKeyHint
		case isValue && !strings.Contains(text, "\n") && (strings.HasPrefix(text, "/") || strings.HasSuffix(text, ".pem")):
			return nil, "not a PEM-encoded RSA private key; it looks like a file name: give the file's path in SWARM_GATE_PRIVATE_KEY_PATH instead, or its contents here"
		}
		return nil, "not a PEM-encoded RSA private key (no \"BEGIN RSA PRIVATE KEY\" line): use the .pem file GitHub generated for the App"
	}
	if strings.Contains(block.Headers["Proc-Type"], "ENCRYPTED") || block.Type == "ENCRYPTED PRIVATE KEY" {
		return nil, "an encrypted private key: give the App's key as GitHub generated it, not encrypted"
	}
	damaged := "a PEM block \"" + block.Type + "\" whose contents are not a valid RSA private key (damaged or cut short?): use the .pem file GitHub generated for the App"
	switch block.Type {
	case "RSA PRIVATE KEY", "PRIVATE KEY":
		// Either parser for either type, as the JWT library did.
		if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
			return k, ""
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			if _, ecErr := x509.ParseECPrivateKey(block.Bytes); ecErr == nil {
				return nil, "an EC private key; " + newKeyHint
			}
			return nil, damaged
		}
		switch k := k.(type) {
		case *rsa.PrivateKey:
			return k, ""
		case *ecdsa.PrivateKey:
			return nil, "an EC private key; " + newKeyHint
		case ed25519.PrivateKey:
			return nil, "an Ed25519 private key; " + newKeyHint
		}
		return nil, "a private key of another kind than RSA; " + newKeyHint
	case "EC PRIVATE KEY":
		return nil, "an EC private key; " + newKeyHint
	case "OPENSSH PRIVATE KEY":
		return nil, "an OpenSSH private key, not the App's private key: " + newKeyHint
	case "DSA PRIVATE KEY":
		return nil, "a DSA private key; " + newKeyHint
	case "PUBLIC KEY", "RSA PUBLIC KEY", "EC PUBLIC KEY", "SSH2 PUBLIC KEY":
		return nil, "a PEM public key, not the App's private key: use the .pem file GitHub generated for the App (App settings > Private keys)"
	case "CERTIFICATE", "TRUSTED CERTIFICATE", "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST":
		return nil, "a certificate, not the App's private key: use the .pem file GitHub generated for the App (App settings > Private keys)"
	}
	t := block.Type
	if len(t) > 40 || strings.ContainsFunc(t, func(r rune) bool { return r < ' ' || r > '~' }) {
		return nil, "a PEM block of an unknown type, not an RSA private key: use the .pem file GitHub generated for the App"
	}
	return nil, "a PEM block \"" + t + "\", not an RSA private key: use the .pem file GitHub generated for the App"
}

// CheckAPIURL checks SWARM_GATE_GITHUB_API_URL as New does ("" is
// github.com's API), for a start-up check of every setting at once. The
// error names the variable and says what to give.
func CheckAPIURL(raw string) error {
	_, _, err := apiRoots(raw)
	return err
}

// apiRoots checks the configured API URL (SWARM_GATE_GITHUB_API_URL) as
// ghapi.ParseBaseURL does and returns the API root without a trailing
// slash and the web root the repositories live under; the error names the
// setting.
func apiRoots(raw string) (api, web string, err error) {
	r, err := ghapi.ParseBaseURL(raw)
	if err != nil {
		why := err.Error()
		var be *ghapi.BaseURLError
		if errors.As(err, &be) {
			why = be.Why
		}
		return "", "", fmt.Errorf("SWARM_GATE_GITHUB_API_URL %q: %s; want %s", raw, why, ghapi.WantBaseURL)
	}
	return r.API, r.Web, nil
}

// auth holds the App's credentials and the transports made from them: one
// for App-level calls (signed with a fresh JWT each), and one token
// source per installation (ghinstallation keeps the token until a minute
// before it expires).
type auth struct {
	appID   int64
	key     *rsa.PrivateKey
	apiRoot string
	// mint sends the access-token requests (retried as any API call);
	// appCalls the other App-level calls.
	mint     http.RoundTripper
	appCalls http.RoundTripper

	mu            sync.Mutex
	installations map[int64]*ghinstallation.Transport
}

func newAuth(appID int64, key *rsa.PrivateKey, apiRoot string, base http.RoundTripper, m *metrics, opts transportOptions) *auth {
	a := &auth{appID: appID, key: key, apiRoot: apiRoot, installations: map[int64]*ghinstallation.Transport{}}
	a.mint = &resendOn5xx{next: opts.rateLimited(&counting{next: base, m: m, limit: appLimit}), sleep: opts.sleep}
	jwtSigned := ghinstallation.NewAppsTransportFromPrivateKey(base, appID, key)
	jwtSigned.BaseURL = apiRoot
	a.appCalls = opts.rateLimited(&counting{next: jwtSigned, m: m, limit: appLimit})
	return a
}

// installation returns the token source of an installation.
func (a *auth) installation(id int64) *ghinstallation.Transport {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t := a.installations[id]; t != nil {
		return t
	}
	atr := ghinstallation.NewAppsTransportFromPrivateKey(a.mint, a.appID, a.key)
	atr.BaseURL = a.apiRoot
	t := ghinstallation.NewFromAppsTransport(atr, id)
	t.BaseURL = a.apiRoot
	// Without options ghinstallation sends the body "null", which the API
	// description does not allow; "{}" asks for the installation's
	// repositories and permissions, as no body does.
	t.InstallationTokenOptions = &github.InstallationTokenOptions{}
	a.installations[id] = t
	return t
}

// token returns a live installation token, minting one when needed.
// Errors say which installation and what to check, never the token.
func (a *auth) token(ctx context.Context, installation int64) (string, error) {
	tok, err := a.installation(installation).Token(ctx)
	if err != nil {
		var he *ghinstallation.HTTPError
		if errors.As(err, &he) && he.Response != nil {
			switch he.Response.StatusCode {
			case http.StatusUnauthorized:
				return "", fmt.Errorf("minting an installation token for installation %d: GitHub refused the App's JWT (401): check SWARM_GATE_APP_ID (%d) and that the private key is the App's current one", installation, a.appID)
			case http.StatusNotFound:
				return "", fmt.Errorf("minting an installation token for installation %d: GitHub does not know this installation of App %d (404): the App was uninstalled, or SWARM_GATE_APP_ID names another App", installation, a.appID)
			case http.StatusForbidden:
				return "", fmt.Errorf("minting an installation token for installation %d: refused (403): the installation may be suspended", installation)
			}
		}
		return "", fmt.Errorf("minting an installation token for installation %d: %w", installation, err)
	}
	return tok, nil
}

// appClient is a go-github client authenticated as the App (JWT), for the
// App-level endpoints (GET /app, hook deliveries).
func (a *auth) appClient() (*github.Client, error) {
	gh := github.NewClient(&http.Client{Transport: a.appCalls})
	if a.apiRoot != "https://api.github.com" {
		var err error
		if gh, err = gh.WithEnterpriseURLs(a.apiRoot+"/", a.apiRoot+"/"); err != nil {
			return nil, fmt.Errorf("SWARM_GATE_GITHUB_API_URL %q: %w", a.apiRoot, err)
		}
	}
	gh.UserAgent = "swarm-gate"
	return gh, nil
}

// resendOn5xx resends a request that got 502, 503 or 504, or whose
// connection broke or timed out (not the caller's context), at most three
// times in all, one second apart (doubling). It is for minting installation
// tokens: a POST, so ghapi's transport does not resend it, but one that is
// safe to repeat (a second token does no harm), and without a token the
// job can post nothing at all.
type resendOn5xx struct {
	next  http.RoundTripper
	sleep func(ctx context.Context, d time.Duration) error
}

func (r *resendOn5xx) RoundTrip(req *http.Request) (*http.Response, error) {
	wait := time.Second
	for attempt := 1; ; attempt++ {
		try := req.Clone(req.Context())
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			try.Body = body
		}
		resp, err := r.next.RoundTrip(try)
		if attempt >= 3 || (req.Body != nil && req.GetBody == nil) || req.Context().Err() != nil {
			return resp, err
		}
		if err == nil {
			if resp.StatusCode != http.StatusBadGateway && resp.StatusCode != http.StatusServiceUnavailable && resp.StatusCode != http.StatusGatewayTimeout {
				return resp, nil
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
		}
		sleep := r.sleep
		if sleep == nil {
			sleep = sleepCtx
		}
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		wait *= 2
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
