package secrets

import (
	"regexp/syntax"
	"strings"
)

// maxNeedSet bounds the strings of one needed set (the spellings of a
// small class times the next literals); a larger set is dropped.
const maxNeedSet = 16

// needs is a necessary condition of an expression's matches: every match
// holds at least one string of each set, case-sensitively. A text that
// fails it cannot hold a match, so the expression is not run on it (a
// multi-line rule runs Go's NFA over windows of up to ChunkBytes: the curl
// rules' windows around every `curl` line cost more than the rest of the
// scan, and their `-u`/`-H` option is seldom there).
type needs [][]string

// newNeeds returns the sets every match of re must hold, nil when none is
// known. Only literals matched case-sensitively count.
func newNeeds(re *syntax.Regexp) needs {
	var out needs
	for _, set := range neededSets(re) {
		if len(set) > 0 && len(set) <= maxNeedSet && !hasString(set, "") {
			out = append(out, set)
		}
	}
	return out
}

// holds reports whether text holds a string of every set.
func (n needs) holds(text string) bool {
	for _, set := range n {
		found := false
		for _, s := range set {
			if strings.Contains(text, s) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// neededSets returns sets such that every match of re holds a string of
// each; an empty result says nothing is known.
func neededSets(re *syntax.Regexp) [][]string {
	if set, ok := exactSet(re); ok {
		return [][]string{set}
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return neededSets(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return neededSets(re.Sub[0])
		}
	case syntax.OpConcat:
		var out [][]string
		var run []string // the product of the exact elements in a row
		flush := func() {
			if run != nil && !hasString(run, "") {
				out = append(out, run)
			}
			run = nil
		}
		for _, sub := range re.Sub {
			if set, ok := exactSet(sub); ok {
				if p := productSet(run, set); run != nil && p != nil {
					run = p
				} else {
					flush() // too many spellings: a new run starts here
					run = set
				}
				continue
			}
			flush()
			out = append(out, neededSets(sub)...)
		}
		flush()
		return out
	case syntax.OpAlternate:
		// Each branch's best set; together, one of them is needed.
		var union []string
		for _, sub := range re.Sub {
			best := bestSet(neededSets(sub))
			if best == nil {
				return nil
			}
			union = appendNew(union, best...)
		}
		if len(union) > maxNeedSet {
			return nil
		}
		return [][]string{union}
	}
	return nil
}

// exactSet returns every string re matches when they are few (ok false
// otherwise); an empty-width assertion matches "" (it adds no byte).
func exactSet(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if int(re.Rune[i+1]-re.Rune[i]) >= maxNeedSet-len(set) {
				return nil, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set = append(set, string(r))
			}
		}
		return set, len(set) > 0
	case syntax.OpCapture:
		return exactSet(re.Sub[0])
	case syntax.OpConcat:
		run := []string{""}
		for _, sub := range re.Sub {
			set, ok := exactSet(sub)
			if !ok {
				return nil, false
			}
			if run = productSet(run, set); run == nil {
				return nil, false
			}
		}
		return run, true
	case syntax.OpAlternate:
		var set []string
		for _, sub := range re.Sub {
			s, ok := exactSet(sub)
			if !ok {
				return nil, false
			}
			set = appendNew(set, s...)
		}
		return set, len(set) <= maxNeedSet
	}
	return nil, false
}

// productSet is every a followed by every b, nil when over maxNeedSet.
func productSet(a, b []string) []string {
	if len(a)*len(b) > maxNeedSet {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = appendNew(out, x+y)
		}
	}
	return out
}

// bestSet is the set whose shortest string is longest (the rarest to
// occur by chance), nil when sets has none usable.
func bestSet(sets [][]string) []string {
	var best []string
	bestLen := 0
	for _, set := range sets {
		if len(set) == 0 || hasString(set, "") {
			continue
		}
		short := len(set[0])
		for _, s := range set[1:] {
			short = min(short, len(s))
		}
		if short > bestLen {
			best, bestLen = set, short
		}
	}
	return best
}

func appendNew(set []string, ss ...string) []string {
	for _, s := range ss {
		if !hasString(set, s) {
			set = append(set, s)
		}
	}
	return set
}

func hasString(set []string, s string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}
