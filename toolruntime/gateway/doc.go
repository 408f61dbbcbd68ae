// Package gateway is the protocol between a host and a program running out
// of its process: the only way such a program reaches tools.
//
// The guest (the runner process, or a WebAssembly module) and the host
// exchange JSON-RPC 2.0 messages, one JSON object per line, over the
// guest's stdin and stdout. The host sends one request, "execute", with
// the program, its language and its limits; while the program runs, the
// guest calls the host ("tools/search", "tools/namespaces",
// "tools/describe", "tools/examples", "tools/run", "tools/chain") and
// sends "log" notifications; last, it answers "execute" with the program's
// value or its error. A guest may first announce, with a "ready"
// notification, that its start is over: a host that starts guests ahead
// of their executions waits for it ([AwaitReady]), and [Host] skips it
// when it is the guest's first message. Errors cross as JSON-RPC error objects carrying the
// error's code and meta ([errors.ToWire]), so a limit reached in the host
// fails the program with the same code it has in process.
//
// [Host] is the host's side; [Serve] the guest's. Nothing but tool calls,
// their answers and log lines crosses: no environment, no file, no
// credential. The host bounds every message it reads
// ([DefaultMaxMessageBytes]), and a guest that breaks the protocol ends
// its execution.
package gateway
