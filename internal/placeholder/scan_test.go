package placeholder

import (
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// TestColumnsAsSAST: a column is the one swarm/sast gives for the same
// line (the UTF-16 count of gates' TestPlaceholderColumns).
func TestColumnsAsSAST(t *testing.T) {
	line := "\ufeff/* é😀\xff */ eval(input); // TODO"
	fs, _ := sast.ScanFile("a.js", []byte(line+"\n"))
	if len(fs) != 1 {
		t.Fatalf("sast findings %+v", fs)
	}
	if got, want := utf16Col(line, strings.Index(line, "eval"))+1, fs[0].Column; got != want {
		t.Errorf("utf16Col gives column %d for eval, sast %d", got, want)
	}
}
