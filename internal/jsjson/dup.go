package jsjson

import "strconv"

// Duplicate is a key that appears more than once in one object.
type Duplicate struct {
	// Path locates the object, as JavaScript would index it from the root:
	// "" for the root, then ".key" and "[i]" steps ("phases[0].tasks[2]").
	Path string
	Key  string
	// FirstOffset and LastOffset are the byte offsets of the key's first
	// and last occurrence; the value kept is the last one's.
	FirstOffset, LastOffset int
}

// maxDuplicates bounds what Duplicates reports; a hostile file can repeat
// keys without end, and a reviewer needs the first few.
const maxDuplicates = 100

// Duplicates lists, in document order of their first occurrence, up to 100
// keys that appear more than once in an object of v. A reader of the file
// sees both values; JSON.parse, and so the plugin and every hash, keep the
// last.
func Duplicates(v *Value) []Duplicate {
	var out []Duplicate
	var walk func(v *Value, path []byte)
	walk = func(v *Value, path []byte) {
		if v == nil || len(out) >= maxDuplicates {
			return
		}
		switch v.Kind {
		case Object:
			for _, m := range v.Members {
				if m.DupOffset != 0 && len(out) < maxDuplicates {
					out = append(out, Duplicate{Path: string(path), Key: m.Key, FirstOffset: m.KeyOffset, LastOffset: m.DupOffset})
				}
				walk(m.Value, append(append(path, '.'), m.Key...))
			}
		case Array:
			for i, e := range v.Elems {
				walk(e, append(append(append(path, '['), strconv.Itoa(i)...), ']'))
			}
		}
	}
	walk(v, nil)
	return out
}
