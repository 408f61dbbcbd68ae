// Package transport carries a server's MCP sessions over standard input
// and output and over streamable HTTP, with the bounds a server facing
// clients it does not trust needs and the go-sdk's transports leave to
// their user:
//
//   - [ServeLines] answers the lines that are no JSON-RPC message instead
//     of ending the connection, and lets running calls answer once the
//     client has closed its input;
//   - [CheckOrigin] refuses browser pages of other web origins (DNS
//     rebinding), [LimitBodyRead] bounds the reading of request bodies
//     without bounding streamed responses, and [LimitSessions] caps the
//     live sessions by evicting the one idle the longest.
//
// The toolserver package composes them with authentication into its
// stdio server and HTTP handler.
package transport
