package toolops

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
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

// MaxStateBytes bounds the state a caller carries between the attempts
// of a request (the results of a chain's or a program's earlier calls
// are in it): [Service.SealState] refuses a larger one.
const MaxStateBytes = 4 << 20

// WithStateKey sets the key that seals the state of calls waiting for
// their callers' input, so that the state comes back unchanged, for the
// same call of the same caller, before it expires; the caller that
// carries it cannot read it either (it may hold the results of earlier
// tool calls). Replicas that serve
// the same clients need the same key, at least [MinStateKeyBytes] long;
// by default each service draws one of its own, and a retry is then
// accepted only by the service that made the state. [New] refuses a
// shorter key.
func WithStateKey(key []byte) Option {
	return func(s *Service) { s.stateKey = key }
}

// sealedState is what a sealed state holds.
type sealedState struct {
	// Request is a digest of the request the state belongs to and of its
	// caller's metadata.
	Request []byte `json:"c"`
	// Expires is when the state lapses, in Unix seconds.
	Expires int64 `json:"x"`
	// State is the backend's state.
	State string `json:"s,omitempty"`
}

// newStateKey returns a random key for a service given none.
func newStateKey() []byte {
	key := make([]byte, MinStateKeyBytes)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	return key
}

// SealState returns the requestState a caller gets for the state of a
// request that waits for the caller's input (state is what the backend
// needs on the next attempt): sealed with the service's key
// ([WithStateKey]), bound to the request and to the caller of ctx
// ([CallerFrom]), and valid for [InputStateTTL]. request is a value that
// identifies the request as JSON: the same on every attempt, and another
// for any other request. [Service.Run] seals the state of its calls so; a
// face that relays other requests for input (an upstream's prompts) seals
// theirs with it too. A state larger than [MaxStateBytes] is refused with
// code [errors.ResourceExhausted]. Errors have op [OpState].
func (s *Service) SealState(ctx context.Context, request any, state string) (string, error) {
	if len(state) > MaxStateBytes {
		return "", errors.Opf(OpState, errors.ResourceExhausted,
			"the state of the request is %d bytes, more than a retry may carry (%d): its earlier calls returned too much; make fewer calls, or smaller ones, before the one that needs input",
			len(state), MaxStateBytes)
	}
	digest, err := requestDigest(ctx, request)
	if err != nil {
		return "", err
	}
	return s.seal(digest, state, time.Now())
}

// OpenState returns the state that [Service.SealState] sealed in
// requestState for the same request and caller, before it expired.
// Anything else fails with code [errors.InvalidArgument] and cause
// [ErrRequestState], saying which, never what the state holds.
func (s *Service) OpenState(ctx context.Context, request any, requestState string) (string, error) {
	digest, err := requestDigest(ctx, request)
	if err != nil {
		return "", err
	}
	return s.unseal(digest, requestState, time.Now())
}

// requestDigest identifies a request and its caller for their state.
func requestDigest(ctx context.Context, request any) ([]byte, error) {
	b, err := json.Marshal(struct {
		Request  any               `json:"request"`
		Metadata map[string]string `json:"metadata"`
	}{request, CallerFrom(ctx).Metadata})
	if err != nil {
		return nil, errors.Opf(OpState, errors.InvalidArgument, "the request cannot be encoded: %v", err)
	}
	sum := sha256.Sum256(b)
	return sum[:], nil
}

// seal returns the requestState of a backend's state.
func (s *Service) seal(request []byte, state string, now time.Time) (string, error) {
	payload, err := json.Marshal(sealedState{Request: request, Expires: now.Add(InputStateTTL).Unix(), State: state})
	if err != nil {
		return "", errors.Opf(OpState, errors.Internal, "encode the state of the request: %v", err)
	}
	nonce := make([]byte, s.sealer.NonceSize(), s.sealer.NonceSize()+len(payload)+s.sealer.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(s.sealer.Seal(nonce, nonce, payload, nil)), nil
}

// unseal returns the backend's state in a requestState the caller
// returned: one this service sealed, for this request, not expired.
func (s *Service) unseal(request []byte, state string, now time.Time) (string, error) {
	invalid := func(why string) error {
		return errors.Opf(OpState, errors.InvalidArgument, "%w: it %s; make the request again without it", ErrRequestState, why)
	}
	raw, err := base64.RawURLEncoding.DecodeString(state)
	n := s.sealer.NonceSize()
	if err != nil || len(raw) < n {
		return "", invalid("is not one this server issued, or was changed")
	}
	payload, err := s.sealer.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return "", invalid("is not one this server issued, or was changed")
	}
	var st sealedState
	if err := json.Unmarshal(payload, &st); err != nil {
		return "", invalid("is not one this server issued, or was changed")
	}
	if !hmac.Equal(st.Request, request) {
		return "", invalid("belongs to another request (another tool or prompt, other arguments or another caller)")
	}
	if now.Unix() > st.Expires {
		return "", invalid("has expired")
	}
	return st.State, nil
}

// stateSealer returns the cipher that seals states under key: AES-256-GCM
// under a key derived from it, which makes a state unreadable and
// unforgeable to the caller that carries it.
func stateSealer(key []byte) cipher.AEAD {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("metatools requestState"))
	block, err := aes.NewCipher(h.Sum(nil))
	if err != nil {
		panic(err) // unreachable: the key is 32 bytes
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err) // unreachable: GCM takes AES's block
	}
	return aead
}

// runIdentity identifies a run for its state: the same tool with the same
// arguments and backend.
type runIdentity struct {
	ID      string         `json:"id"`
	Args    map[string]any `json:"args"`
	Backend string         `json:"backend"`
}

// runInput returns the runner's input of a run whose caller can answer
// requests for input.
func (s *Service) runInput(ctx context.Context, req RunRequest) (*toolrun.Input, error) {
	if req.Input == nil {
		return nil, nil
	}
	in := &toolrun.Input{Responses: req.Input.Responses}
	if req.Input.State != "" {
		var err error
		if in.State, err = s.OpenState(ctx, runIdentity{req.ID, req.Args, req.Backend}, req.Input.State); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// chainIdentity identifies a chain for its state: the same steps, run
// the same way.
type chainIdentity struct {
	Steps           []ChainStep `json:"steps"`
	ContinueOnError bool        `json:"continueOnError"`
}

// chainState is the state of a chain that waits for its caller's input:
// the steps that ran, the last of them the one that waits, and that
// step's state.
type chainState struct {
	Done  []stepRecord `json:"done"`
	State string       `json:"state,omitempty"`
}

// stepRecord is what a chain that resumes keeps of a step that ran: what
// its results and the steps after it need.
type stepRecord struct {
	ToolID     string                `json:"tool"`
	Ran        bool                  `json:"ran,omitempty"`
	Structured any                   `json:"result,omitempty"`
	Backend    toolmodel.ToolBackend `json:"backend,omitzero"`
	Duration   time.Duration         `json:"duration,omitempty"`
	ToolError  *errors.WireError     `json:"toolError,omitempty"`
	Err        *errors.WireError     `json:"error,omitempty"`
}

// sealChain returns the requestState of a chain whose last step waits
// for input.
func (s *Service) sealChain(ctx context.Context, req ChainRequest, results []toolrun.StepResult) (string, error) {
	st := chainState{Done: make([]stepRecord, len(results)), State: results[len(results)-1].Result.InputRequired.State}
	for i, r := range results {
		rec := stepRecord{ToolID: r.ToolID, Err: errors.ToWire(r.Err)}
		if r.Result != nil {
			rec.Ran, rec.Structured, rec.Backend, rec.Duration = true, r.Result.Structured, r.Result.Backend, r.Result.Duration
			if r.Result.ToolError != nil {
				rec.ToolError = errors.ToWire(r.Result.ToolError)
			}
		}
		st.Done[i] = rec
	}
	b, err := json.Marshal(st)
	if err != nil {
		return "", errors.Opf(OpState, errors.Internal, "encode the state of the chain: %v", err)
	}
	return s.SealState(ctx, chainIdentity{req.Steps, req.ContinueOnError}, string(b))
}

// chainInput prepares the steps of a chain whose caller can answer
// requests for input: each step may wait for it, and on a retry the
// step that waited gets the answers, after the steps done before, which
// the option returned resumes the chain with.
func (s *Service) chainInput(ctx context.Context, req ChainRequest, steps []toolrun.ChainStep) (toolrun.ChainOption, error) {
	for i := range steps {
		steps[i].Options.Input = &toolrun.Input{}
	}
	if req.Input.State == "" {
		return nil, nil
	}
	sealed, err := s.OpenState(ctx, chainIdentity{req.Steps, req.ContinueOnError}, req.Input.State)
	if err != nil {
		return nil, err
	}
	var st chainState
	if err := json.Unmarshal([]byte(sealed), &st); err != nil || len(st.Done) == 0 || len(st.Done) > len(steps) {
		return nil, errors.Opf(OpState, errors.Internal, "the state of the chain does not fit it")
	}
	done := make([]toolrun.StepResult, len(st.Done))
	for i, rec := range st.Done {
		done[i] = toolrun.StepResult{Step: i, ToolID: rec.ToolID}
		if rec.Err != nil {
			done[i].Err = errors.FromWire(rec.Err)
		}
		if rec.Ran {
			done[i].Result = &toolrun.RunResult{Structured: rec.Structured, Backend: rec.Backend, Duration: rec.Duration}
			if rec.ToolError != nil {
				done[i].Result.ToolError = errors.FromWire(rec.ToolError)
			}
		}
	}
	steps[len(done)-1].Options.Input = &toolrun.Input{Responses: req.Input.Responses, State: st.State}
	return toolrun.ResumeChain(done), nil
}
