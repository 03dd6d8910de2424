package ghapi

import (
	"errors"
	"testing"
)

// TestParseBaseURL: the one parser of an API base URL gives the REST root,
// the web root and the uploads root, or a *BaseURLError saying why.
func TestParseBaseURL(t *testing.T) {
	for _, tc := range []struct {
		in              string
		api, web, up    string
		why             string
		goAPI, goUpload string // enterpriseURLs
	}{
		{in: "", api: "https://api.github.com", web: "https://github.com"},
		{in: "https://api.github.com/", api: "https://api.github.com", web: "https://github.com"},
		{in: "https://API.GitHub.com", api: "https://api.github.com", web: "https://github.com"},
		{in: "https://ghe.example/api/v3/", api: "https://ghe.example/api/v3", web: "https://ghe.example", up: "https://ghe.example/api/uploads/",
			goAPI: "https://ghe.example/api/v3/", goUpload: "https://ghe.example/api/uploads/"},
		{in: "http://127.0.0.1:8080", api: "http://127.0.0.1:8080/api/v3", web: "http://127.0.0.1:8080", up: "http://127.0.0.1:8080/api/uploads/",
			goAPI: "http://127.0.0.1:8080/api/v3/", goUpload: "http://127.0.0.1:8080/api/uploads/"},
		{in: "https://api.octo.ghe.com/", api: "https://api.octo.ghe.com", web: "https://octo.ghe.com", up: "https://uploads.octo.ghe.com/",
			goAPI: "https://api.octo.ghe.com/", goUpload: "https://uploads.octo.ghe.com/"},
		{in: "https://github.com/", why: "that is the web site, not the API"},
		{in: "ftp://ghe.example/", why: "the scheme must be https or http"},
		{in: "https://u:p@ghe.example/api/v3", why: "credentials do not belong in the URL"},
		{in: "https://ghe.example/api/v3?x=1", why: "no query or fragment allowed"},
		{in: "https://ghe.example/api/v4", why: "the path must be empty or /api/v3"},
		{in: "https:///api/v3", why: "no host"},
	} {
		r, err := ParseBaseURL(tc.in)
		if tc.why != "" {
			var be *BaseURLError
			if !errors.As(err, &be) || be.Why != tc.why || be.URL != tc.in {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.why)
			}
			if _, _, err2 := enterpriseURLs(tc.in); err2 == nil {
				t.Errorf("%q: enterpriseURLs accepted it", tc.in)
			}
			continue
		}
		if err != nil || r.API != tc.api || r.Web != tc.web || r.Upload != tc.up {
			t.Errorf("%q: %+v, %v; want %s %s %s", tc.in, r, err, tc.api, tc.web, tc.up)
		}
		if a, u, err := enterpriseURLs(tc.in); err != nil || a != tc.goAPI || u != tc.goUpload {
			t.Errorf("%q: enterpriseURLs %q %q %v, want %q %q", tc.in, a, u, err, tc.goAPI, tc.goUpload)
		}
	}
}
