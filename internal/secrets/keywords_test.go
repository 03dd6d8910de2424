package secrets

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// TestKeywordsAsTrie: the automaton finds the same keywords as the
// Aho-Corasick trie gitleaks uses, over strings.ToLower of the text, on
// random lines made of the default rules' keywords (in any case, cut,
// overlapping, run together), other words, punctuation and non-ASCII
// letters (the Kelvin sign, İ, ſ, which strings.ToLower folds).
func TestKeywordsAsTrie(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if s.kw == nil {
		t.Fatal("the default rules' keywords do not fit the automaton")
	}
	var words []string
	for _, r := range s.rules {
		for _, k := range r.Keywords {
			words = append(words, strings.ToLower(k))
		}
	}
	// The index of each keyword, as New numbered them.
	index := map[string]int{}
	var list []string
	for _, w := range words {
		if _, ok := index[w]; !ok {
			index[w] = len(list)
			list = append(list, w)
		}
	}
	trie := ahocorasick.NewTrieBuilder().AddStrings(list).Build()
	extra := []string{" ", "=", "\"", "_", ".", "-", "x", "\u212A", "İ", "ſ", "é", "\t", "0", "Z", "apikey", "tok", "s", "k"}
	r := rand.New(rand.NewPCG(25, 2))
	found := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			switch r.IntN(4) {
			case 0, 1:
				w := list[r.IntN(len(list))]
				if r.IntN(3) == 0 {
					w = w[:1+r.IntN(len(w))]
				}
				if r.IntN(2) == 0 {
					w = strings.ToUpper(w)
				}
				b.WriteString(w)
			default:
				b.WriteString(extra[r.IntN(len(extra))])
			}
		}
		text := b.String()
		var want []int
		for _, m := range trie.Match([]byte(strings.ToLower(text))) {
			want = append(want, int(m.Pattern()))
		}
		got := s.findKeywords(text, !hasNonASCII(text), nil)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(slices.Compact(want), slices.Compact(got)) {
			t.Fatalf("on %q: the trie finds keywords %v, the automaton %v", text, want, got)
		}
		found += len(want)
	}
	if found < 20000 {
		t.Errorf("only %d keywords found in 20000 lines", found)
	}
}
