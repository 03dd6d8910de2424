package secrets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// unpruned returns the default scanner as it was before the keyword
// automaton, the line-end expressions and the leading literals after a
// \b, the needed literals of multi-line rules (issue 25): keywords found
// by gitleaks' Aho-Corasick trie, every rule whose expression has a class
// with a line feed joining each keyword line with the next, a prefilter
// starting with \b tried at every byte, and every window of a multi-line
// rule given to its expression.
// Its findings are the reference the faster scanner must give exactly.
func unpruned(t testing.TB) *Scanner {
	cfg, err := DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	seen := map[string]bool{}
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		if r.SkipReport || r.Regex == nil {
			continue
		}
		for _, k := range r.Keywords {
			if k = strings.ToLower(k); !seen[k] {
				seen[k] = true
				words = append(words, k)
			}
		}
	}
	s.kw, s.trie = nil, ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	all := &crossFilter{re: regexp.MustCompile(``)}
	for _, r := range s.rules {
		r.need = nil
		if r.lead != nil && r.lead.boundary {
			r.lead = nil // the prefilter run at every byte, as before
		}
		if r.Regex != nil && !r.multiline && matchesNewline(r.Regex.String()) {
			r.breaks, r.cross = true, all
		}
	}
	return s
}

// sameCorpus makes files of added lines for TestSameFindings: for each
// rule, values generated from its expression (gen) written as code and
// configuration writes them, on one line and split over two or more (the
// name, then the value on the next line, with white space, quotes and
// assignment signs between), among ordinary code lines, with runs of
// consecutive and of non-consecutive line numbers.
func sameCorpus(s *Scanner, r *rand.Rand) [][]Line {
	filler := []string{
		"func main() {", "\treturn nil", "}", "const apiKey = getKey(ctx)", "token := auth.Token()",
		"    this.secret = options.secret;", "password:", "  - name: s.example", "key = os.Getenv(\"KEY\")",
		"# TODO: rotate the access keys", "import os.path", "", "   ", "=", "\"", ":", "SELECT * FROM credentials;",
		"export AWS_SECRET_ACCESS_KEY=", "<add key=\"password\"", "value=\"", "curl -H 'Authorization: Bearer",
		"İstanbul \u212Aey = 1", "api_key:", "client_secret =>", "'token' =>",
	}
	var files [][]Line
	for _, ru := range s.rules {
		if ru.Regex == nil {
			continue
		}
		re, err := syntax.Parse(ru.Regex.String(), syntax.Perl)
		if err != nil {
			panic(err)
		}
		re = re.Simplify()
		var lines []Line
		n := 1
		add := func(text string) {
			for _, l := range strings.Split(text, "\n") {
				lines = append(lines, Line{N: n, Text: l})
				n++
			}
		}
		for i := range 24 {
			var b strings.Builder
			gen(r, re, &b)
			v := b.String()
			kw := "key"
			if len(ru.Keywords) > 0 {
				kw = ru.Keywords[r.IntN(len(ru.Keywords))]
			}
			seps := []string{" =\n  ", ":\n", " =\n\"", "\n= ", "\n\n  ", " = '\n", " =>\n\t", ":\n\n\n", "=\n"}
			switch i % 6 {
			case 0:
				add(v)
			case 1:
				add(kw + "_secret = \"" + v + "\"")
			case 2:
				add(kw + seps[r.IntN(len(seps))] + v)
			case 3:
				// The generated text cut in two at a random place.
				if len(v) > 1 {
					k := 1 + r.IntN(len(v)-1)
					add(v[:k] + "\n" + v[k:])
				} else {
					add(v)
				}
			case 4:
				// Its white space made line breaks.
				add(strings.NewReplacer(" ", "\n", "\t", "\n ").Replace(v))
			case 5:
				add(strings.ToUpper(kw) + " " + v + " ; " + kw)
			}
			for range r.IntN(3) {
				add(filler[r.IntN(len(filler))])
			}
			if r.IntN(4) == 0 {
				n += 1 + r.IntN(5) // a gap: the next lines are not consecutive
			}
		}
		files = append(files, lines)
	}
	return files
}

// TestSameFindings: the scanner finds exactly what it found before the
// keyword automaton, the line-end expressions and the \b literals
// (unpruned): the same findings and dismissed findings, field by field,
// in the same order, on a generated corpus with values of every rule's
// shape, on one line and across lines; and, with SWARM_GATE_SECRETS_DIFF,
// on that diff's added lines too.
func TestSameFindings(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	ref := unpruned(t)
	r := rand.New(rand.NewPCG(25, 7))
	paths := []string{"src/settings.txt", "config/app.yml", "main.tf", "deploy/values.yaml", "web/.env", "NuGet.config", "app/config.php"}
	total, findings, crossing := 0, 0, 0
	check := func(path string, lines []Line) {
		total += len(lines)
		f1, d1, o1 := s.ScanLines(path, lines)
		f2, d2, o2 := ref.ScanLines(path, lines)
		// shannon sums over a map, in no set order: the last bits of an
		// entropy differ from run to run.
		for _, fs := range [][]Finding{f1, d1, f2, d2} {
			for i := range fs {
				fs[i].Entropy = math.Round(fs[i].Entropy*1e9) / 1e9
			}
		}
		findings += len(f2) + len(d2)
		for _, f := range append(f2, d2...) {
			if f.EndLine > f.Line {
				crossing++
			}
		}
		if !reflect.DeepEqual(f1, f2) || !reflect.DeepEqual(d1, d2) || o1 != o2 {
			var b strings.Builder
			for _, l := range lines {
				fmt.Fprintf(&b, "%d: %q\n", l.N, l.Text)
			}
			t.Fatalf("%s:\n%s\nfindings %v\n     was %v\ndismissed %v\n      was %v\nomitted %d, was %d", path, b.String(), f1, f2, d1, d2, o1, o2)
		}
	}
	for round := range 3 {
		for i, lines := range sameCorpus(s, r) {
			check(paths[(i+round)%len(paths)], lines)
		}
	}
	if findings < 3000 || crossing < 300 {
		t.Errorf("only %d findings (%d across lines) in %d lines: the corpus compares too little", findings, crossing, total)
	}
	if name := os.Getenv("SWARM_GATE_SECRETS_DIFF"); name != "" {
		for _, f := range readDiff(t, name) {
			check(f.path, f.lines)
		}
	}
	t.Logf("%d lines, %d findings and dismissed findings (%d across lines), the same", total, findings, crossing)
}
