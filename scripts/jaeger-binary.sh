#!/usr/bin/env bash
# Builds Jaeger (v2, an OpenTelemetry Collector distribution) from the Go
# module proxy into ./bin, for the opt-in `make e2e-jaeger`. It is built
# once per version and kept: about 7 minutes and 120 MB on 2 cores.
#
# `go install github.com/jaegertracing/jaeger/cmd/jaeger@V` is refused:
# Jaeger's go.mod has replace directives. Its module, downloaded from the
# proxy and copied out of the read-only module cache, builds in place.
#
# Usage: scripts/jaeger-binary.sh [BIN_DIR]; prints the binary's path.
set -euo pipefail

JAEGER_VERSION=${JAEGER_VERSION:-v1.76.0}
BIN=$(realpath -m "${1:-$(dirname "$0")/../bin}")
GO=${GO:-go}
mkdir -p "$BIN"

jaeger="$BIN/jaeger-$JAEGER_VERSION"
if [[ ! -x $jaeger ]]; then
	scratch=$(mktemp -d)
	trap 'chmod -R u+w "$scratch"; rm -rf "$scratch"' EXIT
	dir=$(cd "$scratch" && GOFLAGS=-mod=mod $GO mod download -json "github.com/jaegertracing/jaeger@$JAEGER_VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	cp -r "$dir" "$scratch/src"
	chmod -R u+w "$scratch/src"
	(
		cd "$scratch/src"
		GOWORK=off CGO_ENABLED=0 $GO build -trimpath -o "$jaeger.tmp" ./cmd/jaeger
	)
	mv "$jaeger.tmp" "$jaeger"
fi

echo "$jaeger"
