package ghfake

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	jwt "github.com/golang-jwt/jwt/v4"
)

// appState is the fake's GitHub Apps side: registered Apps (their public
// keys), their installations and the installation access tokens minted.
// Guarded by Server.mu.
type appState struct {
	apps          map[int64]*fakeApp
	installations map[int64]int64 // installation id -> app id
	tokens        map[string]*InstallationToken
	minted        []InstallationToken
	tokenTTL      time.Duration
	repos         map[int64][]string // installation id -> its repositories (installations.go)
	remaining     map[int64]int      // installation id -> core budget GET /rate_limit reports
}

type fakeApp struct {
	id   int64
	slug string
	key  *rsa.PublicKey
}

// InstallationToken is an installation access token the fake minted.
type InstallationToken struct {
	Token          string
	AppID          int64
	InstallationID int64
	ExpiresAt      time.Time
}

// jwtOperations are the operations GitHub authenticates with the App's
// JWT, not with a token.
var jwtOperations = map[string]bool{
	"apps/get-authenticated":                true,
	"apps/create-installation-access-token": true,
	"apps/get-repo-installation":            true,
	"apps/list-installations":               true,
}

// RegisterApp registers a GitHub App: its id (the JWT's iss), its slug
// (its bot is "<slug>[bot]") and the public half of its private key, which
// every App JWT must be signed with (RS256).
func (s *Server) RegisterApp(id int64, slug string, key *rsa.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appInit()
	s.app.apps[id] = &fakeApp{id: id, slug: slug, key: key}
}

// AddInstallation installs App appID (registered with RegisterApp) as
// installation id: POST /app/installations/{id}/access_tokens then mints
// tokens for it.
func (s *Server) AddInstallation(appID, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appInit()
	s.app.installations[id] = appID
}

// SetTokenTTL sets the lifetime of the installation tokens minted from now
// on (GitHub's, and the default: one hour).
func (s *Server) SetTokenTTL(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appInit()
	s.app.tokenTTL = d
}

// InstallationTokens returns the installation access tokens minted so far,
// oldest first.
func (s *Server) InstallationTokens() []InstallationToken {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]InstallationToken(nil), s.app.minted...)
}

// appInit makes the maps. The caller holds s.mu.
func (s *Server) appInit() {
	if s.app.apps != nil {
		return
	}
	s.app = appState{apps: map[int64]*fakeApp{}, installations: map[int64]int64{}, tokens: map[string]*InstallationToken{}, tokenTTL: time.Hour,
		repos: map[int64][]string{}, remaining: map[int64]int{}}
}

// allowed is the fake's authentication: the App operations take a valid
// App JWT ("Bearer <jwt>"); every other operation takes Token or a live
// installation token ("Bearer" or "token" scheme).
func (s *Server) allowed(operation, header string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if jwtOperations[operation] {
		_, err := s.verifyJWT(header)
		if err != nil {
			s.t.Logf("ghfake: %s refused: %v", operation, err)
		}
		return err == nil
	}
	if authorized(header) {
		return true
	}
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !(strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "token")) {
		return false
	}
	return s.liveToken(tok)
}

// liveToken reports whether tok is an installation token the fake minted
// that has not expired. The caller holds s.mu.
func (s *Server) liveToken(tok string) bool {
	it := s.app.tokens[tok]
	return it != nil && time.Now().Before(it.ExpiresAt)
}

// verifyJWT checks an App JWT as GitHub does: RS256, signed with the key
// of the App named by iss, issued at or before now, expiring in the future
// and at most ten minutes after it was issued. It returns the App. The
// caller holds s.mu.
func (s *Server) verifyJWT(header string) (*fakeApp, error) {
	scheme, raw, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, errors.New("no Bearer JWT in the Authorization header")
	}
	var claims jwt.RegisteredClaims
	var app *fakeApp
	_, err := jwt.ParseWithClaims(raw, &claims, func(t *jwt.Token) (any, error) {
		if t.Method != jwt.SigningMethodRS256 {
			return nil, fmt.Errorf("JWT algorithm %v, want RS256", t.Header["alg"])
		}
		id, err := strconv.ParseInt(claims.Issuer, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("JWT iss %q is not an App id", claims.Issuer)
		}
		app = s.app.apps[id]
		if app == nil {
			return nil, fmt.Errorf("JWT iss %d is not a registered App", id)
		}
		return app.key, nil
	})
	if err != nil {
		return nil, fmt.Errorf("invalid App JWT: %w", err)
	}
	switch {
	case claims.ExpiresAt == nil || claims.IssuedAt == nil:
		return nil, errors.New("the App JWT lacks exp or iat")
	case claims.ExpiresAt.Sub(claims.IssuedAt.Time) > 10*time.Minute:
		return nil, errors.New("the App JWT's exp is more than 10 minutes after its iat")
	}
	return app, nil
}

func (s *Server) getApp(r *request) (int, any) {
	app, err := s.verifyJWT(r.Header.Get("Authorization"))
	if err != nil {
		return http.StatusUnauthorized, errorBody("A JSON web token could not be decoded", "")
	}
	m := s.integrationJSON(app.id, app.slug)
	m["permissions"] = map[string]any{"checks": "write", "contents": "write", "pull_requests": "write", "issues": "write", "metadata": "read"}
	m["events"] = []any{"check_run", "check_suite", "issue_comment", "merge_group", "pull_request"}
	return http.StatusOK, m
}

// integrationJSON is an App as GitHub returns it (the "integration"
// schema), built on the description's own example.
func (s *Server) integrationJSON(id int64, slug string) map[string]any {
	m := s.spec.example("integration")
	m["id"] = id
	m["slug"] = slug
	m["name"] = slug
	m["html_url"] = s.WebURL + "/apps/" + slug
	return m
}

// tokenApp is the App an Authorization header's token acts as: the App of
// an installation token, else (Token) TokenAppID. The caller holds s.mu.
func (s *Server) tokenApp(header string) (id int64, slug string) {
	_, tok, _ := strings.Cut(header, " ")
	if it := s.app.tokens[tok]; it != nil {
		if app := s.app.apps[it.AppID]; app != nil {
			return app.id, app.slug
		}
	}
	return TokenAppID, TokenAppSlug
}

func (s *Server) createInstallationToken(r *request) (int, any) {
	app, err := s.verifyJWT(r.Header.Get("Authorization"))
	if err != nil {
		return http.StatusUnauthorized, errorBody("A JSON web token could not be decoded", "")
	}
	id := r.int64Param("installation_id")
	if s.app.installations[id] != app.id {
		return notFound()
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return http.StatusInternalServerError, errorBody(err.Error(), "")
	}
	it := InstallationToken{Token: "ghfake-installation-" + hex.EncodeToString(b[:]), AppID: app.id, InstallationID: id,
		ExpiresAt: time.Now().Add(s.app.tokenTTL).UTC().Truncate(time.Second)}
	s.app.tokens[it.Token] = &it
	s.app.minted = append(s.app.minted, it)
	return http.StatusCreated, map[string]any{
		"token":                it.Token,
		"expires_at":           it.ExpiresAt.Format(time.RFC3339),
		"permissions":          map[string]any{"checks": "write", "contents": "write", "pull_requests": "write", "issues": "write", "metadata": "read"},
		"repository_selection": "all",
	}
}
