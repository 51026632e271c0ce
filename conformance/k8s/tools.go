//go:build tools

// Package tools pins the Kubernetes commands the end-to-end suite builds (see .ci/k8s-e2e.sh);
// nothing here is compiled into calico-render.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
