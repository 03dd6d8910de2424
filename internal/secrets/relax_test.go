package secrets

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// TestPrefilterNecessary: on strings generated from every rule's own
// expression (gen, as the equivalence test makes them), wherever the rule
// matches, its loosened prefilter matches too: the prefilter never hides
// a finding.
func TestPrefilterNecessary(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 25))
	with, leads := 0, 0
	for _, ru := range s.rules {
		if ru.pre == nil {
			continue
		}
		with++
		re, err := syntax.Parse(ru.Regex.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 50; i++ {
			var b strings.Builder
			b.WriteString("x = ")
			gen(r, re, &b)
			b.WriteString(" ;")
			text := b.String()
			if ru.Regex.MatchString(text) && !ru.pre.MatchString(text) {
				t.Fatalf("rule %s matches %q but its prefilter %s does not", ru.RuleID, text, ru.pre)
			}
			if ru.lead != nil && !hasNonASCII(text) && ru.pre.MatchString(text) != ru.lead.match(text, lowerASCII(nil, text)) {
				t.Fatalf("rule %s: on %q the prefilter %s says %v, its leading literals %q the other", ru.RuleID, text, ru.pre, ru.pre.MatchString(text), ru.lead.lits)
			}
			if ru.lead != nil {
				leads++
			}
		}
	}
	if with < 50 || leads < 50*50 {
		t.Errorf("only %d rules have a prefilter, %d texts tried with leading literals", with, leads)
	}
}

// TestLeading: the literals every match starts with, lower case; nil where
// a match may start otherwise.
func TestLeading(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`(?i)(?:access|auth|(?-i:[Aa]pi|API)|key)[ \t]*=`, []string{"access", "auth", "api", "api", "key"}},
		{`AKIA[A-Z0-9]{16}`, []string{"akia"}},
		{`(?:ghp|gho)_[a-z]{36}`, []string{"gho_", "ghp_"}},
		{`\bkey=`, []string{"key="}},      // a leading \b is checked by hand
		{`^key=`, nil},                    // another assertion first: no literal starts every match
		{`k?ey`, nil},                     // may start with e
		{`[a-z0-9]{3}key`, nil},           // a class too large to list
		{`(?:key|x)[a-z]`, nil},           // x is one byte, too short to search for
		{`(?i)é(?:key)`, nil},             // a non-ASCII literal
		{`xy(?:ab|cd)*z`, []string{"xy"}}, // what follows a repetition does not extend them
	}
	for _, c := range cases {
		re, err := syntax.Parse(c.in, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		l := newLead(re.Simplify())
		var got []string
		if l != nil {
			for _, b := range l.lits {
				got = append(got, string(b))
			}
		}
		want := c.want
		if want != nil {
			seen := map[string]bool{}
			var dedup []string
			for _, w := range want {
				if !seen[w] {
					seen[w] = true
					dedup = append(dedup, w)
				}
			}
			want = dedup
		}
		if strings.Join(got, ",") != strings.Join(want, ",") || (got == nil) != (want == nil) {
			t.Errorf("leading literals of %s = %q, want %q", c.in, got, want)
		}
	}
	// A leading \b: where the literal starts a word, not inside one.
	re, _ := syntax.Parse(`\b(?:s\.|_x)[a-z]{3}`, syntax.Perl)
	b := newLead(re)
	for text, want := range map[string]bool{"s.abc": true, "os.abc": false, "(s.abc": true, "a s.abc": true, "a_xabc": false, "a _xabc": true, "_xabc": true, "s.ab": false} {
		if got := b.match(text, lowerASCII(nil, text)); got != want || got != regexp.MustCompile(re.String()).MatchString(text) {
			t.Errorf("%s on %q: %v, want %v", re, text, got, want)
		}
	}
	// On ASCII text only: (?i)k also matches the Kelvin sign, which ASCII
	// lower-casing does not find.
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	text := "\u212Aey_token = \"Zx8kQ2mP9vL4nR7tW3yB\""
	fs, _, _ := s.ScanLines("config.env", []Line{{N: 1, Text: text}})
	plain, _, _ := s.ScanLines("config.env", []Line{{N: 1, Text: "Key_token = \"Zx8kQ2mP9vL4nR7tW3yB\""}})
	if len(fs) != len(plain) {
		t.Errorf("with a Kelvin sign for K: %d findings, with K %d", len(fs), len(plain))
	}
}

// TestRelax: counted repetitions lose their maximum and keep at most
// relaxCap of their minimum; leading repetitions of a concatenation go.
func TestRelax(t *testing.T) {
	cases := []struct{ in, want string }{
		{`[a-z]{0,50}?key[0-9]{10,150}`, `key[0-9]{10,}`},
		{`AKIA[A-Z0-9]{16}`, `AKIA[0-9A-Z]{10,}`},
		{`x{2}y`, `y`},
		{`\bab{3,}c`, `\bab{3,}c`},
		{`key`, `key`},
	}
	for _, c := range cases {
		re, err := syntax.Parse(c.in, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		relax(re)
		trimStart(re)
		got := re.String()
		if _, err := regexp.Compile(got); err != nil || got != c.want {
			t.Errorf("loosened %s = %s (%v), want %s", c.in, got, err, c.want)
		}
	}
}
