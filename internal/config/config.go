// Package config reads swarm-gate's policy file, .github/swarm-gate.yml,
// from the base side of a pull request into a gates.Config.
//
// Decoding is strict: an unknown key, a wrong type or an unknown value is an
// error naming the file and line, so that a typo never silently turns a rule
// off. An absent file means gates.DefaultConfig.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/editdist"
	"github.com/swarm-gate/swarm-gate/internal/sast"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// Path is the config file's repository-relative path.
const Path = ".github/swarm-gate.yml"

// MaxSize is the largest config file read, in bytes.
const MaxSize = 1 << 20

// Load reads Path from fsys (the base commit's tree). where describes the
// tree for the config's Source, e.g. "base 1a2b3c4". An absent file gives
// gates.DefaultConfig; a present but invalid one gives an
// *swarm.ArtifactError with the line.
func Load(fsys fs.FS, where string) (*gates.Config, error) {
	info, err := fs.Stat(fsys, Path)
	if errors.Is(err, fs.ErrNotExist) {
		if alt, err := fs.Stat(fsys, AltPath); err == nil && !alt.IsDir() {
			return nil, &swarm.ArtifactError{Path: AltPath, Err: errors.New("swarm-gate reads " + Path + " (with .yml); rename the file so that the policy is not silently ignored")}
		}
		return gates.DefaultConfig(), nil
	}
	if err != nil {
		return nil, &swarm.ArtifactError{Path: Path, Err: err}
	}
	if info.IsDir() {
		return nil, &swarm.ArtifactError{Path: Path, Err: errors.New("is a directory, expected a file")}
	}
	if info.Size() > MaxSize {
		return nil, &swarm.ArtifactError{Path: Path, Err: fmt.Errorf("is %d bytes, over the %d-byte limit", info.Size(), MaxSize)}
	}
	data, err := fs.ReadFile(fsys, Path)
	if err != nil {
		return nil, &swarm.ArtifactError{Path: Path, Err: err}
	}
	c, err := Parse(Path, data)
	if err != nil {
		return nil, err
	}
	c.Source = Path + " at " + where
	if alt, err := fs.Stat(fsys, AltPath); err == nil && !alt.IsDir() {
		// Someone may be editing the one that is not read.
		c.Source += "; " + AltPath + " is there too and is not read: delete it"
	}
	return c, nil
}

// AltPath is the .yaml spelling of Path, which swarm-gate does not read: a
// lone one fails closed, one beside Path is named in the policy's Source.
const AltPath = ".github/swarm-gate.yaml"

// Parse decodes config file content. name is the file's path for errors,
// which are *swarm.ArtifactError with the 1-based line where known. Empty
// content (or only comments) gives the defaults.
func Parse(name string, data []byte) (*gates.Config, error) {
	c := gates.DefaultConfig()
	c.Source = name
	// The YAML library would decode UTF-16, but every line number (and
	// every other tool) expects UTF-8.
	if err := swarm.EncodingError(name, data); err != nil {
		return nil, err
	}
	if line, col, b, ok := firstInvalidUTF8(data); ok {
		return nil, &swarm.ArtifactError{Path: name, Line: line, Column: col,
			Err: fmt.Errorf("byte 0x%02X is not valid UTF-8; save the file as UTF-8", b)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		if line, col, r, ok := firstControlChar(data); ok && strings.Contains(err.Error(), "control characters are not allowed") {
			escape := fmt.Sprintf(`\x%02X`, r)
			if r > 0xFF {
				escape = fmt.Sprintf(`\u%04X`, r)
			}
			return nil, &swarm.ArtifactError{Path: name, Line: line,
				Err: fmt.Errorf("control character U+%04X at column %d: YAML does not allow it in a file (remove it, or write it as the escape \"%s\" inside double quotes)", r, col, escape)}
		}
		return nil, yamlErr(name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := extra.Line
		if err != nil {
			return nil, yamlErr(name, err)
		}
		return nil, &swarm.ArtifactError{Path: name, Line: line, Err: errors.New("a second YAML document; the config is one document")}
	}
	if len(doc.Content) == 0 {
		return c, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	p := &parser{name: name}
	p.mapping(root, "", map[string]func(*yaml.Node){
		"version": func(n *yaml.Node) {
			if v, ok := p.scalar(n, "version", "!!int"); ok && v != "1" {
				p.fail(n, "version: %s is not supported; this swarm-gate reads version 1", v)
			}
		},
		"phase_branch": func(n *yaml.Node) {
			p.phaseBranch(n, c)
		},
		"comment": func(n *yaml.Node) {
			// YAML reads a bare on or off as a string (yaml.v3 is YAML
			// 1.2), so both work unquoted.
			if v, ok := p.enum(n, "comment", "on", "off", "on-failure"); ok {
				c.Comment = gates.CommentPolicy(v)
			}
		},
		"qa_gates": func(n *yaml.Node) {
			p.qaGates(n, &c.QAGates)
		},
		"drift": func(n *yaml.Node) {
			p.drift(n, &c.Drift)
		},
		"plan_lint": func(n *yaml.Node) {
			p.planLint(n, &c.PlanLint)
		},
		"phase_wrap": func(n *yaml.Node) {
			p.phaseWrap(n, &c.PhaseWrap)
		},
		"plan_freeze": func(n *yaml.Node) {
			p.mapping(n, "plan_freeze", map[string]func(*yaml.Node){
				"approval": func(n *yaml.Node) {
					if v, ok := p.enum(n, "plan_freeze.approval", "any", "base-anchored", "human"); ok {
						c.PlanFreeze.Approval = gates.ApprovalPolicy(v)
					}
				},
				"legacy_plans": func(n *yaml.Node) {
					if v, ok := p.enum(n, "plan_freeze.legacy_plans", "fail", "allow"); ok {
						c.PlanFreeze.AllowLegacyPlans = v == "allow"
					}
				},
				"unhashed_changes": func(n *yaml.Node) {
					if v, ok := p.enum(n, "plan_freeze.unhashed_changes", "fail", "warn"); ok {
						c.PlanFreeze.WarnUnhashedChanges = v == "warn"
					}
				},
				"agent_overrides": func(n *yaml.Node) {
					if v, ok := p.enum(n, "plan_freeze.agent_overrides", "default", "allow", "fail", "warn"); ok {
						switch v {
						case "allow", "warn":
							c.PlanFreeze.AgentOverrides = gates.AgentOverridesAllow
						case "fail":
							c.PlanFreeze.AgentOverrides = gates.AgentOverridesFail
						}
					}
				},
				"status_regression": func(n *yaml.Node) {
					if v, ok := p.enum(n, "plan_freeze.status_regression", "default", "fail", "warn"); ok && v != "default" {
						c.PlanFreeze.StatusRegression = gates.RegressionPolicy(v)
					}
				},
			})
		},
		"placeholders": func(n *yaml.Node) {
			p.placeholders(n, &c.Placeholders)
		},
		"commands": func(n *yaml.Node) {
			p.commands(n, &c.Commands)
		},
		"sast": func(n *yaml.Node) {
			p.mapping(n, "sast", map[string]func(*yaml.Node){
				"severity_threshold": func(n *yaml.Node) {
					if v, ok := p.enum(n, "sast.severity_threshold", "low", "medium", "high", "critical"); ok {
						c.SAST.Threshold = sast.Severity(v)
					}
				},
				"baseline": func(n *yaml.Node) {
					if v, ok := p.enum(n, "sast.baseline", "auto", "file", "merge-base"); ok {
						c.SAST.Baseline = gates.SASTBaselineMode(v)
					}
				},
				"accept_triage": func(n *yaml.Node) {
					if v, ok := p.scalar(n, "sast.accept_triage", "!!bool"); ok {
						c.SAST.AcceptTriage = v == "true"
					}
				},
			})
		},
		"limits": func(n *yaml.Node) {
			p.mapping(n, "limits", map[string]func(*yaml.Node){
				"max_file_bytes": func(n *yaml.Node) {
					v, ok := p.scalar(n, "limits.max_file_bytes", "!!int")
					if !ok {
						return
					}
					b, err := strconv.ParseInt(v, 0, 64)
					if err != nil || b < gates.MinMaxFileBytes || b > gates.MaxMaxFileBytes {
						p.fail(n, "limits.max_file_bytes: %s is not a size from %d (1 MiB) to %d (1 GiB) bytes", v, gates.MinMaxFileBytes, gates.MaxMaxFileBytes)
						return
					}
					c.Limits.MaxFileBytes = b
				},
				"max_changed_files": func(n *yaml.Node) {
					v, ok := p.scalar(n, "limits.max_changed_files", "!!int")
					if !ok {
						return
					}
					k, err := strconv.ParseInt(v, 0, 64)
					if err != nil || k < gates.MinMaxChangedFiles || k > gates.MaxMaxChangedFiles {
						p.fail(n, "limits.max_changed_files: %s is not a count from %d to %d files", v, gates.MinMaxChangedFiles, gates.MaxMaxChangedFiles)
						return
					}
					c.Limits.MaxChangedFiles = int(k)
				},
				"unscanned": func(n *yaml.Node) {
					if v, ok := p.enum(n, "limits.unscanned", "fail", "warn"); ok {
						c.Limits.WarnUnscanned = v == "warn"
					}
				},
				"new_generated": func(n *yaml.Node) {
					if v, ok := p.enum(n, "limits.new_generated", "skip", "scan"); ok {
						c.Limits.ScanNewGenerated = v == "scan"
					}
				},
			})
		},
		"scope": func(n *yaml.Node) {
			p.mapping(n, "scope", map[string]func(*yaml.Node){
				"extras": func(n *yaml.Node) {
					c.Scope.Extras = p.globs(n, "scope.extras")
				},
				"lockfiles": func(n *yaml.Node) {
					if v, ok := p.scalar(n, "scope.lockfiles", "!!bool"); ok {
						c.Scope.Lockfiles = v == "true"
					}
				},
				"untouched_completed": func(n *yaml.Node) {
					if v, ok := p.enum(n, "scope.untouched_completed", "warn", "fail"); ok {
						c.Scope.FailUntouchedCompleted = v == "fail"
					}
				},
				"self_approved_widening": func(n *yaml.Node) {
					if v, ok := p.enum(n, "scope.self_approved_widening", "warn", "fail"); ok {
						c.Scope.WarnSelfApprovedWidening = v == "warn"
					}
				},
				"widened_by_pr": func(n *yaml.Node) {
					if v, ok := p.enum(n, "scope.widened_by_pr", "warn", "fail"); ok {
						c.Scope.FailWidenedByPR = v == "fail"
					}
				},
				"not_declared": func(n *yaml.Node) {
					if v, ok := p.enum(n, "scope.not_declared", "fail", "warn"); ok {
						c.Scope.WarnNotDeclared = v == "warn"
					}
				},
			})
		},
	})
	if len(p.errs) > 0 {
		return nil, joinErrors(p.errs)
	}
	return c, nil
}

// parser walks the YAML node tree, collecting every error: a policy with
// three mistakes is fixed in one round, not three.
type parser struct {
	name string
	errs []error
}

func (p *parser) fail(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, &swarm.ArtifactError{Path: p.name, Line: n.Line, Column: n.Column, Err: fmt.Errorf(format, args...)})
}

// failed reports whether an error was recorded after the first mark.
func (p *parser) failed(mark int) bool { return len(p.errs) > mark }

// mapping requires n to be a mapping whose keys are all in fields, and calls
// each key's function with its value. Duplicate keys are errors.
func (p *parser) mapping(n *yaml.Node, path string, fields map[string]func(*yaml.Node)) {
	n = resolve(n)
	where := "the top level"
	if path != "" {
		where = path
	}
	if n.Kind != yaml.MappingNode {
		p.fail(n, "%s must be a mapping (key: value lines), found %s", where, describe(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if k.Kind != yaml.ScalarNode {
			p.fail(k, "%s has a key that is not a plain name", where)
			continue
		}
		if seen[key] {
			p.fail(k, "%q appears twice in %s", key, where)
			continue
		}
		seen[key] = true
		f, ok := fields[key]
		if !ok {
			known := make([]string, 0, len(fields))
			for name := range fields {
				known = append(known, name)
			}
			slices.Sort(known)
			hint := ""
			for _, name := range known {
				if editdist.Levenshtein(key, name) <= 2 {
					hint = fmt.Sprintf("; did you mean %q?", name)
					break
				}
			}
			p.fail(k, "unknown key %q in %s (known keys: %s)%s", key, where, strings.Join(known, ", "), hint)
			continue
		}
		f(v)
	}
}

// scalar returns n's value when it is a scalar with the given tag.
func (p *parser) scalar(n *yaml.Node, path, tag string) (string, bool) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag != tag {
		p.fail(n, "%s must be %s, found %s", path, tagName(tag), describe(n))
		return "", false
	}
	return n.Value, true
}

// enum returns n's value when it is one of the allowed strings.
func (p *parser) enum(n *yaml.Node, path string, allowed ...string) (string, bool) {
	if r := resolve(n); r.Kind != yaml.ScalarNode || r.Tag != "!!str" {
		// Name the valid values: plan_lint: true is a boolean to YAML.
		p.fail(r, "%s must be a string, found %s: the valid values are %s", path, describe(r), orList(allowed))
		return "", false
	}
	v, ok := p.scalar(n, path, "!!str")
	if !ok {
		return "", false
	}
	if !slices.Contains(allowed, v) {
		p.fail(n, "%s: %q is not one of %s", path, v, strings.Join(allowed, ", "))
		return "", false
	}
	return v, true
}

// orList joins values as "a or b", "a, b or c".
func orList(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// globs returns n's items when it is a list of valid doublestar patterns
// over clean, relative, '/'-separated paths.
func (p *parser) globs(n *yaml.Node, path string) []string {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "%s must be a list of glob patterns, found %s", path, describe(n))
		return nil
	}
	mark := len(p.errs)
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		v, ok := p.scalar(item, fmt.Sprintf("%s[%d]", path, i), "!!str")
		if !ok {
			continue
		}
		switch {
		case v == "":
			p.fail(item, "%s[%d] is empty", path, i)
		case strings.HasPrefix(v, "/") || strings.Contains(v, `\`) || slices.ContainsFunc(strings.Split(strings.TrimSuffix(v, "/"), "/"), func(seg string) bool { return seg == "." || seg == ".." || seg == "" }):
			p.fail(item, "%s[%d]: %q must be relative to the repository root, '/'-separated, without ./ or .. (e.g. dist/** or **/*.gen.go)", path, i, v)
		case !doublestar.ValidatePattern(v):
			p.fail(item, "%s[%d]: %q is not a valid glob pattern", path, i, v)
		}
		out = append(out, strings.TrimSuffix(v, "/"))
	}
	if p.failed(mark) {
		return nil
	}
	return out
}

// resolve follows an alias to its anchor.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%s %q", tagName(n.Tag), n.Value)
	}
	return "something else"
}

func tagName(tag string) string {
	switch tag {
	case "!!str":
		return "a string"
	case "!!int":
		return "an integer"
	case "!!bool":
		return "true or false"
	case "!!null":
		return "null"
	case "!!float":
		return "a number"
	}
	return "a value of type " + tag
}

// yamlErr turns a yaml syntax error ("yaml: line 3: ...") into an
// ArtifactError with the line.
// firstInvalidUTF8 finds the first byte that is not part of valid UTF-8:
// its 1-based line, its 1-based column in characters, and the byte.
func firstInvalidUTF8(data []byte) (line, col int, b byte, ok bool) {
	if utf8.Valid(data) {
		return 0, 0, 0, false
	}
	line = 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		col++
		if r == utf8.RuneError && size <= 1 {
			return line, col, data[i], true
		}
		if r == '\n' {
			line, col = line+1, 0
		}
		i += size
	}
	return 0, 0, 0, false
}

// firstControlChar finds the first character YAML does not allow in a
// stream (YAML 1.2 section 5.1: C0 controls other than tab, line feed and
// carriage return, DEL, C1 controls other than NEL, the surrogates, U+FFFE
// and U+FFFF; a byte order mark is allowed only first): its 1-based line,
// its 1-based column in characters, and the character.
func firstControlChar(data []byte) (line, col int, r rune, ok bool) {
	line, col = 1, 0
	for i, c := range string(data) {
		col++
		switch {
		case c == '\n':
			line, col = line+1, 0
		case c == '\t' || c == '\r' || c == 0x85:
		case c == utf8.RuneError:
			// Invalid UTF-8 is another error (the decoder's own).
		case c == 0xFEFF && i == 0:
		case c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0xFEFF || c == 0xFFFE || c == 0xFFFF:
			return line, col, c, true
		}
	}
	return 0, 0, 0, false
}

// joinErrors returns the only error, or all of them as one error whose
// message has one per line and which errors.As still opens (the first
// *swarm.ArtifactError).
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return &Errors{Errs: errs}
}

// Errors is every problem found in one policy file, in file order, each a
// *swarm.ArtifactError with line and column. Error() gives one per line.
type Errors struct{ Errs []error }

func (e *Errors) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		msgs[i] = err.Error()
	}
	return fmt.Sprintf("%d problems:\n", len(e.Errs)) + strings.Join(msgs, "\n")
}

func (e *Errors) Unwrap() []error { return e.Errs }

// All returns every *swarm.ArtifactError inside err (a Parse or Load
// error), in order; nil when err holds none.
func All(err error) []*swarm.ArtifactError {
	var out []*swarm.ArtifactError
	var many *Errors
	if errors.As(err, &many) {
		for _, e := range many.Errs {
			out = append(out, All(e)...)
		}
		return out
	}
	var one *swarm.ArtifactError
	if errors.As(err, &one) {
		out = append(out, one)
	}
	return out
}

func yamlErr(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		_, rest, _ := strings.Cut(msg, ":")
		return &swarm.ArtifactError{Path: name, Line: line, Err: errors.New(strings.TrimSpace(rest))}
	}
	return &swarm.ArtifactError{Path: name, Err: errors.New(msg)}
}
