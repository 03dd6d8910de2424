package export

import (
	"strings"
	"testing"
)

func TestWriteCSV(t *testing.T) {
	var b strings.Builder
	if err := WriteCSV(&b, [][]string{{"a", "b"}, {"c", "d"}}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "a,b\r\nc,d\r\n" {
		t.Errorf("got %q", got)
	}
}
