package planhash

// This file reproduces the plugin's computePlanContentHash
// (src/plan/manager.ts), the short digest written as the first line of
// .swarm/plan.md, `<!-- PLAN_HASH: <base36> -->` (spec §2.6).
//
// The digest is not cryptographic and depends on the runtime and plugin
// version that wrote plan.md:
//
//   - The hashed text is JSON.stringify of
//     {schema_version, title, swarm, current_phase, migration_status,
//     [execution_profile,] phases}. Plugin M (v7.103.2) and older leave
//     execution_profile out; the newest versions insert the normalized
//     profile (normalizeExecutionProfileForHash, §2.3) after
//     migration_status.
//   - Under Bun the text is hashed with Bun.hash, which is Zig's
//     std.hash.Wyhash with seed 0 over the UTF-8 bytes, a 64-bit BigInt.
//     Under Node, newer plugin versions (src/utils/bun-compat.ts bunHash)
//     fall back to a 64-bit djb2 over the UTF-8 bytes (TextEncoder).
//   - Either 64-bit value is written with BigInt.prototype.toString(36):
//     lowercase base 36, no padding.
//
// A verifier therefore accepts any of the four combinations.

import (
	"cmp"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// ContentHashes are the plan.md PLAN_HASH values a plan can carry, one for
// each runtime and each plugin generation, as base-36 strings.
type ContentHashes struct {
	// Wyhash is Bun's digest of the object without execution_profile
	// (plugin M, v7.103.2, and older).
	Wyhash string
	// Djb2 is the Node fallback digest of the object without
	// execution_profile.
	Djb2 string
	// WyhashProfile and Djb2Profile are the digests of the object with the
	// normalized execution_profile after migration_status (newest plugin).
	// When the plan has no execution_profile they equal Wyhash and Djb2.
	WyhashProfile string
	Djb2Profile   string
	// HasProfile reports whether the plan carries an execution_profile, that
	// is whether the Profile variants differ from the others.
	HasProfile bool
}

// Content-hash variant names returned by ContentHashes.Match.
const (
	VariantWyhash        = "wyhash"
	VariantWyhashProfile = "wyhash+execution_profile"
	VariantDjb2          = "djb2"
	VariantDjb2Profile   = "djb2+execution_profile"
)

// Match reports which variant equals planHash (the value read from plan.md).
// A plan without execution_profile only ever reports VariantWyhash or
// VariantDjb2, since the profile variants are the same digests. The order of
// preference is wyhash before djb2 and, for each, without the profile
// before with it. ok is false when no variant matches: plan.md is stale or
// was written from a different plan.json.
func (h ContentHashes) Match(planHash string) (variant string, ok bool) {
	if planHash == "" {
		return "", false
	}
	switch planHash {
	case h.Wyhash:
		return VariantWyhash, true
	case h.WyhashProfile:
		return VariantWyhashProfile, true
	case h.Djb2:
		return VariantDjb2, true
	case h.Djb2Profile:
		return VariantDjb2Profile, true
	}
	return "", false
}

// ComputeContentHashes returns every accepted PLAN_HASH of a plan given as
// parsed JSON (the content of .swarm/plan.json). The plan is read as the
// plugin's zod schema would validate it, exactly as Compute reads it
// (defaults filled in, unknown fields ignored), and a plan that does not fit
// gives the same *FieldError.
func ComputeContentHashes(plan *jsjson.Value) (ContentHashes, error) {
	base, err := contentJSON(plan, false)
	if err != nil {
		return ContentHashes{}, err
	}
	withProfile, err := contentJSON(plan, true)
	if err != nil {
		return ContentHashes{}, err
	}
	return ContentHashes{
		Wyhash:        strconv.FormatUint(wyhash(0, base), 36),
		Djb2:          strconv.FormatUint(djb2(base), 36),
		WyhashProfile: strconv.FormatUint(wyhash(0, withProfile), 36),
		Djb2Profile:   strconv.FormatUint(djb2(withProfile), 36),
		HasProfile:    plan.Get("execution_profile") != nil,
	}, nil
}

// ContentJSON returns the exact text the content hash is computed over, with
// or without the execution_profile member, for debugging plan.md mismatches.
func ContentJSON(plan *jsjson.Value, withProfile bool) ([]byte, error) {
	return contentJSON(plan, withProfile)
}

// planHashRE is the plugin's extractPlanHashFromMarkdown pattern,
// /<!--\s*PLAN_HASH:\s*(\S+)\s*-->/, with JavaScript's \s spelled out (Go's
// \s is ASCII only).
var planHashRE = func() *regexp.Regexp {
	const ws = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`
	return regexp.MustCompile(`<!--[` + ws + `]*PLAN_HASH:[` + ws + `]*([^` + ws + `]+)[` + ws + `]*-->`)
}()

// ParsePlanMarkdownHash returns the PLAN_HASH value of a plan.md and true,
// or "" and false when there is none. The plugin writes the header as the
// first line, `<!-- PLAN_HASH: <base36> -->`, but reads it the way this
// function does: the first match of /<!--\s*PLAN_HASH:\s*(\S+)\s*-->/
// anywhere in the text.
func ParsePlanMarkdownHash(md []byte) (string, bool) {
	m := planHashRE.FindSubmatch(md)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

// contentJSON builds JSON.stringify of the object computePlanContentHash
// hashes: {schema_version, title, swarm, current_phase?, migration_status?,
// execution_profile? (withProfile only), phases} with phases sorted by id,
// each phase {id, name, status, tasks} with tasks sorted by compareTaskIds,
// and each task carrying the ledger-hash fields (depends sorted by
// compareTaskIds, files_touched by the default sort). Absent optional
// fields are undefined in the object and so left out by JSON.stringify.
func contentJSON(plan *jsjson.Value, withProfile bool) ([]byte, error) {
	w := &writer{b: make([]byte, 0, 4096)}
	first := true
	phases, err := w.header(&first, plan, withProfile)
	if err != nil {
		return nil, err
	}
	out := make([]keyed[float64], len(phases.Elems))
	for i, ph := range phases.Elems {
		text, err := contentPhase(ph, "phases["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out[i] = keyed[float64]{ph.Get("id").Num, text}
	}
	// .sort((a, b) => a.id - b.id); ids are validated integers.
	w.key(&first, "phases")
	w.b = appendSorted(w.b, out, cmp.Compare[float64])
	w.b = append(w.b, '}')
	return w.b, nil
}

// keyed is one element's JSON text with the key it is sorted by.
type keyed[K any] struct {
	key  K
	text []byte
}

// appendSorted appends the elements as a JSON array, ordered by their keys
// with a stable sort, as Array.prototype.sort orders them.
func appendSorted[K any](b []byte, items []keyed[K], compare func(a, b K) int) []byte {
	slices.SortStableFunc(items, func(x, y keyed[K]) int { return compare(x.key, y.key) })
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it.text...)
	}
	return append(b, ']')
}

// contentPhase writes one phase as {id, name, status, tasks}.
// required_agents is not hashed but still has to fit the schema.
func contentPhase(ph *jsjson.Value, path string) ([]byte, error) {
	if ph.Kind != jsjson.Object {
		return nil, fieldErr(path, ph, "want object, found "+ph.Kind.String())
	}
	w := &writer{b: make([]byte, 0, 1024)}
	w.b = append(w.b, '{')
	first := true
	if err := w.integer(&first, ph, path, "id", false); err != nil {
		return nil, err
	}
	if err := w.str(&first, ph, path, "name", "", true); err != nil {
		return nil, err
	}
	if err := w.str(&first, ph, path, "status", "pending", false); err != nil {
		return nil, err
	}
	if err := checkStringList(ph, path, "required_agents"); err != nil {
		return nil, err
	}
	var tasks []keyed[string]
	if tv := ph.Get("tasks"); tv != nil {
		if tv.Kind != jsjson.Array {
			return nil, fieldErr(path+".tasks", tv, "want array, found "+tv.Kind.String())
		}
		tasks = make([]keyed[string], len(tv.Elems))
		for i, t := range tv.Elems {
			text, err := contentTask(t, path+".tasks["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			id, _ := t.Get("id").AsString()
			tasks[i] = keyed[string]{id, text}
		}
	}
	w.key(&first, "tasks")
	w.b = appendSorted(w.b, tasks, compareTaskIDs)
	w.b = append(w.b, '}')
	return w.b, nil
}

// contentTask writes one task with the ledger-hash fields, in the same
// order: id, phase, status, size, description, depends, acceptance?,
// files_touched, evidence_path?, blocked_reason?. Only the depends order
// differs from the ledger hash (compareTaskIds instead of the default sort).
func contentTask(t *jsjson.Value, path string) ([]byte, error) {
	if t.Kind != jsjson.Object {
		return nil, fieldErr(path, t, "want object, found "+t.Kind.String())
	}
	w := &writer{b: make([]byte, 0, 256)}
	w.b = append(w.b, '{')
	first := true
	if err := w.str(&first, t, path, "id", "", false); err != nil {
		return nil, err
	}
	if err := w.integer(&first, t, path, "phase", false); err != nil {
		return nil, err
	}
	if err := w.str(&first, t, path, "status", "pending", false); err != nil {
		return nil, err
	}
	if err := w.str(&first, t, path, "size", "small", false); err != nil {
		return nil, err
	}
	if err := w.str(&first, t, path, "description", "", true); err != nil {
		return nil, err
	}
	if err := w.taskIDList(&first, t, path, "depends"); err != nil {
		return nil, err
	}
	if err := w.optStr(&first, t, path, "acceptance"); err != nil {
		return nil, err
	}
	if err := w.sortedStrings(&first, t, path, "files_touched", false); err != nil {
		return nil, err
	}
	if err := w.optStr(&first, t, path, "evidence_path"); err != nil {
		return nil, err
	}
	if err := w.optStr(&first, t, path, "blocked_reason"); err != nil {
		return nil, err
	}
	w.b = append(w.b, '}')
	return w.b, nil
}

// taskIDList writes a string array (missing: []) sorted by compareTaskIds.
func (w *writer) taskIDList(first *bool, obj *jsjson.Value, path, key string) error {
	return w.sortedList(first, obj, path, key, compareTaskIDs)
}

// checkStringList validates an optional string-array field that is not hashed.
func checkStringList(obj *jsjson.Value, path, key string) error {
	_, err := stringList(obj, path, key)
	return err
}

// compareTaskIDs is the plugin's compareTaskIds: split both ids on ".",
// turn each part into a number with parseInt(part, 10), treat a missing part
// as 0, and order by the first differing part. As in JavaScript, a part that
// parseInt cannot read is NaN, and a NaN difference makes the two ids compare
// equal (Array.prototype.sort treats a NaN comparator result as +0). Ids the
// plugin's tools accept (^\d+\.\d+(\.\d+)*$) never produce NaN.
func compareTaskIDs(a, b string) int {
	pa := strings.Split(a, ".")
	pb := strings.Split(b, ".")
	for i := range max(len(pa), len(pb)) {
		na, nb := 0.0, 0.0
		if i < len(pa) {
			na = jsParseInt10(pa[i])
		}
		if i < len(pb) {
			nb = jsParseInt10(pb[i])
		}
		if na != nb { // true when either is NaN, as numA !== numB
			switch {
			case na < nb:
				return -1
			case na > nb:
				return 1
			}
			return 0 // NaN - x is NaN, sorted as +0
		}
	}
	return 0
}

// jsParseInt10 is JavaScript's parseInt(s, 10): skip leading white space,
// take an optional sign and the longest run of decimal digits, NaN when
// there is none.
func jsParseInt10(s string) float64 {
	s = strings.TrimLeftFunc(s, isJSWhiteSpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	// ParseFloat rounds correctly and gives ±Inf on overflow, as JavaScript
	// does for very long digit runs.
	f, _ := strconv.ParseFloat(s[:n], 64)
	if neg {
		f = -f
	}
	return f
}

// isJSWhiteSpace reports whether r is WhiteSpace or LineTerminator in
// ECMAScript (what parseInt and the \s regexp class skip).
func isJSWhiteSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x2028, 0x2029, 0xfeff:
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// Zig std.hash.Wyhash (wyhash "final v4"), the hash Bun.hash uses.
var wySecret = [4]uint64{
	0xa0761d6478bd642f,
	0xe7037ed1a0b428db,
	0x8ebc6af09c88c6e3,
	0x589965cc75374cc3,
}

// wyMum returns the low and high halves of the 128-bit product a*b.
func wyMum(a, b uint64) (lo, hi uint64) {
	hi, lo = bits.Mul64(a, b)
	return lo, hi
}

// wyMix folds the 128-bit product a*b to 64 bits.
func wyMix(a, b uint64) uint64 {
	lo, hi := wyMum(a, b)
	return lo ^ hi
}

func wyRead8(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func wyRead4(b []byte) uint64 {
	_ = b[3]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
}

// wyhash returns Zig's std.hash.Wyhash.hash(seed, data).
func wyhash(seed uint64, data []byte) uint64 {
	n := len(data)
	s0 := seed ^ wyMix(seed^wySecret[0], wySecret[1])
	var a, b uint64
	switch {
	case n == 0:
	case n < 4:
		a = uint64(data[0])<<16 | uint64(data[n>>1])<<8 | uint64(data[n-1])
	case n <= 16:
		q := (n >> 3) << 2
		a = wyRead4(data)<<32 | wyRead4(data[q:])
		b = wyRead4(data[n-4:])<<32 | wyRead4(data[n-4-q:])
	default:
		i := 0
		if n >= 48 {
			s1, s2 := s0, s0
			for ; i+48 < n; i += 48 {
				p := data[i : i+48]
				s0 = wyMix(wyRead8(p[0:])^wySecret[1], wyRead8(p[8:])^s0)
				s1 = wyMix(wyRead8(p[16:])^wySecret[2], wyRead8(p[24:])^s1)
				s2 = wyMix(wyRead8(p[32:])^wySecret[3], wyRead8(p[40:])^s2)
			}
			s0 ^= s1 ^ s2
		}
		for ; i+16 < n; i += 16 {
			s0 = wyMix(wyRead8(data[i:])^wySecret[1], wyRead8(data[i+8:])^s0)
		}
		a = wyRead8(data[n-16:])
		b = wyRead8(data[n-8:])
	}
	a, b = wyMum(a^wySecret[1], b^s0)
	return wyMix(a^wySecret[0]^uint64(n), b^wySecret[1])
}

// djb2 is the plugin's Node fallback for Bun.hash: h = h*33 + byte modulo
// 2^64 over the UTF-8 bytes, starting from 5381.
func djb2(data []byte) uint64 {
	h := uint64(5381)
	for _, c := range data {
		h = h*33 + uint64(c)
	}
	return h
}
