package trust

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// BuiltinOwner is the owner to give [Names.Add] for the gateway's own
// tools (the built-in catalogue, the meta-tools).
const BuiltinOwner = "(built-in)"

// Names is the index of the names the model already sees, each with its
// owner (an upstream's name, or [BuiltinOwner]), against which
// [Scanner.ScanName] checks a newcomer. It is safe for concurrent use.
//
// Cost: Add and each check are O(length of the name), expected; memory is
// O(number of names).
type Names struct {
	mu   sync.RWMutex
	byID map[string][]nameEntry // skeleton → names
}

type nameEntry struct{ owner, name string }

// NewNames returns an empty index.
func NewNames() *Names { return &Names{byID: map[string][]nameEntry{}} }

// Add records that owner shows the model name (a tool's exposed name,
// "namespace:name" or a bare name; see [Item.ExposedName]).
func (n *Names) Add(owner, name string) {
	sk := Skeleton(name)
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, e := range n.byID[sk] {
		if e.owner == owner && e.name == name {
			return
		}
	}
	n.byID[sk] = append(n.byID[sk], nameEntry{owner, name})
}

// AddItem records it under its upstream and exposed name.
func (n *Names) AddItem(it *Item) { n.Add(it.Upstream, it.ExposedName()) }

// RemoveOwner forgets every name of owner (an upstream that left, or
// before its new listing is added).
func (n *Names) RemoveOwner(owner string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for sk, es := range n.byID {
		kept := es[:0]
		for _, e := range es {
			if e.owner != owner {
				kept = append(kept, e)
			}
		}
		if len(kept) == 0 {
			delete(n.byID, sk)
		} else {
			n.byID[sk] = kept
		}
	}
}

func (n *Names) lookup(sk string) []nameEntry {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return append([]nameEntry(nil), n.byID[sk]...)
}

// ScanName checks the name of it, a newcomer, against the names of other
// owners in names. It reports [CodeNameCollision] when another owner
// already shows the same exposed name, and [CodeNameConfusable] when the
// exposed name, or the bare name, has the same [Skeleton] as another
// owner's exposed name without being equal to it: "github.create_issue"
// served by another upstream, "create_іssue" with a Cyrillic і, or
// "create-issue" beside "create_issue" from another upstream that keeps
// its names. Names of the same owner are never compared: an upstream cannot
// shadow itself. Only tools are checked (prompts and resource templates
// live in name spaces of their own); the result is nil for other kinds.
func (s *Scanner) ScanName(names *Names, it *Item) []Finding {
	if it.Kind != KindTool || names == nil {
		return nil
	}
	exposed := it.ExposedName()
	var out []Finding
	seen := map[string]bool{}
	for _, cand := range []string{exposed, it.Name} {
		for _, e := range names.lookup(Skeleton(cand)) {
			if e.owner == it.Upstream || seen[e.owner+"\x00"+e.name] {
				continue
			}
			seen[e.owner+"\x00"+e.name] = true
			code := CodeNameConfusable
			if e.name == exposed {
				code = CodeNameCollision
			}
			r, ok := s.builtin[code]
			if !ok {
				continue
			}
			out = append(out, Finding{Code: code, Severity: r.Severity, Field: "name", Start: 0, End: len(it.Name),
				Excerpt: excerpt(it.Name, 0, len(it.Name)), Detail: fmt.Sprintf("looks like %q of %s", e.name, e.owner)})
		}
	}
	return out
}

// Skeleton returns the form of a name under which names that look alike
// are equal: compatibility-decomposed with the combining marks dropped
// (é is e, ｆ is f), Cyrillic and Greek look-alikes of Latin letters
// mapped to them, lower-cased, invisible characters, dashes, spaces and
// the separators '_', '-', '.', '/' and ':' dropped, the digits 0 and 1 read as o and l, i read as l, and
// "rn" read as "m", "vv" as "w".
func Skeleton(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			ascii = false
			break
		}
	}
	b := make([]byte, 0, len(name))
	if ascii {
		for i := 0; i < len(name); i++ {
			if c, ok := skeletonByte(name[i]); ok {
				b = append(b, c)
			}
		}
	} else {
		for _, r := range norm.NFKD.String(name) {
			if r < 0x80 {
				if c, ok := skeletonByte(byte(r)); ok {
					b = append(b, c)
				}
				continue
			}
			if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Pd, r) || unicode.IsSpace(r) || classify(r) != charPlain {
				continue
			}
			m, ok := confusables[r]
			if !ok {
				m = unicode.ToLower(r)
				if m2, ok := confusables[m]; ok {
					m = m2
				}
			}
			if m < 0x80 {
				if c, ok := skeletonByte(byte(m)); ok {
					b = append(b, c)
				}
				continue
			}
			b = utf8.AppendRune(b, m)
		}
	}
	if bytes.Contains(b, []byte("rn")) || bytes.Contains(b, []byte("vv")) {
		return lookAlikePairs.Replace(string(b))
	}
	return string(b)
}

// skeletonByte maps an ASCII byte of a name to its skeleton: letters
// lower-cased, 0 as o, 1, i and | as l; separators dropped.
func skeletonByte(c byte) (byte, bool) {
	switch {
	case 'A' <= c && c <= 'Z':
		c += 'a' - 'A'
	case c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == ' ':
		return 0, false
	}
	switch c {
	case '0':
		return 'o', true
	case '1', 'i', '|':
		return 'l', true
	}
	return c, true
}

var lookAlikePairs = strings.NewReplacer("rn", "m", "vv", "w")

// confusables maps Cyrillic, Greek and other letters that look like Latin
// ones to the Latin lower-case letter.
var confusables = map[rune]rune{
	// Cyrillic lower case.
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't',
	'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ԁ': 'd', 'һ': 'h', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l', 'ɡ': 'g',
	'ь': 'b', 'п': 'n', 'г': 'r',
	// Cyrillic upper case.
	'А': 'a', 'В': 'b', 'Е': 'e', 'К': 'k', 'М': 'm', 'Н': 'h', 'О': 'o', 'Р': 'p', 'С': 'c', 'Т': 't', 'У': 'y',
	'Х': 'x', 'Ѕ': 's', 'І': 'i', 'Ј': 'j', 'Ԛ': 'q', 'Ԝ': 'w', 'Ӏ': 'l',
	// Greek lower case.
	'α': 'a', 'β': 'b', 'γ': 'y', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't',
	'υ': 'u', 'χ': 'x', 'ω': 'w', 'ϲ': 'c', 'ϳ': 'j',
	// Greek upper case.
	'Α': 'a', 'Β': 'b', 'Ε': 'e', 'Ζ': 'z', 'Η': 'h', 'Ι': 'i', 'Κ': 'k', 'Μ': 'm', 'Ν': 'n', 'Ο': 'o', 'Ρ': 'p',
	'Τ': 't', 'Υ': 'y', 'Χ': 'x',
	// Latin and other look-alikes.
	'ı': 'i', 'ȷ': 'j', 'ℓ': 'l', 'ɩ': 'i', 'ǀ': 'l', '∣': 'l',
}
