package workspace

import "testing"

// ShrinkPassBudgets makes every memo of the reference pass tiny for the
// test, so that its files are evicted and read again all the time.
func ShrinkPassBudgets(t *testing.T) {
	saved := passBudget
	passBudget.facts, passBudget.defs, passBudget.resolver, passBudget.renewal, passBudget.ordinals = 1, 1, 1, 1, 0
	t.Cleanup(func() { passBudget = saved })
}
