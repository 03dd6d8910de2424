package main

import "fmt"

func main() {
	fmt.Println("csvtool: nothing to do yet")
}
