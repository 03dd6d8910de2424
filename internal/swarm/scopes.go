package swarm

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// Scopes is what .swarm/scopes/ holds: v1 declarations written by the
// plugin's declare_scope tool (scope-{taskId}.json, src/scope/scope-persistence.ts)
// and v2 session bindings (binding-*.json, src/scope/scope-binding.ts).
type Scopes struct {
	DirErr error
	// Declared maps a task id to its v1 declaration.
	Declared map[string]*ScopeFile
	// Bindings are the v2 binding files, sorted by path.
	Bindings []*ScopeFile
	// Broken maps the path of a scope file that could not be read or parsed
	// to why.
	Broken map[string]error
}

// ScopeFile is one scope declaration: v1 {version:1, taskId, declaredAt,
// expiresAt, files} or v2 {version:2, ..., planId, planStructureHash,
// taskId, files, ...}. Files are as written (not normalised).
type ScopeFile struct {
	Path              string
	Version           int
	TaskID            string
	Files             []string
	DeclaredAt        int64 // milliseconds since the Unix epoch, 0 if absent
	ExpiresAt         int64 // milliseconds since the Unix epoch, 0 if absent
	PlanID            string
	PlanStructureHash string
}

func loadScopes(fsys fs.FS) *Scopes {
	s := &Scopes{Declared: map[string]*ScopeFile{}, Broken: map[string]error{}}
	entries, err := fs.ReadDir(fsys, ScopesDir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.DirErr = &ArtifactError{Path: ScopesDir, Err: err}
		}
		return s
	}
	for _, d := range entries {
		name := d.Name()
		p := ScopesDir + "/" + name
		id, isV1 := strings.CutPrefix(strings.TrimSuffix(name, ".json"), "scope-")
		// Only the plugin's own names count; copies such as "scope-2.2 2.json"
		// (macOS/iCloud duplicates) are not declarations.
		isV1 = isV1 && strings.HasSuffix(name, ".json") && taskIDPattern.MatchString(id)
		isV2 := strings.HasPrefix(name, "binding-") && strings.HasSuffix(name, ".json")
		if d.IsDir() || (!isV1 && !isV2) {
			continue
		}
		data, err := readArtifact(fsys, p)
		if err != nil {
			s.Broken[p] = err
			continue
		}
		sf, err := ParseScopeFile(p, data)
		if err != nil {
			s.Broken[p] = err
			continue
		}
		if isV1 {
			if sf.TaskID != id {
				s.Broken[p] = &ArtifactError{Path: p, Err: fmt.Errorf("taskId %q does not match the file name", sf.TaskID)}
				continue
			}
			s.Declared[sf.TaskID] = sf
		} else {
			s.Bindings = append(s.Bindings, sf)
		}
	}
	sort.Slice(s.Bindings, func(i, j int) bool { return s.Bindings[i].Path < s.Bindings[j].Path })
	return s
}

// ParseScopeFile parses one scope declaration or binding. Errors are
// *ArtifactError.
func ParseScopeFile(name string, data []byte) (*ScopeFile, error) {
	v, data, err := parseJSONFile(name, data)
	if err != nil {
		return nil, err
	}
	fail := func(v *jsjson.Value, format string, args ...any) error {
		return &ArtifactError{Path: name, Line: jsjson.Line(data, v.Offset), Err: fmt.Errorf(format, args...)}
	}
	if v.Kind != jsjson.Object {
		return nil, fail(v, "want a JSON object, found %s", v.Kind)
	}
	sf := &ScopeFile{Path: name}
	sf.Version, _ = v.Get("version").AsInt()
	id, ok := v.Get("taskId").AsString()
	if !ok {
		return nil, fail(v, `missing string field "taskId"`)
	}
	sf.TaskID = id
	files := v.Get("files")
	if files == nil {
		return nil, fail(v, `missing array field "files"`)
	}
	if files.Kind != jsjson.Array {
		return nil, fail(files, `"files" must be an array of strings, found %s`, files.Kind)
	}
	for _, el := range files.Elems {
		f, ok := el.AsString()
		if !ok {
			return nil, fail(el, `"files" must hold strings, found %s`, el.Kind)
		}
		sf.Files = append(sf.Files, f)
	}
	if n, ok := v.Get("declaredAt").AsInt(); ok {
		sf.DeclaredAt = int64(n)
	}
	if n, ok := v.Get("expiresAt").AsInt(); ok {
		sf.ExpiresAt = int64(n)
	}
	sf.PlanID, _ = v.Get("planId").AsString()
	sf.PlanStructureHash, _ = v.Get("planStructureHash").AsString()
	return sf, nil
}
