package search

// nonGoHeadroom is what a refresh keeps free under the process's soft
// memory limit for memory the Go runtime does not count: tree-sitter's C
// heap while a file is parsed (65 MB for the Go tree's largest file, 1.9 MB
// of source) and thread stacks. The limit (kast's 250 MiB) is meant for the
// process; Go alone filled it during the build of the Go tree's index and
// the parser's memory went on top, to 264 MB of anonymous memory.
const nonGoHeadroom = 40 << 20
