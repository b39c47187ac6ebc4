package syntax

/*
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static int kast_trims(void) {
#ifdef __GLIBC__
	return 1;
#else
	return 0;
#endif
}

static void kast_trim_heap(void) {
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}
*/
import "C"

// trimAfter is the source size from which closing a tree hands the C
// heap's free memory back to the system. glibc keeps what a parse freed in
// the arena of the thread that parsed, and cgo calls run on many threads:
// measured, parsing and closing the Go tree's three largest files one
// after another left 110 MB of anonymous memory behind (56 MB after the
// first), about what a cold open's peak RSS was over its target.
const trimAfter = 256 << 10

// trimHeap returns the C heap's free pages to the system (glibc's
// malloc_trim; nothing elsewhere).
func trimHeap() { C.kast_trim_heap() }

// trims reports whether trimHeap does anything here.
func trims() bool { return C.kast_trims() == 1 }
