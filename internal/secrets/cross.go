package secrets

import (
	"regexp"
	"regexp/syntax"
	"slices"
)

// beforeBreak returns an expression for what a match of re can hold
// before a line feed that more of the match follows: every u for which
// some match is u, "\n", then more. It is loose (it may take more than
// that: a repetition's count, and what follows the line feed, are not
// kept), never tight: whenever a match of re holds such a line feed, the
// text before it matches the result. A line feed in the last element of
// a concatenation that is the last character that element matches is left
// out, as if that element had none: it ends the match, and matchText trims
// it (the terminator (?:[\x60'"\s;]|\\[nr]|$) of most gitleaks rules); so
// is one matched by a first element of one character (the match starts
// with it, and matchText trims it, so that the match starts on the next
// line). Nil when no match of re can hold a line feed but so.
func beforeBreak(re *syntax.Regexp) *syntax.Regexp {
	if re.Op != syntax.OpConcat || len(re.Sub) == 0 {
		if !nlFollowed(re) {
			return nil
		}
		return nlPrefix(re)
	}
	var alts []*syntax.Regexp
	for i, sub := range re.Sub {
		if i == len(re.Sub)-1 && !nlFollowed(sub) {
			break // a line feed there is the match's last character
		}
		if i == 0 && maxLen(sub) == 1 {
			continue // a line feed there is the match's first character
		}
		if p := nlPrefix(sub); p != nil {
			alts = append(alts, &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: append(slices.Clone(re.Sub[:i]), p)})
		}
	}
	return alternate(alts)
}

// nlFollowed reports whether re matches some text with a line feed that
// is not its last character.
func nlFollowed(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		i := slices.Index(re.Rune, '\n')
		return i >= 0 && i < len(re.Rune)-1
	case syntax.OpCapture, syntax.OpQuest:
		return nlFollowed(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		once := re.Op == syntax.OpRepeat && re.Max == 1
		return nlFollowed(re.Sub[0]) || !once && nlPrefix(re.Sub[0]) != nil
	case syntax.OpAlternate:
		return slices.ContainsFunc(re.Sub, nlFollowed)
	case syntax.OpConcat:
		for i, sub := range re.Sub {
			if nlFollowed(sub) {
				return true
			}
			if nlPrefix(sub) != nil && slices.ContainsFunc(re.Sub[i+1:], func(x *syntax.Regexp) bool { return maxLen(x) != 0 }) {
				return true
			}
		}
	}
	return false
}

// nlPrefix returns an expression for the u of every u "\n" v that re
// matches (loosely, as beforeBreak), nil when re matches no text with a
// line feed.
func nlPrefix(re *syntax.Regexp) *syntax.Regexp {
	empty := &syntax.Regexp{Op: syntax.OpEmptyMatch}
	switch re.Op {
	case syntax.OpLiteral:
		var alts []*syntax.Regexp
		for i, r := range re.Rune {
			if r == '\n' {
				alts = append(alts, &syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: slices.Clone(re.Rune[:i])})
			}
		}
		return alternate(alts)
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return empty
			}
		}
		return nil
	case syntax.OpAnyChar:
		return empty
	case syntax.OpCapture, syntax.OpQuest:
		return nlPrefix(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		p := nlPrefix(re.Sub[0])
		if p == nil {
			return nil
		}
		return &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{{Op: syntax.OpStar, Flags: re.Flags, Sub: []*syntax.Regexp{re.Sub[0]}}, p}}
	case syntax.OpAlternate:
		var alts []*syntax.Regexp
		for _, sub := range re.Sub {
			if p := nlPrefix(sub); p != nil {
				alts = append(alts, p)
			}
		}
		return alternate(alts)
	case syntax.OpConcat:
		var alts []*syntax.Regexp
		for i, sub := range re.Sub {
			if p := nlPrefix(sub); p != nil {
				alts = append(alts, &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: append(slices.Clone(re.Sub[:i]), p)})
			}
		}
		return alternate(alts)
	}
	return nil // empty-width assertions, empty match, no match
}

func alternate(alts []*syntax.Regexp) *syntax.Regexp {
	switch len(alts) {
	case 0:
		return nil
	case 1:
		return alts[0]
	}
	return &syntax.Regexp{Op: syntax.OpAlternate, Sub: alts}
}

// maxLen is the most characters a match of re has, -1 when unbounded.
func maxLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if maxLen(re.Sub[0]) == 0 {
			return 0
		}
		return -1
	case syntax.OpRepeat:
		n := maxLen(re.Sub[0])
		if n == 0 {
			return 0
		}
		if n < 0 || re.Max < 0 {
			return -1
		}
		return n * re.Max
	case syntax.OpConcat:
		t := 0
		for _, sub := range re.Sub {
			n := maxLen(sub)
			if n < 0 {
				return -1
			}
			t += n
		}
		return t
	case syntax.OpAlternate:
		m := 0
		for _, sub := range re.Sub {
			n := maxLen(sub)
			if n < 0 {
				return -1
			}
			m = max(m, n)
		}
		return m
	}
	return 0
}

// crossFilter is a rule's line-end check (crossCheck).
type crossFilter struct {
	re   *regexp.Regexp // beforeBreak's expression, then the text's end
	lead *lead          // its leading literals, when it has them
}

// match reports whether line, lower its ASCII lower case (nil when line
// is not ASCII), may start a match that goes on past the line's end.
func (c *crossFilter) match(line string, lower []byte) bool {
	if c.lead != nil && lower != nil {
		return c.lead.match(line, lower)
	}
	return c.re.MatchString(line)
}

// crossCheck prepares beforeBreak of expr (loosened as relax does, its
// leading repetitions dropped when no line feed can stand in them) for
// the end of a line: a line it does not match starts no match of expr
// that goes on past its line feed. Nil when no match can (see
// beforeBreak).
func crossCheck(expr string) (*crossFilter, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	relax(re)
	if re.Op == syntax.OpConcat {
		n := 0
		for n < len(re.Sub)-1 && isRepeat(re.Sub[n].Op) && nlPrefix(re.Sub[n]) == nil {
			n++
		}
		re.Sub = re.Sub[n:]
	}
	p := beforeBreak(re)
	if p == nil {
		return nil, nil
	}
	end := &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{p, {Op: syntax.OpEndText}}}
	c := &crossFilter{}
	endExpr := end.String()
	if c.re, err = regexp.Compile(endExpr); err != nil {
		return nil, err
	}
	c.lead = newLeadOf(end, endExpr)
	return c, nil
}
