package secrets

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// TestNeeds: the sets every match holds, case-sensitively; nil where
// nothing is known.
func TestNeeds(t *testing.T) {
	cases := []struct {
		in   string
		want needs
	}{
		{`\bcurl\b.*[ \t](?:-u|--user)=`, needs{{"curl"}, {"\t-u=", "\t--user=", " -u=", " --user="}}},
		{`abc`, needs{{"abc"}}},
		{`(?i)abc`, nil},                       // folded: not a case-sensitive literal
		{`a*b?`, nil},                          // may match ""
		{`x(?:y|.*)z`, needs{{"x"}, {"z"}}},    // one branch needs nothing
		{`(?:ab|cd)+`, needs{{"ab", "cd"}}},    // a repeat of at least one
		{`(?:ab|c[0-9]+)`, needs{{"ab", "c"}}}, // each branch's best set
		{`[a-z]x`, needs{{"x"}}},               // a class too large to spell out
		{`k{0,3}v`, needs{{"v"}}},
		{`-----BEGIN[ A-Z]{0,9}KEY-----`, needs{{"-----BEGIN"}, {"KEY-----"}}},
	}
	for _, c := range cases {
		re, err := syntax.Parse(c.in, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := newNeeds(re); !reflect.DeepEqual(got, c.want) {
			t.Errorf("newNeeds(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestNeedsNecessary: wherever a rule's expression matches a text, the
// text holds what newNeeds says every match holds, for every default rule
// on texts generated from its expression; and the curl rules' windows
// without their option are ruled out (the benchmark's shell files call
// curl without -u or -H on nearly every window).
func TestNeedsNecessary(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(25, 7))
	matched, multi := 0, 0
	for _, ru := range s.rules {
		if ru.Regex == nil {
			continue
		}
		re, err := syntax.Parse(ru.Regex.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		need := newNeeds(re)
		if ru.multiline && need != nil {
			multi++
		}
		for i := 0; i < 100; i++ {
			var b strings.Builder
			b.WriteString("run:\n  x = ")
			gen(r, re, &b)
			b.WriteString(" ;\n")
			text := b.String()
			if !ru.Regex.MatchString(text) {
				continue
			}
			matched++
			if !need.holds(text) {
				t.Fatalf("rule %s matches %q, which lacks one of %q", ru.RuleID, text, need)
			}
		}
	}
	if matched < 10000 || multi < 5 {
		t.Errorf("only %d generated texts matched, %d multi-line rules have needs", matched, multi)
	}
	window := "set -eu\ncurl -fsS \"${base}/items\" -o \"$tmp/items.json\"\njq . \"$tmp/items.json\""
	for _, ru := range s.rules {
		if strings.HasPrefix(ru.RuleID, "curl-auth-") && ru.need.holds(window) {
			t.Errorf("rule %s: needs %q hold on a window without its option", ru.RuleID, ru.need)
		}
	}
	for _, w := range []string{"curl -u admin:s3cr3tpw https://x", "curl \\\n  -H 'Authorization: Bearer abcdefgh1234' https://x"} {
		ok := false
		for _, ru := range s.rules {
			ok = ok || strings.HasPrefix(ru.RuleID, "curl-auth-") && ru.Regex.MatchString(w) && ru.need.holds(w)
		}
		if !ok {
			t.Errorf("no curl rule both matches %q and lets it through", w)
		}
	}
}

// TestLeadRun: a generic rule's prefilter is tried at a keyword only when
// the name, spacing and quotes from there end at an assignment sign.
func TestLeadRun(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	var generic *rule
	runs := 0
	for _, r := range s.rules {
		if r.lead != nil && r.lead.run != nil {
			runs++
		}
		if r.RuleID == "generic-api-key" {
			generic = r
		}
	}
	if generic == nil || generic.lead == nil || generic.lead.run == nil {
		t.Fatalf("generic-api-key's leading literals have no run check")
	}
	cases := []struct {
		text string
		want bool
	}{
		{`apiKey = "x"`, true},
		{`api_key: x`, true},
		{`"token" => x`, true},
		{`token, x`, true},
		{`secret|| x`, true},
		{`token ?= x`, true},
		{`auth.Token()`, false}, // a call, no assignment
		{`keys(x)`, false},
		{`token`, false}, // the line ends
		{`passwordField;`, false},
	}
	for _, c := range cases {
		if got := generic.lead.run.possible(c.text, 0); got != c.want {
			t.Errorf("possible(%q) = %v, want %v", c.text, got, c.want)
		}
		if !c.want && generic.pre.MatchString(c.text) {
			t.Errorf("%q: ruled out, but the prefilter %s matches", c.text, generic.pre)
		}
	}
	t.Logf("%d rules check a run after their leading literals", runs)
}

// TestLeadOfGivenExpression: the anchored form reuses the expression's
// text, \b included, only where that is the same: before a literal that
// starts with a non-word byte, \b at the start of the rest of the line
// would not see the byte before.
func TestLeadOfGivenExpression(t *testing.T) {
	for _, expr := range []string{`\b(?:-x|ab)[0-9]{2}`, `\b(?:hv|s\.)[0-9]{2}`, `(?:key|-k)[0-9]{2}`} {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		l := newLeadOf(re, re.String())
		if l == nil {
			t.Fatalf("%s: no leading literals", expr)
		}
		full := regexp.MustCompile(expr)
		for _, text := range []string{"a-x12", " -x12", "-x12", "ab12", "cab12", " ab12", "hv12", "ahv12", "s.12", "xs.12", "key12", "a-k12", "-k1"} {
			if got, want := l.match(text, lowerASCII(nil, text)), full.MatchString(text); got != want {
				t.Errorf("%s on %q: leading literals say %v, the expression %v", expr, text, got, want)
			}
		}
	}
}
