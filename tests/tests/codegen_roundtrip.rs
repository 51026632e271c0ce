//! Round-trips of realistic objects through the committed generated types
//! (`calico_spec::generated`), and the behaviours the mapping promises: strict unknown-field
//! rejection, lossless unknown enum values, u32 AS numbers, checked `apiVersion`/`kind`.
//!
//! The objects live in `tests/cases/codegen/objects/*.yaml`; every document is read untyped,
//! deserialized into its generated type, serialized again and compared as JSON values.

use std::path::PathBuf;

use calico_spec::generated::operator_tigera_io::v1;
use calico_spec::generated::projectcalico_org::v3;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn objects_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cases/codegen/objects")
}

/// Deserializes `value` as `T` and serializes it back.
fn through<T: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

/// Sends one document through the generated type its `apiVersion` and `kind` name.
fn round_trip(doc: &Value) -> Result<Value, String> {
    let api_version = doc["apiVersion"].as_str().unwrap_or_default();
    let kind = doc["kind"].as_str().unwrap_or_default();
    match (api_version, kind) {
        ("operator.tigera.io/v1", "Installation") => through::<v1::Installation>(doc),
        ("operator.tigera.io/v1", "APIServer") => through::<v1::APIServer>(doc),
        ("operator.tigera.io/v1", "TigeraStatus") => through::<v1::TigeraStatus>(doc),
        ("projectcalico.org/v3", "IPPool") => through::<v3::IPPool>(doc),
        ("projectcalico.org/v3", "BGPConfiguration") => through::<v3::BGPConfiguration>(doc),
        ("projectcalico.org/v3", "BGPPeer") => through::<v3::BGPPeer>(doc),
        ("projectcalico.org/v3", "FelixConfiguration") => through::<v3::FelixConfiguration>(doc),
        ("projectcalico.org/v3", "IPReservation") => through::<v3::IPReservation>(doc),
        other => Err(format!("no generated type for {other:?}")),
    }
}

/// Every document of `file` survives the round trip unchanged; returns the kinds seen.
fn check(file: &str) -> Vec<String> {
    let path = objects_dir().join(file);
    let text = std::fs::read_to_string(&path).expect("fixture is readable");
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).expect("fixture is YAML");
    assert!(!docs.is_empty(), "{file} has no documents");
    let mut kinds = Vec::new();
    for (idx, doc) in docs.iter().enumerate() {
        let back = round_trip(doc).unwrap_or_else(|e| panic!("{file} document {idx}: {e}"));
        assert_eq!(
            &back, doc,
            "{file} document {idx} changed in the round trip"
        );
        kinds.push(doc["kind"].as_str().unwrap_or_default().to_string());
    }
    kinds
}

#[test]
fn realistic_objects_round_trip() {
    let mut kinds = Vec::new();
    for file in [
        "installation-article.yaml",
        "installation-overrides.yaml",
        "tigera-status.yaml",
        "calico-v3.yaml",
    ] {
        kinds.extend(check(file));
    }
    kinds.sort();
    kinds.dedup();
    // Every committed kind is covered by at least one realistic object.
    assert_eq!(
        kinds,
        [
            "APIServer",
            "BGPConfiguration",
            "BGPPeer",
            "FelixConfiguration",
            "IPPool",
            "IPReservation",
            "Installation",
            "TigeraStatus",
        ]
    );
}

#[test]
fn article_installation_reads_as_typed_fields() {
    let text = std::fs::read_to_string(objects_dir().join("installation-article.yaml")).unwrap();
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    let installation: v1::Installation = serde_json::from_value(docs[0].clone()).unwrap();
    let network = installation.spec.unwrap().calico_network.unwrap();
    assert_eq!(network.linux_dataplane.unwrap().as_str(), "BPF");
    let pools = network.ip_pools.unwrap();
    assert_eq!(pools[0].cidr, "172.20.0.0/16");
    assert_eq!(pools[0].block_size, Some(26));
    assert_eq!(
        pools[0].encapsulation.as_ref().map(|e| e.as_str()),
        Some("VXLANCrossSubnet")
    );
    assert_eq!(installation.metadata.name.as_deref(), Some("default"));
}

/// Parses `yaml` as `T` straight from YAML text (as the CLI does), returning the error text.
fn parse<T: DeserializeOwned>(yaml: &str) -> Result<T, String> {
    serde_saphyr::from_str::<T>(yaml).map_err(|e| e.to_string())
}

fn check_rejected<T: DeserializeOwned + std::fmt::Debug>(yaml: &str, expected: &[&str]) {
    let err = parse::<T>(yaml).expect_err("the document must be rejected");
    for part in expected {
        assert!(
            err.contains(part),
            "error {err:?} does not mention {part:?}"
        );
    }
}

#[test]
fn strict_parsing_rejects_what_the_schema_does_not_allow() {
    // An unknown field (a typo) is an error naming the field, as kubectl's strict validation.
    check_rejected::<v3::IPPool>(
        "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata: {name: p}\nspec:\n  cidr: 10.0.0.0/24\n  natOutgoin: true\n",
        &["natOutgoin", "natOutgoing"],
    );
    // Unknown fields are rejected at every depth, including the root.
    check_rejected::<v1::Installation>(
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata: {name: default}\nspec:\n  calicoNetwork:\n    ipPools:\n      - cidr: 10.0.0.0/16\n        blocksize: 26\n",
        &["blocksize"],
    );
    check_rejected::<v3::BGPPeer>(
        "apiVersion: projectcalico.org/v3\nkind: BGPPeer\nmetadata: {name: p}\nspec: {}\nextra: 1\n",
        &["extra"],
    );
    // `apiVersion` and `kind` are checked against the type.
    check_rejected::<v3::IPPool>(
        "apiVersion: crd.projectcalico.org/v1\nkind: IPPool\nmetadata: {name: p}\nspec: {cidr: 10.0.0.0/24}\n",
        &["crd.projectcalico.org/v1", "projectcalico.org/v3"],
    );
    check_rejected::<v3::IPPool>(
        "apiVersion: projectcalico.org/v3\nkind: BGPPeer\nmetadata: {name: p}\nspec: {cidr: 10.0.0.0/24}\n",
        &["BGPPeer", "IPPool"],
    );
    // A required field is required.
    check_rejected::<v3::IPPool>(
        "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata: {name: p}\nspec: {blockSize: 26}\n",
        &["cidr"],
    );
    // AS numbers are u32: 2^32 does not fit.
    check_rejected::<v3::BGPPeer>(
        "apiVersion: projectcalico.org/v3\nkind: BGPPeer\nmetadata: {name: p}\nspec: {asNumber: 4294967296}\n",
        &["4294967296"],
    );
}

#[test]
fn four_byte_as_numbers_are_u32() {
    let peer: v3::BGPPeer = parse(
        "apiVersion: projectcalico.org/v3\nkind: BGPPeer\nmetadata: {name: p}\nspec: {asNumber: 4294967294, localASNumber: 4200000001}\n",
    )
    .unwrap();
    assert_eq!(peer.spec.as_number, Some(4_294_967_294_u32));
    assert_eq!(peer.spec.local_as_number, Some(4_200_000_001_u32));
    let config: v3::BGPConfiguration = parse(
        "apiVersion: projectcalico.org/v3\nkind: BGPConfiguration\nmetadata: {name: default}\nspec: {asNumber: 4200000001}\n",
    )
    .unwrap();
    assert_eq!(config.spec.as_number, Some(4_200_000_001_u32));
}

#[test]
fn enum_values_from_a_newer_calico_round_trip() {
    let doc = serde_json::json!({
        "apiVersion": "operator.tigera.io/v1",
        "kind": "Installation",
        "metadata": {"name": "default"},
        "spec": {"calicoNetwork": {"linuxDataplane": "Nftables2", "bgp": "Enabled"}},
    });
    let installation: v1::Installation = serde_json::from_value(doc.clone()).unwrap();
    let network = installation
        .spec
        .as_ref()
        .unwrap()
        .calico_network
        .as_ref()
        .unwrap();
    let dataplane = network.linux_dataplane.as_ref().unwrap();
    assert!(!dataplane.is_known());
    assert_eq!(dataplane.as_str(), "Nftables2");
    assert!(network.bgp.as_ref().unwrap().is_known());
    assert_eq!(serde_json::to_value(&installation).unwrap(), doc);
}

#[test]
fn enums_list_their_wire_spellings() {
    use v1::InstallationSpecCalicoNetworkLinuxDataplane as Dataplane;
    assert!(Dataplane::VARIANTS.contains(&"BPF"));
    assert!(Dataplane::VARIANTS.contains(&"Iptables"));
    for spelling in Dataplane::VARIANTS {
        let value = Dataplane::from(*spelling);
        assert!(value.is_known());
        assert_eq!(value.as_str(), *spelling);
        assert_eq!(value.to_string(), *spelling);
    }
    assert_eq!(
        v3::IPPoolSpecVxlanMode::VARIANTS,
        ["Never", "Always", "CrossSubnet"]
    );
}

#[test]
fn root_types_are_kubernetes_resources() {
    use k8s_openapi::{Metadata, Resource};
    assert_eq!(v1::Installation::API_VERSION, "operator.tigera.io/v1");
    assert_eq!(v1::Installation::URL_PATH_SEGMENT, "installations");
    assert_eq!(v3::IPPool::API_VERSION, "projectcalico.org/v3");
    assert_eq!(v3::IPPool::KIND, "IPPool");
    assert_eq!(v3::BGPPeer::URL_PATH_SEGMENT, "bgppeers");
    let mut pool = v3::IPPool::default();
    pool.metadata_mut().name = Some("p".to_string());
    assert_eq!(pool.metadata().name.as_deref(), Some("p"));
    // Serialization writes apiVersion and kind first, then metadata and spec.
    pool.spec.cidr = "10.0.0.0/24".to_string();
    let text = serde_json::to_string(&pool).unwrap();
    assert!(
        text.starts_with(r#"{"apiVersion":"projectcalico.org/v3","kind":"IPPool","metadata":{"name":"p"},"spec":{"cidr""#),
        "{text}"
    );
}
