package toolops

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

// Input is what a caller that can answer a tool's requests for input
// gives [Service.Run] (MCP's multi-round-trip requests, protocol
// 2026-07-28): empty on a first attempt, and on a retry the answers to
// the requests of the [toolrun.InputRequired] the earlier attempt
// returned, with its State unchanged.
type Input struct {
	// Responses answer the requests, under their keys.
	Responses mcp.InputResponseMap `json:"inputResponses,omitempty"`
	// State is the earlier attempt's [toolrun.InputRequired.State].
	State string `json:"requestState,omitempty"`
}

// ErrRequestState is the cause of the error of a run whose Input.State
// was not made by this service for this call, or has expired.
var ErrRequestState = errors.New("invalid requestState")

// MinStateKeyBytes is the least length of a key given [WithStateKey].
const MinStateKeyBytes = 32

// InputStateTTL is how long the state of a call waiting for its caller's
// input stays valid.
const InputStateTTL = 15 * time.Minute

// WithStateKey sets the key that signs the state of calls waiting for
// their callers' input, so that the state comes back unchanged, for the
// same call of the same caller, before it expires. Replicas that serve
// the same clients need the same key, at least [MinStateKeyBytes] long;
// by default each service draws one of its own, and a retry is then
// accepted only by the service that made the state. [New] refuses a
// shorter key.
func WithStateKey(key []byte) Option {
	return func(s *Service) { s.stateKey = key }
}

// sealedState is what a signed state holds.
type sealedState struct {
	// Call is a digest of the call the state belongs to: the tool, its
	// arguments, the backend asked for and the caller's metadata.
	Call []byte `json:"c"`
	// Expires is when the state lapses, in Unix seconds.
	Expires int64 `json:"x"`
	// State is the executor's state.
	State string `json:"s,omitempty"`
}

// newStateKey returns a random key for a service given none.
func newStateKey() []byte {
	key := make([]byte, MinStateKeyBytes)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	return key
}

// callDigest identifies a call for its state: the same tool with the same
// arguments, backend and caller.
func callDigest(ctx context.Context, req RunRequest) ([]byte, error) {
	b, err := json.Marshal(struct {
		ID       string            `json:"id"`
		Args     map[string]any    `json:"args"`
		Backend  string            `json:"backend"`
		Metadata map[string]string `json:"metadata"`
	}{req.ID, req.Args, req.Backend, CallerFrom(ctx).Metadata})
	if err != nil {
		return nil, errors.Opf(OpRun, errors.InvalidArgument, "tool %q: the arguments cannot be encoded: %v", req.ID, err)
	}
	sum := sha256.Sum256(b)
	return sum[:], nil
}

// seal returns the state the caller gets for an executor's state.
func (s *Service) seal(call []byte, state string, now time.Time) (string, error) {
	payload, err := json.Marshal(sealedState{Call: call, Expires: now.Add(InputStateTTL).Unix(), State: state})
	if err != nil {
		return "", errors.Opf(OpRun, errors.Internal, "encode the state of the call: %v", err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(s.mac(payload)), nil
}

// unseal returns the executor's state of a state the caller returned: one
// this service signed, for this call, not expired. Anything else is an
// error of code [errors.InvalidArgument] that says which, never what the
// state holds.
func (s *Service) unseal(call []byte, state string, now time.Time) (string, error) {
	invalid := func(why string) error {
		return errors.Opf(OpRun, errors.InvalidArgument, "%w: it %s; make the call again without it", ErrRequestState, why)
	}
	enc := base64.RawURLEncoding
	p, m, ok := strings.Cut(state, ".")
	payload, perr := enc.DecodeString(p)
	mac, merr := enc.DecodeString(m)
	if !ok || perr != nil || merr != nil || !hmac.Equal(mac, s.mac(payload)) {
		return "", invalid("is not one this server issued, or was changed")
	}
	var st sealedState
	if err := json.Unmarshal(payload, &st); err != nil {
		return "", invalid("is not one this server issued, or was changed")
	}
	if !hmac.Equal(st.Call, call) {
		return "", invalid("belongs to another call (another tool, other arguments or another caller)")
	}
	if now.Unix() > st.Expires {
		return "", invalid("has expired")
	}
	return st.State, nil
}

// mac is the signature of a state's payload.
func (s *Service) mac(payload []byte) []byte {
	h := hmac.New(sha256.New, s.stateKey)
	h.Write(payload)
	return h.Sum(nil)
}

// runInput returns the runner's input of a run whose caller can answer
// requests for input, and the digest of the call its state is bound to.
func (s *Service) runInput(ctx context.Context, req RunRequest) (*toolrun.Input, []byte, error) {
	if req.Input == nil {
		return nil, nil, nil
	}
	call, err := callDigest(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	in := &toolrun.Input{Responses: req.Input.Responses}
	if req.Input.State != "" {
		if in.State, err = s.unseal(call, req.Input.State, time.Now()); err != nil {
			return nil, nil, err
		}
	}
	return in, call, nil
}
