package main

import (
	"context"
	"encoding/json"
	"fmt"
	_ "unsafe" // for go:linkname

	v3 "github.com/tigera/api/pkg/apis/projectcalico/v3"
	operatorv1 "github.com/tigera/operator/api/v1"
	"github.com/tigera/operator/pkg/controller/installation"
	"github.com/tigera/operator/pkg/controller/ippool"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

//go:linkname validateCustomResource github.com/tigera/operator/pkg/controller/installation.validateCustomResource
func validateCustomResource(instance *operatorv1.Installation) error

//go:linkname poolFillDefaults github.com/tigera/operator/pkg/controller/ippool.fillDefaults
func poolFillDefaults(ctx context.Context, c client.Client, instance *operatorv1.Installation, currentPools *v3.IPPoolList) error

// emptyCluster is what the operator's controllers read besides the Installation: a cluster with
// no aws-node DaemonSet, no kubeadm-config ConfigMap and no IP pools yet.
var emptyCluster client.Client = func() client.Client {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).Build()
}()

// The label the IP pool controller puts on every pool it creates (a fact of v1.42.3's
// pool_controller.go; the constant is unexported).
const operatorManagedByLabel, operatorManagedByValue = "app.kubernetes.io/managed-by", "tigera-operator"

// judgeInstallation is the Installation's whole path in an empty cluster: the operator's
// defaults and validation (reconcileInstallation), then, once the operator has taken it, each
// IPPool its IP pool controller then creates: converted by the controller's own
// ippool.ToProjectCalico, labelled as the controller labels it, and judged on the oracle's
// IPPool path (clientv3's create defaults and the v3 validator). A refusal there is the stage
// "operator-created IPPool" with the pool's index and the IPPool path's own stage.
func judgeInstallation(inst *operatorv1.Installation) answer {
	if a := verdict(reconcileInstallation(inst)); a.Verdict != "accepted" {
		return a
	}
	if inst.Spec.CalicoNetwork == nil {
		return answer{Verdict: "accepted"}
	}
	for idx, p := range inst.Spec.CalicoNetwork.IPPools {
		pool, err := ippool.ToProjectCalico(p)
		if err != nil {
			return answer{Verdict: "rejected", Stage: "operator-created IPPool", Messages: []string{err.Error()}}
		}
		pool.Labels[operatorManagedByLabel] = operatorManagedByValue
		// The operator's v3 type and libcalico-go's are two Go types of one API object: the
		// object crosses as the JSON the controller would write.
		line, err := json.Marshal(pool)
		if err != nil {
			return answer{Verdict: "rejected", Stage: "operator-created IPPool", Messages: []string{err.Error()}}
		}
		a := judgeStored(typeMeta{APIVersion: "projectcalico.org/v3", Kind: "IPPool"}, line)
		if a.Verdict != "accepted" {
			a.Stage = fmt.Sprintf("operator-created IPPool (ipPools[%d] %s): %s", idx, p.Name, a.Stage)
			return a
		}
	}
	return answer{Verdict: "accepted"}
}

// reconcileInstallation runs what the operator runs on a new Installation in an empty cluster,
// in its order: the core controller's defaults and validation, then the IP pool controller's
// pool defaults and pool validation, then the core controller again on the written-back object.
func reconcileInstallation(inst *operatorv1.Installation) (string, error) {
	if err := installation.MergeAndFillDefaults(inst, nil, &v3.IPPoolList{}); err != nil {
		return "operator-defaults", err
	}
	if err := validateCustomResource(inst); err != nil {
		return "operator-validate", err
	}
	if err := poolFillDefaults(context.Background(), emptyCluster, inst, &v3.IPPoolList{}); err != nil {
		return "operator-pool-defaults", err
	}
	if err := ippool.ValidatePools(inst); err != nil {
		return "operator-pool-validate", err
	}
	if err := installation.MergeAndFillDefaults(inst, nil, &v3.IPPoolList{}); err != nil {
		return "operator-defaults", err
	}
	if err := validateCustomResource(inst); err != nil {
		return "operator-validate", err
	}
	return "", nil
}
