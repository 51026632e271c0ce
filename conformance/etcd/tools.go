//go:build tools

// Package tools pins the etcd server the end-to-end suite runs under kube-apiserver (see
// .ci/k8s-e2e.sh); nothing here is compiled into calico-render.
package tools

import _ "go.etcd.io/etcd/server/v3"
