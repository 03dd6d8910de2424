package swarm

import (
	"strings"
	"testing"
)

// A second phase or task under an id the plan already holds is named as
// a duplicate, not read as the approved one's fields changing (an
// adversarial pass: a duplicate phase 1 showed as "name changed").
func TestComparePlansDuplicates(t *testing.T) {
	approved := `{"schema_version":"1.0.0","title":"T","swarm":"default","current_phase":1,"phases":[
 {"id":1,"name":"Export","status":"pending","tasks":[
  {"id":"1.1","phase":1,"status":"pending","description":"a","depends":[],"files_touched":["a.go"]}]}]}`
	dupPhase := `{"schema_version":"1.0.0","title":"T","swarm":"default","current_phase":1,"phases":[
 {"id":1,"name":"Export","status":"pending","tasks":[
  {"id":"1.1","phase":1,"status":"pending","description":"a","depends":[],"files_touched":["a.go"]}]},
 {"id":1,"name":"Dup","status":"pending","tasks":[]}]}`
	cases := []struct {
		name, head string
		approved   string   // "" for approved
		want       []string // each Text() must be listed
		not        []string // and none of these
	}{
		{
			name: "duplicate phase id",
			head: `{"schema_version":"1.0.0","title":"T","swarm":"default","current_phase":1,"phases":[
 {"id":1,"name":"Export","status":"pending","tasks":[
  {"id":"1.1","phase":1,"status":"pending","description":"a","depends":[],"files_touched":["a.go"]}]},
 {"id":1,"name":"Extra","status":"pending","tasks":[]}]}`,
			want: []string{`phase 1 duplicated: another phase with id 1 "Extra"`},
			not:  []string{"name changed"},
		},
		{
			name: "duplicate task id",
			head: `{"schema_version":"1.0.0","title":"T","swarm":"default","current_phase":1,"phases":[
 {"id":1,"name":"Export","status":"pending","tasks":[
  {"id":"1.1","phase":1,"status":"pending","description":"a","depends":[],"files_touched":["a.go"]},
  {"id":"1.1","phase":1,"status":"pending","description":"b","depends":[],"files_touched":["b.go"]}]}]}`,
			want: []string{`task 1.1 duplicated: another task with id 1.1 "b"`},
			not:  []string{"description changed", "files_touched"},
		},
		{
			// An approved plan with the repeat: no change, as the structure
			// hashes agree (the first of each id is compared, as the gates
			// look them up).
			name:     "the approved plan repeats it too",
			approved: dupPhase,
			head:     dupPhase,
			not:      []string{"duplicated", "name changed"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			from := approved
			if tc.approved != "" {
				from = tc.approved
			}
			a, err := ParsePlan("approved.json", []byte(from))
			if err != nil {
				t.Fatal(err)
			}
			h, err := ParsePlan("head.json", []byte(tc.head))
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, c := range ComparePlans(a, h) {
				texts = append(texts, c.Text())
				if c.Field == "duplicated" && !c.InvalidatesApproval() {
					t.Errorf("%s does not invalidate the approval", c.Text())
				}
			}
			all := strings.Join(texts, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("missing %q in:\n%s", w, all)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(all, n) {
					t.Errorf("unexpected %q in:\n%s", n, all)
				}
			}
		})
	}
}
