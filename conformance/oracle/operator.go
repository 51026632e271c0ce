package main

import (
	"context"
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
