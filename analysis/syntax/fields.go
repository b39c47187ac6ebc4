package syntax

import (
	"sync/atomic"
	"unsafe"
)

// fieldSlots is the size of a Language's field-id cache.
const fieldSlots = 512

// fieldEntry is one cached field-name lookup; id 0 means no such field.
type fieldEntry struct {
	name string
	id   uint16
}

// fieldID returns the grammar's id of a field name, or 0. Extractors look
// fields up by string literals, millions of times in a cold index, and
// hashing the name for the map cost more than the walk over the children.
// A literal's bytes never move, so a cache slot chosen by their address
// answers without hashing; the string comparison that confirms the hit
// returns at once when the addresses match. A slot is filled once: a name
// that finds it taken by another uses the map.
func (l *Language) fieldID(name string) uint16 {
	addr := uint64(uintptr(unsafe.Pointer(unsafe.StringData(name))))
	slot := &l.fieldCache[(addr*0x9E3779B97F4A7C15)>>(64-9)] // Fibonacci hashing onto 512 slots
	e := slot.Load()
	if e != nil && e.name == name {
		return e.id
	}
	id := l.fieldIDs[name]
	if e == nil {
		slot.CompareAndSwap(nil, &fieldEntry{name: name, id: id})
	}
	return id
}

var _ [0]struct{} = [fieldSlots - 1<<9]struct{}{} // the shift above assumes 512 slots

// fieldCache is embedded in Language.
type fieldCache = [fieldSlots]atomic.Pointer[fieldEntry]
