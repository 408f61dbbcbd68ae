// Package forward serves the resources, resource templates and prompts of
// upstream MCP servers as a gateway's own, and forwards the requests that
// name them (resources/read, prompts/get, completion/complete, resource
// subscriptions) to the upstream that owns them.
//
// A [Forwarder] lists each upstream when it starts and again when the
// upstream reports a change, serves what the upstreams offer under the
// names of their namespace ("docs.summarize"), hides the upstreams the
// policy hides, counts subscriptions per URI (one upstream subscription
// for any number of clients) and removes from every error it passes on
// the secrets the upstream is given. The toolserver package creates one
// for its WithUpstreams option.
package forward
