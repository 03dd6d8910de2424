//go:build !race

package pipeline

// raceDetector is true when the tests run with -race.
const raceDetector = false
