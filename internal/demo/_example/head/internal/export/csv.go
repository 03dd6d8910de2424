// Package export writes records as CSV.
package export

import (
	"io"
	"strings"
)

// WriteCSV writes one CSV line per record.
func WriteCSV(w io.Writer, records [][]string) error {
	for _, rec := range records {
		// TODO: quote fields that contain commas, quotes or newlines
		if _, err := io.WriteString(w, strings.Join(rec, ",")+"\r\n"); err != nil {
			return err
		}
	}
	return nil
}
