//go:build race

package secrets

// raceDetector is true when the tests run with -race, which instruments
// every allocation: allocation bounds are looser there.
const raceDetector = true
