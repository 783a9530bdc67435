//go:build race

package failure

// raceEnabled slows timing tests' limits: the race detector costs ~10x.
const raceEnabled = true
