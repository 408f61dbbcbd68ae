package toolcode

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// A program cannot be suspended in one request and resumed in another,
// on another replica perhaps: when a tool it calls needs the caller's
// input, the execution stops and returns the tool's requests, and the
// retry runs the program again from the start. What its tool calls
// returned in the earlier attempts comes back with the requestState, so
// that on the retry a call the program made before is answered as it was
// then, without running again, and the call that waited gets the
// caller's answers. A call is known by its tool, its arguments and how
// many calls of the same tool with the same arguments came before it: a
// program that calls the same tools in the same way on every attempt
// runs each call once.

// errWaiting is what a call of a program that waits for its caller's
// input returns: the execution stops, whatever the program does with it.
var errWaiting = errors.Errorf(errors.Canceled, "a tool needs the caller's input: the program stops, and runs again once the caller has answered")

// callRecord is the outcome of a call of a program, kept for the retries
// of its execution.
type callRecord struct {
	// Key identifies the call ([callKeys]).
	Key string `json:"k"`
	// Value is what the call returned: a tool's structured result, the
	// results of a chain's steps.
	Value any `json:"v,omitempty"`
	// Err is the call's error: a tool's failure, a chain's step that
	// failed.
	Err *errors.WireError `json:"e,omitempty"`
	// Trace is how the call was traced.
	Trace []TraceEntry `json:"t,omitempty"`
}

// codeState is the state of an execution that waits for its caller's
// input: the calls its program made, and the one that waits.
type codeState struct {
	Calls   []callRecord `json:"calls,omitempty"`
	Waiting string       `json:"waiting"`
	// State is the state of the call that waits, signed by the
	// operations it ran through.
	State string `json:"state,omitempty"`
}

// codeIdentity identifies an execution for its state: the same program,
// run the same way.
type codeIdentity struct {
	Language string        `json:"language"`
	Code     string        `json:"code"`
	Timeout  time.Duration `json:"timeout"`
	Limits   Limits        `json:"limits"`
}

// replay is what an execution whose caller can answer requests for
// input keeps of its program's calls.
type replay struct {
	// answers are the caller's answers to the call that waited, and
	// waited its key.
	answers *toolops.Input
	waited  string

	mu      sync.Mutex
	earlier map[string]callRecord
	calls   []callRecord
	seen    map[string]int
	// waiting is the first call of this attempt that waits for input,
	// and asked what it asked.
	waiting string
	asked   *toolrun.InputRequired
}

// newReplay returns the replay of an execution from its caller's input:
// on a retry, the state of the earlier attempt, opened by ops.
func newReplay(ctx context.Context, ops *toolops.Service, id codeIdentity, in *toolops.Input) (*replay, error) {
	r := &replay{earlier: map[string]callRecord{}, seen: map[string]int{}}
	if in.State == "" {
		return r, nil
	}
	sealed, err := ops.OpenState(ctx, id, in.State)
	if err != nil {
		return nil, err
	}
	var st codeState
	if err := json.Unmarshal([]byte(sealed), &st); err != nil {
		return nil, errors.Errorf(errors.Internal, "the state of the execution cannot be read: %v", err)
	}
	for _, c := range st.Calls {
		r.earlier[c.Key] = c
	}
	r.calls = st.Calls
	r.waited = st.Waiting
	r.answers = &toolops.Input{Responses: in.Responses, State: st.State}
	return r, nil
}

// key returns the key of a program's call: of what kind it is, with what
// arguments, and the how-manieth such call it is in the attempt.
func (r *replay) key(kind string, args any) (string, error) {
	b, err := marshalJSON(args)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(kind+"\x00"), b...))
	digest := base64.RawURLEncoding.EncodeToString(sum[:18])
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[digest]++
	return digest + "." + strconv.Itoa(r.seen[digest]), nil
}

// earlierCall returns the outcome of a call made in an earlier attempt.
func (r *replay) earlierCall(key string) (callRecord, bool) {
	c, ok := r.earlier[key]
	return c, ok
}

// input returns the input of a call: the caller's answers for the call
// that waited, an empty one (the caller can answer) for any other.
func (r *replay) input(key string) *toolops.Input {
	if r.answers != nil && key == r.waited {
		return r.answers
	}
	return &toolops.Input{}
}

// record keeps the outcome of a call that ran.
func (r *replay) record(c callRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

// wait records a call that needs input; only the first of an attempt
// is answered.
func (r *replay) wait(key string, asked *toolrun.InputRequired) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asked == nil {
		r.waiting, r.asked = key, asked
	}
}

// inputRequired returns what an attempt that waits asks its caller, its
// state sealed by ops; nil when no call waits.
func (r *replay) inputRequired(ctx context.Context, ops *toolops.Service, id codeIdentity) (*toolrun.InputRequired, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asked == nil {
		return nil, nil
	}
	b, err := json.Marshal(codeState{Calls: r.calls, Waiting: r.waiting, State: r.asked.State})
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "the state of the execution cannot be kept: a result is not JSON: %v", err)
	}
	state, err := ops.SealState(ctx, id, string(b))
	if err != nil {
		return nil, err
	}
	return &toolrun.InputRequired{Requests: r.asked.Requests, State: state}, nil
}

// errorOf is the error a call kept in a record returns again.
func errorOf(w *errors.WireError) error {
	if w == nil {
		return nil
	}
	return errors.FromWire(w)
}
