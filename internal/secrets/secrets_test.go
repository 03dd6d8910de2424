package secrets

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
)

// Credentials for the tests are assembled at run time from pieces, so that
// no scanner reading this repository (GitHub push protection included)
// sees one in the source.
var (
	awsKey  = "AKIA" + "QYLPMN5H" + "FIQR7XYA"
	ghToken = "ghp_" + "Kx82hQz0LmN4pR7s" + "T1vW3yB5dF9gJ2kA6cE8"
	pemBody = []string{
		"-----BEGIN RSA " + "PRIVATE KEY-----",
		"MIIEowIBAAKCAQEAwJ0sQ0Yk0m0g2Bq3m0G2bq3GJk2yqW0t4o+ZC8Cq8tZ1Vb2X",
		"q8tZ1Vb2Xq8tZ1Vb2XwJ0sQ0Yk0m0g2Bq3m0G2bq3GJk2yqW0t4o+ZC8Cq8tZ1Vb2X",
		"-----END RSA " + "PRIVATE KEY-----",
	}
	genericVal = "x8Kd93jf" + "Lq02PzMn4"
)

func scanner(t testing.TB) *Scanner {
	t.Helper()
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func lines(texts ...string) []Line {
	out := make([]Line, len(texts))
	for i, s := range texts {
		out[i] = Line{i + 1, s}
	}
	return out
}

func TestScanLines(t *testing.T) {
	s := scanner(t)
	for _, tc := range []struct {
		name  string
		path  string
		lines []Line
		want  []string // "rule@line"
		dism  []string // dismissed "rule@line"
	}{
		{name: "aws key in a README", path: "README.md", lines: lines("Use `" + awsKey + "` to log in."), want: []string{"aws-access-token@1"}},
		{name: "gitleaks:allow does not hide", path: "app.py", lines: lines(`KEY = "` + awsKey + `"  # gitleaks:allow`), want: []string{"aws-access-token@1"}},
		{name: "github token", path: "deploy.sh", lines: lines("export GH=" + ghToken), want: []string{"github-pat@1"}},
		{name: "PEM key on added lines 10-13", path: "docs/setup.md", lines: []Line{{10, pemBody[0]}, {11, pemBody[1]}, {12, pemBody[2]}, {13, pemBody[3]}}, want: []string{"private-key@10"}},
		{name: "PEM key split by a line the PR does not add", path: "docs/setup.md", lines: []Line{{10, pemBody[0]}, {11, pemBody[1]}, {13, pemBody[3]}}},
		{name: "generic value with digits", path: "config.js", lines: lines(`const token = "` + genericVal + `";`), want: []string{"generic-api-key@1"}},
		{name: "generic value without a digit", path: "config.js", lines: lines(`const apiKey = "someLongValueHereOk";`)},
		{name: "lock file skipped (gitleaks' global allowlist)", path: "web/package-lock.json", lines: lines(`"token": "` + genericVal + `"`)},
		{name: "path-only rule", path: "certs/client.p12", want: []string{"pkcs12-file@0"}},
		{name: "keyword in upper case", path: "a.env", lines: lines("AWS_ACCESS_KEY_ID=" + awsKey), want: []string{"aws-access-token@1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, ds, omitted := s.ScanLines(tc.path, tc.lines)
			if omitted != 0 {
				t.Errorf("omitted %d", omitted)
			}
			if got := ids(fs); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
			if got := ids(ds); fmt.Sprint(got) != fmt.Sprint(tc.dism) {
				t.Errorf("dismissed %v, want %v", got, tc.dism)
			}
			for _, f := range append(fs, ds...) {
				if f.Secret != "" && strings.Contains(f.Excerpt, f.Secret) {
					t.Errorf("excerpt %q shows the secret", f.Excerpt)
				}
				if f.Note == "" && len(ds) > 0 && contains(ds, f) {
					t.Errorf("dismissed without a note: %+v", f)
				}
			}
		})
	}
}

func contains(fs []Finding, f Finding) bool {
	for _, g := range fs {
		if g.RuleID == f.RuleID && g.Line == f.Line {
			return true
		}
	}
	return false
}

func ids(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s@%d", f.RuleID, f.Line))
	}
	return out
}

// TestMaxPerFile: past MaxPerFile findings in one file the rest are
// counted, not returned.
func TestMaxPerFile(t *testing.T) {
	s := scanner(t)
	var ls []Line
	for i := range MaxPerFile + 7 {
		ls = append(ls, Line{i + 1, fmt.Sprintf("k%d = %s", i, awsKey)})
	}
	fs, _, omitted := s.ScanLines("keys.txt", ls)
	if len(fs) != MaxPerFile || omitted != 7 {
		t.Errorf("%d findings, %d omitted; want %d and 7", len(fs), omitted, MaxPerFile)
	}
}

// TestWindows: windows stay within runs of consecutive lines, within
// ChunkLines, and overlap by ChunkOverlap lines when a run is cut.
func TestWindows(t *testing.T) {
	var ls []Line
	for i := range 3 * ChunkLines {
		ls = append(ls, Line{i + 1, "x"})
	}
	ls = append(ls, Line{3*ChunkLines + 10, "y"}) // a gap: a new run
	var at []int
	for i := 0; i < 3*ChunkLines; i += 100 {
		at = append(at, i)
	}
	at = append(at, len(ls)-1)
	ws := windows(ls, at)
	if len(ws) < 4 {
		t.Fatalf("windows %v", ws)
	}
	for i, w := range ws {
		if w[1]-w[0] > ChunkLines {
			t.Errorf("window %v longer than %d lines", w, ChunkLines)
		}
		if i > 0 && ws[i-1][1] > w[0] && ws[i-1][1]-w[0] != ChunkOverlap {
			t.Errorf("windows %v and %v overlap by %d lines, want %d", ws[i-1], w, ws[i-1][1]-w[0], ChunkOverlap)
		}
	}
	if last := ws[len(ws)-1]; last != [2]int{len(ls) - 1, len(ls)} {
		t.Errorf("last window %v, want the lone line after the gap", last)
	}
}

// TestChunkBytes: a run of long lines is cut at ChunkBytes.
func TestChunkBytes(t *testing.T) {
	long := strings.Repeat("a", 300_000)
	ls := lines(long, long, long, long, long)
	for _, w := range windows(ls, []int{0}) {
		size := 0
		for _, l := range ls[w[0]:w[1]] {
			size += len(l.Text) + 1
		}
		if size > ChunkBytes && w[1]-w[0] > 1 {
			t.Errorf("window %v holds %d bytes", w, size)
		}
	}
}

// TestRefine: what the name-based rules (generic-api-key, curl-auth-header)
// match on real code that is no credential is dismissed with a note; a
// credential-shaped value is kept; other rules are never refined.
func TestRefine(t *testing.T) {
	for _, tc := range []struct {
		rule, secret string
		dismissed    bool
	}{
		{"generic-api-key", "someLongValueHereOk", true},       // no digit
		{"curl-auth-header", "ACCESS_TOKEN_VALUE", true},       // no digit
		{"generic-api-key", "server_k3y2024.pem", true},        // a file name
		{"generic-api-key", "configs/prod/serv1ce.json", true}, // a file path
		{"generic-api-key", "settings.authTokenSecret2", true}, // an identifier
		{"generic-api-key", "STRIPE_KEY_PROD2", true},          // an identifier
		{"curl-auth-header", "authHeaderV2", true},             // an identifier
		{"generic-api-key", genericVal, false},                 // digits inside its words
		{"generic-api-key", "a8f3k2c9d0e1b7", false},
		{"curl-auth-header", "dGVzdDp0ZXN0MTIzNDU2", false},
		{"aws-access-token", "someLongValueHereOk", false},        // not a name-based rule
		{"generic-api-key", "Abcdefghijklmnopqrstuvwxy12", false}, // one long word: not an identifier
	} {
		note := refine(Finding{RuleID: tc.rule, Secret: tc.secret})
		if (note != "") != tc.dismissed {
			t.Errorf("refine(%s %q) = %q, want dismissed %v", tc.rule, tc.secret, note, tc.dismissed)
		}
	}
}

func TestTestPathReason(t *testing.T) {
	for p, want := range map[string]bool{
		"test/a.go": true, "pkg/tests/x.py": true, "src/__tests__/a.js": true, "a/fixtures/k.json": true,
		"internal/x/testdata/k.txt": true, "x_test.go": true, "a/b.spec.ts": true, "c.test.js": true,
		"src/main.go": false, "latest/x.go": false, "contest.md": false, "testing.go": false, "attest/x": false,
	} {
		if got := TestPathReason(p) != ""; got != want {
			t.Errorf("TestPathReason(%q) = %q, want test path %v", p, TestPathReason(p), want)
		}
	}
}

func TestMask(t *testing.T) {
	for _, tc := range []struct{ line, secret, want string }{
		{`k = "` + awsKey + `" // ` + awsKey, awsKey, `k = "AK…(20)" // AK…(20)`},
		{"pw=abc", "abc", "pw=…(3)"},
		{pemBody[1], strings.Join(pemBody, "\n"), "MI…(64)"},
		{"nothing here", "zzzzzzzzzz", "nothing here"},
	} {
		if got := Mask(tc.line, tc.secret); got != tc.want {
			t.Errorf("Mask(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// FuzzScanFile: any content scans without a panic, every finding lies on
// a line of the content, and no excerpt shows its secret.
func FuzzScanFile(f *testing.F) {
	f.Add("a.txt", []byte("aws = "+awsKey+"\n"))
	f.Add("k.md", []byte(strings.Join(pemBody, "\n")))
	f.Add("x.yaml", []byte("kind: Secret\ndata:\n  password: c2VjcmV0cGFzc3dvcmQxMjM=\n"))
	f.Add("curl.sh", []byte("curl https://x \\\n  -H \"Authorization: Bearer "+genericVal+"\"\n"))
	f.Add("e", []byte{})
	s := scanner(f)
	f.Fuzz(func(t *testing.T, path string, content []byte) {
		fs, ds, _ := s.ScanFile(path, content)
		n := strings.Count(string(content), "\n") + 1
		for _, x := range append(fs, ds...) {
			if x.Line < 0 || x.Line > n || x.EndLine < x.Line && x.Line != 0 {
				t.Fatalf("finding at lines %d-%d of %d: %+v", x.Line, x.EndLine, n, x)
			}
			if len(x.Secret) >= 4 && strings.Contains(x.Excerpt, x.Secret) {
				t.Fatalf("excerpt %q shows secret %q", x.Excerpt, x.Secret)
			}
		}
	})
}

// PathSecrets finds a credential used as a file name, and nothing in
// ordinary paths, so that only such paths are masked.
func TestPathSecrets(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want string // "" = none
	}{
		{"config/" + awsKey + ".txt", awsKey},
		{"src/main.go", ""},
		{"docs/api_key_rotation.md", ""},
		{"internal/secrets/aws_access_key_id.go", ""},
		{"keys/server.p12", ""}, // a path-only rule names a file type, not a value
	} {
		got := s.PathSecrets(c.path)
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || got[0] != c.want) {
			t.Errorf("PathSecrets(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

// TestKeywordUnicodeLowerCase: gitleaks finds a rule's keywords in the
// line lower-cased by strings.ToLower, which turns the Kelvin sign into k;
// a line whose only keyword is written with it ("\u212Aey = ...") is
// still given to the generic rule, whose (?i)k matches the Kelvin sign.
func TestKeywordUnicodeLowerCase(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"\u212Aey = \"Zx8kQ2mP9vL4nR7tW3yB\"",
		"my\u212Aey: Zx8kQ2mP9vL4nR7tW3yB",
		"é; \u212Aey = \"Zx8kQ2mP9vL4nR7tW3yB\"",
	} {
		fs, _, _ := s.ScanLines("config.env", []Line{{N: 1, Text: text}})
		if len(fs) != 1 || fs[0].Secret != "Zx8kQ2mP9vL4nR7tW3yB" {
			t.Errorf("%q: findings %+v, want the generic rule's Zx8kQ2mP9vL4nR7tW3yB (gitleaks finds it)", text, fs)
		}
	}
}

// TestStopWordsAsGitleaks: the scanner's stop words (stopWords) exempt what
// gitleaks' Allowlist.ContainsStopWord exempts, and its allowlists keep no
// trie of their own (gitleaks builds one of some 8 MiB for
// generic-api-key's words; the scanner holds them once, in a set).
func TestStopWordsAsGitleaks(t *testing.T) {
	cfg, err := DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var orig *config.Allowlist
	for _, a := range cfg.Rules["generic-api-key"].Allowlists {
		if len(a.StopWords) > 0 {
			orig = a
		}
	}
	if orig == nil {
		t.Fatal("generic-api-key has no stop words in gitleaks' default configuration")
	}
	samples := []string{"", "x", "abcdef0123456789", "MyExampleKey", "TOKEN_VALUE", "sk_live_a1b2c3", "passwordpassword", "8f14e45fceea167a5a36dedd4bea2543"}
	for _, w := range orig.StopWords[:50] {
		samples = append(samples, w, strings.ToUpper(w)+"9x", "a"+w[:len(w)-1])
	}
	stops := newStopWords(orig.StopWords)
	for _, x := range samples {
		want, _ := orig.ContainsStopWord(x)
		if got := stops.in(x); got != want {
			t.Errorf("%q: stop word %v, gitleaks says %v", x, got, want)
		}
	}
	lists := append([]*config.Allowlist{}, sc.global...)
	for _, r := range sc.rules {
		lists = append(lists, r.Allowlists...)
	}
	for _, a := range lists {
		if !reflect.ValueOf(a).Elem().FieldByName("stopwordTrie").IsNil() {
			t.Errorf("an allowlist (%s) keeps gitleaks' stop-word trie", a.Description)
		}
		if len(a.StopWords) > 0 && sc.stops[a] == nil {
			t.Errorf("an allowlist (%s) has stop words the scanner does not hold", a.Description)
		}
	}
}
