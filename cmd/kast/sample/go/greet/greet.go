// Package greet is the sample's Go side: the same greeting, for a polyglot
// workspace.
package greet

import "fmt"

// Greet greets someone by name.
func Greet(name string) string { return fmt.Sprintf("hi %s", name) }
