package syntax

import (
	"strings"
	"sync/atomic"
	"unsafe"
)

// fieldSlotBits sets the size of a Language's field-id cache: 512 slots.
const fieldSlotBits = 9

// fieldEntry is one cached field-name lookup; id 0 means no such field.
type fieldEntry struct {
	name string
	id   uint16
}

// fieldID returns the grammar's id of a field name, or 0. Extractors look
// fields up by string literals, millions of times in a cold index, and
// hashing the name for the map cost more than the walk over the children.
// A literal's bytes never move, so a cache slot chosen by their address
// answers without hashing, and the short string comparison that confirms
// the hit is cheaper than the hash. A slot is filled once: a name that
// finds it taken by another uses the map.
func (l *Language) fieldID(name string) uint16 {
	addr := uint64(uintptr(unsafe.Pointer(unsafe.StringData(name))))
	slot := &l.fieldCache[(addr*0x9E3779B97F4A7C15)>>(64-fieldSlotBits)] // Fibonacci hashing
	e := slot.Load()
	if e != nil && e.name == name {
		return e.id
	}
	id := l.fieldIDs[name]
	if e == nil {
		// A copy: a name cut out of some file's text must not pin it.
		slot.CompareAndSwap(nil, &fieldEntry{name: strings.Clone(name), id: id})
	}
	return id
}

// fieldCache is embedded in Language.
type fieldCache = [1 << fieldSlotBits]atomic.Pointer[fieldEntry]
