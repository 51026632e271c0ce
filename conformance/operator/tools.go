//go:build tools

// Package tools pins the tigera-operator the end-to-end suite runs out of cluster (see
// .ci/k8s-e2e.sh); nothing here is compiled into calico-render.
package tools

import _ "github.com/tigera/operator/cmd"
