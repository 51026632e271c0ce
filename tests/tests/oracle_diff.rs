//! The differential test (issue 13): generated objects of the five kinds we validate go to our
//! validator and to the oracle (`conformance/oracle`, upstream's own Go code behind a pipe), and
//! the verdicts must agree. The only disagreements allowed are the rows of
//! `tests/cases/oracle/disagreements.tsv`, and every row must still match one (a row marked
//! `1M` in a sixth column only in a run of at least 1,000,000 objects, the offline run: it
//! covers a disagreement only such a run reaches, and a shorter run says it did not check it). Each
//! disagreement is attributed to the smallest set of its mutations that reproduces it on the
//! base object alone (each mutation, then each pair, then all), so a row names the field that
//! causes it, not merely one the object also has.
//!
//! The generator is seeded and reproducible. Every field of each kind's v3.32.1 CRD schema
//! (Installation: the networking part) is a mutation site; each object is a plausible base with
//! up to three fields set to values around the rules' boundaries: enum values and near misses,
//! integer bounds and one past them, CIDR text variants of both families, selectors, IPs with
//! and without ports, durations, interface names and patterns, list sizes.
//!
//! `CALICO_RENDER_ORACLE` names the oracle binary (`bash conformance/oracle/build.sh` prints it).
//! Without it the test says it is skipped and passes, unless `CALICO_RENDER_E2E=required` (as CI
//! sets). `CALICO_RENDER_ORACLE_OBJECTS` sets the number of objects (20,000 by default),
//! `CALICO_RENDER_ORACLE_SEED` the seed. The offline run of a million objects:
//!
//! ```text
//! CALICO_RENDER_ORACLE=$(bash conformance/oracle/build.sh) CALICO_RENDER_ORACLE_OBJECTS=1000000 \
//!   nice cargo test -p calico-render-tests -- oracle_diff:: --nocapture
//! ```
//!
//! (`conformance/oracle/README.md` has the last run's figures.)

use calico_render_tests::Rng;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use calico_spec::diag::Severity;
use calico_spec::rules::{self, Context};
use serde_json::{Map, Value, json};

const ENV_ORACLE: &str = "CALICO_RENDER_ORACLE";
const ENV_OBJECTS: &str = "CALICO_RENDER_ORACLE_OBJECTS";
const ENV_SEED: &str = "CALICO_RENDER_ORACLE_SEED";
const ENV_MODE: &str = "CALICO_RENDER_E2E";
const CI_OBJECTS: usize = 20_000;
/// A table row marked `1M` in its sixth column must match only in runs of at least this many
/// objects (the offline run): disagreements that only a long run reaches.
const LONG_RUN_OBJECTS: usize = 1_000_000;
const DEFAULT_SEED: u64 = 13;
const TABLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/cases/oracle/disagreements.tsv"
);
const CRDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../crds/v3.32.1");

/// One step of a path inside `spec`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// A field of a kind's schema and the values the generator tries there.
struct Site {
    path: Vec<Seg>,
    candidates: Vec<Value>,
}

struct Kind {
    api_version: &'static str,
    kind: &'static str,
    sites: Vec<Site>,
}

fn path_text(path: &[Seg]) -> String {
    let mut out = String::from("spec");
    for seg in path {
        match seg {
            Seg::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Seg::Index(idx) => {
                let _ = write!(out, "[{idx}]");
            }
        }
    }
    out
}

/// Set `value` at `path` under `root`, creating objects and arrays on the way (an array grows
/// with empty objects up to the index).
fn set_path(root: &mut Value, path: &[Seg], value: Value) {
    let Some((first, rest)) = path.split_first() else {
        *root = value;
        return;
    };
    match first {
        Seg::Key(key) => {
            if !root.is_object() {
                *root = Value::Object(Map::new());
            }
            let map = root.as_object_mut().expect("object");
            let slot = map.entry(key.clone()).or_insert(Value::Null);
            set_path(slot, rest, value);
        }
        Seg::Index(idx) => {
            if !root.is_array() {
                *root = Value::Array(Vec::new());
            }
            let list = root.as_array_mut().expect("array");
            while list.len() <= *idx {
                list.push(Value::Object(Map::new()));
            }
            set_path(&mut list[*idx], rest, value);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Values around the rules' boundaries.

fn strings(items: &[&str]) -> Vec<Value> {
    items.iter().map(|s| json!(s)).collect()
}

fn cidrs() -> Vec<Value> {
    strings(&[
        "10.0.0.0/16",
        "10.244.0.0/16",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "10.0.0.0/8",
        "10.0.0.0/20",
        "10.0.0.0/26",
        "10.0.0.0/27",
        "10.0.0.0/32",
        "10.0.0.1/32",
        "0.0.0.0/0",
        "10.0.0.1/16",
        "10.0.0.0/33",
        "10.0.0.0/-1",
        "10.0.0.0",
        "010.0.0.0/16",
        "10.0.0.0/016",
        "10.0.0.0 /16",
        " 10.0.0.0/16",
        "10.0.0/16",
        "256.0.0.0/16",
        "169.254.0.0/16",
        "169.254.1.0/24",
        "169.0.0.0/8",
        "fd00::/48",
        "fd00:10::/64",
        "fd00::/108",
        "fd00::/116",
        "fd00::/122",
        "fd00::/123",
        "fd00::/128",
        "FD00::/48",
        "fd00:0:0::/48",
        "fd00:0000::/48",
        "fd00::00/64",
        "2001:db8::00/64",
        "2001:DB8::/64",
        "2001:db8:0:0:0:0:0:0/64",
        "fd00::1/64",
        "fd00::/129",
        "fd00::",
        "fe80::/10",
        "fe80::/64",
        "fe00::/7",
        "::/0",
        "::ffff:10.0.0.0/104",
        "::ffff:10.0.0.0/120",
        "fd00::/48 ",
        "fd00::%eth0/64",
        "not-a-cidr",
        "",
    ])
}

fn selectors() -> Vec<Value> {
    strings(&[
        "all()",
        "",
        "has(zone)",
        "!has(zone)",
        "zone == 'a'",
        "zone == \"a\"",
        "zone != 'a' && has(rack)",
        "zone in {'a', 'b'}",
        "zone not in {'a'}",
        "zone starts with 'a'",
        "zone ends with 'a'",
        "zone contains 'a'",
        "k8s.io/zone == 'a'",
        "projectcalico.org/name == 'x'",
        "(zone == 'a') || (zone == 'b')",
        "global()",
        "all",
        "all(",
        "zone ==",
        "zone == a",
        "zone = 'a'",
        "has(zone",
        "zone == 'a' &&",
        "!all()",
        "has(-bad)",
        "zone == 'a' || ",
    ])
}

fn ips() -> Vec<Value> {
    strings(&[
        "10.0.0.1",
        "192.168.1.1",
        "0.0.0.0",
        "255.255.255.255",
        "10.0.0.1:179",
        "10.0.0.1:0",
        "10.0.0.1:65535",
        "10.0.0.1:65536",
        "fd00::1",
        "FD00::1",
        "fd00::01",
        "[fd00::1]:179",
        "[fd00::1]:65536",
        "fd00::1:179",
        "::ffff:10.0.0.1",
        "fe80::1",
        "fe80::1%eth0",
        "010.0.0.1",
        "10.0.0",
        "10.0.0.256",
        "10.0.0.1/32",
        "node-1",
        "",
        " 10.0.0.1",
    ])
}

fn durations() -> Vec<Value> {
    strings(&[
        "0s", "1s", "90s", "1m", "1h", "1h30m", "1s500ms", "500ms", "1.5s", "0.5s", "1us", "1ns",
        "1d", "-1s", "1", "0", "s", "1 s", "1S", "10m0s", "", "bogus",
    ])
}

fn interfaces() -> Vec<Value> {
    strings(&[
        "eth0",
        "eth0,eth1",
        "cali",
        "cali,tap",
        "lo",
        "eth+",
        "eth*",
        "/^eth.*/",
        "/eth[0-9]+/",
        "/(bad/",
        "/^(en|eth).*/,bond0",
        "^eth.*",
        "(bad",
        "eth.0",
        "eth-0",
        "eth_0",
        "eth0:1",
        "eth@0",
        "e th0",
        "a123456789012345",
        "a1234567890123456",
        "",
        "kube-ipvs0",
        "en.*",
        "^((en|wl|ww|sl|ib)[Popsx].*|(eth|wlan|wwan).*)",
    ])
}

fn ports() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(179),
        json!(9091),
        json!(65535),
        json!(65536),
        json!(-1),
        json!("179"),
    ]
}

fn as_numbers() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(64512),
        json!(65535),
        json!(65536),
        json!(2_147_483_647),
        json!(2_147_483_648u64),
        json!(4_200_000_001u64),
        json!(4_294_967_295u64),
        json!(4_294_967_296u64),
        json!(-1),
        json!("64512"),
        json!("1.10"),
        json!(64512.5),
    ]
}

fn lower(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// Candidate values for a scalar leaf of the schema, from its type and bounds and, for
/// strings, from what the field's name says it holds.
fn scalar_candidates(name: &str, schema: &Value) -> Vec<Value> {
    let ty = schema.get("type").and_then(Value::as_str).unwrap_or("");
    let int_or_string = schema.get("x-kubernetes-int-or-string") == Some(&json!(true));
    let lname = lower(name);
    let mut out = Vec::new();
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        out.extend(values.iter().cloned());
        if let Some(first) = values.iter().find_map(Value::as_str) {
            out.push(json!(first.to_ascii_lowercase()));
            out.push(json!(first.to_ascii_uppercase()));
        }
        out.push(json!("Bogus"));
        out.push(json!(""));
        return out;
    }
    match ty {
        "boolean" => out.extend([json!(true), json!(false), json!("true")]),
        "integer" | "number" => {
            if lname.contains("asnumber") {
                out.extend(as_numbers());
            } else if lname.contains("port") {
                out.extend(ports());
            } else {
                out.extend([json!(0), json!(1), json!(-1), json!(26), json!(1500)]);
                out.extend([json!(4_294_967_295u64), json!(4_294_967_296u64), json!("1")]);
            }
            if let Some(min) = schema.get("minimum").and_then(Value::as_i64) {
                out.extend([json!(min - 1), json!(min)]);
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_i64) {
                out.extend([json!(max), json!(max + 1)]);
            }
            if int_or_string {
                out.extend(strings(&["10%", "100%", "0%", "101%", "abc", "1"]));
            }
        }
        _ => {
            let format = schema.get("format").and_then(Value::as_str).unwrap_or("");
            if lname.contains("cidr") || format == "cidr" {
                out.extend(cidrs());
            } else if lname.contains("selector") {
                out.extend(selectors());
            } else if lname.ends_with("ip")
                || lname.ends_with("ips")
                || lname.ends_with("address")
                || lname.contains("reachableby")
                || lname.contains("peeringip")
            {
                out.extend(ips());
            } else if [
                "interval", "time", "period", "delay", "ttl", "timeout", "after", "age",
            ]
            .iter()
            .any(|w| lname.ends_with(w))
            {
                out.extend(durations());
            } else if lname.contains("iface")
                || lname.contains("interface")
                || lname.ends_with("prefix")
                || lname.ends_with("pattern")
            {
                out.extend(interfaces());
            } else if int_or_string {
                out.extend([json!(1), json!(0), json!(-1)]);
                out.extend(strings(&["10%", "100%", "0%", "101%", "abc", "1"]));
            } else {
                out.extend(strings(&["x", "", "a b", "Bogus", "10.0.0.0/16", "eth0"]));
                out.push(json!(0));
            }
            if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
                out.push(json!("a".repeat(max as usize)));
                out.push(json!("a".repeat(max as usize + 1)));
            }
        }
    }
    out
}

/// Walk a schema's properties and collect every leaf as a mutation site. Arrays of objects are
/// walked at index 0 and 1 (two items make pairs: duplicates, overlaps, families); arrays of
/// scalars are leaves whose candidates are lists of the item candidates.
fn collect_sites(schema: &Value, path: &mut Vec<Seg>, depth: usize, out: &mut Vec<Site>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, prop) in props {
        path.push(Seg::Key(name.clone()));
        let ty = prop.get("type").and_then(Value::as_str).unwrap_or("");
        match ty {
            "object" if prop.get("properties").is_some() && depth < 5 => {
                collect_sites(prop, path, depth + 1, out);
            }
            "array" => {
                let items = prop.get("items").cloned().unwrap_or(Value::Null);
                let item_ty = items.get("type").and_then(Value::as_str).unwrap_or("");
                if item_ty == "object" && items.get("properties").is_some() && depth < 5 {
                    for idx in 0..2 {
                        path.push(Seg::Index(idx));
                        collect_sites(&items, path, depth + 1, out);
                        path.pop();
                    }
                } else if item_ty != "object" {
                    let singles = scalar_candidates(name, &items);
                    let mut lists = vec![json!([])];
                    for one in &singles {
                        lists.push(json!([one]));
                    }
                    for pair in singles.windows(2) {
                        lists.push(json!([pair[0], pair[1]]));
                    }
                    if let Some(first) = singles.first() {
                        lists.push(json!([first, first]));
                    }
                    if let Some(max) = prop.get("maxItems").and_then(Value::as_u64) {
                        for n in [max, max + 1] {
                            let many: Vec<Value> = (0..n)
                                .map(|i| singles[i as usize % singles.len().max(1)].clone())
                                .collect();
                            lists.push(Value::Array(many));
                        }
                    }
                    lists.push(json!("not-a-list"));
                    out.push(Site {
                        path: path.clone(),
                        candidates: lists,
                    });
                }
            }
            "object" => {}
            _ => out.push(Site {
                path: path.clone(),
                candidates: scalar_candidates(name, prop),
            }),
        }
        path.pop();
    }
}

fn spec_schema(file: &str) -> Value {
    let path = Path::new(CRDS).join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("read {}: {err}", path.display()));
    let crd: Value = serde_saphyr::from_str(&text).expect("the pinned CRD is YAML");
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"].clone()
}

/// The Installation fields the generator mutates: the networking part, which is what
/// calico-render writes and checks. Component overrides, registries and the like are out.
const INSTALLATION_FIELDS: &[&str] = &[
    "calicoNetwork",
    "cni",
    "kubernetesProvider",
    "controlPlaneReplicas",
    "flexVolumePath",
    "kubeletVolumePluginPath",
    "fipsMode",
    "nonPrivileged",
    "nodeUpdateStrategy",
];

fn kinds() -> Vec<Kind> {
    let mut out = Vec::new();
    for (file, kind) in [
        ("projectcalico.org_ippools.yaml", "IPPool"),
        ("projectcalico.org_bgppeers.yaml", "BGPPeer"),
        (
            "projectcalico.org_bgpconfigurations.yaml",
            "BGPConfiguration",
        ),
        (
            "projectcalico.org_felixconfigurations.yaml",
            "FelixConfiguration",
        ),
    ] {
        let mut sites = Vec::new();
        collect_sites(&spec_schema(file), &mut Vec::new(), 0, &mut sites);
        // The only BGPPeer check before the validator looks BGPFilters up in the datastore,
        // which the oracle does not have: no filters.
        sites.retain(|site| site.path.first() != Some(&Seg::Key("filters".into())));
        out.push(Kind {
            api_version: "projectcalico.org/v3",
            kind,
            sites,
        });
    }
    let mut sites = Vec::new();
    collect_sites(
        &spec_schema("operator.tigera.io_installations.yaml"),
        &mut Vec::new(),
        0,
        &mut sites,
    );
    sites.retain(|site| {
        matches!(site.path.first(), Some(Seg::Key(first)) if INSTALLATION_FIELDS.contains(&first.as_str()))
    });
    for site in &mut sites {
        // On OpenShift the operator reads the cluster's Network object, which an empty cluster
        // does not have.
        site.candidates.retain(|value| value != &json!("OpenShift"));
    }
    out.push(Kind {
        api_version: "operator.tigera.io/v1",
        kind: "Installation",
        sites,
    });
    out
}

/// A plausible object of the kind before mutation.
fn base(kind: &Kind, rng: &mut Rng, serial: usize) -> Value {
    let v4 = [
        "10.0.0.0/16",
        "10.244.0.0/16",
        "172.20.0.0/16",
        "192.168.0.0/16",
    ];
    let v6 = ["fd00::/48", "fd00:10::/64", "2001:db8::/64"];
    let (name, spec) = match kind.kind {
        "IPPool" => {
            let cidr = if rng.chance(60) {
                rng.pick(&v4)
            } else {
                rng.pick(&v6)
            };
            (format!("pool-{serial}"), json!({ "cidr": cidr }))
        }
        "BGPPeer" => {
            let spec = match rng.below(3) {
                0 => json!({ "peerIP": "10.0.0.1", "asNumber": 64512 }),
                1 => json!({ "peerIP": "fd00::1", "asNumber": 65001, "node": "node-1" }),
                _ => json!({ "peerSelector": "has(route-reflector)", "nodeSelector": "all()" }),
            };
            (format!("peer-{serial}"), spec)
        }
        "BGPConfiguration" | "FelixConfiguration" => {
            let name = if rng.chance(80) {
                "default".to_string()
            } else {
                "node.node-1".to_string()
            };
            (name, json!({}))
        }
        _ => {
            let spec = match rng.below(5) {
                0 => json!({}),
                1 => json!({ "calicoNetwork": { "ipPools": [{ "cidr": rng.pick(&v4) }] } }),
                2 => json!({ "calicoNetwork": { "ipPools": [
                    { "cidr": rng.pick(&v4) }, { "cidr": rng.pick(&v6) }
                ] } }),
                3 => json!({ "calicoNetwork": { "bgp": "Disabled", "ipPools": [
                    { "cidr": rng.pick(&v4), "encapsulation": "VXLAN" }
                ] } }),
                _ => json!({ "calicoNetwork": { "linuxDataplane": "BPF", "ipPools": [
                    { "cidr": rng.pick(&v4), "encapsulation": "VXLANCrossSubnet" }
                ] } }),
            };
            ("default".to_string(), spec)
        }
    };
    json!({
        "apiVersion": kind.api_version,
        "kind": kind.kind,
        "metadata": { "name": name },
        "spec": spec,
    })
}

/// A generated object: the plausible base, the mutations set on it in order (a path under
/// `spec` and a value), and the object that results.
struct Generated {
    base: Value,
    mutations: Vec<(Vec<Seg>, Value)>,
    object: Value,
}

fn generate(kinds: &[Kind], rng: &mut Rng, serial: usize) -> Generated {
    let kind = &kinds[serial % kinds.len()];
    let base = base(kind, rng, serial);
    let count = match rng.below(10) {
        0 => 0,
        1..=4 => 1,
        5..=7 => 2,
        _ => 3,
    };
    let mut object = base.clone();
    let mut mutations = Vec::new();
    for _ in 0..count {
        let site = rng.pick(&kind.sites);
        let value = rng.pick(&site.candidates).clone();
        set_path(&mut object["spec"], &site.path, value.clone());
        mutations.push((site.path.clone(), value));
    }
    Generated {
        base,
        mutations,
        object,
    }
}

/// The base with only the chosen mutations set.
fn variant(generated: &Generated, chosen: &[usize]) -> Value {
    let mut object = generated.base.clone();
    for &idx in chosen {
        let (path, value) = &generated.mutations[idx];
        set_path(&mut object["spec"], path, value.clone());
    }
    object
}

/// The subsets of mutations tried, smallest first, to find what a disagreement needs: each
/// mutation alone, then each pair, then all of them.
fn subsets(count: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = (0..count).map(|idx| vec![idx]).collect();
    for first in 0..count {
        for second in first + 1..count {
            out.push(vec![first, second]);
        }
    }
    if count > 2 || count == 0 {
        out.push((0..count).collect());
    }
    out
}

/// What a disagreement is attributed to: the fields (paths under the object) and values of the
/// smallest set of mutations that reproduces it on the base alone.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Culprit {
    fields: Vec<(String, String)>,
}

impl Culprit {
    fn of(generated: &Generated, chosen: &[usize]) -> Self {
        let mut fields: Vec<(String, String)> = chosen
            .iter()
            .map(|&idx| {
                let (path, value) = &generated.mutations[idx];
                (path_text(path), value.to_string())
            })
            .collect();
        fields.sort();
        fields.dedup();
        if fields.is_empty() {
            fields.push(("spec".to_string(), "<base>".to_string()));
        }
        Culprit { fields }
    }

    fn field_text(&self) -> String {
        self.fields
            .iter()
            .map(|(field, _)| field.as_str())
            .collect::<Vec<_>>()
            .join(" & ")
    }

    fn value_text(&self) -> String {
        self.fields
            .iter()
            .map(|(_, value)| value.as_str())
            .collect::<Vec<_>>()
            .join(" & ")
    }
}

// ---------------------------------------------------------------------------------------------
// The two judges.

/// Our verdict: whether validation reports an error (warnings are our lints), the codes and
/// the first error's path and message.
struct Ours {
    rejected: bool,
    codes: Vec<&'static str>,
    first: String,
}

fn ours(object: &Value, ctx: &Context) -> Ours {
    // The oracle holds the default release's validators (v3.32.1). When the generated types
    // are a newer release's, `validate_texts` adds the target's own schema verdicts
    // (CR0007/CR0008) after the catalogue, so this harness validates the object's JSON text
    // (JSON is YAML) as `validate` does.
    let diagnostics = match ctx.release {
        Some(release) if !release.is_newest() => {
            let limits = calico_spec::source::Limits::MANIFESTS;
            let text = object.to_string();
            let texts = [rules::SourceText {
                name: "oracle.json",
                text: &text,
            }];
            match rules::validate_texts(&texts, ctx, &limits) {
                Ok(outcome) => outcome.diagnostics,
                Err(err) => panic!("a generated object does not read back: {err}"),
            }
        }
        _ => rules::validate_values(std::slice::from_ref(object), ctx),
    };
    // Operational checks (`OP` codes) judge what every upstream layer accepts and breaks the
    // cluster later; the oracle's validators accept those objects by design.
    let errors: Vec<_> = diagnostics
        .iter()
        .filter(|diag| diag.severity == Severity::Error && !diag.code.starts_with("OP"))
        .collect();
    let mut codes: Vec<&'static str> = errors.iter().map(|diag| diag.code).collect();
    codes.sort_unstable();
    codes.dedup();
    let first = errors
        .first()
        .map(|diag| format!("{} at {}: {}", diag.code, diag.path, diag.message))
        .unwrap_or_default();
    Ours {
        rejected: !codes.is_empty(),
        codes,
        first,
    }
}

#[derive(Debug, Clone)]
struct Answer {
    verdict: String,
    stage: String,
    messages: Vec<String>,
}

/// Ask the oracle about every object: one process, fed by a thread while this one reads.
fn oracle(binary: &str, objects: &[Value]) -> (Vec<Answer>, Duration) {
    let started = Instant::now();
    let mut child = Command::new(binary)
        .arg(CRDS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|err| panic!("start the oracle {binary}: {err}"));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let lines: Vec<String> = objects.iter().map(Value::to_string).collect();
    let feeder = std::thread::spawn(move || {
        let mut writer = std::io::BufWriter::new(&mut stdin);
        for line in lines {
            writer
                .write_all(line.as_bytes())
                .expect("write to the oracle");
            writer.write_all(b"\n").expect("write to the oracle");
        }
        writer.flush().expect("write to the oracle");
    });
    let stdout = child.stdout.take().expect("piped stdout");
    let mut answers = Vec::with_capacity(objects.len());
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("read from the oracle");
        let value: Value = serde_json::from_str(&line)
            .unwrap_or_else(|err| panic!("the oracle wrote `{line}`: {err}"));
        answers.push(Answer {
            verdict: value["verdict"].as_str().unwrap_or("").to_string(),
            stage: value["stage"].as_str().unwrap_or("").to_string(),
            messages: value["messages"]
                .as_array()
                .map(|m| {
                    m.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        });
    }
    feeder.join().expect("the feeder thread");
    let status = child.wait().expect("wait for the oracle");
    assert!(status.success(), "the oracle exited with {status}");
    assert_eq!(answers.len(), objects.len(), "one answer per object");
    (answers, started.elapsed())
}

// ---------------------------------------------------------------------------------------------
// The table of allowed disagreements.

/// One row: objects of `kind` whose value at `field` (its compact JSON text) matches `pattern`,
/// where we `reject` what the oracle accepts or `accept` what it rejects.
#[derive(Debug)]
struct Allowed {
    line: usize,
    kind: String,
    field: String,
    we: String,
    pattern: String,
    reason: String,
    /// Marked `1M`: required to match only in a run of at least [`LONG_RUN_OBJECTS`].
    long_run_only: bool,
}

/// The rows of the table: tab-separated `kind field we pattern reason [1M]`, `#` comments.
fn table() -> Vec<Allowed> {
    let text = std::fs::read_to_string(TABLE).unwrap_or_else(|err| panic!("read {TABLE}: {err}"));
    let mut rows = Vec::new();
    for (idx, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert!(
            cols.len() == 5 || (cols.len() == 6 && cols[5] == "1M"),
            "{TABLE}:{}: five tab-separated columns (kind, field, we, pattern, reason), and \
             optionally a sixth, `1M`",
            idx + 1
        );
        assert!(
            matches!(cols[2], "reject" | "accept"),
            "{TABLE}:{}: `we` is reject or accept",
            idx + 1
        );
        assert!(!cols[4].trim().is_empty(), "{TABLE}:{}: a reason", idx + 1);
        rows.push(Allowed {
            line: idx + 1,
            kind: cols[0].to_string(),
            field: cols[1].to_string(),
            we: cols[2].to_string(),
            pattern: cols[3].to_string(),
            reason: cols[4].to_string(),
            long_run_only: cols.len() == 6,
        });
    }
    rows
}

/// `pattern` matches `text`: a literal, with `*` standing for any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let mut rest = text;
    for (idx, part) in parts.iter().enumerate() {
        if idx == 0 {
            let Some(after) = rest.strip_prefix(part) else {
                return false;
            };
            rest = after;
        } else if idx == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
    }
    true
}

fn allows(row: &Allowed, kind: &str, culprit: &Culprit, we_reject: bool) -> bool {
    if row.kind != kind || (row.we == "reject") != we_reject {
        return false;
    }
    let fields: Vec<&str> = row.field.split(" & ").collect();
    let patterns: Vec<&str> = row.pattern.split(" & ").collect();
    fields.len() == culprit.fields.len()
        && patterns.len() == fields.len()
        && culprit.fields.iter().zip(fields.iter().zip(&patterns)).all(
            |((field, value), (row_field, pattern))| field == row_field && glob(pattern, value),
        )
}

/// One disagreement found in the first pass, before it is attributed.
struct Disagreement {
    serial: usize,
    we_reject: bool,
    codes: Vec<&'static str>,
    answer: Answer,
}

/// Attribute each disagreement to the smallest set of its mutations that reproduces it on the
/// base alone: every candidate variant goes to both judges at once.
fn attribute(
    binary: &str,
    ctx: &Context,
    generated: &[Generated],
    found: &[Disagreement],
) -> (Vec<(Culprit, String)>, Duration, Duration) {
    let mut variants = Vec::new();
    let mut owners = Vec::new();
    for (idx, dis) in found.iter().enumerate() {
        let generated = &generated[dis.serial];
        for chosen in subsets(generated.mutations.len()) {
            variants.push(variant(generated, &chosen));
            owners.push((idx, chosen));
        }
    }
    let (answers, oracle_time) = oracle(binary, &variants);
    let started = Instant::now();
    let verdicts: Vec<Ours> = variants.iter().map(|object| ours(object, ctx)).collect();
    let our_time = started.elapsed();
    let mut out: Vec<Option<(Culprit, String)>> = vec![None; found.len()];
    for (((idx, chosen), answer), us) in owners.iter().zip(&answers).zip(&verdicts) {
        let dis = &found[*idx];
        if out[*idx].is_some()
            || us.rejected != dis.we_reject
            || (answer.verdict == "rejected") == dis.we_reject
        {
            continue;
        }
        let why = if dis.we_reject {
            format!("we report {}; upstream accepts", us.first)
        } else {
            format!(
                "upstream [{}] {}",
                answer.stage,
                answer.messages.first().map(String::as_str).unwrap_or("")
            )
        };
        out[*idx] = Some((Culprit::of(&generated[dis.serial], chosen), why));
    }
    let attributed = out
        .into_iter()
        .zip(found)
        .map(|(culprit, dis)| {
            culprit.unwrap_or_else(|| {
                // Only the object as generated disagrees (a later mutation overwrote an earlier
                // one's field): all of its mutations.
                let generated = &generated[dis.serial];
                let all: Vec<usize> = (0..generated.mutations.len()).collect();
                let why = if dis.we_reject {
                    format!("we report {}; upstream accepts", dis.codes.join(","))
                } else {
                    format!(
                        "upstream [{}] {}",
                        dis.answer.stage,
                        dis.answer
                            .messages
                            .first()
                            .map(String::as_str)
                            .unwrap_or("")
                    )
                };
                (Culprit::of(generated, &all), why)
            })
        })
        .collect();
    (attributed, oracle_time, our_time)
}

#[test]
fn our_verdicts_match_upstream() {
    let Some(binary) = std::env::var_os(ENV_ORACLE) else {
        let required = std::env::var(ENV_MODE).is_ok_and(|mode| mode == "required");
        assert!(
            !required,
            "{ENV_ORACLE} is not set and {ENV_MODE}=required: build the oracle with \
             `bash conformance/oracle/build.sh` and set {ENV_ORACLE} to the path it prints"
        );
        calico_render_tests::say_skipped(
            "oracle (conformance/oracle)",
            &format!(
                "oracle_diff: {ENV_ORACLE} is not set (build the oracle with \
             `bash conformance/oracle/build.sh` and set {ENV_ORACLE} to the path it prints)"
            ),
        );
        return;
    };
    let binary = binary.to_string_lossy().into_owned();
    let count = std::env::var(ENV_OBJECTS)
        .ok()
        .map(|n| {
            n.parse::<usize>()
                .expect("CALICO_RENDER_ORACLE_OBJECTS is a number")
        })
        .unwrap_or(CI_OBJECTS);
    let seed = std::env::var(ENV_SEED)
        .ok()
        .map(|n| {
            n.parse::<u64>()
                .expect("CALICO_RENDER_ORACLE_SEED is a number")
        })
        .unwrap_or(DEFAULT_SEED);

    let kinds = kinds();
    let rows = table();
    let mut hits = vec![0usize; rows.len()];
    let ctx = Context::assumed();
    let mut rng = Rng(seed);
    let mut compared = 0usize;
    let mut disagreements = 0usize;
    let mut oracle_time = Duration::ZERO;
    let mut our_time = Duration::ZERO;
    let mut unexplained: BTreeMap<(String, Culprit, bool), (usize, String, String)> =
        BTreeMap::new();
    let mut verdicts: BTreeMap<(String, bool), usize> = BTreeMap::new();
    let mut serial = 0usize;
    // In chunks, so a million objects never sit in memory at once.
    while compared < count {
        let chunk = (count - compared).min(50_000);
        let generated: Vec<Generated> = (0..chunk)
            .map(|_| {
                serial += 1;
                generate(&kinds, &mut rng, serial)
            })
            .collect();
        let objects: Vec<Value> = generated.iter().map(|g| g.object.clone()).collect();
        let (answers, elapsed) = oracle(&binary, &objects);
        oracle_time += elapsed;
        let started = Instant::now();
        let our_verdicts: Vec<Ours> = objects.iter().map(|object| ours(object, &ctx)).collect();
        our_time += started.elapsed();
        let mut found = Vec::new();
        for (idx, ((object, answer), us)) in
            objects.iter().zip(answers).zip(our_verdicts).enumerate()
        {
            assert_ne!(
                answer.verdict, "unsupported",
                "the generator made an object the oracle cannot judge: {object}"
            );
            let kind = object["kind"].as_str().unwrap_or("").to_string();
            *verdicts.entry((kind, us.rejected)).or_default() += 1;
            if us.rejected != (answer.verdict == "rejected") {
                found.push(Disagreement {
                    serial: idx,
                    we_reject: us.rejected,
                    codes: us.codes,
                    answer,
                });
            }
        }
        // Attribution asks both judges again, about the variants only: not part of the figures
        // per 1,000 objects.
        let (attributed, _, _) = attribute(&binary, &ctx, &generated, &found);
        disagreements += found.len();
        for (dis, (culprit, why)) in found.iter().zip(attributed) {
            let kind = objects[dis.serial]["kind"].as_str().unwrap_or("");
            let mut allowed = false;
            for (row, hit) in rows.iter().zip(hits.iter_mut()) {
                if allows(row, kind, &culprit, dis.we_reject) {
                    *hit += 1;
                    allowed = true;
                }
            }
            if allowed {
                continue;
            }
            let entry = unexplained
                .entry((kind.to_string(), culprit, dis.we_reject))
                .or_insert((0, why, objects[dis.serial].to_string()));
            entry.0 += 1;
        }
        compared += chunk;
    }

    let per_thousand = |d: Duration| d.as_secs_f64() * 1000.0 * 1000.0 / compared as f64;
    eprintln!(
        "oracle_diff: {compared} objects (seed {seed}); per 1,000 objects: oracle {:.1} ms, \
         ours {:.1} ms; disagreements: {disagreements}, all allowed by the table: {}",
        per_thousand(oracle_time),
        per_thousand(our_time),
        unexplained.is_empty()
    );
    for ((kind, rejected), n) in &verdicts {
        eprintln!(
            "  {kind}: {n} {}",
            if *rejected { "rejected" } else { "accepted" }
        );
    }
    let long_run = compared >= LONG_RUN_OBJECTS;
    for (row, hit) in rows.iter().zip(&hits) {
        eprintln!(
            "  table line {}: {hit} x {} {} {} {}{}",
            row.line,
            row.kind,
            row.field,
            row.we,
            row.pattern,
            match (row.long_run_only, long_run) {
                (false, _) => "",
                (true, true) => " (1M row: checked, this run has at least 1,000,000 objects)",
                (true, false) =>
                    " (1M row: not required to match in a run under 1,000,000 objects)",
            }
        );
    }
    let mut report = String::new();
    for ((kind, culprit, we_reject), (n, why, example)) in &unexplained {
        let _ = writeln!(
            report,
            "{n} x {kind} {} = {}: we {}; {why}\n    e.g. {example}",
            culprit.field_text(),
            culprit.value_text(),
            if *we_reject { "reject" } else { "accept" },
        );
    }
    if let Ok(out) = std::env::var("CALICO_RENDER_ORACLE_PROPOSE") {
        // Draft rows for the disagreements left, for a person to triage (never read back).
        let mut text = String::new();
        for ((kind, culprit, we_reject), (n, why, _)) in &unexplained {
            let we = if *we_reject { "reject" } else { "accept" };
            let why: String = why.replace(['\t', '\n'], " ").chars().take(300).collect();
            let _ = writeln!(
                text,
                "{kind}\t{}\t{we}\t{}\t{n} x {why}",
                culprit.field_text(),
                culprit.value_text()
            );
        }
        std::fs::write(&out, text).expect("write the proposals");
    }
    let stale: Vec<String> = rows
        .iter()
        .zip(&hits)
        .filter(|(row, hit)| **hit == 0 && (long_run || !row.long_run_only))
        .map(|(row, _)| {
            format!(
                "{TABLE}:{}: {} {} {} `{}` matched nothing ({})",
                row.line, row.kind, row.field, row.we, row.pattern, row.reason
            )
        })
        .collect();
    assert!(
        unexplained.is_empty() && stale.is_empty(),
        "{} kinds of disagreement are neither fixed nor in the table:\n{report}\n{}",
        unexplained.len(),
        stale.join("\n")
    );
}
