package kubernetes_test

import (
	"context"
	"fmt"
	"log"

	k8s "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/kubernetes"
)

// A backend in a cluster, from the server's own Pod (the ServiceAccount
// of deploy/rbac.yaml), with the NetworkPolicy of deploy/ in force.
func ExampleNew() {
	config, err := rest.InClusterConfig()
	if err != nil {
		log.Fatal(err)
	}
	client, err := k8s.NewForConfig(config)
	if err != nil {
		log.Fatal(err)
	}
	b, err := kubernetes.New(client, config,
		kubernetes.WithImage("registry.example/toolruntime-runner:v1"),
		kubernetes.WithGuarantees(kubernetes.Guarantees{Containers: true, EgressDenied: true}),
		kubernetes.WithWarmPool(2))
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	// Pods a previous server left behind.
	if err := b.Reap(context.Background()); err != nil {
		log.Fatal(err)
	}
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, b))
	if err != nil {
		log.Fatal(err)
	}
	_ = rt // rt.Engine(toolruntime.Standard, "typescript") plugs into a toolcode.Executor
}

// What the backend claims depends on what the cluster guarantees.
func ExampleBackend_Enforces() {
	b, err := kubernetes.New(fake.NewClientset(), &rest.Config{},
		kubernetes.WithImage("registry.example/toolruntime-runner:v1"),
		kubernetes.WithGuarantees(kubernetes.Guarantees{Containers: true, EgressDenied: true}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(b.Enforces(toolruntime.DefaultLimits))
	// Output:
	// wall_time by pod deleted at deadline + activeDeadlineSeconds
	// cpu_time=30s by rlimit
	// memory=268435456 by pod memory limit
	// processes=64 by rlimit
	// file_size=16777216 by rlimit
	// no_host_environment by container
	// no_host_files by container
	// no_network by network policy
}
