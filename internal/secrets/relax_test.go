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
	with := 0
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
		}
	}
	if with < 50 {
		t.Errorf("only %d rules have a prefilter", with)
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
