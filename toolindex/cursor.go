package toolindex

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"unicode/utf8"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// Cursors are opaque to callers. Inside, a cursor is the unpadded
// base64url encoding of:
//
//	byte 0      format version (cursorVersion)
//	byte 1      kind: 'L' (listing) or 'S' (search)
//	bytes 2-9   fingerprint of the request the cursor belongs to (big endian)
//	bytes 10-   listing: the last ID of the page; search: the offset (uvarint)
//
// A listing cursor holds the last ID seen rather than a position, so that
// paging is unaffected by tools added or removed before it. The
// fingerprint binds a cursor to its filters or query, so that a cursor
// used with another request is refused instead of silently skipping
// results.
const (
	cursorVersion    = 1
	cursorHeaderLen  = 10
	listCursorKind   = 'L'
	searchCursorKind = 'S'
	// maxCursorID is the longest tool ID: namespace, colon and name.
	maxCursorID = 2*toolmodel.MaxNameLen + 1
	// maxSearchOffset bounds the offset of a search cursor, so that a
	// forged cursor cannot ask for absurd work.
	maxSearchOffset = 1 << 20
)

// fingerprint hashes the fields of a request, each prefixed with its
// length so that different splits of the same bytes differ.
func fingerprint(fields ...string) uint64 {
	h := fnv.New64a()
	var n [binary.MaxVarintLen64]byte
	for _, f := range fields {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(f)))])
		h.Write([]byte(f))
	}
	return h.Sum64()
}

func encodeCursor(kind byte, fp uint64, payload []byte) string {
	buf := make([]byte, cursorHeaderLen, cursorHeaderLen+len(payload))
	buf[0], buf[1] = cursorVersion, kind
	binary.BigEndian.PutUint64(buf[2:], fp)
	return base64.RawURLEncoding.EncodeToString(append(buf, payload...))
}

// decodeCursor checks a cursor's header against the expected kind and
// fingerprint and returns its payload.
func decodeCursor(s string, kind byte, fp uint64) ([]byte, error) {
	buf, err := base64.RawURLEncoding.DecodeString(s)
	switch {
	case err != nil:
		return nil, cursorError("not a cursor")
	case len(buf) < cursorHeaderLen:
		return nil, cursorError("truncated")
	case buf[0] != cursorVersion:
		return nil, cursorError(fmt.Sprintf("unknown format %d", buf[0]))
	case buf[1] != kind:
		return nil, cursorError("it belongs to another kind of request")
	case binary.BigEndian.Uint64(buf[2:]) != fp:
		return nil, cursorError("it belongs to a request with another query or other filters")
	}
	return buf[cursorHeaderLen:], nil
}

func cursorError(reason string) error {
	return errors.Errorf(errors.InvalidArgument, "invalid cursor: %s", reason)
}

// encodeListCursor returns the cursor of the listing with fingerprint fp
// whose last page ended with lastID.
func encodeListCursor(fp uint64, lastID string) string {
	return encodeCursor(listCursorKind, fp, []byte(lastID))
}

// decodeListCursor returns the last ID recorded in a listing cursor.
func decodeListCursor(s string, fp uint64) (string, error) {
	payload, err := decodeCursor(s, listCursorKind, fp)
	if err != nil {
		return "", err
	}
	if len(payload) == 0 || len(payload) > maxCursorID || !utf8.Valid(payload) {
		return "", cursorError("bad position")
	}
	return string(payload), nil
}

// encodeSearchCursor returns the cursor of the search with fingerprint fp
// that goes on at offset.
func encodeSearchCursor(fp uint64, offset int) string {
	return encodeCursor(searchCursorKind, fp, binary.AppendUvarint(nil, uint64(offset)))
}

// decodeSearchCursor returns the offset recorded in a search cursor.
func decodeSearchCursor(s string, fp uint64) (int, error) {
	payload, err := decodeCursor(s, searchCursorKind, fp)
	if err != nil {
		return 0, err
	}
	offset, n := binary.Uvarint(payload)
	if n <= 0 || n != len(payload) || offset == 0 || offset > maxSearchOffset {
		return 0, cursorError("bad position")
	}
	return int(offset), nil
}
