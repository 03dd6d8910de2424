// Package jsjson reads JSON the way JavaScript's JSON.parse does (member
// order kept, numbers as float64, duplicate keys resolved last-wins in the
// first key's position) while recording where each value starts, and writes
// values back byte for byte as JavaScript's JSON.stringify would.
//
// The opencode-swarm plugin hashes JSON.stringify output, so Go's
// encoding/json (sorted map keys, HTML and U+2028/U+2029 escaping, different
// float formatting) cannot be used for anything that is hashed.
package jsjson

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// String names the kind as a JSON Schema type name ("object", "string", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one parsed JSON value. Only the field matching Kind is set.
//
// Strings hold UTF-8. A lone UTF-16 surrogate written as a \uD8xx escape (legal
// in JSON, representable in JavaScript strings) is kept as its 3-byte WTF-8
// form so that it can be written back as the same escape; invalid UTF-8 bytes
// in the input are replaced with U+FFFD, as Node's UTF-8 file decoding does.
type Value struct {
	Kind    Kind
	Bool    bool
	Num     float64
	Str     string
	Elems   []*Value
	Members []Member
	// Offset is the byte offset in the parsed input where the value starts.
	Offset int
}

// Member is one key of an object with its value.
type Member struct {
	Key   string
	Value *Value
	// KeyOffset is the byte offset of the key's opening quote.
	KeyOffset int
	// DupOffset is the byte offset of the opening quote of the key's last
	// repetition in the same object, whose value Value is (JSON.parse keeps
	// the last); 0 when the key appears once.
	DupOffset int
}

// Get returns the value of key in an object, or nil when v is not an object
// or has no such key.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Has reports whether the object v has key (with any value, null included).
func (v *Value) Has(key string) bool { return v.Get(key) != nil }

// AsString returns the string and true when v is a JSON string.
func (v *Value) AsString() (string, bool) {
	if v == nil || v.Kind != String {
		return "", false
	}
	return v.Str, true
}

// AsInt returns the number as an int and true when v is a number with an
// integral value that is a JavaScript safe integer (|n| <= 2^53-1). Larger
// literals were already rounded when parsed, as JavaScript rounds them, so
// they are refused rather than silently changed.
func (v *Value) AsInt() (int, bool) {
	if v == nil || v.Kind != Number {
		return 0, false
	}
	f := v.Num
	if f != f || f >= 1<<53 || f <= -(1<<53) || f != float64(int64(f)) {
		return 0, false
	}
	return int(f), true
}

// LineIndex maps byte offsets of one input to 1-based line numbers in
// O(log lines) each, for callers that look up many offsets.
type LineIndex struct{ starts []int }

// NewLineIndex indexes the line starts of data.
func NewLineIndex(data []byte) *LineIndex {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &LineIndex{starts: starts}
}

// Line returns the 1-based line of byte offset off.
func (x *LineIndex) Line(off int) int {
	n, _ := slices.BinarySearch(x.starts, off+1)
	return n
}

// Line returns the 1-based line of byte offset off in data. It scans data;
// use a LineIndex for many lookups.
func Line(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	n := 1
	for _, b := range data[:off] {
		if b == '\n' {
			n++
		}
	}
	return n
}

// IsSpace reports whether r is whitespace to JavaScript's
// String.prototype.trim: the WhiteSpace and LineTerminator productions of
// ECMAScript (Unicode Zs, TAB, VT, FF, LF, CR, U+2028, U+2029 and U+FEFF).
// It differs from unicode.IsSpace by excluding U+0085 and including U+FEFF.
func IsSpace(r rune) bool {
	return (unicode.IsSpace(r) && r != 0x85) || r == 0xfeff
}

// Trim is JavaScript's String.prototype.trim.
func Trim(s string) string { return strings.TrimFunc(s, IsSpace) }
