package storage

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// releaseMappedPages pages out the shared mappings of dir's value-log and
// memtable files. It uses MADV_PAGEOUT, which never discards data, rather
// than MADV_DONTNEED: a range badger unmaps between the read of the map
// list and the call may be reused by other memory, which MADV_DONTNEED
// would zero.
//
// When scattered, it also turns off readahead on the value log
// (MADV_RANDOM): queries read one file's facts here and there. At the
// standard library's cold start, sampled every half second, the log's
// resident pages still reached 86–95 MB during the first queries with a
// release every second (peak RSS 450–459 MB); without readahead they
// stayed under 15 MB (peak 442–447 MB). Otherwise it turns readahead back
// on (MADV_NORMAL): without it a pass alone reads the log page by page,
// and `kast index --references` over three million lines took 55 s instead
// of 46–48 (114,000 major faults instead of about 1,000).
func releaseMappedPages(dir string, scattered bool) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || len(fields[1]) < 4 || fields[1][3] != 's' {
			continue
		}
		path := fields[5]
		if !strings.HasPrefix(path, prefix) || !(strings.HasSuffix(path, ".vlog") || strings.HasSuffix(path, ".mem")) {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		if strings.HasSuffix(path, ".vlog") {
			// Readahead off or on (see above): an advice, harmless on any
			// range.
			advice := unix.MADV_NORMAL
			if scattered {
				advice = unix.MADV_RANDOM
			}
			_, _, _ = syscall.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), uintptr(advice))
		}
		// Errors (a range unmapped meanwhile, an old kernel) leave the pages
		// where they are, which is only what happened before.
		_, _, _ = syscall.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_PAGEOUT)
	}
}
