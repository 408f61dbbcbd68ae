#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy into ./bin, for
# the opt-in `make e2e-kubernetes`. Each binary is built once per version
# and kept: kube-apiserver takes the better part of an hour on 2 cores.
#
# k8s.io/kubernetes cannot be installed with `go install`: its go.mod
# points the k8s.io/* staging modules at directories of its own tree. A
# scratch module that requires it and points those modules at their
# published versions (v0.X.Y for Kubernetes v1.X.Y) builds it.
#
# Usage: scripts/kube-binaries.sh [BIN_DIR]; prints the two paths.
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-v1.35.4}
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}
BIN=$(realpath -m "${1:-$(dirname "$0")/../bin}")
GO=${GO:-go}
mkdir -p "$BIN"

apiserver="$BIN/kube-apiserver-$KUBE_VERSION"
etcd="$BIN/etcd-$ETCD_VERSION"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [[ ! -x $apiserver ]]; then
	staging="v0.${KUBE_VERSION#v1.}"
	mod=$(curl -fsSL "https://proxy.golang.org/k8s.io/kubernetes/@v/$KUBE_VERSION.mod")
	{
		echo "module kubebuild"
		echo "go 1.25.0"
		echo "require k8s.io/kubernetes $KUBE_VERSION"
		# Every staging replace of Kubernetes' go.mod, at its published version.
		sed -n '/^replace (/,/^)/p' <<<"$mod" |
			awk -v v="$staging" '$2 == "=>" && $3 ~ /^\.\/staging\// { print "replace " $1 " => " $1 " " v }'
	} >"$scratch/go.mod"
	printf 'package main\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n\nfunc main() {}\n' >"$scratch/tools.go"
	(
		cd "$scratch"
		GOFLAGS=-mod=mod $GO mod tidy >/dev/null
		CGO_ENABLED=0 $GO build -trimpath -o "$apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
	)
	mv "$apiserver.tmp" "$apiserver"
fi

if [[ ! -x $etcd ]]; then
	# etcd's server module has replace lines too: the same way round them.
	mkdir -p "$scratch/etcd"
	printf 'module etcdbuild\n\ngo 1.25.0\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" >"$scratch/etcd/go.mod"
	printf 'package main\n\nimport _ "go.etcd.io/etcd/server/v3/etcdmain"\n\nfunc main() {}\n' >"$scratch/etcd/tools.go"
	(
		cd "$scratch/etcd"
		GOFLAGS=-mod=mod $GO mod tidy >/dev/null
		CGO_ENABLED=0 $GO build -trimpath -o "$etcd.tmp" go.etcd.io/etcd/server/v3
	)
	mv "$etcd.tmp" "$etcd"
fi

echo "$apiserver"
echo "$etcd"
