package syntax

// TrimsHeap reports whether closing a large tree trims the C heap here.
var TrimsHeap = trims
