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
	cases := []struct {
		name, head string
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
	}
	a, err := ParsePlan("approved.json", []byte(approved))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
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
