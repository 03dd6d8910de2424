package ghfake

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func testSpec(t *testing.T) *spec {
	t.Helper()
	sp, err := loadSpec()
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("skipping: GitHub's OpenAPI subset is not at %s", SubsetPath)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestFindChecksLiteralsFirst: find, which skips a route whose literal
// text the path lacks before running its expression, answers every path
// as the expressions alone do: paths made from every template (one- and
// several-segment values, escaped slashes) and variants of them cut or
// extended.
func TestFindChecksLiteralsFirst(t *testing.T) {
	sp := testSpec(t)
	// slow is find without the literal check.
	slow := func(method, path string) (*route, map[string]string, bool) {
		pathOK := false
		for _, r := range sp.routes {
			m := r.re.FindStringSubmatch(path)
			if m == nil {
				continue
			}
			pathOK = true
			if r.method != method {
				continue
			}
			params := map[string]string{}
			for i, name := range r.names {
				v, err := url.PathUnescape(m[i+1])
				if err != nil {
					v = m[i+1]
				}
				params[name] = v
			}
			return r, params, true
		}
		return nil, nil, pathOK
	}
	var paths []string
	for _, r := range sp.routes {
		for _, v := range []string{"x", "a/b", "a%2Fb", "check-runs", "1"} {
			p := paramRE.ReplaceAllString(r.template, v)
			paths = append(paths, p, p+"/", p+"/extra", strings.TrimSuffix(p, "/"+v), "/api"+p, p[:len(p)/2])
		}
	}
	found := 0
	for _, p := range paths {
		for _, method := range []string{"GET", "POST", "PATCH", "PUT", "DELETE"} {
			rt, params, ok := sp.find(method, p)
			wantRt, wantParams, wantOK := slow(method, p)
			if rt != wantRt || ok != wantOK || !reflect.DeepEqual(params, wantParams) {
				t.Errorf("find(%s, %s) = %v %v %v, want %v %v %v", method, p, rt, params, ok, wantRt, wantParams, wantOK)
			}
			if rt != nil {
				found++
			}
		}
	}
	if found < len(sp.routes) {
		t.Errorf("only %d of the sample paths matched a route, fewer than the %d routes", found, len(sp.routes))
	}
}

// TestExampleIsADeepCopy: every example the fake copies is equal to its
// JSON round trip, and changing the copy leaves the description alone.
func TestExampleIsADeepCopy(t *testing.T) {
	sp := testSpec(t)
	n := 0
	for name, ex := range sp.doc.Components.Examples {
		if ex.Value == nil {
			continue
		}
		v := ex.Value.Value
		if list, ok := v.([]any); ok && len(list) > 0 {
			v = list[0]
		}
		if _, ok := v.(map[string]any); !ok {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got := sp.example(name)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("example %s: the copy differs from the JSON round trip", name)
		}
		scribble(got)
		if again := sp.example(name); !reflect.DeepEqual(again, want) {
			t.Errorf("example %s: changing a copy changed the description", name)
		}
		n++
	}
	if n < 10 {
		t.Errorf("only %d object examples checked", n)
	}
}

// scribble changes every value of a decoded JSON value in place.
func scribble(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			scribble(e)
			if _, nested := e.(map[string]any); !nested {
				v[k] = "scribbled"
			}
		}
	case []any:
		for i, e := range v {
			scribble(e)
			v[i] = "scribbled"
		}
	}
}
