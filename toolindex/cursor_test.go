package toolindex

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
)

func TestCursorRoundTrip(t *testing.T) {
	fp := fingerprint("ns", "mcp:github")
	for _, id := range []string{"a", "github:create_issue", strings.Repeat("n", 128) + ":" + strings.Repeat("m", 128)} {
		c := encodeListCursor(fp, id)
		assert.NotContains(t, c, id, "cursors are opaque")
		got, err := decodeListCursor(c, fp)
		require.NoError(t, err)
		assert.Equal(t, id, got)
	}
	for _, offset := range []int{1, 20, 127, 128, maxSearchOffset} {
		got, err := decodeSearchCursor(encodeSearchCursor(fp, offset), fp)
		require.NoError(t, err)
		assert.Equal(t, offset, got)
	}
}

func TestCursorRejects(t *testing.T) {
	fp := fingerprint("q", "")
	raw := func(b ...byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	header := func(version, kind byte) []byte {
		c, _ := base64.RawURLEncoding.DecodeString(encodeCursor(kind, fp, nil))
		c[0] = version
		return c
	}
	tests := map[string]struct {
		cursor string
		search bool
		reason string
	}{
		"not base64":         {cursor: "***", reason: "not a cursor"},
		"padded":             {cursor: encodeListCursor(fp, "ab") + "==", reason: "not a cursor"},
		"truncated":          {cursor: raw(1, 'L', 0), reason: "truncated"},
		"future format":      {cursor: raw(append(header(2, 'L'), 'x')...), reason: "unknown format 2"},
		"wrong kind":         {cursor: encodeSearchCursor(fp, 3), reason: "another kind"},
		"other request":      {cursor: encodeListCursor(fingerprint("other", ""), "x"), reason: "another query or other filters"},
		"empty position":     {cursor: raw(header(1, 'L')...), reason: "bad position"},
		"invalid UTF-8":      {cursor: raw(append(header(1, 'L'), 0xff)...), reason: "bad position"},
		"too long":           {cursor: encodeListCursor(fp, strings.Repeat("x", maxCursorID+1)), reason: "bad position"},
		"zero offset":        {cursor: encodeSearchCursor(fp, 0), search: true, reason: "bad position"},
		"huge offset":        {cursor: encodeSearchCursor(fp, maxSearchOffset+1), search: true, reason: "bad position"},
		"trailing bytes":     {cursor: raw(append(header(1, 'S'), 5, 0)...), search: true, reason: "bad position"},
		"unterminated":       {cursor: raw(append(header(1, 'S'), 0x80)...), search: true, reason: "bad position"},
		"overflowing varint": {cursor: raw(append(header(1, 'S'), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)...), search: true, reason: "bad position"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var err error
			if tt.search {
				_, err = decodeSearchCursor(tt.cursor, fp)
			} else {
				_, err = decodeListCursor(tt.cursor, fp)
			}
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
			assert.ErrorContains(t, err, tt.reason)
		})
	}
}

// FuzzDecodeCursor decodes arbitrary strings as cursors: decoding never
// panics, every failure is an invalid argument, and whatever decodes
// encodes back to a cursor that decodes to the same position.
func FuzzDecodeCursor(f *testing.F) {
	fp := fingerprint("create issue", "github")
	f.Add(encodeListCursor(fp, "github:create_issue"))
	f.Add(encodeSearchCursor(fp, 40))
	f.Add("")
	f.Add("AQ")
	f.Add("AUw")
	f.Add("not a cursor")
	f.Fuzz(func(t *testing.T, s string) {
		if id, err := decodeListCursor(s, fp); err != nil {
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
		} else {
			again, err := decodeListCursor(encodeListCursor(fp, id), fp)
			require.NoError(t, err)
			require.Equal(t, id, again)
		}
		if offset, err := decodeSearchCursor(s, fp); err != nil {
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
		} else {
			require.Positive(t, offset)
			again, err := decodeSearchCursor(encodeSearchCursor(fp, offset), fp)
			require.NoError(t, err)
			require.Equal(t, offset, again)
		}
	})
}

// FuzzCursorRoundTrip encodes arbitrary positions and decodes them back.
func FuzzCursorRoundTrip(f *testing.F) {
	f.Add("q", "ns", "github:create_issue", 20)
	f.Add("", "", "x", 1)
	f.Fuzz(func(t *testing.T, query, namespace, id string, offset int) {
		fp := fingerprint(query, namespace)
		got, err := decodeListCursor(encodeListCursor(fp, id), fp)
		if id == "" || len(id) > maxCursorID || !utf8.ValidString(id) {
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
		} else {
			require.NoError(t, err)
			require.Equal(t, id, got)
		}
		if offset >= 1 && offset <= maxSearchOffset {
			gotOffset, err := decodeSearchCursor(encodeSearchCursor(fp, offset), fp)
			require.NoError(t, err)
			require.Equal(t, offset, gotOffset)
		}
	})
}
