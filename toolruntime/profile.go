package toolruntime

import (
	"slices"
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// SecurityProfile names how strongly a program is confined. A [Runtime]
// routes each execution to the backend registered for its profile, and
// refuses a backend that cannot enforce what the profile requires.
type SecurityProfile string

// The profiles, from the weakest to the strongest.
const (
	// Dev runs programs in the host process: the engine bounds their time
	// and recursion, the gateway their tool calls and output. For
	// programs one trusts, and for development.
	Dev SecurityProfile = "dev"
	// Standard runs each program in a process of its own: it adds bounds
	// on CPU time, memory and file size, and the program never sees the
	// host's environment.
	Standard SecurityProfile = "standard"
	// Hardened adds that the program can reach neither the host's files
	// nor the network, and cannot start processes.
	Hardened SecurityProfile = "hardened"
)

// Profiles lists the profiles, from the weakest to the strongest.
func Profiles() []SecurityProfile { return []SecurityProfile{Dev, Standard, Hardened} }

// ParseProfile returns the profile named s, or an error of code
// [errors.InvalidArgument] naming the profiles.
func ParseProfile(s string) (SecurityProfile, error) {
	for _, p := range Profiles() {
		if string(p) == s {
			return p, nil
		}
	}
	names := make([]string, 0, len(Profiles()))
	for _, p := range Profiles() {
		names = append(names, string(p))
	}
	return "", errors.Errorf(errors.InvalidArgument, "unknown security profile %q (profiles: %s)", s, strings.Join(names, ", "))
}

// Requires returns the limits and isolation properties a backend must
// enforce to serve the profile.
func (p SecurityProfile) Requires() []string {
	dev := []string{toolcode.LimitWallTime, toolcode.LimitToolCalls, toolcode.LimitChainSteps, toolcode.LimitOutputBytes}
	standard := []string{LimitCPUTime, LimitMemory, LimitFileSize, IsolateEnvironment}
	hardened := []string{LimitProcesses, IsolateFiles, IsolateNetwork}
	switch p {
	case Dev:
		return dev
	case Standard:
		return slices.Concat(dev, standard)
	case Hardened:
		return slices.Concat(dev, standard, hardened)
	}
	return nil
}
