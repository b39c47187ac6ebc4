package syntax

/*
#include <stdlib.h>

#include "flat.h"
*/
import "C"

import (
	"context"
	"runtime"
	"sync/atomic"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// pool is a bounded pool of parsers: get makes one when none is free, put
// closes one when the pool is full.
type pool[P any] struct {
	free    chan P
	create  func() P
	destroy func(P)
}

func newPool[P any](create func() P, destroy func(P)) *pool[P] {
	return &pool[P]{free: make(chan P, runtime.GOMAXPROCS(0)), create: create, destroy: destroy}
}

func (p *pool[P]) get() P {
	select {
	case v := <-p.free:
		return v
	default:
		return p.create()
	}
}

func (p *pool[P]) put(v P) {
	select {
	case p.free <- v:
	default:
		p.destroy(v)
	}
}

// drain closes the free parsers.
func (p *pool[P]) drain() {
	for {
		select {
		case v := <-p.free:
			p.destroy(v)
		default:
			return
		}
	}
}

// cLanguage returns the C grammar behind the binding's Language, which keeps
// it as its unexported first field. TestLanguageMirror guards this layout.
func cLanguage(g *sitter.Language) *C.TSLanguage {
	return *(**C.TSLanguage)(unsafe.Pointer(g))
}

// parser is a tree-sitter parser of our own. The binding's ParseCtx copies
// the source into C memory, starts a goroutine per cancellable parse and can
// leave its cancellation flag raised after the parse ended; this calls
// tree-sitter directly instead.
type parser struct {
	c *C.TSParser
	// cancel is the flag tree-sitter polls while parsing. It is C memory
	// because tree-sitter keeps its address.
	cancel *C.size_t
}

// newParser makes a parser for lang. An incompatible grammar is not
// reported here: every parse then returns NULL with no language set.
func newParser(lang *C.TSLanguage) *parser {
	p := &parser{c: C.ts_parser_new(), cancel: (*C.size_t)(C.calloc(1, C.sizeof_size_t))}
	C.ts_parser_set_language(p.c, lang)
	C.ts_parser_set_cancellation_flag(p.c, p.cancel)
	return p
}

func (p *parser) close() {
	C.ts_parser_delete(p.c)
	C.free(unsafe.Pointer(p.cancel))
}

// setCancel stores the cancellation flag; size_t is uintptr-sized wherever
// Go runs, and tree-sitter reads it with an atomic load.
func (p *parser) setCancel(v uintptr) {
	atomic.StoreUintptr((*uintptr)(unsafe.Pointer(p.cancel)), v)
}

// parse parses src, reusing old's unchanged subtrees when old is not nil.
// It returns NULL when the parse was cancelled through ctx, after which the
// parser must be reset before its next parse.
func (p *parser) parse(ctx context.Context, old *C.TSTree, src []byte) *C.TSTree {
	var stop func() bool
	var raised chan struct{}
	if ctx.Done() != nil { // otherwise ctx can never be cancelled
		raised = make(chan struct{})
		stop = context.AfterFunc(ctx, func() {
			p.setCancel(1)
			close(raised)
		})
	}
	// tree-sitter reads the Go bytes in place: they hold no Go pointers and
	// it keeps no pointer to them once the call returns. With no text, NULL
	// is never read since the length is 0.
	var text *C.char
	if len(src) > 0 {
		text = (*C.char)(unsafe.Pointer(&src[0]))
	}
	t := C.ts_parser_parse_string(p.c, old, text, C.uint32_t(len(src)))
	if stop != nil && !stop() {
		// The callback ran or is running: once it has raised the flag,
		// lower it, so that it can never cancel a later parse.
		<-raised
		p.setCancel(0)
	}
	return t
}
