package main

import (
	"context"
	_ "unsafe" // for go:linkname

	apiv3 "github.com/projectcalico/api/pkg/apis/projectcalico/v3"
	"github.com/projectcalico/calico/libcalico-go/lib/apiconfig"
	bapi "github.com/projectcalico/calico/libcalico-go/lib/backend/api"
	_ "github.com/projectcalico/calico/libcalico-go/lib/clientv3" // linked below
	validator "github.com/projectcalico/calico/libcalico-go/lib/validator/v3"
)

// clientv3's create path applies defaults and checks in unexported code before it calls the
// field validator. The oracle calls that code itself (not a copy of it) through go:linkname.
// The receivers below have the layout of clientv3's `ipPools{client client}` and
// `bgpConfigurations{client client}`; the methods called never read them on the paths used
// here (no datastore: the IP pool overlap scan is skipped, as it would find nothing in an
// empty datastore).
type clientLayout struct {
	config    apiconfig.CalicoAPIConfig
	backend   bapi.Client
	resources interface{ unused() }
}

type receiverLayout struct {
	client clientLayout
}

//go:linkname ipPoolValidateAndSetDefaults github.com/projectcalico/calico/libcalico-go/lib/clientv3.ipPools.validateAndSetDefaults
func ipPoolValidateAndSetDefaults(r receiverLayout, ctx context.Context, new, old *apiv3.IPPool, skipCIDROverlap bool) error

//go:linkname bgpConfigValidateDefaultOnlyFields github.com/projectcalico/calico/libcalico-go/lib/clientv3.bgpConfigurations.ValidateDefaultOnlyFields
func bgpConfigValidateDefaultOnlyFields(r receiverLayout, res *apiv3.BGPConfiguration) error

//go:linkname felixSetDefaults github.com/projectcalico/calico/libcalico-go/lib/clientv3.setDefaults
func felixSetDefaults(fc *apiv3.FelixConfiguration)

// createIPPool is clientv3's IPPools().Create up to the datastore write, in an empty datastore.
func createIPPool(pool *apiv3.IPPool) (string, error) {
	if err := ipPoolValidateAndSetDefaults(receiverLayout{}, context.Background(), pool, nil, true); err != nil {
		return "clientv3-defaults", err
	}
	if err := validator.Validate(pool); err != nil {
		return "validator", err
	}
	return "", nil
}

// createBGPPeer is clientv3's BGPPeers().Create up to the datastore write. Its only check before
// the validator looks the named BGPFilters up in the datastore; objects with filters are refused
// by the caller as out of scope.
func createBGPPeer(peer *apiv3.BGPPeer) (string, error) {
	if err := validator.Validate(peer); err != nil {
		return "validator", err
	}
	return "", nil
}

// createBGPConfiguration is clientv3's BGPConfigurations().Create up to the datastore write.
func createBGPConfiguration(cfg *apiv3.BGPConfiguration) (string, error) {
	if err := validator.Validate(cfg); err != nil {
		return "validator", err
	}
	if err := bgpConfigValidateDefaultOnlyFields(receiverLayout{}, cfg); err != nil {
		return "clientv3-default-only", err
	}
	return "", nil
}

// createFelixConfiguration is clientv3's FelixConfigurations().Create up to the datastore write.
func createFelixConfiguration(fc *apiv3.FelixConfiguration) (string, error) {
	felixSetDefaults(fc)
	if err := validator.Validate(fc); err != nil {
		return "validator", err
	}
	return "", nil
}
