package sast

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

func readSARIFFile(t *testing.T, file string) ([]Finding, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "sarif", file))
	if err != nil {
		t.Fatal(err)
	}
	return ReadSARIF("reports/"+file, data)
}

func TestReadSARIFScannerLogs(t *testing.T) {
	cases := []struct {
		file string
		want []Finding
	}{
		{"gosec.sarif", []Finding{
			{RuleID: "G204", Severity: High, Message: "Subprocess launched with a potential tainted input or cmd arguments", File: "cmd/app/main.go", Line: 27, Column: 14, Engine: "gosec"},
			{RuleID: "G401", Severity: Medium, Message: "Use of weak cryptographic primitive", File: "internal/hash/md5.go", Line: 12, Column: 7, Engine: "gosec"},
			// G104 carries an in-source suppression without a status: kept and
			// marked, since the code that suppresses it may be the pull request's.
			{RuleID: "G104", Severity: Medium, Message: "Errors unhandled", File: "cmd/app/main.go", Line: 40, Column: 2, Engine: "gosec", SuppressedInSource: true},
			// G112's suppression was rejected, so it stays.
			{RuleID: "G112", Severity: High, Message: "Potential Slowloris Attack because ReadHeaderTimeout is not configured in the http.Server", File: "internal/web/server.go", Line: 58, Column: 9, Engine: "gosec"},
		}},
		{"semgrep.sarif", []Finding{
			// No level: the rule's default (error), then security-severity "9.8" wins.
			{RuleID: "python.lang.security.audit.dangerous-subprocess-use-tainted-env-args.dangerous-subprocess-use-tainted-env-args", Severity: Critical,
				Message: "Detected subprocess function 'call' with user controlled data. A malicious actor could leverage this to perform command injection.",
				File:    "app/views.py", Line: 88, Column: 5, Engine: "Semgrep OSS"},
			// Percent-encoded space; braces kept as they are (no arguments).
			{RuleID: "python.flask.security.xss.audit.template-unescaped-with-safe.template-unescaped-with-safe", Severity: Medium,
				Message: "Detected a segment of a Flask template where autoescaping is explicitly disabled with '| safe' filter: {{ note | safe }}.",
				File:    "templates/order summary.html", Line: 14, Column: 6, Engine: "Semgrep OSS"},
			// "app/../app/settings.py" is cleaned; security-severity as a number.
			{RuleID: "python.django.security.audit.django-debug-true.django-debug-true", Severity: Medium,
				Message: "Detected Django app with DEBUG = True. Do not deploy it like this.",
				File:    "app/settings.py", Line: 23, Column: 1, Engine: "Semgrep OSS"},
		}},
		{"codeql.sarif", []Finding{
			{RuleID: "go/command-injection", Severity: Critical, Message: "This command depends on a [user-provided value](1).",
				File: "cmd/server/handler.go", Line: 41, Column: 23, Engine: "CodeQL", PartialFingerprint: "primaryLocationLineHash:6e2a1c5b07f3a9d4:1"},
			// Rule found by index in the extension, file by artifact index.
			{RuleID: "go/log-injection", Severity: High, Message: "This log entry depends on a [user-provided value](1).",
				File: "internal/audit/log.go", Line: 17, Column: 14, Engine: "CodeQL", PartialFingerprint: "primaryLocationLineHash:f0e1d2c3b4a59687:1"},
			// Rule found by id in the extension named by toolComponent.name;
			// an absolute URI under %SRCROOT%'s original location.
			{RuleID: "go/unhandled-writable-file-close", Severity: Medium,
				Message: "File handle may be writable as a result of data flow from a [call to OpenFile](1) and closing it may result in data loss upon failure, which is not handled explicitly.",
				File:    "internal/export/writer.go", Line: 63, Column: 8, Engine: "CodeQL", PartialFingerprint: "primaryLocationStartColumnFingerprint:6"},
			// Outside the checkout: kept absolute, so it cannot fingerprint stably.
			{RuleID: "go/log-injection", Severity: High, Message: "This log entry depends on a [user-provided value](1).",
				File: "/ci/build/go/pkg/mod/github.com/acme/logx@v1.2.0/logx.go", Line: 88, Column: 3, Engine: "CodeQL"},
		}},
		{"two-runs.sarif", []Finding{
			{RuleID: "G101", Severity: High, Message: "Potential hardcoded credentials", File: "config/secrets.go", Line: 9, Column: 2, Engine: "gosec"},
			{RuleID: "DS002", Severity: High, Message: "Artifact: Dockerfile\nType: dockerfile\nVulnerability DS002\nSeverity: HIGH\nMessage: Specify at least 1 USER command in Dockerfile with non-root user as argument",
				File: "Dockerfile", Line: 1, Column: 1, Engine: "Trivy"},
			// No locations; message from the rule's messageStrings with arguments.
			{RuleID: "CVE-2024-45337", Severity: Critical, Message: "Package: golang.org/x/crypto\nInstalled Version: v0.28.0\nFixed Version: 0.31.0", Engine: "Trivy"},
			// Rule by index only; empty message falls back to shortDescription; startLine 0 is unknown.
			{RuleID: "DS026", Severity: Low, Message: "No HEALTHCHECK defined", File: "deploy/Dockerfile", Engine: "Trivy"},
			// The kind "pass" result is not a finding.
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, err := readSARIFFile(t, c.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d findings, want %d: %+v", len(got), len(c.want), got)
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], c.want[i]) {
					t.Errorf("finding %d:\n got %+v\nwant %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestReadSARIFRejectsBadFiles(t *testing.T) {
	cases := []struct {
		file string
		line int
		want string
	}{
		{"bad-json.sarif", 10, "not valid JSON"},
		{"version-2.0.0.sarif", 3, `SARIF version "2.0.0" is not supported`},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, err := readSARIFFile(t, c.file)
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) || ae.Path != "reports/"+c.file || ae.Line != c.line || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want an ArtifactError on reports/%s line %d containing %q", err, c.file, c.line, c.want)
			}
		})
	}
}

// sarifRun1 wraps one result (JSON text) in a log of one gosec run whose
// driver has rule G1 (level note) at index 0.
func sarifRun1(result string) string {
	return `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"gosec","rules":[{"id":"G1","defaultConfiguration":{"level":"note"},"shortDescription":{"text":"short"}}]}},
"results":[` + result + `]}]}`
}

func TestReadSARIFResultCases(t *testing.T) {
	loc := func(uri string) string {
		return `"locations":[{"physicalLocation":{"artifactLocation":{"uri":` + uri + `},"region":{"startLine":5,"startColumn":2}}}]`
	}
	cases := []struct {
		name string
		log  string
		want []Finding // nil: no findings
	}{
		{"no runs", `{"version":"2.1.0","runs":[]}`, nil},
		{"runs null", `{"version":"2.1.0","runs":null}`, nil},
		{"run without results", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"gosec"}}}]}`, nil},
		{"byte order mark", "\ufeff" + sarifRun1(`{"ruleId":"G1","message":{"text":"m"}}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", Engine: "gosec"}}},
		{"level none is low", sarifRun1(`{"ruleId":"X","level":"none","message":{"text":"m"}}`),
			[]Finding{{RuleID: "X", Severity: Low, Message: "m", Engine: "gosec"}}},
		{"no level and no rule: warning", sarifRun1(`{"ruleId":"X","message":{"text":"m"}}`),
			[]Finding{{RuleID: "X", Severity: Medium, Message: "m", Engine: "gosec"}}},
		{"result security-severity beats the rule's", sarifRun1(`{"ruleId":"X","level":"error","message":{"text":"m"},"properties":{"security-severity":"3.9"}}`),
			[]Finding{{RuleID: "X", Severity: Low, Message: "m", Engine: "gosec"}}},
		{"security-severity 4.0 is medium", sarifRun1(`{"ruleId":"X","message":{"text":"m"},"properties":{"security-severity":4}}`),
			[]Finding{{RuleID: "X", Severity: Medium, Message: "m", Engine: "gosec"}}},
		{"security-severity 9 is critical", sarifRun1(`{"ruleId":"X","message":{"text":"m"},"properties":{"security-severity":" 9.0 "}}`),
			[]Finding{{RuleID: "X", Severity: Critical, Message: "m", Engine: "gosec"}}},
		{"rule.id when ruleId is missing", sarifRun1(`{"rule":{"id":"G9"},"message":{"text":"m"}}`),
			[]Finding{{RuleID: "G9", Severity: Medium, Message: "m", Engine: "gosec"}}},
		{"message from the rule", sarifRun1(`{"ruleIndex":0}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "short", Engine: "gosec"}}},
		{"placeholders", sarifRun1(`{"ruleId":"G1","message":{"text":"{0} calls {1} {{literally}} {2} {x}","arguments":["a","b"]}}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "a calls b {literally} {2} {x}", Engine: "gosec"}}},
		{"kind informational left out", sarifRun1(`{"ruleId":"G1","kind":"informational","message":{"text":"m"}}`), nil},
		{"baselineState absent left out", sarifRun1(`{"ruleId":"G1","baselineState":"absent","message":{"text":"m"}}`), nil},
		{"suppression accepted", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},"suppressions":[{"kind":"external","status":"underReview"},{"kind":"external","status":"accepted"}]}`), nil},
		{"suppression under review kept", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},"suppressions":[{"kind":"external","status":"underReview"}]}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", Engine: "gosec"}}},
		{"logical location only", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},"locations":[{"logicalLocations":[{"fullyQualifiedName":"main.run"}]}]}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", Engine: "gosec"}}},
		{"first physical location", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},"locations":[{"logicalLocations":[{"name":"f"}]},{"physicalLocation":{"artifactLocation":{"uri":"b.go"},"region":{"startLine":3}}}]}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", File: "b.go", Line: 3, Engine: "gosec"}}},
		{"file:// URI on the local host", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},` + loc(`"file://localhost/srv/x.go"`) + `}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", File: "/srv/x.go", Line: 5, Column: 2, Engine: "gosec"}}},
		{"file URI on another host", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},` + loc(`"file://build-7/src/x.go"`) + `}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", File: "file://build-7/src/x.go", Line: 5, Column: 2, Engine: "gosec"}}},
		{"https URI", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},` + loc(`"https://example.com/x.go"`) + `}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", File: "https://example.com/x.go", Line: 5, Column: 2, Engine: "gosec"}}},
		{"climbing out with ..", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},` + loc(`"src/../../other/x.go"`) + `}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", File: "../other/x.go", Line: 5, Column: 2, Engine: "gosec"}}},
		{"Windows path", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},` + loc(`"src\\win\\x.go"`) + `}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", File: "src/win/x.go", Line: 5, Column: 2, Engine: "gosec"}}},
		{"Windows absolute path under the mapped root",
			`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"gosec"}},"versionControlProvenance":[{"repositoryUri":"https://github.com/o/r","mappedTo":{"uri":"file:///C:/a/r/"}}],
"results":[{"ruleId":"G1","message":{"text":"m"},` + loc(`"C:\\a\\r\\pkg\\x.go"`) + `}]}]}`,
			[]Finding{{RuleID: "G1", Severity: Medium, Message: "m", File: "pkg/x.go", Line: 5, Column: 2, Engine: "gosec"}}},
		{"nested uriBaseId",
			`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"gosec"}},"originalUriBaseIds":{"SRC":{"uri":"src/","uriBaseId":"REPO"},"REPO":{"uri":"file:///w/r/"}},
"results":[{"ruleId":"G1","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"./x%2By.go","uriBaseId":"SRC"}}}]}]}]}`,
			[]Finding{{RuleID: "G1", Severity: Medium, Message: "m", File: "src/x+y.go", Engine: "gosec"}}},
		{"bad percent escape is literal", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},` + loc(`"100%.go"`) + `}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", File: "100%.go", Line: 5, Column: 2, Engine: "gosec"}}},
		{"partial fingerprint without the preferred key", sarifRun1(`{"ruleId":"G1","message":{"text":"m"},"partialFingerprints":{"b/v1":"2","a/v1":"1"}}`),
			[]Finding{{RuleID: "G1", Severity: Low, Message: "m", Engine: "gosec", PartialFingerprint: "a/v1:1"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadSARIF("scan.sarif", []byte(c.log))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 && len(c.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestReadSARIFErrorsNameTheLine(t *testing.T) {
	cases := []struct {
		name string
		log  string
		line int
		want string
	}{
		{"not an object", "[]", 1, "a SARIF log is a JSON object"},
		{"no version", `{"runs":[]}`, 1, `no "version"`},
		{"version as a number", "{\n\"version\": 2.1,\n\"runs\":[]}", 2, "SARIF version a JSON number is not supported"},
		{"runs not an array", "{\"version\":\"2.1.0\",\n\"runs\":{}}", 2, "runs: want an array"},
		{"no driver name", "{\"version\":\"2.1.0\",\"runs\":[\n{\"tool\":{\"driver\":{}}}]}", 2, "tool.driver.name is missing"},
		{"no rule at all", sarifRun1("\n{\"message\":{\"text\":\"m\"}}"), 3, "names no rule"},
		{"rule index out of range", sarifRun1("{\"ruleIndex\":\n7,\"message\":{\"text\":\"m\"}}"), 3, "ruleIndex: rule 7 does not exist: the tool lists 1 rules"},
		{"bad level", sarifRun1("{\"ruleId\":\"G1\",\n\"level\":\"fatal\",\"message\":{\"text\":\"m\"}}"), 3, `level "fatal" is not one of`},
		{"startLine as a string", sarifRun1("{\"ruleId\":\"G1\",\"message\":{\"text\":\"m\"},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"a.go\"},\"region\":{\"startLine\":\n\"12\"}}}]}"), 3,
			"results[0].locations[0].physicalLocation.region.startLine: want an integer"},
		{"uri as a number", sarifRun1("{\"ruleId\":\"G1\",\"message\":{\"text\":\"m\"},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\n1}}}]}"), 3, "artifactLocation.uri: want a string"},
		{"security-severity out of range", sarifRun1("{\"ruleId\":\"G1\",\"message\":{\"text\":\"m\"},\"properties\":{\"security-severity\":\n\"high\"}}"), 3, `security-severity "high" is not a score from 0 to 10`},
		{"artifact index out of range", sarifRun1("{\"ruleId\":\"G1\",\"message\":{\"text\":\"m\"},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"index\":\n3}}}]}"), 3, "artifact 3 does not exist"},
		{"partial fingerprint not a string", sarifRun1("{\"ruleId\":\"G1\",\"message\":{\"text\":\"m\"},\"partialFingerprints\":{\"k\":\n1}}"), 3, `partialFingerprints["k"]: want a string`},
		{"message argument not a string", sarifRun1("{\"ruleId\":\"G1\",\"message\":{\"text\":\"{0}\",\"arguments\":[\n1]}}"), 3, "arguments[0]: want a string"},
		{"suppression not an object", sarifRun1("{\"ruleId\":\"G1\",\"message\":{\"text\":\"m\"},\"suppressions\":[\ntrue]}"), 3, "suppressions[0]: want an object"},
		{"extension index out of range", sarifRun1("{\"rule\":{\"id\":\"x\",\"toolComponent\":{\"index\":\n0}},\"message\":{\"text\":\"m\"}}"), 3, "extension 0 does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSARIF("scan.sarif", []byte(c.log))
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) || ae.Path != "scan.sarif" || ae.Line != c.line || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want scan.sarif line %d containing %q", err, c.line, c.want)
			}
		})
	}
}

// TestReadSARIFValueLimit: a log of millions of tiny values is refused
// before it is parsed, with an error naming the file; commas and brackets
// in strings do not count.
func TestReadSARIFValueLimit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    string
		refused bool
	}{
		{"many values", `{"version":"2.1.0","runs":[],"x":[` + strings.Repeat("0,", MaxSARIFValues) + `0]}`, true},
		{"commas in a string", `{"version":"2.1.0","runs":[],"x":"` + strings.Repeat(",[{", MaxSARIFValues) + `\",["}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadSARIF("values.sarif", []byte(tc.data))
			var ae *swarm.ArtifactError
			refused := errors.As(err, &ae) && ae.Path == "values.sarif" && strings.Contains(err.Error(), "JSON values")
			if refused != tc.refused {
				t.Fatalf("error %v; want refused %v", err, tc.refused)
			}
		})
	}
}

func TestReadSARIFSizeLimit(t *testing.T) {
	data := make([]byte, MaxSARIFSize+1)
	_, err := ReadSARIF("big.sarif", data)
	var ae *swarm.ArtifactError
	if !errors.As(err, &ae) || ae.Path != "big.sarif" || !strings.Contains(err.Error(), "64 MiB") {
		t.Fatalf("error %v", err)
	}
}

func TestSARIFScoreSeverityBoundaries(t *testing.T) {
	for score, want := range map[float64]Severity{0: Low, 3.9: Low, 4: Medium, 6.9: Medium, 7: High, 8.9: High, 9: Critical, 10: Critical} {
		if got := sarifScoreSeverity(score); got != want {
			t.Errorf("%v: %s, want %s", score, got, want)
		}
	}
}
