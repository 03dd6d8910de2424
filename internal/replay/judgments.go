package replay

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Judgment is a reviewer's verdict on one range, from a row of
// testdata/JUDGMENTS.md: `| N | range | blocks | why |`, where blocks lists
// the gates that must fail (short names such as plan-freeze, comma-
// separated) or is "—" when nothing may block.
type Judgment struct {
	Range  int
	Blocks []string // sorted
	Why    string
}

var judgmentRow = regexp.MustCompile(`^\|\s*(\d+)\s*\|([^|]*)\|([^|]*)\|(.*)\|\s*$`)

// LoadJudgments reads the judgment table. A range judged twice, a row
// without a reason, or an unknown gate name is an error naming the line.
func LoadJudgments(path string) (map[int]Judgment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	known := map[string]bool{"plan-freeze": true, "critic": true, "scope": true, "placeholders": true, "sast": true, "evidence": true, "drift": true, "plan-lint": true}
	out := map[int]Judgment{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		m := judgmentRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		if _, dup := out[i]; dup {
			return nil, fmt.Errorf("%s:%d: range %d is judged twice", path, n, i)
		}
		j := Judgment{Range: i, Why: strings.TrimSpace(m[4])}
		if j.Why == "" {
			return nil, fmt.Errorf("%s:%d: range %d has no reason", path, n, i)
		}
		if b := strings.TrimSpace(m[3]); b != "—" && b != "-" {
			for _, g := range strings.Split(b, ",") {
				g = strings.Trim(strings.TrimSpace(g), "`")
				if !known[g] {
					return nil, fmt.Errorf("%s:%d: range %d: unknown gate %q in the blocks column", path, n, i, g)
				}
				j.Blocks = append(j.Blocks, g)
			}
		}
		slices.Sort(j.Blocks)
		out[i] = j
	}
	return out, sc.Err()
}
