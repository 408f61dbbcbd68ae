// Package e2e holds the opt-in test of the backend against a real
// kube-apiserver (and etcd) started on loopback: `make e2e-kubernetes`
// from the repository's root builds both from the Go module proxy and runs
// it. Its files build only with the tag e2e_kubernetes. There is no
// scheduler and no kubelet: the test checks what the API server admits
// (the Pod Security "restricted" level enforced on the namespace, RBAC)
// and that the backend deletes what it created, not that pods run.
package e2e
