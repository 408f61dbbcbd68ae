package toolmodel_test

import (
	"testing"

	"github.com/metatools-go/metatools/toolmodel"
)

// BenchmarkValidateInput compares validating a realistic call with a new
// validator each time (cold: the schema is compiled on every call) and with
// one long-lived validator (cached: compiled once).
func BenchmarkValidateInput(b *testing.B) {
	tool := issueTool(b)
	args := validIssueArgs()
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := toolmodel.NewValidator().ValidateInput(tool, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		v := toolmodel.NewValidator()
		b.ReportAllocs()
		for b.Loop() {
			if err := v.ValidateInput(tool, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	// A failing call builds the paths of the failing properties.
	b.Run("invalid", func(b *testing.B) {
		v := toolmodel.NewValidator()
		bad := validIssueArgs()
		bad["milestone"] = "three"
		bad["metadata"] = map[string]any{"source": "fax", "estimate": -1.0}
		b.ReportAllocs()
		for b.Loop() {
			if err := v.ValidateInput(tool, bad); err == nil {
				b.Fatal("invalid arguments accepted")
			}
		}
	})
}

func BenchmarkDecodeTool(b *testing.B) {
	data := []byte(fullToolJSON)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := toolmodel.DecodeTool(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClone(b *testing.B) {
	tool, err := toolmodel.DecodeTool([]byte(fullToolJSON))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = tool.Clone()
	}
}

func BenchmarkEqual(b *testing.B) {
	tool, err := toolmodel.DecodeTool([]byte(fullToolJSON))
	if err != nil {
		b.Fatal(err)
	}
	other := tool.Clone()
	b.ReportAllocs()
	for b.Loop() {
		if !tool.Equal(other) {
			b.Fatal("a clone differs")
		}
	}
}
