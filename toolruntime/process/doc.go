// Package process is the backend of the standard profile: each program
// runs in a fresh child process of the runner (the command
// toolruntime-runner), which reaches tools only through the gateway
// protocol on its stdin and stdout.
package process
