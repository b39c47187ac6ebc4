//go:build !race

package kaiak_test

const raceEnabled = false
