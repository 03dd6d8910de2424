// Command export prints every record as CSV.
package main

import (
	"os"

	"example.com/csvtool/internal/export"
)

func main() {
	records := [][]string{{"name", "qty"}, {"apples", "3"}}
	if err := export.WriteCSV(os.Stdout, records); err != nil {
		os.Exit(1)
	}
}
