//go:build !race

package secrets

// raceDetector is true when the tests run with -race.
const raceDetector = false
