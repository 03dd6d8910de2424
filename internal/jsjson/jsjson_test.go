package jsjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Expected outputs below were produced by Node.js 20 (JSON.stringify and
// Array.prototype.sort), not by this package.

func TestAppendNumberMatchesJavaScript(t *testing.T) {
	cases := []struct {
		in   string // JSON number literal as it appears in a file
		want string
	}{
		{"0", "0"}, {"-0", "0"}, {"1", "1"}, {"2.0", "2"}, {"1.5", "1.5"}, {"0.5", "0.5"},
		{"-2.5", "-2.5"}, {"1e-7", "1e-7"}, {"1e21", "1e+21"}, {"0.00001", "0.00001"},
		{"0.000001", "0.000001"}, {"123e-20", "1.23e-18"}, {"5e-324", "5e-324"},
		{"1.7976931348623157e308", "1.7976931348623157e+308"}, {"1e20", "100000000000000000000"},
		{"123456789012345680000", "123456789012345680000"}, {"9007199254740993", "9007199254740992"},
		{"0.1", "0.1"}, {"100", "100"}, {"1e6", "1000000"}, {"-1e-7", "-1e-7"},
		{"1.25e+25", "1.25e+25"}, {"4.35", "4.35"}, {"0.3333333333333333", "0.3333333333333333"},
		{"1e400", "null"},
	}
	for _, c := range cases {
		v, err := Parse([]byte(c.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", c.in, err)
		}
		if got := string(Stringify(v)); got != c.want {
			t.Errorf("number %s: got %s, want %s", c.in, got, c.want)
		}
	}
}

func TestAppendStringMatchesJavaScript(t *testing.T) {
	cases := []struct {
		in   string // JSON string literal
		want string
	}{
		{`"a\u2028b\u2029"`, "\"a\u2028b\u2029\""},
		{`"<>&\"\\"`, `"<>&\"\\"`},
		{`"\b\f\n\r\t\u0001\u001f\u007f"`, "\"\\b\\f\\n\\r\\t\\u0001\\u001f\u007f\""},
		{`"caf\u00e9 — x"`, `"café — x"`},
		{`"\ud800"`, `"\ud800"`},
		{`"a\uDC00b"`, `"a\udc00b"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\/"`, `"/"`},
		{`"\ud83d\u0041"`, `"\ud83dA"`},
	}
	for _, c := range cases {
		v, err := Parse([]byte(c.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", c.in, err)
		}
		if got := string(Stringify(v)); got != c.want {
			t.Errorf("string %s: got %s, want %s", c.in, got, c.want)
		}
	}
}

func TestInvalidUTF8BecomesReplacementCharacter(t *testing.T) {
	v, err := Parse([]byte("\"a\xffb\""))
	if err != nil {
		t.Fatal(err)
	}
	if v.Str != "a\uFFFDb" {
		t.Errorf("got %q", v.Str)
	}
}

func TestCompareUTF16MatchesJavaScriptSort(t *testing.T) {
	in := []string{"\uff01", "😀", "a", "B", "1.10", "1.2", "é"}
	want := []string{"1.10", "1.2", "B", "a", "é", "😀", "！"}
	got := slices.Clone(in)
	slices.SortStableFunc(got, CompareUTF16)
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if CompareUTF16("ab", "ab") != 0 || CompareUTF16("a", "ab") != -1 || CompareUTF16("ab", "a") != 1 {
		t.Error("prefix ordering wrong")
	}
}

func TestParseKeepsOrderAndDuplicatesLikeJSONParse(t *testing.T) {
	v, err := Parse([]byte(`{"z":1,"a":2,"z":3,"m":[true,false,null]}`))
	if err != nil {
		t.Fatal(err)
	}
	// Node: JSON.stringify(JSON.parse(...)) === '{"z":3,"a":2,"m":[true,false,null]}'
	if got := string(Stringify(v)); got != `{"z":3,"a":2,"m":[true,false,null]}` {
		t.Errorf("got %s", got)
	}
}

func TestParseManyDuplicateKeys(t *testing.T) {
	in := []byte(`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":33,"k16":66,"k17":17}`)
	v, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Members) != 18 {
		t.Fatalf("members = %d, want 18", len(v.Members))
	}
	if n, _ := v.Get("k3").AsInt(); n != 33 || v.Members[3].Key != "k3" {
		t.Errorf("k3 = %d at %s", n, v.Members[3].Key)
	}
	if n, _ := v.Get("k16").AsInt(); n != 66 {
		t.Errorf("k16 = %d", n)
	}
}

func TestParseErrorsCarryLineAndColumn(t *testing.T) {
	cases := []struct {
		in        string
		line, col int
	}{
		{"{\n  \"a\": 1,\n  \"b\": \n", 4, 1},
		{"{\"a\": tru}", 1, 7},
		{"[1,]", 1, 4},
		{"{\"a\":1,}", 1, 8},
		{"\ufeff{}", 1, 1},
		{"{} x", 1, 4},
		{"\"a\tb\"", 1, 3},
		{"01", 1, 2},
		{"-", 1, 2},
		{"1.", 1, 3},
		{"\"\\x\"", 1, 3},
		{"\"\\u12\"", 1, 4},
		{"", 1, 1},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q): err = %v, want *SyntaxError", c.in, err)
			continue
		}
		if se.Line != c.line || se.Column != c.col {
			t.Errorf("Parse(%q): at %d:%d (%v), want %d:%d", c.in, se.Line, se.Column, err, c.line, c.col)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	deep := make([]byte, 0, 2*(MaxDepth+1))
	for range MaxDepth + 1 {
		deep = append(deep, '[')
	}
	for range MaxDepth + 1 {
		deep = append(deep, ']')
	}
	if _, err := Parse(deep); err == nil {
		t.Error("nesting beyond MaxDepth accepted")
	}
	if _, err := Parse(deep[1 : len(deep)-1]); err != nil {
		t.Errorf("nesting at MaxDepth rejected: %v", err)
	}
}

func TestOffsetsAndLines(t *testing.T) {
	data := []byte("{\n  \"tasks\": [\n    {\"id\": \"1.1\"},\n    {\"id\": \"1.2\"}\n  ]\n}")
	v, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	tasks := v.Get("tasks").Elems
	if got := Line(data, tasks[1].Offset); got != 4 {
		t.Errorf("second task on line %d, want 4", got)
	}
	idx := NewLineIndex(data)
	for off := 0; off <= len(data); off++ {
		if got, want := idx.Line(off), Line(data, off); got != want {
			t.Fatalf("LineIndex.Line(%d) = %d, Line = %d", off, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x\u2028"],"b":{"c":null}}`, `"\ud800"`, `[1e21,-0,5e-324]`, `{"a":1,"a":2}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		stdOK := json.Valid(data)
		if (err == nil) != stdOK && !stdOKDiffers(data) {
			t.Fatalf("Parse err=%v but encoding/json Valid=%v for %q", err, stdOK, data)
		}
		if err != nil {
			return
		}
		out := Stringify(v)
		v2, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parse of %q failed: %v", out, err)
		}
		if out2 := Stringify(v2); string(out2) != string(out) {
			t.Fatalf("not stable: %q then %q", out, out2)
		}
	})
}

// stdOKDiffers covers inputs where encoding/json's validity check and
// JSON.parse legitimately disagree: invalid UTF-8 inside strings (both
// accept), and nesting beyond MaxDepth (we refuse on purpose).
func stdOKDiffers(data []byte) bool {
	depth, maxDepth := 0, 0
	for _, b := range data {
		switch b {
		case '[', '{':
			depth++
			maxDepth = max(maxDepth, depth)
		case ']', '}':
			depth--
		}
	}
	return maxDepth > MaxDepth
}

func TestTrimMatchesJavaScript(t *testing.T) {
	// Node: JSON.stringify("\ufeff\u00a0\u2028 a\u0085 \u3000\t".trim()) === "\"a\u0085\""
	if got := Trim("\ufeff\u00a0\u2028 a\u0085 \u3000\t"); got != "a\u0085" {
		t.Errorf("Trim = %q", got)
	}
}

func TestDuplicates(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Duplicate
	}{
		{`{"a":1,"b":2}`, nil},
		{`{"a":1,"a":2}`, []Duplicate{{Path: "", Key: "a", FirstOffset: 1, LastOffset: 7}}},
		{`{"a":1,"a":2,"a":3}`, []Duplicate{{Path: "", Key: "a", FirstOffset: 1, LastOffset: 13}}},
		{`{"p":[{"s":"x"},{"s":"done","s":"pending"}]}`, []Duplicate{{Path: ".p[1]", Key: "s", FirstOffset: 17, LastOffset: 28}}},
		{`[{"x":{"y":1,"y":{"z":1,"z":2}}}]`, []Duplicate{{Path: "[0].x", Key: "y", FirstOffset: 7, LastOffset: 13}, {Path: "[0].x.y", Key: "z", FirstOffset: 18, LastOffset: 24}}},
	} {
		v, err := Parse([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := Duplicates(v); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.in, got, tc.want)
		}
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range 500 {
		fmt.Fprintf(&b, `"k%d":1,"k%d":2,`, i, i)
	}
	b.WriteString(`"end":0}`)
	v, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(Duplicates(v)); got != maxDuplicates {
		t.Errorf("500 duplicated keys: %d reported, want %d", got, maxDuplicates)
	}
}
