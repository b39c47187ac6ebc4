//go:build !linux

package storage

func releaseMappedPages(string, bool) {}
