package tooldocs_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
)

func TestDetailLevelString(t *testing.T) {
	tests := []struct {
		level tooldocs.DetailLevel
		want  string
	}{
		{tooldocs.LevelSummary, "summary"},
		{tooldocs.LevelSchema, "schema"},
		{tooldocs.LevelFull, "full"},
		{tooldocs.DetailLevel(3), "DetailLevel(3)"},
		{tooldocs.DetailLevel(-1), "DetailLevel(-1)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.level.String())
		})
	}
}

func TestZeroDetailLevelIsSummary(t *testing.T) {
	var l tooldocs.DetailLevel
	assert.Equal(t, tooldocs.LevelSummary, l)
	assert.Equal(t, []tooldocs.DetailLevel{tooldocs.LevelSummary, tooldocs.LevelSchema, tooldocs.LevelFull}, tooldocs.Levels())
}

func TestParseDetailLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    tooldocs.DetailLevel
		wantErr bool
	}{
		{in: "summary", want: tooldocs.LevelSummary},
		{in: "schema", want: tooldocs.LevelSchema},
		{in: "full", want: tooldocs.LevelFull},
		{in: "  FULL\n", want: tooldocs.LevelFull},
		{in: "Schema", want: tooldocs.LevelSchema},
		{in: "", wantErr: true},
		{in: "fulll", wantErr: true},
		{in: "1", wantErr: true},
		{in: "DetailLevel(3)", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := tooldocs.ParseDetailLevel(tt.in)
			if tt.wantErr {
				require.ErrorIs(t, err, errors.ErrInvalidArgument)
				assert.Contains(t, err.Error(), "want summary, schema or full")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDetailLevelJSON(t *testing.T) {
	type req struct {
		Level tooldocs.DetailLevel `json:"level"`
	}
	raw, err := json.Marshal(req{Level: tooldocs.LevelSchema})
	require.NoError(t, err)
	assert.JSONEq(t, `{"level":"schema"}`, string(raw))

	var back req
	require.NoError(t, json.Unmarshal([]byte(`{"level":"full"}`), &back))
	assert.Equal(t, tooldocs.LevelFull, back.Level)

	err = json.Unmarshal([]byte(`{"level":"verbose"}`), &back)
	require.ErrorIs(t, err, errors.ErrInvalidArgument)

	_, err = json.Marshal(req{Level: 7})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
}
