//go:build race

package kaiak_test

// raceEnabled: the race detector slows everything several times over, so
// latency targets are not held under it.
const raceEnabled = true
