package builtin_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/errors"
)

func TestTextStats(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		text string
		want map[string]float64
	}{
		{"empty", "", map[string]float64{"characters": 0, "bytes": 0, "words": 0, "lines": 0, "sentences": 0, "paragraphs": 0, "estimatedTokens": 0}},
		{"one line", "Hello, world!", map[string]float64{"characters": 13, "bytes": 13, "words": 2, "lines": 1, "sentences": 1, "paragraphs": 1, "estimatedTokens": 4}},
		{"a final line break starts no line", "a\nb\n", map[string]float64{"lines": 2, "words": 2, "paragraphs": 1}},
		{"sentences and paragraphs", "First one. Second one? Yes!\n\n\"Quoted.\" Then an unfinished one", map[string]float64{"sentences": 5, "paragraphs": 2, "lines": 3}},
		{"characters are not bytes", "café ☕", map[string]float64{"characters": 6, "bytes": 9, "words": 2}},
		{"CJK sentences end without space", "你好。今天好吗？", map[string]float64{"characters": 8, "sentences": 2, "estimatedTokens": 8}},
		{"Windows line breaks", "a\r\n\r\nb", map[string]float64{"lines": 3, "paragraphs": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := h.run(t, "text:stats", map[string]any{"text": tt.text})
			for field, want := range tt.want {
				assert.InDelta(t, want, out[field], 0, field)
			}
		})
	}
}

func TestTextReplace(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name  string
		args  map[string]any
		text  string
		count float64
	}{
		{"literal, every match", map[string]any{"text": "a.b.c", "find": ".", "replacement": "-"}, "a-b-c", 2},
		{"literal, no match", map[string]any{"text": "abc", "find": "x", "replacement": "y"}, "abc", 0},
		{"literal, limited", map[string]any{"text": "aaaa", "find": "a", "replacement": "b", "limit": 3}, "bbba", 3},
		{"literal, deleting", map[string]any{"text": "a, b, c", "find": ", "}, "abc", 2},
		{"literal dollars stay literal", map[string]any{"text": "price", "find": "price", "replacement": "$1"}, "$1", 1},
		{"literal, ignoring case", map[string]any{"text": "Go go GO", "find": "go", "replacement": "Rust", "ignoreCase": true}, "Rust Rust Rust", 3},
		{"literal, ignoring case, special characters", map[string]any{"text": "A+B a+b", "find": "a+b", "replacement": "x", "ignoreCase": true, "limit": 1}, "x a+b", 1},
		{"regex with groups", map[string]any{"text": "John Smith, Ada Lovelace", "find": `(\w+) (\w+)`, "replacement": "$2 $1", "regex": true}, "Smith John, Lovelace Ada", 2},
		{"regex with named groups", map[string]any{"text": "k=v", "find": `(?P<key>\w+)=(?P<value>\w+)`, "replacement": "${value}=${key}", "regex": true}, "v=k", 1},
		{"regex, ignoring case, limited", map[string]any{"text": "Cat cat CAT", "find": "c[a]t", "replacement": "dog", "regex": true, "ignoreCase": true, "limit": 2}, "dog dog CAT", 2},
		{"regex matching empty strings", map[string]any{"text": "abc", "find": "x*", "replacement": "-", "regex": true}, "-a-b-c-", 4},
		{"regex, escaped dollar", map[string]any{"text": "5", "find": `(\d)`, "replacement": "$$$1", "regex": true}, "$5", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := h.run(t, "text:replace", tt.args)
			assert.Equal(t, tt.text, out["text"])
			assert.InDelta(t, tt.count, out["replacements"], 0)
		})
	}
}

func TestTextReplaceFailures(t *testing.T) {
	h := newHarness(t)
	msg := h.toolError(t, "text:replace", map[string]any{"text": "x", "find": "(", "regex": true})
	assert.Contains(t, msg, "invalid regular expression: error parsing regexp: missing closing )")

	// 8 Ki matches of 1 KiB each make 8 MiB.
	text, long := strings.Repeat("a", 8<<10), strings.Repeat("b", 1<<10)
	msg = h.toolError(t, "text:replace", map[string]any{"text": text, "find": "a", "replacement": long})
	assert.Equal(t, "the result would be longer than 4194304 bytes", msg)
	msg = h.toolError(t, "text:replace", map[string]any{"text": text, "find": "a", "replacement": long, "regex": true})
	assert.Equal(t, "the result would be longer than 4194304 bytes", msg)

	code, msg := h.runError(t, "text:replace", map[string]any{"text": "x", "find": ""})
	assert.Equal(t, errors.Validation, code)
	assert.Contains(t, msg, "/find")
	code, msg = h.runError(t, "text:replace", map[string]any{"text": "x", "find": "x", "limit": -1})
	assert.Equal(t, errors.Validation, code)
	assert.Contains(t, msg, "/limit")
}

func TestTextCase(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		text, to, want string
	}{
		{"Hello World", "upper", "HELLO WORLD"},
		{"Hello World", "lower", "hello world"},
		{"the QUICK brown fox's tale", "title", "The Quick Brown Fox's Tale"},
		{"ÉCOLE d'été", "title", "École D'été"},
		{"tHE END. of it", "sentence", "The end. of it"},
		{"  leading space", "sentence", "  Leading space"},
		{"parseHTTPResponse2Body", "snake", "parse_http_response2_body"},
		{"Ten Tips for Writing Go, Part 2!", "kebab", "ten-tips-for-writing-go-part-2"},
		{"user id", "camel", "userId"},
		{"XMLHttpRequest", "camel", "xmlHttpRequest"},
		{"get_user-name", "pascal", "GetUserName"},
		{"maxRetryCount", "constant", "MAX_RETRY_COUNT"},
		{"v2Api", "snake", "v2_api"},
		{"déjàVu", "kebab", "déjà-vu"},
		{"--- !!!", "camel", ""},
		{"", "snake", ""},
	}
	for _, tt := range tests {
		t.Run(tt.to+"/"+tt.text, func(t *testing.T) {
			out := h.run(t, "text:case", map[string]any{"text": tt.text, "to": tt.to})
			assert.Equal(t, tt.want, out["text"])
		})
	}
	code, msg := h.runError(t, "text:case", map[string]any{"text": "x", "to": "shouting"})
	assert.Equal(t, errors.Validation, code)
	assert.Contains(t, msg, "/to")
}

func TestTextHash(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		algorithm, hex, base64 string
	}{
		{"", "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9", "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="},
		{"sha1", "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed", "Kq5sNclPz7QV2+lfQIuc6R7oRu0="},
		{"md5", "5eb63bbbe01eeed093cb22bb8f5acdc3", "XrY7u+Ae7tCTyyK7j1rNww=="},
		{"sha512", "309ecc489c12d6eb4cc40f50c902f2b4d0ed77ee511a7c7a9bcd3ca86d4cd86f989dd35bc5ff499670da34255b45b0cfd830e81f605dcf7dc5542e93ae9cd76f", "MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw=="},
	}
	for _, tt := range tests {
		t.Run(tt.algorithm, func(t *testing.T) {
			args := map[string]any{"text": "hello world"}
			want := tt.algorithm
			if want != "" {
				args["algorithm"] = want
			} else {
				want = "sha256"
			}
			out := h.run(t, "text:hash", args)
			assert.Equal(t, map[string]any{"algorithm": want, "hex": tt.hex, "base64": tt.base64}, out)
		})
	}
}

func TestTextToolsRefuseTooLongTexts(t *testing.T) {
	h := newHarness(t)
	big := strings.Repeat("x", 1<<20+1)
	for _, tt := range []struct {
		id   string
		args map[string]any
	}{
		{"text:stats", map[string]any{"text": big}},
		{"text:replace", map[string]any{"text": big, "find": "x"}},
		{"text:case", map[string]any{"text": big, "to": "upper"}},
		{"text:encode", map[string]any{"text": big, "encoding": "hex"}},
		{"text:decode", map[string]any{"text": big, "encoding": "hex"}},
		{"text:hash", map[string]any{"text": big}},
	} {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			code, msg := h.runError(t, tt.id, tt.args)
			assert.Equal(t, errors.Validation, code)
			assert.Contains(t, msg, "text is 1048577 bytes long, the limit is 1048576")
		})
	}
}

func TestTextEncodeAndDecode(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		encoding, text, encoded string
	}{
		{"base64", "hello, world", "aGVsbG8sIHdvcmxk"},
		{"base64", "é?>", "w6k/Pg=="},
		{"base64url", "é?>", "w6k_Pg"},
		{"hex", "Go☕", "476fe29895"},
		{"url", "a b&c=d/é", "a+b%26c%3Dd%2F%C3%A9"},
		{"urlpath", "a b&c/é", "a%20b&c%2F%C3%A9"},
		{"html", `<a href="x">Tom & Jerry's</a>`, "&lt;a href=&#34;x&#34;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"},
	}
	for _, tt := range tests {
		t.Run(tt.encoding+"/"+tt.text, func(t *testing.T) {
			out := h.run(t, "text:encode", map[string]any{"text": tt.text, "encoding": tt.encoding})
			assert.Equal(t, tt.encoded, out["text"])
			out = h.run(t, "text:decode", map[string]any{"text": tt.encoded, "encoding": tt.encoding})
			assert.Equal(t, map[string]any{"text": tt.text, "bytes": float64(len(tt.text)), "utf8": true}, out)
		})
	}
}

func TestTextDecodeIsLenient(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name, encoding, text, want string
	}{
		{"base64 without padding", "base64", "w6k/Pg", "é?>"},
		{"base64 with line breaks", "base64", "aGVs\nbG8s\r\nIHdv cmxk", "hello, world"},
		{"URL-safe characters in base64", "base64", "w6k_Pg==", "é?>"},
		{"padding in base64url", "base64url", "w6k_Pg==", "é?>"},
		{"upper-case hex with spaces", "hex", "47 6F E2 98 95", "Go☕"},
		{"html named entities", "html", "caf&eacute; &copy;", "café ©"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := h.run(t, "text:decode", map[string]any{"text": tt.text, "encoding": tt.encoding})
			assert.Equal(t, tt.want, out["text"])
		})
	}
}

func TestTextDecodeOfBinaryDataGivesHex(t *testing.T) {
	h := newHarness(t)
	out := h.run(t, "text:decode", map[string]any{"text": "//79", "encoding": "base64"})
	assert.Equal(t, map[string]any{"text": "", "hex": "fffefd", "bytes": 3.0, "utf8": false}, out)
}

func TestTextDecodeFailures(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		encoding, text, want string
	}{
		{"base64", "abc$", "not valid base64: unexpected data at offset 3 (without white space)"},
		{"base64", "a", "not valid base64: unexpected data at offset 0 (without white space)"},
		{"hex", "abc", "not valid hex: encoding/hex: odd length hex string"},
		{"hex", "zz", "not valid hex: encoding/hex: invalid byte: U+007A 'z'"},
		{"url", "100%", `not valid percent-encoding: invalid URL escape "%"`},
		{"urlpath", "%zz", `not valid percent-encoding: invalid URL escape "%zz"`},
	}
	for _, tt := range tests {
		t.Run(tt.encoding+"/"+tt.text, func(t *testing.T) {
			assert.Equal(t, tt.want, h.toolError(t, "text:decode", map[string]any{"text": tt.text, "encoding": tt.encoding}))
		})
	}
	code, msg := h.runError(t, "text:decode", map[string]any{"text": "x", "encoding": "rot13"})
	assert.Equal(t, errors.Validation, code)
	assert.Contains(t, msg, "/encoding")
}
