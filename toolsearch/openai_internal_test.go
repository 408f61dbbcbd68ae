package toolsearch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeEmbeddings(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		n         int
		want      [][]float32
		err       string
	}{
		{name: "by index", raw: `{"data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[1,0]}]}`, n: 2, want: [][]float32{{1, 0}, {0, 2}}},
		{name: "in order without index", raw: `{"data":[{"embedding":[1]},{"embedding":[2]}]}`, n: 2, want: [][]float32{{1}, {2}}},
		{name: "not JSON", raw: `<html>`, n: 1, err: "decode the response"},
		{name: "too few", raw: `{"data":[]}`, n: 1, err: "0 vectors for 1 texts"},
		{name: "index out of range", raw: `{"data":[{"index":3,"embedding":[1]}]}`, n: 1, err: "index 3, out of [0, 1)"},
		{name: "index twice", raw: `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, n: 2, err: "index 0 is given twice"},
		{name: "empty vector", raw: `{"data":[{"embedding":[]}]}`, n: 1, err: "vector 0 is empty"},
		{name: "dimensions differ", raw: `{"data":[{"embedding":[1,2]},{"embedding":[1]}]}`, n: 2, err: "vector 1 has dimension 1, vector 0 has 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeEmbeddings([]byte(tc.raw), tc.n)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzDecodeEmbeddings checks that any answer of an embeddings service
// is decoded into one vector per text, all of one non-zero dimension, or
// refused with an error, never a panic.
func FuzzDecodeEmbeddings(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[1,0]}]}`), 2)
	f.Add([]byte(`{"data":[{"index":-1,"embedding":[1]}]}`), 1)
	f.Add([]byte(`{"data":null}`), 0)
	f.Add([]byte(`{"error":{"message":"no"}}`), 3)
	f.Fuzz(func(t *testing.T, raw []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		_ = apiErrorMessage(raw)
		vectors, err := decodeEmbeddings(raw, n)
		if err != nil {
			return
		}
		require.Len(t, vectors, n)
		for _, v := range vectors {
			require.NotEmpty(t, v)
			require.Len(t, v, len(vectors[0]))
		}
	})
}
