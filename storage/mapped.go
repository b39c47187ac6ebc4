package storage

// ReleaseMappedPages asks the kernel to take back the pages of the index's
// write-once files that the process has mapped: badger writes and reads its
// value log and memtable logs through shared memory maps, and every page it
// touches stays in kast's resident set until memory runs short. On the Go
// standard library they grew to over 100 MB of a cold start's peak (the
// value log alone 88 MB) though kast reads them only on a facts-cache miss.
// The tables, which every name query reads, keep their pages. No data is
// lost: dirty pages are written back first, and a later read maps the page
// again from the file. With scattered set it also turns off readahead on
// the value log, for reads of a file's facts here and there (queries):
// readahead around them mapped most of the log between two releases.
// Without it readahead is on, for a reference pass reading every file's
// facts in turn. Where the kernel cannot (not Linux), it does nothing.
func (ix *Index) ReleaseMappedPages(scattered bool) {
	if ix.dir == "" || ix.InMemory() {
		return
	}
	releaseMappedPages(ix.dir, scattered)
}
