package ghfake

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// SubsetPath is where GitHub's OpenAPI subset lives, relative to a package
// directory of this repository (tests run with the package as working
// directory): ../shared beside the repository.
const SubsetPath = "../../../shared/github/openapi-subset.json"

// reconcileSubset is GitHub's description of the operations the App's
// reconciler calls that the shared subset lacks (GET /app/installations,
// GET /installation/repositories), with the components they reference,
// taken from the same snapshot (its x-subset field says how).
//
//go:embed testdata/openapi-reconcile.json
var reconcileSubset []byte

// spec is the loaded description with its routes, shared by every Server of
// the test binary (loading the 660 kB file once). extra is reconcileSubset.
type spec struct {
	doc, extra *openapi3.T
	routes     []*route
}

// route is one operation of the description, matched by a regular
// expression built from its path template. Parameters marked
// x-multi-segment (a ref such as heads/feature/x, a contents path) match
// several segments; the others match one. kin-openapi's own routers cannot
// match real slashes in such parameters (github/README.md), hence this one.
type route struct {
	method   string
	template string
	re       *regexp.Regexp
	names    []string
	literal  int // characters outside parameters: more specific templates are tried first
	r        *routers.Route
	// prefix and suffix are the template's text before its first and
	// after its last parameter, middle the text between parameters: a
	// path the expression matches starts and ends with them and holds
	// each of middle, which find checks before running the expression.
	prefix, suffix string
	middle         []string
}

var (
	specOnce sync.Once
	specVal  *spec
	specErr  error
)

func loadSpec() (*spec, error) {
	specOnce.Do(func() {
		if _, err := os.Stat(SubsetPath); err != nil {
			specErr = err
			return
		}
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromFile(SubsetPath)
		if err != nil {
			specErr = fmt.Errorf("loading %s: %w", SubsetPath, err)
			return
		}
		// The upstream description has an invalid example
		// (nullable-git-user.date), so examples are not validated.
		if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
			specErr = fmt.Errorf("validating %s: %w", SubsetPath, err)
			return
		}
		extra, err := openapi3.NewLoader().LoadFromData(reconcileSubset)
		if err == nil {
			err = extra.Validate(context.Background(), openapi3.DisableExamplesValidation())
		}
		if err != nil {
			specErr = fmt.Errorf("loading ghfake's testdata/openapi-reconcile.json: %w", err)
			return
		}
		s := &spec{doc: doc, extra: extra}
		for _, d := range []*openapi3.T{doc, extra} {
			for tmpl, item := range d.Paths.Map() {
				for method, op := range item.Operations() {
					rt, err := newRoute(d, tmpl, item, method, op)
					if err != nil {
						specErr = err
						return
					}
					s.routes = append(s.routes, rt)
				}
			}
		}
		sort.Slice(s.routes, func(i, j int) bool {
			a, b := s.routes[i], s.routes[j]
			if a.literal != b.literal {
				return a.literal > b.literal
			}
			return a.template < b.template
		})
		specVal = s
	})
	return specVal, specErr
}

var paramRE = regexp.MustCompile(`\{([^}]+)\}`)

func newRoute(doc *openapi3.T, tmpl string, item *openapi3.PathItem, method string, op *openapi3.Operation) (*route, error) {
	multi := map[string]bool{}
	for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range ps {
			if p.Value != nil && p.Value.In == openapi3.ParameterInPath && p.Value.Extensions["x-multi-segment"] == true {
				multi[p.Value.Name] = true
			}
		}
	}
	rt := &route{method: method, template: tmpl,
		r: &routers.Route{Spec: doc, Path: tmpl, PathItem: item, Method: method, Operation: op}}
	var re strings.Builder
	re.WriteString("^")
	last := 0
	params := paramRE.FindAllStringSubmatchIndex(tmpl, -1)
	for i, m := range params {
		switch {
		case i == 0:
			rt.prefix = tmpl[:m[0]]
		case m[0] > last:
			rt.middle = append(rt.middle, tmpl[last:m[0]])
		}
		re.WriteString(regexp.QuoteMeta(tmpl[last:m[0]]))
		rt.literal += m[0] - last
		name := tmpl[m[2]:m[3]]
		rt.names = append(rt.names, name)
		if multi[name] {
			re.WriteString("(.+)")
		} else {
			re.WriteString("([^/]+)")
		}
		last = m[1]
	}
	re.WriteString(regexp.QuoteMeta(tmpl[last:]))
	if len(params) == 0 {
		rt.prefix = tmpl
	} else {
		rt.suffix = tmpl[last:]
	}
	rt.literal += len(tmpl) - last
	re.WriteString("$")
	var err error
	rt.re, err = regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("path template %s: %w", tmpl, err)
	}
	return rt, nil
}

// find returns the route of an API path (escaped, without the /api/v3
// prefix) and its decoded path parameters. methodOK is false when the path
// matches but not for this method.
func (s *spec) find(method, escapedPath string) (rt *route, params map[string]string, pathOK bool) {
	for _, r := range s.routes {
		if !r.mayMatch(escapedPath) {
			continue
		}
		m := r.re.FindStringSubmatch(escapedPath)
		if m == nil {
			continue
		}
		pathOK = true
		if r.method != method {
			continue
		}
		params = map[string]string{}
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

// mayMatch reports whether path has the route's literal text where the
// route's expression needs it: false means the expression cannot match.
func (r *route) mayMatch(path string) bool {
	if !strings.HasPrefix(path, r.prefix) || !strings.HasSuffix(path, r.suffix) {
		return false
	}
	for _, m := range r.middle {
		if !strings.Contains(path, m) {
			return false
		}
	}
	return true
}

var validationOptions = &openapi3filter.Options{
	MultiError:          true,
	SkipSettingDefaults: true, // leave the recorded request as the client sent it
	AuthenticationFunc:  openapi3filter.NoopAuthenticationFunc,
	// Messages name the field and the rule, without dumping the schema.
	SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()},
}

// validateRequest checks a request (whose body has been read into body)
// against the operation's parameters and request body schema.
func validateRequest(ctx context.Context, req *http.Request, body []byte, rt *route, params map[string]string) error {
	r := req.Clone(ctx)
	r.Body = http.NoBody
	if len(body) > 0 {
		r.Body = readCloser{bytes.NewReader(body)}
	}
	return openapi3filter.ValidateRequest(ctx, &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: rt.r, Options: validationOptions,
	})
}

// validateResponse checks one of the fake's own responses against the
// description, so that the fake stays as strict about what it returns as
// about what it accepts.
func validateResponse(ctx context.Context, req *http.Request, rt *route, params map[string]string, status int, header http.Header, body []byte) error {
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: rt.r, Options: validationOptions},
		Status:                 status,
		Header:                 header,
		Options:                validationOptions,
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(ctx, in)
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// example returns a deep copy of one of the description's example values
// (components/examples), the template of the fake's responses.
func (s *spec) example(name string) map[string]any {
	ex := s.doc.Components.Examples[name]
	if ex == nil {
		ex = s.extra.Components.Examples[name]
	}
	if ex == nil || ex.Value == nil {
		panic("ghfake: no example " + name + " in the OpenAPI subset")
	}
	v := ex.Value.Value
	if list, ok := v.([]any); ok && len(list) > 0 {
		v = list[0]
	}
	out, ok := copyJSON(v).(map[string]any)
	if !ok {
		panic(fmt.Sprintf("ghfake: example %s is a %T, not an object", name, v))
	}
	return out
}

// copyJSON returns a deep copy of a decoded JSON value (maps, slices,
// strings, numbers, booleans, nil), the same value a JSON round trip
// gives, without encoding it: examples are copied for every response.
// Other types, which a JSON document does not decode to, do take the
// round trip.
func copyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = copyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyJSON(e)
		}
		return out
	case string, float64, bool, nil:
		return v
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		var out any
		if err := json.Unmarshal(raw, &out); err != nil {
			panic(err)
		}
		return out
	}
}
