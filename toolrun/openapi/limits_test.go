package openapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun/openapi"
)

const urlSecret = "k3y-in-the-url"

func TestImportURLErrorsHideTheURLsSecrets(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name, url string
		code      error
	}{
		{"unreachable", "http://user:" + urlSecret + "@" + closed.Listener.Addr().String() + "/spec.yaml?api_key=" + urlSecret, errors.ErrUnavailable},
		{"not http", "ftp://user:" + urlSecret + "@example.com/spec.yaml?api_key=" + urlSecret, errors.ErrInvalidArgument},
		{"unparseable", "http://example.com/%zz?api_key=" + urlSecret, errors.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.ImportURL(context.Background(), "ns", tt.url)
			require.ErrorIs(t, err, tt.code)
			assert.NotContains(t, err.Error(), urlSecret)
		})
	}
}
