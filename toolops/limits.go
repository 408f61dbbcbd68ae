package toolops

import (
	"cmp"

	"github.com/metatools-go/metatools/errors"
)

// MaxSearchResults is the most tools one search answer holds; a caller
// goes on with the answer's cursor.
const MaxSearchResults = 50

// Limits bound the operations. The zero value of a field means its value
// in [DefaultLimits].
type Limits struct {
	// SearchResults is the number of tools a search answers when its
	// request sets no limit, at most [MaxSearchResults].
	SearchResults int `json:"searchResults,omitempty" yaml:"searchResults,omitempty"`
	// ChainSteps is the most steps of one chain.
	ChainSteps int `json:"chainSteps,omitempty" yaml:"chainSteps,omitempty"`
	// AnswerBytes is the most bytes of one answer, as the face that sends
	// it measures it ([Service.CheckAnswer]).
	AnswerBytes int `json:"answerBytes,omitempty" yaml:"answerBytes,omitempty"`
}

// DefaultLimits are the limits of a [Service] whose options set none.
var DefaultLimits = Limits{SearchResults: 5, ChainSteps: 32, AnswerBytes: 8 << 20}

// Validate reports the first field, in declaration order, that is
// negative or, for SearchResults, above [MaxSearchResults], with code
// [errors.InvalidArgument].
func (l Limits) Validate() error {
	switch {
	case l.SearchResults < 0 || l.SearchResults > MaxSearchResults:
		return errors.Errorf(errors.InvalidArgument, "limits: searchResults is %d, it must be 1 to %d (0 for the default, %d)", l.SearchResults, MaxSearchResults, DefaultLimits.SearchResults)
	case l.ChainSteps < 0:
		return errors.Errorf(errors.InvalidArgument, "limits: chainSteps is %d, it must not be negative (0 for the default, %d)", l.ChainSteps, DefaultLimits.ChainSteps)
	case l.AnswerBytes < 0:
		return errors.Errorf(errors.InvalidArgument, "limits: answerBytes is %d, it must not be negative (0 for the default, %d)", l.AnswerBytes, DefaultLimits.AnswerBytes)
	}
	return nil
}

// withDefaults returns l with its zero fields set from [DefaultLimits].
func (l Limits) withDefaults() Limits {
	l.SearchResults = cmp.Or(l.SearchResults, DefaultLimits.SearchResults)
	l.ChainSteps = cmp.Or(l.ChainSteps, DefaultLimits.ChainSteps)
	l.AnswerBytes = cmp.Or(l.AnswerBytes, DefaultLimits.AnswerBytes)
	return l
}

// CheckAnswer returns nil when an answer of op of size bytes, as the face
// that sends it measures it, fits [Limits.AnswerBytes], and else an error
// of code [errors.ResourceExhausted] that names the limit and says how to
// ask for less.
func (s *Service) CheckAnswer(op string, size int) error {
	if size <= s.limits.AnswerBytes {
		return nil
	}
	return errors.Opf(op, errors.ResourceExhausted,
		"the answer is %d bytes or more, the limit is %d bytes (limits.answerBytes): ask for less, such as fewer steps or a narrower query",
		size, s.limits.AnswerBytes)
}
