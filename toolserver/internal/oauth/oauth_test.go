package oauth

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCalledTools(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"a call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool"}}`, []string{"run_tool"}},
		{"a batch", ` [{"method":"ping"},{"method":"tools/call","params":{"name":"a"}},{"method":"tools/call","params":{"name":"b"}}]`, []string{"a", "b"}},
		{"another method", `{"method":"tools/list"}`, nil},
		{"not JSON", `{"method":`, nil},
		{"empty", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, calledTools([]byte(tt.body)))
		})
	}
}

func TestTokenScopes(t *testing.T) {
	tests := []struct {
		name, claims string
		want         []string
	}{
		{"scope string", `{"scope":"tools:read tools:run"}`, []string{"tools:read", "tools:run"}},
		{"scp list", `{"scp":["tools:read","tools:run"]}`, []string{"tools:read", "tools:run"}},
		{"scp string", `{"scp":"tools:read"}`, []string{"tools:read"}},
		{"none", `{}`, nil},
		{"scp of another type", `{"scp":3}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c tokenClaims
			require.NoError(t, json.Unmarshal([]byte(tt.claims), &c))
			if tt.want == nil {
				assert.Empty(t, c.scopes())
			} else {
				assert.Equal(t, tt.want, c.scopes())
			}
		})
	}
}

func FuzzCalledTools(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool"}}`))
	f.Add([]byte(`[{"method":"tools/call","params":{"name":"x"}},1,"s"]`))
	f.Add([]byte(`{"method":"tools/call","params":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, tool := range calledTools(body) {
			_ = tool // any name, even empty, is checked against the grant
		}
	})
}

func FuzzTokenScopes(f *testing.F) {
	f.Add([]byte(`{"scope":"a b","scp":["c"]}`))
	f.Add([]byte(`{"scp":"a"}`))
	f.Fuzz(func(t *testing.T, claims []byte) {
		var c tokenClaims
		if json.Unmarshal(claims, &c) != nil {
			return
		}
		for _, s := range c.scopes() {
			assert.NotEmpty(t, s)
		}
	})
}
