package storage

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// Key layout: a one-byte table tag, then big-endian fixed-width ids (so keys of
// one name or file sort together and prefix scans are exact), then strings.
//
//	M <name>                              meta: versions, id counters
//	P <path>                              → fileID
//	F <fileID>                            → file row (path, lang, size, mtime, hash, counts)
//	H <hash:32> <lang>                    → encoded FileFacts of that content
//	h <hash:32> <lang> 0x00 <fileID>      → (empty) files using a blob, for blob GC
//	n <lower(name)> 0x00 <name>           → nameID: exact lookup by the whole key, and
//	                                        case-insensitive, prefix and fuzzy lookup by prefix
//	D|R|S|B <nameID> <fileID>             → posting: one file's defs, refs, supertype edges by
//	                                        subtype, subtype edges by supertype
//	X <fileID>                            → reverse index: the posting keys the file wrote
//	Q <sub> …                             search tables, owned by analysis/search (searchstore.go)
//
// Postings aggregate one name's entries within one file into a single row, so a
// file writes one row per distinct name per table instead of one per reference:
// far fewer keys to write, delete and list in the reverse index. Calls have no
// table of their own: every call is also a reference with RoleCall, whose
// posting leads to the file's calls (see Callers).
const (
	tagMeta      = 'M'
	tagPath      = 'P'
	tagFile      = 'F'
	tagBlob      = 'H'
	tagBlobUser  = 'h'
	tagNameLower = 'n'
	tagDef       = 'D'
	tagRef       = 'R'
	tagSuper     = 'S' // keyed by the subtype's name: "what does X extend"
	tagSub       = 'B' // keyed by the supertype's name: "what extends X"
	tagReverse   = 'X'
)

// postingTags are the tables a file's reverse index covers.
var postingTags = []byte{tagSub, tagDef, tagRef, tagSuper}

const hashLen = 32

type contentHash [hashLen]byte

func metaKey(name string) []byte { return append([]byte{tagMeta}, name...) }
func pathKey(path string) []byte { return append([]byte{tagPath}, path...) }

func idKey(tag byte, id uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{tag}, id)
}

func fileKey(fileID uint32) []byte    { return idKey(tagFile, fileID) }
func reverseKey(fileID uint32) []byte { return idKey(tagReverse, fileID) }

func postingKey(tag byte, nameID, fileID uint32) []byte {
	return binary.BigEndian.AppendUint32(idKey(tag, nameID), fileID)
}

// postingFileID reads the file id out of a posting key.
func postingFileID(key []byte) uint32 { return binary.BigEndian.Uint32(key[5:9]) }

func blobKey(h contentHash, lang string) []byte {
	k := append([]byte{tagBlob}, h[:]...)
	return append(k, lang...)
}

// blobUsersPrefix covers the h rows of every file using one blob.
func blobUsersPrefix(h contentHash, lang string) []byte {
	k := append([]byte{tagBlobUser}, h[:]...)
	k = append(k, lang...)
	return append(k, 0)
}

func blobUserKey(h contentHash, lang string, fileID uint32) []byte {
	return binary.BigEndian.AppendUint32(blobUsersPrefix(h, lang), fileID)
}

// lowerNameKey is the one row of an interned name. Sorting by the lowercase
// form first serves case-insensitive prefix search; ending with the name
// itself makes the key exact, so interning and queries find a name with a
// point lookup (which badger's bloom filters make cheap) and the index needs
// no second, case-sensitive name table.
func lowerNameKey(name string) []byte {
	k := make([]byte, 0, 2+2*len(name))
	k = append(k, tagNameLower)
	k = append(k, strings.ToLower(name)...)
	k = append(k, 0)
	return append(k, name...)
}

// parseLowerNameKey returns the original name of an n key, within the key.
func parseLowerNameKey(key []byte) (name []byte, ok bool) {
	i := bytes.IndexByte(key, 0)
	if i < 0 {
		return nil, false
	}
	return key[i+1:], true
}

// postingRef names one posting row of a file: its table and name.
type postingRef struct {
	tag    byte
	nameID uint32
}

func encodePostingRefs(refs []postingRef) []byte {
	e := &encoder{buf: make([]byte, 0, 4*len(refs))}
	for _, r := range refs {
		e.byte(r.tag)
		e.uvarint(uint64(r.nameID))
	}
	return e.buf
}

func decodePostingRefs(b []byte) ([]postingRef, error) {
	d := &decoder{buf: b}
	var refs []postingRef
	for len(d.buf) > 0 {
		refs = append(refs, postingRef{tag: d.byte(), nameID: uint32(d.uvarint())})
	}
	return refs, d.err
}
