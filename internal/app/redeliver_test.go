package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jwt "github.com/golang-jwt/jwt/v4"

	"github.com/swarm-gate/swarm-gate/internal/app"
)

// TestRedeliverFailed: at start-up the App lists its deliveries of the
// last hour (two pages) and asks GitHub to redeliver, once each, those
// none of whose attempts succeeded. The deliveries endpoints are not in
// the OpenAPI subset, so a plain handler plays GitHub.
func TestRedeliverFailed(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	type d struct {
		ID     int64  `json:"id"`
		GUID   string `json:"guid"`
		At     string `json:"delivered_at"`
		Status int    `json:"status_code"`
		Event  string `json:"event"`
	}
	at := func(ago time.Duration) string { return now.Add(-ago).Format(time.RFC3339) }
	pages := [][]d{
		{
			{ID: 10, GUID: "g-ok", At: at(time.Minute), Status: 202, Event: "pull_request"},
			{ID: 9, GUID: "g-retried-ok", At: at(2 * time.Minute), Status: 202, Event: "pull_request"},
			{ID: 8, GUID: "g-failed", At: at(3 * time.Minute), Status: 503, Event: "pull_request"},
		},
		{
			{ID: 7, GUID: "g-retried-ok", At: at(4 * time.Minute), Status: 502, Event: "pull_request"},
			{ID: 6, GUID: "g-failed", At: at(5 * time.Minute), Status: 0, Event: "pull_request"},
			{ID: 5, GUID: "g-timeout", At: at(30 * time.Minute), Status: 0, Event: "merge_group"},
			{ID: 4, GUID: "g-old", At: at(2 * time.Hour), Status: 500, Event: "pull_request"},
		},
	}
	var mu sync.Mutex
	var redelivered []int64
	var badAuth []string
	mux := http.NewServeMux()
	checkJWT := func(r *http.Request) {
		raw := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		var claims jwt.RegisteredClaims
		_, err := jwt.ParseWithClaims(raw, &claims, func(*jwt.Token) (any, error) { return &appKey().PublicKey, nil })
		if err != nil || claims.Issuer != strconv.Itoa(appID) {
			mu.Lock()
			badAuth = append(badAuth, fmt.Sprintf("%s %s: %v (iss %q)", r.Method, r.URL.Path, err, claims.Issuer))
			mu.Unlock()
		}
	}
	var ts *httptest.Server
	mux.HandleFunc("GET /api/v3/app/hook/deliveries", func(w http.ResponseWriter, r *http.Request) {
		checkJWT(r)
		page := 0
		if r.URL.Query().Get("cursor") == "p2" {
			page = 1
		} else {
			w.Header().Set("Link", fmt.Sprintf(`<%s/api/v3/app/hook/deliveries?per_page=100&cursor=p2>; rel="next"`, ts.URL))
		}
		_ = json.NewEncoder(w).Encode(pages[page])
	})
	mux.HandleFunc("POST /api/v3/app/hook/deliveries/{id}/attempts", func(w http.ResponseWriter, r *http.Request) {
		checkJWT(r)
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		mu.Lock()
		redelivered = append(redelivered, id)
		mu.Unlock()
		if id == 5 {
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"message":"Validation Failed"}`))
			return
		}
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{}`))
	})
	ts = httptest.NewServer(mux)
	defer ts.Close()

	a, err := app.New(app.Config{AppID: appID, PrivateKey: appKey(), APIURL: ts.URL, Sleep: noWait})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.RedeliverFailed(context.Background(), now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{8, 5}; !reflect.DeepEqual(redelivered, want) {
		t.Errorf("redelivered attempts %v, want %v (the newest attempt of each delivery that never succeeded, within the hour)", redelivered, want)
	}
	if got.Listed != 6 || got.Failed != 2 || got.Redelivered != 1 || len(got.Errors) != 1 || !strings.Contains(got.Errors[0], "g-timeout") {
		t.Errorf("result %+v", got)
	}
	if len(badAuth) > 0 {
		t.Errorf("requests without a valid App JWT: %v", badAuth)
	}
}
