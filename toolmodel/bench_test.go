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
