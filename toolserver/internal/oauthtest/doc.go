// Package oauthtest holds the end-to-end tests of the OAuth resource
// server of toolserver against a real OAuth 2 authorization server
// (fosite), which issues the tokens, publishes and rotates its keys.
//
// It is a module of its own, never released, so that the authorization
// server and its dependencies stay out of the module graph of every
// program that requires toolserver. It has no API.
package oauthtest
