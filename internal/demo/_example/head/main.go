package main

import "fmt"

func main() {
	fmt.Println("csvtool: run `go run ./cmd/export` to export records as CSV")
}
