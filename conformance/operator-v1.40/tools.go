//go:build tools

// Package tools pins tigera-operator v1.40.0, the operator line of Calico v3.31, which the
// end-to-end suite runs out of cluster on the v3.31.7 renderings (see .ci/k8s-e2e.sh,
// CALICO_RENDER_E2E_OPERATOR_V140); nothing here is compiled into calico-render.
package tools

import _ "github.com/tigera/operator/cmd"
