//go:build tools

// Package tools pins the standalone kustomize the post-render tests run (it has --enable-exec,
// which the kustomize built into kubectl lacks); nothing here is compiled into calico-render.
package tools

import _ "sigs.k8s.io/kustomize/kustomize/v5"
