//! `import` of manifest installs (issue 35, item 2): a cluster installed from `calico.yaml` (the
//! calico-node DaemonSet, the `calico-config` ConfigMap, the Deployments) becomes the
//! ClusterNetwork whose operator install reproduces it, by the rules of the operator's own
//! migration (tigera/operator `pkg/controller/migration/convert/`, release-v1.42).
//!
//! The corpus is `tests/cases/manifests/`: Calico's released manifests and manifests of public
//! repositories, byte for byte (`PROVENANCE.tsv`, the real corpus's format), with the outcome
//! of each in `import-outcomes.tsv`. For every imported manifest, every environment variable of
//! calico-node and install-cni either comes back in the rendered objects (checked against the
//! value the manifest gives, by the rule each row of `MAPPED` states) or is named by a
//! diagnostic of the import; the tally of both is printed.

use std::collections::BTreeMap;

use calico_render::import::{self, ImportError, Options, SourceText};
use calico_render_tests::workspace_root;
use calico_spec::cluster_network;
use calico_spec::rules::catalogue as c;
use serde_json::{Value, json};

const CORPUS: &str = "tests/cases/manifests";

fn rows(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(workspace_root().join(CORPUS).join(name)).unwrap();
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.split('\t').map(str::to_owned).collect())
        .collect()
}

/// The environment of container `name` of the calico-node DaemonSet, values read through the
/// `calico-config` ConfigMap (as the kubelet reads them).
fn environment(documents: &[Value], container: &str) -> Vec<(String, Option<String>)> {
    let config = documents
        .iter()
        .find(|doc| doc["kind"] == "ConfigMap" && doc["metadata"]["name"] == "calico-config");
    let node = documents
        .iter()
        .find(|doc| doc["kind"] == "DaemonSet" && doc["metadata"]["name"] == "calico-node")
        .expect("a calico-node DaemonSet");
    let spec = &node["spec"]["template"]["spec"];
    let containers = spec["initContainers"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(spec["containers"].as_array().into_iter().flatten());
    let mut out = Vec::new();
    for found in containers.filter(|found| found["name"] == container) {
        for var in found["env"].as_array().into_iter().flatten() {
            let value = match var.get("value") {
                Some(value) => value.as_str().map(str::to_owned),
                None => var["valueFrom"]["configMapKeyRef"]["key"]
                    .as_str()
                    .and_then(|key| config?["data"][key].as_str().map(str::to_owned)),
            };
            out.push((var["name"].as_str().unwrap().to_owned(), value));
        }
    }
    out
}

/// How a variable comes back in the rendered objects: given its value in the manifest, the
/// rendered Installation spec and FelixConfiguration `default` spec, whether they say it.
/// Each rule is the operator migration's mapping, worked out by hand from convert/*.go and
/// calico-node's first start (`node/pkg/lifecycle/startup/startup.go`).
type Check = fn(&str, &Value, &Value) -> bool;

fn pool(installation: &Value, v6: bool) -> Option<&Value> {
    installation["calicoNetwork"]["ipPools"]
        .as_array()?
        .iter()
        .find(|pool| {
            pool["cidr"]
                .as_str()
                .is_some_and(|cidr| cidr.contains(':') == v6)
        })
}

fn encapsulation(installation: &Value) -> &str {
    pool(installation, false)
        .and_then(|pool| pool["encapsulation"].as_str())
        .unwrap_or("")
}

const MAPPED: &[(&str, Check)] = &[
    // network.go: bird -> BGP Enabled, vxlan -> Disabled (calico-ipam).
    ("CALICO_NETWORKING_BACKEND", |value, inst, _| {
        let bgp = inst["calicoNetwork"]["bgp"].as_str();
        match value {
            "bird" | "" => bgp == Some("Enabled"),
            "vxlan" => bgp == Some("Disabled"),
            _ => false,
        }
    }),
    // IP=autodetect: calico-node has an IPv4 address, so the IPv4 pool is there.
    ("IP", |value, inst, _| {
        value == "autodetect" && pool(inst, false).is_some()
    }),
    ("CALICO_IPV4POOL_CIDR", |value, inst, _| {
        pool(inst, false).is_some_and(|pool| pool["cidr"] == value)
    }),
    // The pool's modes: encapsulation Always -> IPIP / VXLAN, CrossSubnet -> *CrossSubnet.
    ("CALICO_IPV4POOL_IPIP", |value, inst, _| {
        let found = encapsulation(inst);
        match value {
            "Always" => found == "IPIP",
            "CrossSubnet" => found == "IPIPCrossSubnet",
            "Never" | "Off" | "" => !found.starts_with("IPIP"),
            _ => false,
        }
    }),
    ("CALICO_IPV4POOL_VXLAN", |value, inst, _| {
        let found = encapsulation(inst);
        match value {
            "Always" => found == "VXLAN",
            "CrossSubnet" => found == "VXLANCrossSubnet",
            "Never" | "Off" | "" => !found.starts_with("VXLAN"),
            _ => false,
        }
    }),
    ("CALICO_IPV4POOL_BLOCK_SIZE", |value, inst, _| {
        pool(inst, false)
            .is_some_and(|pool| value.parse::<u64>().ok() == pool["blockSize"].as_u64())
    }),
    ("IP_AUTODETECTION_METHOD", |value, inst, _| {
        let detect = &inst["calicoNetwork"]["nodeAddressAutodetectionV4"];
        match value.split_once('=') {
            Some(("interface", name)) => detect["interface"] == name,
            Some(("can-reach", dest)) => detect["canReach"] == dest,
            Some(("skip-interface", name)) => detect["skipInterface"] == name,
            _ => value == "first-found" && detect["firstFound"] == true,
        }
    }),
    // FELIX_IPV6SUPPORT=false with no IP6: no IPv6 pool.
    ("FELIX_IPV6SUPPORT", |value, inst, _| {
        value == "false" && pool(inst, true).is_none()
    }),
];

/// A `FELIX_` variable placed in FelixConfiguration `default` (felix_vars.go): the field of
/// the same name, case aside, holds the value.
fn in_felix(name: &str, value: &str, felix: &Value) -> bool {
    let key = name.trim_start_matches("FELIX_").to_ascii_lowercase();
    felix
        .as_object()
        .into_iter()
        .flatten()
        .any(|(field, held)| {
            field.to_ascii_lowercase() == key
                && match held {
                    Value::String(text) => text == value,
                    Value::Bool(flag) => flag.to_string() == value.to_ascii_lowercase(),
                    other => serde_json::from_str::<Value>(value).ok().as_ref() == Some(other),
                }
        })
}

/// Whether a diagnostic names the variable (as a word of its message).
fn named(report: &[calico_spec::Diagnostic], var: &str) -> bool {
    report.iter().any(|diag| {
        diag.message
            .split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .any(|word| word == var)
    })
}

#[derive(Default)]
struct Tally {
    mapped: usize,
    named: usize,
    lost: Vec<String>,
}

#[test]
fn manifest_installs_import_as_the_operator_migration_reads_them() {
    let outcomes: BTreeMap<String, (String, String)> = rows("import-outcomes.tsv")
        .into_iter()
        .map(|row| (row[0].clone(), (row[1].clone(), row[2].clone())))
        .collect();
    let provenance = rows("PROVENANCE.tsv");
    // Every file of the corpus has its row, and no row lacks its file.
    let mut on_disk = Vec::new();
    for dir in std::fs::read_dir(workspace_root().join(CORPUS)).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for file in std::fs::read_dir(&dir).unwrap() {
                let path = file.unwrap().path();
                on_disk.push(format!(
                    "{}/{}",
                    dir.file_name().unwrap().to_string_lossy(),
                    path.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    on_disk.sort();
    let mut listed: Vec<String> = provenance.iter().map(|row| row[0].clone()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "PROVENANCE.tsv and {CORPUS}/ disagree");
    assert!(
        provenance.len() >= 10,
        "the corpus shrank: {}",
        provenance.len()
    );
    let mut tally = Tally::default();
    let mut by_source: BTreeMap<String, usize> = BTreeMap::new();
    for row in &provenance {
        let [file, repository, .., release, blob] = &row[..] else {
            panic!("PROVENANCE.tsv row {row:?}");
        };
        *by_source
            .entry(format!("{repository} {release}"))
            .or_default() += 1;
        let text = std::fs::read_to_string(workspace_root().join(CORPUS).join(file)).unwrap();
        assert_eq!(
            &crate::provenance::blob_id(text.as_bytes()),
            blob,
            "{file}: not the bytes PROVENANCE.tsv names"
        );
        let (outcome, reason) = outcomes
            .get(file)
            .unwrap_or_else(|| panic!("{file} has no row in import-outcomes.tsv"));
        let result = import::import_texts(
            &[SourceText {
                name: file,
                text: &text,
            }],
            &Options::default(),
        );
        match (outcome.as_str(), result) {
            ("imported", Ok(imported)) => {
                let documents: Vec<Value> = calico_spec::source::parse_stream(
                    &text,
                    &calico_spec::source::Limits::MANIFESTS,
                )
                .unwrap()
                .into_iter()
                .map(|doc| doc.value)
                .collect();
                let loaded = cluster_network::load("imported.yaml", &imported.text)
                    .unwrap_or_else(|err| panic!("{file}: the import does not load: {err}"));
                let objects: Vec<Value> = loaded.objects.iter().map(|o| o.to_value()).collect();
                let find = |kind: &str| {
                    objects
                        .iter()
                        .find(|o| o["kind"] == kind && o["metadata"]["name"] == "default")
                        .map(|o| o["spec"].clone())
                        .unwrap_or(json!({}))
                };
                let installation = find("Installation");
                let felix = find("FelixConfiguration");
                for container in ["calico-node", "install-cni"] {
                    for (var, value) in environment(&documents, container) {
                        let value = value.unwrap_or_default();
                        let mapped = MAPPED.iter().any(|(name, check)| {
                            *name == var && check(&value, &installation, &felix)
                        }) || (container == "calico-node"
                            && var.starts_with("FELIX_")
                            && in_felix(&var, &value, &felix));
                        if mapped {
                            tally.mapped += 1;
                        } else if named(&imported.report, &var) {
                            tally.named += 1;
                        } else {
                            tally
                                .lost
                                .push(format!("{file}: {container} {var}={value}"));
                        }
                    }
                }
                assert!(
                    !imported
                        .report
                        .iter()
                        .any(|d| d.code == c::CN_IMPORT_MANIFEST_REFUSED.code),
                    "{file}: imported with a refusal in its report"
                );
            }
            ("refused", Err(ImportError::Invalid { diagnostics })) => {
                let codes: Vec<String> = diagnostics
                    .iter()
                    .filter(|d| d.severity == calico_spec::diag::Severity::Error)
                    .map(|d| format!("{}: {}", d.code, d.message))
                    .collect();
                for expected in reason.split("; ") {
                    let (code, var) = expected.split_once(' ').unwrap_or((expected, ""));
                    assert!(
                        codes
                            .iter()
                            .any(|line| line.starts_with(code) && line.contains(var)),
                        "{file}: expected {expected}, got {codes:#?}"
                    );
                }
            }
            (outcome, result) => panic!(
                "{file}: import-outcomes.tsv says {outcome} ({reason}), import gave {:?}",
                result.map(|imported| imported.text)
            ),
        }
    }
    let total = tally.mapped + tally.named + tally.lost.len();
    eprintln!(
        "manifest corpus: {} files ({by_source:?}); calico-node and install-cni variables of \
         the imported ones: {total}, {} rendered back, {} named by a diagnostic, {} lost",
        provenance.len(),
        tally.mapped,
        tally.named,
        tally.lost.len()
    );
    assert!(
        tally.lost.is_empty(),
        "variables neither rendered back nor named: {:#?}",
        tally.lost
    );
    assert!(tally.mapped > 0 && tally.named > 0);
}

/// The refusals are the migration's: each row a manifest edit and the code and variable it
/// must be refused with (convert/*.go at release-v1.42), checked on Calico v3.32.1's
/// calico.yaml; and what the migration maps, on the same file edited.
#[test]
fn the_migrations_refusals_and_mappings_hold() {
    let file = "projectcalico__calico/v3.32.1__calico.yaml";
    let base = std::fs::read_to_string(workspace_root().join(CORPUS).join(file)).unwrap();
    let env_line = "            - name: DATASTORE_TYPE\n              value: \"kubernetes\"\n";
    assert!(base.contains(env_line));
    let with = |extra: &str| base.replacen(env_line, &format!("{env_line}{extra}"), 1);
    let var = |name: &str, value: &str| {
        format!("            - name: {name}\n              value: \"{value}\"\n")
    };
    let import = |text: &str| {
        import::import_texts(
            &[SourceText {
                name: "calico.yaml",
                text,
            }],
            &Options::default(),
        )
    };
    for (edit, expected) in [
        (var("FELIX_BOGUSSETTING", "1"), "FELIX_BOGUSSETTING"),
        (var("USE_POD_CIDR", "true"), "USE_POD_CIDR"),
        (
            var("IP6", "autodetect"),
            "IP6=autodetect without CALICO_IPV6POOL_CIDR",
        ),
        (
            var("IP_AUTODETECTION_METHOD", "somewhere"),
            "IP_AUTODETECTION_METHOD=somewhere",
        ),
        (
            var("FELIX_IPINIPMTU", "1400") + &var("FELIX_VXLANMTU", "1450"),
            "does not match",
        ),
    ] {
        // The edit's variable may come twice (the manifest sets some already): the migration
        // reads the first, so put ours first and remove the manifest's own where needed.
        let text = with(&edit);
        match import(&text) {
            Err(ImportError::Invalid { diagnostics }) => assert!(
                diagnostics
                    .iter()
                    .any(|d| d.code == c::CN_IMPORT_MANIFEST_REFUSED.code
                        && d.message.contains(expected)),
                "{expected}: {diagnostics:#?}"
            ),
            other => panic!("{expected}: not refused: {:?}", other.map(|i| i.text)),
        }
    }
    // A pool CIDR, block size, autodetection method and a Felix setting come back.
    let text = with(
        &(var("CALICO_IPV4POOL_CIDR", "10.244.0.0/16")
            + &var("CALICO_IPV4POOL_BLOCK_SIZE", "24")
            + &var("IP_AUTODETECTION_METHOD", "interface=eth1")
            + &var("FELIX_XDPENABLED", "false")
            + &var("FELIX_LOGSEVERITYFILE", "Warning")),
    );
    let imported = import(&text).unwrap_or_else(|err| panic!("{err}"));
    let loaded = cluster_network::load("imported.yaml", &imported.text).unwrap();
    let objects: Vec<Value> = loaded.objects.iter().map(|o| o.to_value()).collect();
    let installation = &objects
        .iter()
        .find(|o| o["kind"] == "Installation")
        .unwrap()["spec"];
    let pool = &installation["calicoNetwork"]["ipPools"][0];
    assert_eq!(pool["cidr"], "10.244.0.0/16");
    assert_eq!(pool["blockSize"], 24);
    assert_eq!(pool["encapsulation"], "IPIP", "CALICO_IPV4POOL_IPIP Always");
    assert_eq!(pool["natOutgoing"], "Enabled");
    assert_eq!(installation["calicoNetwork"]["bgp"], "Enabled");
    assert_eq!(
        installation["calicoNetwork"]["nodeAddressAutodetectionV4"],
        json!({"interface": "eth1"})
    );
    let felix = &objects
        .iter()
        .find(|o| o["kind"] == "FelixConfiguration" && o["metadata"]["name"] == "default")
        .unwrap()["spec"];
    assert_eq!(felix["xdpEnabled"], false);
    assert_eq!(felix["logSeverityFile"], "Warning");
    // Not a manifest: an object import does not read is refused as before (no DaemonSet).
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: calico-typha\n";
    match import(deployment) {
        Err(ImportError::Invalid { diagnostics }) => {
            assert!(
                diagnostics
                    .iter()
                    .any(|d| d.code == c::CN_IMPORT_OBJECT.code)
            );
        }
        other => panic!("{:?}", other.map(|i| i.text)),
    }
}
