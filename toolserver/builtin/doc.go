// Package builtin is the catalogue of local tools that the metatools
// server offers with no configuration at all: Go functions that need
// nothing installed, useful to any agent, each with a definition written
// for a language model (title, description, tags, input and output
// schemas with every property described, annotations) and examples.
//
// # The catalogue
//
//	time:now       the current date and time in any time zone, in any format
//	time:convert   a date and time converted to another time zone
//	time:add       years, months, days and a duration added to a time
//	time:diff      the time between two dates, exact and in calendar units
//	math:eval      an arithmetic expression evaluated exactly, with variables
//	json:query     a jq program run on a JSON document
//	text:stats     characters, bytes, words, lines, sentences, paragraphs, tokens
//	text:replace   literal or regular expression find and replace
//	text:case      upper, lower, title, sentence, snake, kebab, camel, pascal, constant
//	text:encode    base64, base64url, hex, URL query and path, HTML escaping
//	text:decode    the reverse of text:encode, binary results in hex
//	text:hash      SHA-256, SHA-512, SHA-1 and MD5 digests
//	http:fetch     HTTP GET or HEAD of a URL on an allow-list (only with one)
//
// Every tool is read-only and idempotent; only http:fetch reaches outside
// the machine (openWorldHint). The time tools embed the IANA time zone
// database, so they work on machines without one.
//
// # Usage
//
// [Tools] builds the catalogue; [Register] puts it in an index and a
// local executor, where a [toolrun.Runner] finds and runs it:
//
//	tools, err := builtin.Tools(builtin.WithHTTPAllowList("api.github.com"))
//	...
//	idx, local := toolindex.New(), toolrun.NewLocalExecutor()
//	err = builtin.Register(ctx, idx, local, tools)
//	...
//	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{
//		toolmodel.BackendLocal: local,
//	}), toolrun.WithIndex(idx))
//	res, err := runner.Run(ctx, "math:eval", map[string]any{"expression": "2^10 / 3"})
//
// Each tool's [Tool.Examples] are plain data for a documentation store;
// every one of them runs successfully.
//
// # Errors
//
// A tool that cannot do what it was asked (an expression that does not
// parse, an unknown time zone, a host off the allow-list, a failed
// request) fails as a tool: its function returns a plain error, which the
// runner reports as a result with IsError and the message, for the model
// to read and correct its call. Arguments that the input schema cannot
// rule out (a text over the size limit, both input and inputText given to
// json:query) fail the run with an error of code [errors.Validation], as
// arguments the schema refuses do.
//
// # Limits
//
// Every tool bounds its work. math:eval takes expressions up to 4096
// bytes nested up to 100 levels, so evaluation is linear and never
// overflows the stack. json:query runs with a time limit
// ([WithQueryTimeout]), returns at most 1000 results and 1 MiB of JSON,
// and cannot read files, environment variables, modules or further
// inputs. The time limit stops a program between two of its steps, not
// within one, so the steps that could build a huge value at once check
// their size before they run, and the program fails with an error that
// names the limit: a string of more than 8 MiB (repetition such as
// "x" * 1000000000, concatenation, join), an array of more than 2^20
// elements ([f] collecting, concatenation, split, explode, setting a far
// index), an integer product of more than 2^16 bits, a number text of
// more than 19660 digits (tonumber, fromjson), more than 2^16 matches of
// a global regular expression, and an operation that walks a value whole
// (comparison, sorting, tojson, tostring, formats, interpolation, add,
// flatten, contains, error) on a value of more than 8 Mi units, one per
// value plus the bytes of its strings and keys: repeating [., .] builds,
// in a few steps, values whose shared parts make them far larger than the
// memory they take. A result too large to encode is dropped and flagged
// as truncated. The program is rewritten to call these checks before it
// is compiled; its results are otherwise unchanged. The text tools take
// texts up to 1 MiB, and their results are at most a few times as long
// (text:replace at most 4 MiB). http:fetch reads at most [DefaultHTTPMaxBytes] of a
// body ([WithHTTPMaxBytes]), gives up after [DefaultHTTPTimeout]
// ([WithHTTPTimeout]) and follows at most 5 redirects.
//
// # http:fetch and its allow-list
//
// The catalogue includes http:fetch only when [WithHTTPAllowList] names
// hosts: a tool that refused every URL would only mislead a model. Hosts
// and ports are matched before any request and again at every redirect
// (ports 80 and 443 unless an entry names others), and the address each
// connection reaches is checked after the name is resolved: an allowed
// name that resolves to a loopback, private or link-local address (such
// as the cloud metadata service at 169.254.169.254) is refused unless an
// entry names that address or range, or the entry is marked internal:.
// The tool connects directly, not through a proxy from the environment,
// whose address the list could not check; a client given with
// [WithHTTPClient] whose transport is not an [http.Transport] dials as it
// likes, and checking addresses is then its own concern. The tool's
// description lists the allowed hosts, and its examples use the first of
// them.
//
// # How to plug in your own
//
// [Register] takes any [Tool], not only the catalogue's: build one from a
// typed Go function with [toolrun.NewLocalTool], wrap it in a Tool with
// its examples, and register it with the others, or leave out the
// catalogue's tools you do not want by filtering the slice [Tools]
// returns.
package builtin
