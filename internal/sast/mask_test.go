package sast

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMaskedExcerpt(t *testing.T) {
	long := strings.Repeat("x", 200)
	for _, tc := range []struct {
		name   string
		f      Finding
		want   string
		secret string // must not appear
	}{
		{"go secret", Finding{RuleID: "sast/go-hardcoded-secret", Secret: true, Excerpt: "\tcfg := Config{Token: \"abcdefghijklmnop\"}"},
			`cfg := Config{Token: "ab…(16)"}`, "abcdefghijklmnop"},
		{"two secrets on a line", Finding{RuleID: "sast/js-hardcoded-secret", Secret: true,
			Excerpt: `const a = {api_key: "` + fakeStripeKey + `", token: 'tok_1234567890abcdefghijk'};`},
			`const a = {api_key: "sk…(28)", token: 'to…(25)'};`, "1234567890"},
		{"short java secret keeps nothing", Finding{RuleID: "sast/java-hardcoded-secret", Secret: true, Excerpt: `String password = "hunter2";`},
			`String password = "…(7)";`, "hunter"},
		{"connection string", Finding{RuleID: "sast/cs-hardcoded-connection-string", Secret: true,
			Excerpt: `ConnectionString = "Server=x;User Id=sa;Password=p4ss"`}, `ConnectionString = "Se…(33)"`, "p4ss"},
		{"unknown rule: every quoted string", Finding{RuleID: "gitleaks/aws", Secret: true, Excerpt: `aws = ("` + fakeAWSKey2 + `", 'x')`},
			`aws = ("AK…(20)", '…(1)')`, "IOSFODNN"},
		{"unknown rule, nothing quoted: all of it", Finding{RuleID: "x", Secret: true, Excerpt: fakeAWSKey2},
			"AK…(20)", "IOSFODNN"},
		{"not a secret: trimmed", Finding{RuleID: "sast/go-shell-injection", Excerpt: "\t\tcmd := exec.Command(\"sh\")  "},
			`cmd := exec.Command("sh")`, ""},
		{"not a secret: cut", Finding{Excerpt: long}, strings.Repeat("x", MaxExcerpt-1) + "…", ""},
		{"cut counts characters", Finding{Excerpt: strings.Repeat("é", 130)}, strings.Repeat("é", MaxExcerpt-1) + "…", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MaskedExcerpt(tc.f)
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if tc.secret != "" && strings.Contains(got, tc.secret) {
				t.Errorf("%q leaks %q", got, tc.secret)
			}
			if utf8.RuneCountInString(got) > MaxExcerpt {
				t.Errorf("%d characters", utf8.RuneCountInString(got))
			}
		})
	}
}

// TestMaskedExcerptScanned masks what ScanFile found, for every secret rule.
func TestMaskedExcerptScanned(t *testing.T) {
	for _, tc := range ruleCases {
		r := RuleByID("sast/" + tc.rule)
		if !r.Secret || tc.col == 0 {
			continue
		}
		findings, _ := ScanFile(tc.path, []byte(tc.content))
		for _, f := range findings {
			if f.RuleID != r.ID {
				continue
			}
			loc := r.re.FindStringSubmatchIndex(f.Excerpt)
			value := f.Excerpt[loc[2*r.secret]:loc[2*r.secret+1]]
			if got := MaskedExcerpt(f); strings.Contains(got, value) || !strings.Contains(got, "…(") {
				t.Errorf("%s: %q shows %q", r.ID, got, value)
			}
		}
	}
}

func TestMaskLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{`var password = "` + fakePassword + `" // TODO move to vault`, `var password = "Su…(23)" // TODO move to vault`},
		{`var token = "abcdefghijkl12345" // old: abcdefghijkl12345`, `var token = "ab…(17)" // old: ab…(17)`},
		{`apiKey: ` + fakeStripeKey2, `apiKey: sk…(24)`},
		{`Secret: ` + fakeGitHubToken + ` found`, `Secret: gh…(34) found`},
		{`aws = "` + fakeAWSKey + `"`, `aws = "AK…(20)"`},
		{`const tokens = countTokens(x) // TODO`, `const tokens = countTokens(x) // TODO`},
		{`// TODO: handle the auth flow`, `// TODO: handle the auth flow`},
		{`password = ""`, `password = ""`},
		{"password: hunter2hunter2", "password: hu…(14)"},
		{`if token == "" { return }`, `if token == "" { return }`},
	}
	for _, c := range cases {
		if got := MaskLine(c.in); got != c.want {
			t.Errorf("MaskLine(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
