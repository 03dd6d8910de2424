package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// SARIF output constants.
const (
	// SARIFSchema is the $schema of the logs WriteSARIF writes: the OASIS
	// SARIF 2.1.0 schema (errata 01), which internal/report/testdata holds.
	SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// SARIFFingerprintKey is the partialFingerprints key of swarm-gate's
	// fingerprint; the "/v1" changes if the recipe ever does.
	SARIFFingerprintKey = "swarmGate/v2"
	// SARIFNoPathFile is where a finding without a path is placed: GitHub
	// code scanning rejects a whole upload when one result has no location
	// ("expected at least one location"), and a swarm-gate finding is about
	// the phase plan when it is about no file.
	SARIFNoPathFile = swarm.PlanPath
)

// WriteSARIF writes every gate finding of the report (not only SAST ones) as
// one SARIF 2.1.0 log with one run, for GitHub code scanning and other SARIF
// viewers. The output is deterministic: rules are sorted by id, results
// follow the report's gate and finding order.
//
//   - tool.driver is "swarm-gate" at toolVersion, informationUri
//     ProjectURL, with one rule (reportingDescriptor) per rule id used,
//     described from the rule catalogue (LookupRule): shortDescription,
//     fullDescription, help text and markdown (what it means, why it
//     blocks, how to fix), properties.tags, properties.security-severity
//     for SAST and secret rules, and properties.gates, the checks that
//     reported it.
//   - automationDetails.id is SARIFCategory(r) + "/", e.g.
//     "swarm-gate/phase-2/": code scanning's category per phase.
//   - Each finding is a result with ruleId and ruleIndex, a level (severity
//     error, warning, notice become error, warning, note), message.text, and
//     a location: artifactLocation.uri is the repository-relative path,
//     percent-encoded, with uriBaseId %SRCROOT%; region startLine, endLine
//     and startColumn when the finding has a line. startColumn is the
//     finding's 1-based byte column: the same as SARIF's default UTF-16
//     column on ASCII lines. A finding about a whole file is placed on line
//     1 with the property wholeFile; a finding without a path on
//     SARIFNoPathFile line 1 with the property noPath, since GitHub refuses
//     results without a location.
//   - partialFingerprints[SARIFFingerprintKey] is the hex SHA-256 of
//     "gate|rule|path|key:<key>" for a finding with a key (gates.Finding.Key,
//     what it is about regardless of its place), else of
//     "gate|rule|path|message", where the message has its line references
//     ("line 12", "lines 3-5", ":12:6") replaced by "line N" and ":N", so the
//     fingerprint survives code moving up or down. The k-th (k >= 2) finding
//     with the same input hashes "gate|rule|path|message|#k" instead, so
//     equal findings in one file stay distinct alerts.
//   - Result properties name the gate and its outcome; the findings of an
//     overridden gate carry an accepted external suppression whose
//     justification is the gate's title (who overrode it), so viewers show
//     them as suppressed.
//   - The run's invocation is successful unless a gate (or the whole check)
//     could not be evaluated; each such gate is a tool execution
//     notification with level error. Run properties carry the report's
//     outcome, exit code, commits, phase and every gate's outcome and title.
func WriteSARIF(w io.Writer, r *Report, toolVersion string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(buildSARIF(r, toolVersion))
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool         `json:"tool"`
	AutomationDetails sarifAutomation   `json:"automationDetails"`
	Invocations       []sarifInvocation `json:"invocations"`
	Results           []sarifResult     `json:"results"`
	Properties        sarifRunProps     `json:"properties"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string         `json:"id"`
	ShortDescription sarifText      `json:"shortDescription"`
	FullDescription  sarifText      `json:"fullDescription"`
	Help             sarifHelp      `json:"help"`
	HelpURI          string         `json:"helpUri,omitempty"`
	Properties       sarifRuleProps `json:"properties"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifRuleProps struct {
	Tags             []string `json:"tags"`
	SecuritySeverity string   `json:"security-severity,omitempty"`
	// Gates are the checks that reported the rule in this run.
	Gates []string `json:"gates"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Properties *sarifGateProps `json:"properties,omitempty"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	// BaselineState is SARIF's word for a finding's delta: "new" when the
	// pull request introduces it, "unchanged" when the merge base has it.
	BaselineState string           `json:"baselineState,omitempty"`
	Properties    sarifResultProps `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification,omitempty"`
}

type sarifGateProps struct {
	Gate        string        `json:"gate"`
	GateOutcome gates.Outcome `json:"gateOutcome"`
}

type sarifResultProps struct {
	sarifGateProps
	WholeFile bool `json:"wholeFile,omitempty"`
	NoPath    bool `json:"noPath,omitempty"`
}

type sarifRunProps struct {
	Outcome     gates.Outcome     `json:"outcome"`
	ExitCode    int               `json:"exitCode"`
	Base        string            `json:"base,omitempty"`
	Head        string            `json:"head,omitempty"`
	MergeBase   string            `json:"mergeBase,omitempty"`
	Phase       int               `json:"phase,omitempty"`
	PhaseSource gates.PhaseSource `json:"phaseSource,omitempty"`
	Phases      []int             `json:"phases,omitempty"`
	Config      string            `json:"config,omitempty"`
	Error       string            `json:"error,omitempty"`
	Gates       []sarifGateEntry  `json:"gates"`
}

type sarifGateEntry struct {
	Name    string        `json:"name"`
	Outcome gates.Outcome `json:"outcome"`
	Title   string        `json:"title"`
}

func buildSARIF(r *Report, toolVersion string) sarifLog {
	r = maskedSecretPaths(r)
	run := sarifRun{
		Tool:              sarifTool{Driver: sarifDriver{Name: "swarm-gate", Version: toolVersion, InformationURI: ProjectURL, Rules: sarifRules(r)}},
		AutomationDetails: sarifAutomation{ID: SARIFCategory(r) + "/"},
		Invocations:       []sarifInvocation{sarifInvocationOf(r)},
		Results:           []sarifResult{},
		Properties: sarifRunProps{Outcome: r.Outcome, ExitCode: r.ExitCode, Base: r.Base, Head: r.Head, MergeBase: r.MergeBase,
			Phase: r.Phase, PhaseSource: r.PhaseSource, Phases: r.Phases, Config: r.Config, Error: r.Error, Gates: []sarifGateEntry{}},
	}
	index := map[string]int{}
	for i, rule := range run.Tool.Driver.Rules {
		index[rule.ID] = i
	}
	seen := map[string]int{}
	for _, g := range r.Gates {
		run.Properties.Gates = append(run.Properties.Gates, sarifGateEntry{Name: g.Name, Outcome: g.Outcome, Title: g.Title})
		for _, f := range g.Findings {
			run.Results = append(run.Results, sarifResultOf(g, f, index, seen))
		}
	}
	return sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}}
}

// sarifRuleID is the rule id of a finding; a finding without one is
// reported under its gate's name.
func sarifRuleID(g gates.Result, f gates.Finding) string {
	if f.Rule != "" {
		return f.Rule
	}
	return g.Name
}

// SARIFCategory is the code scanning category of a report's run:
// "swarm-gate/phase-<N>" for the phase the pull request carries, or
// "swarm-gate/no-phase" when it has none. The run's automationDetails.id is
// the category with a trailing "/" (GitHub reads the part before the last
// "/" as the category and the rest, here empty, as a run id), so each
// phase's pull requests keep their own set of alerts.
func SARIFCategory(r *Report) string {
	if r.Phase > 0 {
		return "swarm-gate/phase-" + strconv.Itoa(r.Phase)
	}
	return "swarm-gate/no-phase"
}

// sarifRules lists the rule ids the report uses, sorted, each with its
// catalogue entry (LookupRule) and the names of the gates that used it.
func sarifRules(r *Report) []sarifRule {
	users := map[string][]string{}
	for _, g := range r.Gates {
		for _, f := range g.Findings {
			id := sarifRuleID(g, f)
			if !slices.Contains(users[id], g.Name) {
				users[id] = append(users[id], g.Name)
			}
		}
	}
	rules := make([]sarifRule, 0, len(users))
	for id, names := range users {
		slices.Sort(names)
		d := LookupRule(names[0], id)
		rules = append(rules, sarifRule{ID: id, ShortDescription: sarifText{Text: d.Short}, FullDescription: sarifText{Text: d.Full},
			Help:       sarifHelp{Text: d.HelpText, Markdown: d.HelpMarkdown},
			Properties: sarifRuleProps{Tags: d.Tags, SecuritySeverity: d.SecuritySeverity, Gates: names}})
	}
	slices.SortFunc(rules, func(a, b sarifRule) int { return strings.Compare(a.ID, b.ID) })
	return rules
}

func sarifInvocationOf(r *Report) sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: r.Error == ""}
	if r.Error != "" {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "error", Message: sarifText{Text: "could not evaluate: " + r.Error}})
	}
	if pc := r.PolicyChange; pc.Invalid() {
		// Not a finding of any gate, but it fails the check.
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "error", Message: sarifText{Text: "the pull request's " + pc.Path + " is invalid: " + strings.Join(pc.Problems, "; ")}})
	}
	for _, g := range r.Gates {
		if g.Outcome != gates.Error {
			continue
		}
		inv.ExecutionSuccessful = false
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "error",
			Message: sarifText{Text: g.Name + ": " + g.Title}, Properties: &sarifGateProps{Gate: g.Name, GateOutcome: g.Outcome}})
	}
	return inv
}

func sarifResultOf(g gates.Result, f gates.Finding, index map[string]int, seen map[string]int) sarifResult {
	id := sarifRuleID(g, f)
	res := sarifResult{
		RuleID:     id,
		RuleIndex:  index[id],
		Level:      sarifLevel(f.Severity),
		Message:    sarifText{Text: f.Message},
		Properties: sarifResultProps{sarifGateProps: sarifGateProps{Gate: g.Name, GateOutcome: g.Outcome}},
	}
	if res.Message.Text == "" {
		res.Message.Text = id
	}
	switch f.Delta {
	case gates.DeltaIntroduced:
		res.BaselineState = "new"
	case gates.DeltaPreExisting:
		res.BaselineState = "unchanged"
	}
	file, region := f.Path, sarifRegion{StartLine: f.Line}
	switch {
	case file == "":
		file, region = SARIFNoPathFile, sarifRegion{StartLine: 1}
		res.Properties.NoPath = true
	case f.Line < 1:
		region = sarifRegion{StartLine: 1}
		res.Properties.WholeFile = true
	default:
		if f.EndLine >= f.Line {
			region.EndLine = f.EndLine
		}
		if f.Column > 0 {
			region.StartColumn = f.Column
		}
	}
	res.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{
		ArtifactLocation: sarifArtifact{URI: sarifURI(file), URIBaseID: "%SRCROOT%"},
		Region:           region,
	}}}
	res.PartialFingerprints = map[string]string{SARIFFingerprintKey: sarifFingerprint(g.Name, id, f.Path, f.Key, f.Message, seen)}
	if g.Outcome == gates.Overridden {
		res.Suppressions = []sarifSuppression{{Kind: "external", Status: "accepted", Justification: g.Title}}
	}
	return res
}

// sarifLevel maps a finding's severity to a SARIF level.
func sarifLevel(s gates.Severity) string {
	switch s {
	case gates.SeverityError:
		return "error"
	case gates.SeverityNotice:
		return "note"
	}
	return "warning"
}

// Line references in messages, normalised out of fingerprints.
var (
	sarifLineWords = regexp.MustCompile(`(?i)\blines? \d+(?:\s*(?:-|–|to)\s*\d+)?`)
	sarifLineColon = regexp.MustCompile(`:\d+(?::\d+)?\b`)
)

// sarifFingerprint is the partial fingerprint of a finding (see WriteSARIF);
// seen counts earlier findings with the same input.
func sarifFingerprint(gate, rule, path, key, message string, seen map[string]int) string {
	in := gate + "|" + rule + "|" + path + "|key:" + key
	if key == "" {
		msg := sarifLineWords.ReplaceAllString(message, "line N")
		msg = sarifLineColon.ReplaceAllString(msg, ":N")
		in = gate + "|" + rule + "|" + path + "|" + msg
	}
	seen[in]++
	if k := seen[in]; k > 1 {
		in += "|#" + strconv.Itoa(k)
	}
	sum := sha256.Sum256([]byte(in))
	return hex.EncodeToString(sum[:])
}

// sarifURI percent-encodes a repository-relative path as a relative URI
// reference: every byte but unreserved characters and '/' is escaped, so a
// ':' cannot read as a scheme and spaces or '%' survive.
func sarifURI(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

// maskedSecretPaths is a copy of r whose gates have the secret-looking
// values in their findings' paths masked (gates.MaskSecretPaths), for a
// SARIF log that leaves the runner (code scanning, an artifact): a gate
// that does not mask its own (all but swarm/sast and swarm/scope) must not
// publish a key through a file's name either. r is not changed.
func maskedSecretPaths(r *Report) *Report {
	c := *r
	c.Gates = make([]gates.Result, len(r.Gates))
	for i, g := range r.Gates {
		g.Findings = slices.Clone(g.Findings)
		gates.MaskSecretPaths(&g)
		c.Gates[i] = g
	}
	return &c
}
