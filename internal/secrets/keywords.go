package secrets

// keywords finds which of a set of keywords (lower case) occur in a text:
// an Aho-Corasick automaton compiled to a table of transitions over byte
// classes (every byte no keyword has is one class; an ASCII capital is the
// class of its lower case letter, so an ASCII text needs no lower-casing),
// walked one table lookup per byte. It answers what the
// github.com/BobuSumisu/aho-corasick trie did here, in about a tenth of
// the time: that trie follows failure links and calls back per match.
type keywords struct {
	class [256]uint8
	n     int // classes
	// delta[state*n + class] is the next state times n, with outFlag set
	// when keywords end there.
	delta []uint32
	out   [][]int // state -> keywords ending there (failure links followed)
}

const outFlag = 1 << 31

// newKeywords builds the automaton of words (non-empty, lower case). It
// returns nil when the automaton would not fit its table (more than 255
// byte classes or 2^31 table entries), where the caller must search
// otherwise.
func newKeywords(words []string) *keywords {
	k := &keywords{}
	var used [256]bool
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			used[w[i]] = true
		}
	}
	n := 1 // class 0: bytes no keyword has
	for c := 0; c < 256; c++ {
		if used[c] {
			if n > 255 {
				return nil
			}
			k.class[c] = uint8(n)
			n++
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		k.class[c] = k.class[c+'a'-'A']
	}
	k.n = n
	// The trie, with goto transitions by class (-1: none).
	next := [][]int{make([]int, n)}
	for i := range next[0] {
		next[0][i] = -1
	}
	out := [][]int{nil}
	for wi, w := range words {
		s := 0
		for i := 0; i < len(w); i++ {
			c := k.class[w[i]]
			if next[s][c] < 0 {
				if (len(next)+1)*n >= outFlag {
					return nil
				}
				row := make([]int, n)
				for j := range row {
					row[j] = -1
				}
				next = append(next, row)
				out = append(out, nil)
				next[s][c] = len(next) - 1
			}
			s = next[s][c]
		}
		out[s] = append(out[s], wi)
	}
	// Failure links, breadth first; the goto function completed into the
	// transition table as it goes.
	fail := make([]int, len(next))
	delta := make([]int, len(next)*n)
	queue := []int{}
	for c := 0; c < n; c++ {
		if t := next[0][c]; t >= 0 {
			queue = append(queue, t)
			delta[c] = t
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		out[s] = append(out[s], out[fail[s]]...)
		for c := 0; c < n; c++ {
			if t := next[s][c]; t >= 0 {
				fail[t] = delta[fail[s]*n+c]
				queue = append(queue, t)
				delta[s*n+c] = t
			} else {
				delta[s*n+c] = delta[fail[s]*n+c]
			}
		}
	}
	k.out = out
	k.delta = make([]uint32, len(delta))
	for i, t := range delta {
		k.delta[i] = uint32(t * n)
		if len(out[t]) > 0 {
			k.delta[i] |= outFlag
		}
	}
	return k
}

// find appends to dst the index of each keyword text holds, once for each
// place it ends, ASCII capitals read as lower case. A text with other
// bytes must be lower-cased by the caller first (strings.ToLower, which
// folds more than ASCII).
func (k *keywords) find(text []byte, dst []int) []int {
	off := uint32(0)
	for _, b := range text {
		off = k.delta[off+uint32(k.class[b])]
		if off&outFlag != 0 {
			off &^= outFlag
			dst = append(dst, k.out[off/uint32(k.n)]...)
		}
	}
	return dst
}
