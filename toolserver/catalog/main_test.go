package catalog_test

import (
	"testing"

	"github.com/metatools-go/metatools/toolserver/internal/catalogtest"
)

func TestMain(m *testing.M) { catalogtest.Main(m) }
