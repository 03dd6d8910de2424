package sast

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// MaxSARIFSize is the largest SARIF file ReadSARIF reads (64 MiB).
const MaxSARIFSize = 64 << 20

// MaxSARIFValues is the most JSON values (array elements and object
// members, counted before parsing) a SARIF file ReadSARIF reads may have:
// a 60 MB log of 30 million tiny values would take gigabytes parsed.
const MaxSARIFValues = 2_000_000

// ReadSARIF reads the results of a SARIF 2.1.0 log that a scanner (gosec,
// semgrep, CodeQL, ...) wrote, one Finding per result, in file order across
// all runs. name is the file's repository-relative path, used in errors.
//
// Each Finding gets:
//
//   - RuleID: the result's ruleId, else rule.id, else the id of the rule
//     descriptor that ruleIndex (or rule.index, in the tool component that
//     rule.toolComponent names) points to. A result with none is an error.
//   - Severity: from the result's level (absent: the rule's
//     defaultConfiguration.level, else SARIF's default "warning"):
//     error is high, warning is medium, note and none are low. A
//     security-severity property (a CVSS score 0-10, as a number or a
//     string; on the result's properties, else on the rule's) overrides the
//     level: 9 or more is critical, 7 or more high, 4 or more medium, else
//     low. This is how GitHub code scanning ranks the same scores.
//   - Message: message.text, else the rule's messageStrings entry (or the
//     driver's globalMessageStrings entry) named by message.id, else
//     message.markdown, else the rule's shortDescription, fullDescription,
//     else the rule id. Placeholders {0}, {1}, ... are filled from
//     message.arguments when there are arguments.
//   - File, Line, Column: from the first location's physicalLocation (see
//     below); a result without one has File "" and Line 0.
//   - Engine: tool.driver.name, which every run must have.
//   - PartialFingerprint: partialFingerprints' primaryLocationLineHash,
//     else the value of its first key in byte order, as "key:value".
//
// Results that are not current problems are left out: kind pass,
// notApplicable or informational; baselineState absent; and any result with
// an external suppression whose status is accepted or missing (SARIF reads
// a suppression without a status as accepted). Suppressions under review or
// rejected do not hide a result. An in-source suppression (kind inSource,
// such as gosec's `// #nosec` comment) does not hide it either: it is text
// in the code a pull request may have written itself (DESIGN.md section 3);
// the finding is kept with SuppressedInSource set, for the gate to judge.
//
// The artifact URI becomes a repository-relative path: "file:" and a leading
// "./" are stripped, percent-escapes decoded (a URI whose escapes do not
// decode is taken literally), backslashes read as "/", and the path
// cleaned. A uriBaseId (such as CodeQL's %SRCROOT%) stands for the checkout
// root, unless the run's originalUriBaseIds defines it as a relative URI
// under another base, which is then prefixed. An absolute URI is made
// relative when it lies under an absolute originalUriBaseIds entry or a
// versionControlProvenance mappedTo folder (where the repository was
// checked out). A path that stays absolute or climbs out with "..", and a
// URI that is not a local file URI, cannot be placed in the repository: File
// keeps it as the log gives it (the cleaned absolute or "../" path, or the
// URI itself), never a repository path. Such a File matches no changed
// file, and Fingerprints sees it as outside the workspace (or cannot read
// it), so its fingerprint is unstable and the finding always counts as new.
//
// Region numbers that are integers below 1 read as unknown (0); a value of
// the wrong JSON type anywhere this reads is an error. Errors are
// *swarm.ArtifactError naming name and the line of the offending value; a
// log whose version is not "2.1.0" is an error.
func ReadSARIF(name string, data []byte) ([]Finding, error) {
	if len(data) > MaxSARIFSize {
		return nil, &swarm.ArtifactError{Path: name, Err: fmt.Errorf("the file has %d bytes, more than the %d MiB a SARIF file may have", len(data), MaxSARIFSize>>20)}
	}
	// Tools on Windows write a byte order mark; it does not change lines.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if n := jsonValues(data); n > MaxSARIFValues {
		return nil, &swarm.ArtifactError{Path: name, Err: fmt.Errorf("the file has about %d JSON values, more than the %d a SARIF file may have", n, MaxSARIFValues)}
	}
	root, err := jsjson.Parse(data)
	if err != nil {
		var se *jsjson.SyntaxError
		if errors.As(err, &se) {
			return nil, &swarm.ArtifactError{Path: name, Line: se.Line, Err: fmt.Errorf("not valid JSON: column %d: %s", se.Column, se.Msg)}
		}
		return nil, &swarm.ArtifactError{Path: name, Err: fmt.Errorf("not valid JSON: %w", err)}
	}
	r := &sarifReader{name: name, lines: jsjson.NewLineIndex(data), findings: []Finding{}}
	if err := r.log(root); err != nil {
		return nil, err
	}
	return r.findings, nil
}

// sarifReader holds the state of one ReadSARIF call.
type sarifReader struct {
	name     string
	lines    *jsjson.LineIndex
	findings []Finding
}

// sarifRun is what the results of one run look things up in.
type sarifRun struct {
	where      string
	engine     string
	driver     *jsjson.Value
	extensions []*jsjson.Value
	artifacts  *jsjson.Value
	baseIDs    *jsjson.Value // originalUriBaseIds
	roots      []string      // absolute folders that are the checkout root, "/"-terminated
	ruleIDs    map[*jsjson.Value]map[string]*jsjson.Value
}

// errAt is an error at the line where v starts.
func (r *sarifReader) errAt(v *jsjson.Value, format string, args ...any) error {
	line := 0
	if v != nil {
		line = r.lines.Line(v.Offset)
	}
	return &swarm.ArtifactError{Path: r.name, Line: line, Err: fmt.Errorf(format, args...)}
}

// sarifDescribe names a JSON value in an error: a short string quoted, else its
// type.
func sarifDescribe(v *jsjson.Value) string {
	if s, ok := v.AsString(); ok && len(s) <= 40 {
		return strconv.Quote(s)
	}
	return "a JSON " + v.Kind.String()
}

func (r *sarifReader) log(root *jsjson.Value) error {
	if root.Kind != jsjson.Object {
		return r.errAt(root, "a SARIF log is a JSON object, not %s", sarifDescribe(root))
	}
	v := root.Get("version")
	if v == nil {
		return r.errAt(root, `no "version": swarm-gate reads SARIF 2.1.0 logs`)
	}
	if s, ok := v.AsString(); !ok || s != "2.1.0" {
		return r.errAt(v, `SARIF version %s is not supported: swarm-gate reads version "2.1.0" only; have the scanner write SARIF 2.1.0`, sarifDescribe(v))
	}
	runs, err := r.array(root, "runs", "runs")
	if err != nil {
		return err
	}
	for i, run := range runs {
		if err := r.run(fmt.Sprintf("runs[%d]", i), run); err != nil {
			return err
		}
	}
	return nil
}

// array returns the elements of obj[key]: none when it is absent or null,
// an error when it is not an array.
func (r *sarifReader) array(obj *jsjson.Value, key, where string) ([]*jsjson.Value, error) {
	v := obj.Get(key)
	if v == nil || v.Kind == jsjson.Null {
		return nil, nil
	}
	if v.Kind != jsjson.Array {
		return nil, r.errAt(v, "%s: want an array, not %s", where, sarifDescribe(v))
	}
	return v.Elems, nil
}

// object returns obj[key] when it is an object, nil when it is absent or
// null, and an error otherwise.
func (r *sarifReader) object(obj *jsjson.Value, key, where string) (*jsjson.Value, error) {
	v := obj.Get(key)
	if v == nil || v.Kind == jsjson.Null {
		return nil, nil
	}
	if v.Kind != jsjson.Object {
		return nil, r.errAt(v, "%s: want an object, not %s", where, sarifDescribe(v))
	}
	return v, nil
}

// str returns obj[key] when it is a string, "" when it is absent or null,
// and an error otherwise.
func (r *sarifReader) str(obj *jsjson.Value, key, where string) (string, error) {
	v := obj.Get(key)
	if v == nil || v.Kind == jsjson.Null {
		return "", nil
	}
	s, ok := v.AsString()
	if !ok {
		return "", r.errAt(v, "%s: want a string, not %s", where, sarifDescribe(v))
	}
	return s, nil
}

// integer returns obj[key] and true when it is an integer, false when it is
// absent or null, and an error otherwise.
func (r *sarifReader) integer(obj *jsjson.Value, key, where string) (int, bool, error) {
	v := obj.Get(key)
	if v == nil || v.Kind == jsjson.Null {
		return 0, false, nil
	}
	n, ok := v.AsInt()
	if !ok {
		return 0, false, r.errAt(v, "%s: want an integer, not %s", where, sarifDescribe(v))
	}
	return n, true, nil
}

func (r *sarifReader) run(where string, run *jsjson.Value) error {
	if run.Kind != jsjson.Object {
		return r.errAt(run, "%s: want an object, not %s", where, sarifDescribe(run))
	}
	tool, err := r.object(run, "tool", where+".tool")
	if err != nil {
		return err
	}
	driver, err := r.object(tool, "driver", where+".tool.driver")
	if err != nil {
		return err
	}
	engine, err := r.str(driver, "name", where+".tool.driver.name")
	if err != nil {
		return err
	}
	if engine == "" {
		return r.errAt(run, "%s: tool.driver.name is missing, so the log does not say which scanner wrote it", where)
	}
	rc := &sarifRun{where: where, engine: engine, driver: driver, ruleIDs: map[*jsjson.Value]map[string]*jsjson.Value{}}
	if rc.extensions, err = r.array(tool, "extensions", where+".tool.extensions"); err != nil {
		return err
	}
	if rc.artifacts = run.Get("artifacts"); rc.artifacts != nil && rc.artifacts.Kind != jsjson.Array && rc.artifacts.Kind != jsjson.Null {
		return r.errAt(rc.artifacts, "%s.artifacts: want an array, not %s", where, sarifDescribe(rc.artifacts))
	}
	if rc.baseIDs, err = r.object(run, "originalUriBaseIds", where+".originalUriBaseIds"); err != nil {
		return err
	}
	if err := r.roots(rc, run); err != nil {
		return err
	}
	results, err := r.array(run, "results", where+".results")
	if err != nil {
		return err
	}
	for i, res := range results {
		f, keep, err := r.result(rc, fmt.Sprintf("%s.results[%d]", where, i), res)
		if err != nil {
			return err
		}
		if keep {
			r.findings = append(r.findings, f)
		}
	}
	return nil
}

// roots collects the absolute folders a run names as the checkout root:
// absolute originalUriBaseIds entries and versionControlProvenance mappedTo
// folders.
func (r *sarifReader) roots(rc *sarifRun, run *jsjson.Value) error {
	var locs []*jsjson.Value
	if rc.baseIDs != nil {
		for _, m := range rc.baseIDs.Members {
			locs = append(locs, m.Value)
		}
	}
	vcs, err := r.array(run, "versionControlProvenance", rc.where+".versionControlProvenance")
	if err != nil {
		return err
	}
	for _, v := range vcs {
		if m := v.Get("mappedTo"); m != nil {
			locs = append(locs, m)
		}
	}
	for _, loc := range locs {
		if loc.Kind != jsjson.Object {
			return r.errAt(loc, "%s: a root location is %s, not an object", rc.where, sarifDescribe(loc))
		}
		u, err := r.str(loc, "uri", rc.where+": a root location's uri")
		if err != nil {
			return err
		}
		if p, abs, _ := sarifURIPath(u); abs {
			rc.roots = append(rc.roots, strings.TrimSuffix(p, "/")+"/")
		}
	}
	return nil
}

func (r *sarifReader) result(rc *sarifRun, where string, res *jsjson.Value) (Finding, bool, error) {
	if res.Kind != jsjson.Object {
		return Finding{}, false, r.errAt(res, "%s: want an object, not %s", where, sarifDescribe(res))
	}
	skip, inSource, err := r.notCurrent(where, res)
	if skip || err != nil {
		return Finding{}, false, err
	}
	desc, ruleID, err := r.rule(rc, where, res)
	if err != nil {
		return Finding{}, false, err
	}
	f := Finding{RuleID: ruleID, Engine: rc.engine, SuppressedInSource: inSource}
	if f.Severity, err = r.severity(where, res, desc); err != nil {
		return Finding{}, false, err
	}
	if f.Message, err = r.message(rc, where, res, desc, ruleID); err != nil {
		return Finding{}, false, err
	}
	if err := r.location(rc, where, res, &f); err != nil {
		return Finding{}, false, err
	}
	if f.PartialFingerprint, err = r.partialFingerprint(where, res); err != nil {
		return Finding{}, false, err
	}
	return f, true, nil
}

// notCurrent reports whether a result is not a current problem: its kind
// says it passed or is informational, its baselineState is absent, or an
// accepted external suppression hides it. inSource reports an accepted
// in-source suppression, which does not hide it.
func (r *sarifReader) notCurrent(where string, res *jsjson.Value) (skip, inSource bool, err error) {
	kind, err := r.str(res, "kind", where+".kind")
	if err != nil {
		return false, false, err
	}
	switch kind {
	case "pass", "notApplicable", "informational":
		return true, false, nil
	}
	state, err := r.str(res, "baselineState", where+".baselineState")
	if err != nil || state == "absent" {
		return state == "absent", false, err
	}
	sups, err := r.array(res, "suppressions", where+".suppressions")
	if err != nil {
		return false, false, err
	}
	for i, s := range sups {
		w := fmt.Sprintf("%s.suppressions[%d]", where, i)
		if s.Kind != jsjson.Object {
			return false, false, r.errAt(s, "%s: want an object, not %s", w, sarifDescribe(s))
		}
		status, err := r.str(s, "status", w+".status")
		if err != nil {
			return false, false, err
		}
		sk, err := r.str(s, "kind", w+".kind")
		if err != nil {
			return false, false, err
		}
		if status == "" || status == "accepted" {
			if sk == "inSource" {
				inSource = true
				continue
			}
			return true, false, nil
		}
	}
	return false, inSource, nil
}

// rule finds the result's rule descriptor (nil when the log has none) and
// its rule id.
func (r *sarifReader) rule(rc *sarifRun, where string, res *jsjson.Value) (*jsjson.Value, string, error) {
	ref, err := r.object(res, "rule", where+".rule")
	if err != nil {
		return nil, "", err
	}
	comp, err := r.component(rc, where, ref)
	if err != nil {
		return nil, "", err
	}
	rules, err := r.array(comp, "rules", rc.where+".tool: rules")
	if err != nil {
		return nil, "", err
	}
	id, err := r.str(res, "ruleId", where+".ruleId")
	if err != nil {
		return nil, "", err
	}
	if id == "" {
		if id, err = r.str(ref, "id", where+".rule.id"); err != nil {
			return nil, "", err
		}
	}
	idxObj, idxKey, idxWhere := res, "ruleIndex", where+".ruleIndex"
	if res.Get("ruleIndex") == nil && ref.Get("index") != nil {
		idxObj, idxKey, idxWhere = ref, "index", where+".rule.index"
	}
	n, has, err := r.integer(idxObj, idxKey, idxWhere)
	if err != nil {
		return nil, "", err
	}
	var desc *jsjson.Value
	switch {
	case has && n >= 0:
		if n >= len(rules) {
			return nil, "", r.errAt(idxObj.Get(idxKey), "%s: rule %d does not exist: the tool lists %d rules", idxWhere, n, len(rules))
		}
		desc = rules[n]
	case id != "":
		desc = rc.ruleByID(comp, rules, id)
	}
	if desc != nil && desc.Kind != jsjson.Object {
		return nil, "", r.errAt(desc, "%s: its rule descriptor is %s, not an object", where, sarifDescribe(desc))
	}
	if id == "" {
		if id, err = r.str(desc, "id", where+": its rule descriptor's id"); err != nil {
			return nil, "", err
		}
	}
	if id == "" {
		return nil, "", r.errAt(res, "%s: the result names no rule (no ruleId, rule.id or rule index), so it cannot be told apart from other findings", where)
	}
	return desc, id, nil
}

// component is the tool component whose rules a result refers to: the
// extension that rule.toolComponent names, else the driver.
func (r *sarifReader) component(rc *sarifRun, where string, ref *jsjson.Value) (*jsjson.Value, error) {
	tc, err := r.object(ref, "toolComponent", where+".rule.toolComponent")
	if err != nil || tc == nil {
		return rc.driver, err
	}
	n, has, err := r.integer(tc, "index", where+".rule.toolComponent.index")
	if err != nil {
		return nil, err
	}
	if has && n >= 0 {
		if n >= len(rc.extensions) {
			return nil, r.errAt(tc.Get("index"), "%s.rule.toolComponent.index: extension %d does not exist: the tool lists %d extensions", where, n, len(rc.extensions))
		}
		if ext := rc.extensions[n]; ext.Kind == jsjson.Object {
			return ext, nil
		}
		return nil, r.errAt(rc.extensions[n], "%s: tool extension %d is not an object", where, n)
	}
	name, err := r.str(tc, "name", where+".rule.toolComponent.name")
	if err != nil {
		return nil, err
	}
	for _, ext := range rc.extensions {
		if n, _ := ext.Get("name").AsString(); n != "" && n == name {
			return ext, nil
		}
	}
	return rc.driver, nil
}

// ruleByID finds a rule descriptor by id in one component's rules.
func (rc *sarifRun) ruleByID(comp *jsjson.Value, rules []*jsjson.Value, id string) *jsjson.Value {
	m, ok := rc.ruleIDs[comp]
	if !ok {
		m = map[string]*jsjson.Value{}
		for _, d := range rules {
			if s, ok := d.Get("id").AsString(); ok {
				if _, dup := m[s]; !dup {
					m[s] = d
				}
			}
		}
		rc.ruleIDs[comp] = m
	}
	return m[id]
}

// severity maps the result's level and security-severity score to a
// Severity (see ReadSARIF).
func (r *sarifReader) severity(where string, res, desc *jsjson.Value) (Severity, error) {
	level, err := r.str(res, "level", where+".level")
	if err != nil {
		return "", err
	}
	if level == "" {
		cfg, err := r.object(desc, "defaultConfiguration", where+": its rule's defaultConfiguration")
		if err != nil {
			return "", err
		}
		if level, err = r.str(cfg, "level", where+": its rule's defaultConfiguration.level"); err != nil {
			return "", err
		}
	}
	sev := Medium // SARIF's default level is "warning"
	switch level {
	case "error":
		sev = High
	case "note", "none":
		sev = Low
	case "", "warning":
	default:
		v := res.Get("level")
		if v == nil {
			v = desc
		}
		return "", r.errAt(v, "%s: level %q is not one of error, warning, note, none", where, level)
	}
	for _, holder := range []*jsjson.Value{res, desc} {
		props, err := r.object(holder, "properties", where+": properties")
		if err != nil {
			return "", err
		}
		if s := props.Get("security-severity"); s != nil && s.Kind != jsjson.Null {
			score, err := r.score(where, s)
			if err != nil {
				return "", err
			}
			return sarifScoreSeverity(score), nil
		}
	}
	return sev, nil
}

// score reads a security-severity value: a CVSS score from 0 to 10, as a
// number or a decimal string.
func (r *sarifReader) score(where string, v *jsjson.Value) (float64, error) {
	f, ok := v.Num, v.Kind == jsjson.Number
	if s, isStr := v.AsString(); isStr {
		var err error
		f, err = strconv.ParseFloat(strings.TrimSpace(s), 64)
		ok = err == nil
	}
	if !ok || f != f || f < 0 || f > 10 {
		return 0, r.errAt(v, "%s: security-severity %s is not a score from 0 to 10", where, sarifDescribe(v))
	}
	return f, nil
}

// sarifScoreSeverity ranks a CVSS score as GitHub code scanning does.
func sarifScoreSeverity(score float64) Severity {
	switch {
	case score >= 9:
		return Critical
	case score >= 7:
		return High
	case score >= 4:
		return Medium
	}
	return Low
}

// message builds the result's text (see ReadSARIF).
func (r *sarifReader) message(rc *sarifRun, where string, res, desc *jsjson.Value, ruleID string) (string, error) {
	w := where + ".message"
	msg, err := r.object(res, "message", w)
	if err != nil {
		return "", err
	}
	text, err := r.str(msg, "text", w+".text")
	if err != nil {
		return "", err
	}
	var args []string
	argv, err := r.array(msg, "arguments", w+".arguments")
	if err != nil {
		return "", err
	}
	for i, a := range argv {
		s, ok := a.AsString()
		if !ok {
			return "", r.errAt(a, "%s.arguments[%d]: want a string, not %s", w, i, sarifDescribe(a))
		}
		args = append(args, s)
	}
	if text == "" {
		if text, err = r.messageString(rc, w, msg, desc); err != nil {
			return "", err
		}
	}
	if text == "" {
		if text, err = r.str(msg, "markdown", w+".markdown"); err != nil {
			return "", err
		}
	}
	if text != "" {
		return sarifFillPlaceholders(text, args), nil
	}
	for _, key := range []string{"shortDescription", "fullDescription"} {
		d, err := r.object(desc, key, where+": its rule's "+key)
		if err != nil {
			return "", err
		}
		if text, err = r.str(d, "text", where+": its rule's "+key+".text"); text != "" || err != nil {
			return text, err
		}
	}
	return ruleID, nil
}

// messageString looks message.id up in the rule's messageStrings, then in
// the driver's globalMessageStrings.
func (r *sarifReader) messageString(rc *sarifRun, where string, msg, desc *jsjson.Value) (string, error) {
	id, err := r.str(msg, "id", where+".id")
	if err != nil || id == "" {
		return "", err
	}
	for _, src := range []struct {
		holder *jsjson.Value
		key    string
	}{{desc, "messageStrings"}, {rc.driver, "globalMessageStrings"}} {
		strs, err := r.object(src.holder, src.key, where+": "+src.key)
		if err != nil {
			return "", err
		}
		entry, err := r.object(strs, id, where+": "+src.key+"["+strconv.Quote(id)+"]")
		if err != nil {
			return "", err
		}
		if text, err := r.str(entry, "text", where+": "+src.key+"["+strconv.Quote(id)+"].text"); text != "" || err != nil {
			return text, err
		}
	}
	return "", nil
}

// sarifFillPlaceholders replaces {N} with args[N] and undoubles {{ and }} in a
// SARIF format string. Without arguments the text is not a format string
// and is kept as it is.
func sarifFillPlaceholders(s string, args []string) string {
	if len(args) == 0 || !strings.ContainsAny(s, "{}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c == '{' || c == '}') && i+1 < len(s) && s[i+1] == c {
			b.WriteByte(c)
			i++
			continue
		}
		if c == '{' {
			j := i + 1
			for j < len(s) && j-i <= 6 && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j > i+1 && j < len(s) && s[j] == '}' {
				if n, err := strconv.Atoi(s[i+1 : j]); err == nil && n < len(args) {
					b.WriteString(args[n])
					i = j
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// location fills File, Line and Column from the first location's
// physicalLocation.
func (r *sarifReader) location(rc *sarifRun, where string, res *jsjson.Value, f *Finding) error {
	locs, err := r.array(res, "locations", where+".locations")
	if err != nil {
		return err
	}
	var phys *jsjson.Value
	var w string
	for i, loc := range locs {
		w = fmt.Sprintf("%s.locations[%d]", where, i)
		if loc.Kind != jsjson.Object {
			return r.errAt(loc, "%s: want an object, not %s", w, sarifDescribe(loc))
		}
		if phys, err = r.object(loc, "physicalLocation", w+".physicalLocation"); err != nil || phys != nil {
			break
		}
	}
	if err != nil || phys == nil {
		return err
	}
	w += ".physicalLocation"
	al, err := r.object(phys, "artifactLocation", w+".artifactLocation")
	if err != nil {
		return err
	}
	uri, base, err := r.artifactURI(rc, w+".artifactLocation", al, true)
	if err != nil || uri == "" {
		return err
	}
	f.File, _ = r.repoPath(rc, uri, base, 0)
	if f.File == "" {
		return nil
	}
	region, err := r.object(phys, "region", w+".region")
	if err != nil || region == nil {
		return err
	}
	line, _, err := r.integer(region, "startLine", w+".region.startLine")
	if err != nil || line < 1 {
		return err
	}
	col, _, err := r.integer(region, "startColumn", w+".region.startColumn")
	if err != nil {
		return err
	}
	f.Line, f.Column = line, max(col, 0)
	end, _, err := r.integer(region, "endLine", w+".region.endLine")
	if err != nil {
		return err
	}
	if end > line {
		f.EndLine = end
	}
	return nil
}

// artifactURI returns an artifactLocation's uri and uriBaseId, taking both
// from run.artifacts[index] when the uri is missing (follow is false there,
// so that an artifact cannot point at itself).
func (r *sarifReader) artifactURI(rc *sarifRun, where string, al *jsjson.Value, follow bool) (string, string, error) {
	uri, err := r.str(al, "uri", where+".uri")
	if err != nil {
		return "", "", err
	}
	base, err := r.str(al, "uriBaseId", where+".uriBaseId")
	if err != nil || uri != "" || !follow {
		return uri, base, err
	}
	n, has, err := r.integer(al, "index", where+".index")
	if err != nil || !has || n < 0 {
		return "", "", err
	}
	var arts []*jsjson.Value
	if rc.artifacts != nil {
		arts = rc.artifacts.Elems
	}
	if n >= len(arts) {
		return "", "", r.errAt(al.Get("index"), "%s.index: artifact %d does not exist: the run lists %d artifacts", where, n, len(arts))
	}
	w := fmt.Sprintf("%s.artifacts[%d]", rc.where, n)
	if arts[n].Kind != jsjson.Object {
		return "", "", r.errAt(arts[n], "%s: want an object, not %s", w, sarifDescribe(arts[n]))
	}
	loc, err := r.object(arts[n], "location", w+".location")
	if err != nil {
		return "", "", err
	}
	return r.artifactURI(rc, w+".location", loc, false)
}

// repoPath turns an artifact URI into a repository-relative path ("" for
// the root itself). When the URI does not lie inside the repository it
// returns false with the path as the log gives it: an absolute or climbing
// path, or the URI itself when it is not a file URI.
func (r *sarifReader) repoPath(rc *sarifRun, uri, base string, depth int) (string, bool) {
	p, abs, isFile := sarifURIPath(uri)
	switch {
	case !isFile:
		return uri, false
	case abs:
		for _, root := range rc.roots {
			if rel, ok := strings.CutPrefix(p, root); ok {
				return sarifCleanRelative(rel)
			}
		}
		return p, false
	}
	if base != "" && depth < 8 {
		if def := rc.baseIDs.Get(base); def != nil {
			u, _ := def.Get("uri").AsString()
			b, _ := def.Get("uriBaseId").AsString()
			if _, baseAbs, _ := sarifURIPath(u); u != "" && !baseAbs {
				prefix, ok := r.repoPath(rc, u, b, depth+1)
				if !ok {
					return path.Join(prefix, p), false
				}
				if prefix != "" {
					p = prefix + "/" + p
				}
			}
		}
	}
	return sarifCleanRelative(p)
}

// sarifCleanRelative cleans a relative path ("" for the root itself); false
// when it climbs out of the root.
func sarifCleanRelative(p string) (string, bool) {
	c := path.Clean(p)
	switch {
	case c == "..", strings.HasPrefix(c, "../"), strings.HasPrefix(c, "/"):
		return c, false
	case c == ".":
		return "", true
	}
	return c, true
}

// sarifURIPath decodes a URI to a cleaned '/'-separated path and reports
// whether it is absolute; isFile is false for a URI with a scheme other
// than file: or a file URI on another host.
func sarifURIPath(uri string) (p string, abs, isFile bool) {
	s := strings.ReplaceAll(uri, "\\", "/")
	if scheme, rest, ok := strings.Cut(s, ":"); ok && sarifIsScheme(scheme) {
		if !strings.EqualFold(scheme, "file") {
			return "", false, false
		}
		s = rest
		if h, ok := strings.CutPrefix(s, "//"); ok {
			host, p, _ := strings.Cut(h, "/")
			if host != "" && !strings.EqualFold(host, "localhost") {
				return "", false, false
			}
			s = "/" + p
		}
	}
	if d, err := url.PathUnescape(s); err == nil {
		s = strings.ReplaceAll(d, "\\", "/")
	}
	switch {
	case strings.HasPrefix(s, "/"):
		return path.Clean(s), true, true
	case sarifIsDrive(s):
		return path.Clean("/" + s), true, true
	}
	return s, false, true
}

// sarifIsScheme reports whether s is a URI scheme (RFC 3986 section 3.1) and not
// a Windows drive letter.
func sarifIsScheme(s string) bool {
	if len(s) < 2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// sarifIsDrive reports whether s starts with a Windows drive such as "C:/".
func sarifIsDrive(s string) bool {
	return len(s) >= 3 && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') && s[1] == ':' && s[2] == '/'
}

// partialFingerprint picks primaryLocationLineHash, else the first key in
// byte order, as "key:value".
func (r *sarifReader) partialFingerprint(where string, res *jsjson.Value) (string, error) {
	fps, err := r.object(res, "partialFingerprints", where+".partialFingerprints")
	if err != nil || fps == nil {
		return "", err
	}
	keys := make([]string, 0, len(fps.Members))
	for _, m := range fps.Members {
		if m.Value.Kind != jsjson.String {
			return "", r.errAt(m.Value, "%s.partialFingerprints[%q]: want a string, not %s", where, m.Key, sarifDescribe(m.Value))
		}
		keys = append(keys, m.Key)
	}
	if len(keys) == 0 {
		return "", nil
	}
	slices.Sort(keys)
	key := keys[0]
	if fps.Get("primaryLocationLineHash") != nil {
		key = "primaryLocationLineHash"
	}
	v, _ := fps.Get(key).AsString()
	return key + ":" + v, nil
}

// jsonValues counts, outside strings, the commas and opening brackets of
// data plus one: at least the number of array elements and object
// members a parser would build, in one pass and no memory.
func jsonValues(data []byte) int {
	n, inString := 1, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == ',' || c == '[' || c == '{':
			n++
		}
	}
	return n
}
