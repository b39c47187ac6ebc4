//go:build !linux

package workspace

// Holes are not sought here: copyFile reads them and skips zeros.
const seekData, seekHole = 0, 0
