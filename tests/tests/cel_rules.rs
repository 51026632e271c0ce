//! The CRDs' CEL rules, evaluated from each release's schema index (`calico_spec::release::cel`),
//! held against the rule catalogue's own checks and against the releases' CRDs.
//!
//! - every CEL rule of every supported release's index is evaluable here (parses, calls only
//!   functions the interpreter has) or a transition rule, and so is every rule of the
//!   unreleased release-v3.33 CRDs, whose rules call the Kubernetes IP and CIDR libraries: a
//!   new release's rules need no new code;
//! - the index holds every rule of the CRD files it was made from (none lost on the way);
//! - agreement: on every case the catalogue's checks have (the rows of `validate_rules`, which
//!   call [`assert_agreement`] for each row, the cases in `tests/cases/validate/`, the API
//!   server's negative corpus in `tests/e2e/negative/` and the operator's in
//!   `tests/e2e/operator-invalid/`), a code a CEL rule stands for is reported by the CEL rule
//!   exactly when the catalogue's own check reports it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use calico_spec::release::cel::{self, CATALOGUED, Outcome};
use calico_spec::release::{self, RELEASES, Release};
use calico_spec::rules::{self, Context, InputDocument};
use calico_spec::source::{Limits, parse_stream};
use serde_json::Value;

/// Codes only a CRD rule reports (`cel::ONLY_CRD_RULES`): no catalogue check of their own to
/// agree with; `validate_rules` holds their verdicts through the CEL rule.
fn cel_only(code: &str) -> bool {
    cel::ONLY_CRD_RULES.iter().any(|rule| rule.code == code)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// For each document of `yaml` of a kind with CRD rules: the codes (of those the CRD rules of
/// the newest release stand for) that the catalogue's checks report and that the CEL rules
/// report. Documents that are not objects of such a kind are left out.
fn verdicts(yaml: &str) -> Vec<(String, BTreeSet<&'static str>, BTreeSet<&'static str>)> {
    verdicts_for(Release::default_target(), yaml)
}

/// [`verdicts`] against the CEL rules of `newest` (the codes its rules stand for).
fn verdicts_for(
    newest: &'static Release,
    yaml: &str,
) -> Vec<(String, BTreeSet<&'static str>, BTreeSet<&'static str>)> {
    let Ok(documents) = parse_stream(yaml, &Limits::MANIFESTS) else {
        return Vec::new();
    };
    let catalogue_only = Context {
        release: None,
        ..Context::assumed()
    };
    let mut out = Vec::new();
    for document in &documents {
        let Some(kind) = release::indexed_kind(&document.value) else {
            continue;
        };
        // The codes this release's rules of the kind stand for (v3.33 moved more of
        // libcalico-go's validator into CEL).
        let messages: Vec<Option<String>> = newest
            .crd_rules()
            .for_kind(kind)
            .iter()
            .map(|rule| rule.rule.message.clone())
            .collect();
        let stands_for: BTreeSet<&str> = CATALOGUED
            .iter()
            .filter(|(k, message, rule, _)| {
                *k == kind
                    && !cel_only(rule.code)
                    && messages.iter().any(|m| m.as_deref() == Some(*message))
            })
            .map(|(_, _, rule, _)| rule.code)
            .collect();
        if stands_for.is_empty() {
            continue;
        }
        let inputs = [InputDocument {
            file: "case.yaml",
            document,
        }];
        let ours: BTreeSet<&str> = rules::validate(&inputs, &catalogue_only)
            .diagnostics
            .iter()
            .map(|diag| diag.code)
            .filter(|code| stands_for.contains(code))
            .collect();
        let mut theirs = BTreeSet::new();
        for failure in cel::evaluate(newest, kind, &document.value) {
            match failure.outcome {
                Outcome::Rejected(_) if stands_for.contains(failure.rule.code.code) => {
                    theirs.insert(failure.rule.code.code);
                }
                Outcome::Rejected(_) => {}
                Outcome::NotEvaluated(why) => {
                    // Only on input of the wrong type, which the catalogue refuses already
                    // (v3.33's rules also call `cidr()` on a pool CIDR that does not parse:
                    // CR1002).
                    let refused = rules::validate(&inputs, &catalogue_only)
                        .diagnostics
                        .iter()
                        .any(|d| matches!(d.code, "CR0002" | "CR0005" | "CR0006" | "CR1002"));
                    assert!(
                        refused,
                        "`{}` could not be evaluated on a well-typed object: {why}\n{yaml}",
                        failure.rule.rule.rule
                    );
                }
            }
        }
        out.push((kind.to_owned(), ours, theirs));
    }
    out
}

/// Assert that the CEL rules and the catalogue's checks agree on `yaml` (see the module doc);
/// returns how many documents were compared.
pub(crate) fn assert_agreement(yaml: &str) -> usize {
    let verdicts = verdicts(yaml);
    for (kind, ours, theirs) in &verdicts {
        assert_eq!(
            ours, theirs,
            "{kind}: the catalogue's checks report {ours:?}, the CRD's CEL rules {theirs:?}\n{yaml}"
        );
    }
    verdicts.len()
}

fn yaml_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn the_catalogue_and_the_cel_rules_agree_on_every_case_file() {
    let mut compared = 0;
    let mut disagreeing = 0;
    for dir in [
        "tests/cases/validate",
        "tests/e2e/negative",
        "tests/e2e/operator-invalid",
    ] {
        for path in yaml_files(dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            compared += assert_agreement(&text);
            disagreeing += verdicts(&text)
                .iter()
                .filter(|(_, ours, _)| !ours.is_empty())
                .count();
        }
    }
    // Not vacuous: the negative corpus holds one case per CEL rule the catalogue also checks.
    assert!(compared >= 20, "only {compared} documents compared");
    assert!(
        disagreeing >= 13,
        "only {disagreeing} documents that a CEL rule rejects"
    );
}

/// The same corpus against v3.33's CEL rules, which stand for more of the catalogue
/// (`cel::CATALOGUED`'s v3.33 rows): where a v3.33 rule and the catalogue's check differ, the
/// row is wrong.
#[test]
fn the_catalogue_and_the_v3_33_cel_rules_agree_on_every_case_file() {
    let v3_33 = Release::newest();
    let mut rejected = 0;
    let mut rejected_v3_32 = 0;
    let mut mismatches = Vec::new();
    for dir in [
        "tests/cases/validate",
        "tests/e2e/negative",
        "tests/e2e/operator-invalid",
    ] {
        for path in yaml_files(dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            rejected_v3_32 += verdicts(&text)
                .iter()
                .filter(|(_, _, theirs)| !theirs.is_empty())
                .count();
            for (kind, ours, theirs) in verdicts_for(v3_33, &text) {
                rejected += usize::from(!theirs.is_empty());
                if ours != theirs {
                    mismatches.push(format!(
                        "{} {kind}: catalogue {ours:?}, v3.33 CEL {theirs:?}",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // Not vacuous: v3.33's rules stand for more of the catalogue than v3.32.1's, so they
    // reject more of the corpus (the link-local, block size and masked-CIDR cases).
    assert!(
        rejected > rejected_v3_32,
        "v3.33's rules reject {rejected} documents, v3.32.1's {rejected_v3_32}"
    );
}

/// Every `x-kubernetes-validations` rule under `node` (an OpenAPI schema as YAML reads it).
fn crd_rules(node: &Value, out: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            if let Some(Value::Array(rules)) = map.get("x-kubernetes-validations") {
                for rule in rules {
                    if let Some(text) = rule.get("rule").and_then(Value::as_str) {
                        out.push(text.to_owned());
                    }
                }
            }
            for (key, child) in map {
                // The root's `status` (the Installation's repeats the spec, rules and all from
                // v3.33 on) is not validated on writes to the object: not indexed.
                if key == "status" && map.contains_key("spec") {
                    continue;
                }
                crd_rules(child, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                crd_rules(item, out);
            }
        }
        _ => {}
    }
}

fn crd_file_rules(dir: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for path in yaml_files(dir) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with(prefix) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let crd: Value = serde_saphyr::from_str(&text).unwrap();
        crd_rules(&crd, &mut out);
    }
    out
}

#[test]
fn every_cel_rule_of_every_release_is_evaluated_or_a_transition_rule() {
    // The index of each release is made from these files (the command in its header): the
    // native v3 CRDs where the release has them, else the crd.projectcalico.org/v1 ones.
    for release in &RELEASES {
        let dir = format!("crds/{}", release.data);
        let mut from_crds = crd_file_rules(&dir, "operator.tigera.io_installations");
        from_crds.extend(crd_file_rules(&dir, "operator.tigera.io_apiservers"));
        from_crds.extend(crd_file_rules(&dir, "operator.tigera.io_goldmanes"));
        from_crds.extend(crd_file_rules(&dir, "operator.tigera.io_whiskers"));
        let calico = if release.native_v3_crds {
            "projectcalico.org_"
        } else {
            "crd.projectcalico.org_"
        };
        for kind in [
            "ippools",
            "bgppeers",
            "bgpconfigurations",
            "felixconfigurations",
            "ipreservations",
        ] {
            from_crds.extend(crd_file_rules(&dir, &format!("{calico}{kind}")));
        }
        let mut indexed: Vec<String> = release
            .crd_rules()
            .all()
            .map(|rule| rule.rule.rule.clone())
            .collect();
        from_crds.sort();
        indexed.sort();
        assert_eq!(
            indexed, from_crds,
            "{}: the index lost or gained rules",
            release.calico
        );
        for rule in release.crd_rules().all() {
            let status = rule.status();
            assert!(
                matches!(
                    status,
                    cel::RuleStatus::Evaluated | cel::RuleStatus::Transition
                ),
                "{} {} at `{}`: `{}` is {status:?}",
                release.calico,
                rule.kind,
                rule.path,
                rule.rule.rule
            );
        }
    }
    let v3_32 = Release::default_target().crd_rules();
    assert_eq!(v3_32.all().count(), 20);
    assert_eq!(
        v3_32
            .all()
            .filter(|r| r.status() == cel::RuleStatus::Transition)
            .count(),
        2,
        "the IP pool's CIDR and block size immutability"
    );
    // v3.33 (release-v3.33 at 6609dea): `rule:` lines in its index's CRD files (grep -c):
    // BGPConfiguration 3, BGPPeer 8, FelixConfiguration 8, IPPool 16, APIServer 1, Goldmane 1,
    // Whisker 1, and Installation 7, of which 3 are in `status.computed` (the two
    // autodetection rules and the Typha disruption budget's again).
    let v3_33 = Release::newest().crd_rules();
    assert_eq!(v3_33.all().count(), 3 + 8 + 8 + 16 + 1 + 1 + 1 + (7 - 3));
    for older in RELEASES.iter().filter(|r| !r.native_v3_crds) {
        assert_eq!(older.crd_rules().all().count(), 0, "{}", older.calico);
    }
}

#[test]
fn the_next_releases_rules_need_no_new_code() {
    // Calico's release-v3.33 branch moved rules into CEL that call the Kubernetes IP and CIDR
    // libraries (`cidr(self.cidr).masked()`, `isIP(...)`, `ip(...).family()`).
    let rules = crd_file_rules("crds/release-v3.33-6609dea", "");
    assert!(rules.len() > 40, "{} rules", rules.len());
    assert!(rules.iter().any(|r| r.contains("cidr(")));
    for rule in &rules {
        assert_eq!(cel::evaluable(rule), Ok(()), "{rule}");
    }
}

fn list_rules(args: &[&str]) -> String {
    let mut all = vec!["validate", "--list-rules"];
    all.extend_from_slice(args);
    let output = calico_render_tests::run_calico_render(&all, &repo(), b"");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn list_rules_shows_each_rule_with_its_releases() {
    let all = list_rules(&[]);
    crate::cli_consistency::snapshot("validate-list-rules", &all);
    // The name rules are CRD rules of v3.32 on; the release index codes apply to the releases
    // older than the newest; the support lint to the releases out of upstream support;
    // everything else everywhere.
    assert!(
        all.contains("  CR5001  error    v3.32 v3.33              Installation name not allowed")
    );
    assert!(all.contains(
        "  CR0007  error    v3.30 v3.31 v3.32        field unknown to the target Calico release"
    ));
    assert!(
        all.contains("  CR1005  error    v3.30 v3.31 v3.32 v3.33  IPIP and VXLAN are both enabled")
    );
    assert!(all.contains(
        "  CN0204  warning  v3.30 v3.31              Calico release out of upstream support"
    ));
    assert!(all.contains("v3.33 = v3.33.0 as of release-v3.33-6609dea"));
    let v30 = list_rules(&["--calico-version", "v3.30.7"]);
    assert!(v30.contains("none: this release's CRDs have no CEL rules"));
    assert!(!v30.contains("CR5001"));
    assert!(!v30.contains("CR0009"));
    let json: Value =
        serde_json::from_str(&list_rules(&["--calico-version", "v3.32.1", "-o", "json"])).unwrap();
    let crd = json["crdRules"].as_array().unwrap();
    // 18 rules of the kinds we rendered first, and Goldmane's and Whisker's name rule
    // (`self.metadata.name == 'default'`, in both CRDs from v3.32 on).
    assert_eq!(crd.len(), 20);
    assert!(
        crd.iter()
            .all(|r| r["releases"] == serde_json::json!(["v3.32"]))
    );
    assert_eq!(
        crd.iter().filter(|r| r["status"] == "evaluated").count(),
        18
    );
}

#[test]
fn the_name_rules_follow_each_releases_crd() {
    let yaml = "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: calico\nspec: {}\n---\napiVersion: operator.tigera.io/v1\nkind: APIServer\nmetadata:\n  name: calico\nspec: {}\n";
    let documents = parse_stream(yaml, &Limits::MANIFESTS).unwrap();
    let inputs: Vec<InputDocument<'_>> = documents
        .iter()
        .map(|document| InputDocument {
            file: "names.yaml",
            document,
        })
        .collect();
    for release in &RELEASES {
        let ctx = Context {
            release: Some(release),
            ..Context::assumed()
        };
        let outcome = rules::validate(&inputs, &ctx);
        let found: Vec<(&str, &str, &str)> = outcome
            .diagnostics
            .iter()
            .filter(|d| d.code == "CR5001" || d.code == "CR6001")
            .map(|d| (d.code, d.path.as_str(), d.message.as_str()))
            .collect();
        if release.native_v3_crds {
            assert_eq!(
                found,
                [
                    (
                        "CR5001",
                        "metadata.name",
                        "resource name must be 'default', 'tigera-secure', or 'overlay'"
                    ),
                    (
                        "CR6001",
                        "metadata.name",
                        "resource name must be 'default' or 'tigera-secure'"
                    ),
                ],
                "{}",
                release.calico
            );
        } else {
            assert_eq!(found, [], "{}", release.calico);
        }
    }
}

/// One of v3.33's new CEL rules (not in v3.32.1's CRDs): its kind, node and a fragment of its
/// text that names it, a spec it rejects and a spec it accepts (hand-written from the rule).
struct NewRule {
    kind: &'static str,
    path: &'static str,
    fragment: &'static str,
    rejects: Value,
    accepts: Value,
}

fn new_rule(
    kind: &'static str,
    path: &'static str,
    fragment: &'static str,
    rejects: Value,
    accepts: Value,
) -> NewRule {
    NewRule {
        kind,
        path,
        fragment,
        rejects,
        accepts,
    }
}

/// Every CEL rule the release-v3.33 CRDs add to v3.32.1's has a row here, evaluated from
/// v3.33's index: the rule rejects the first spec and accepts the second.
#[test]
fn every_new_v3_33_rule_rejects_and_accepts() {
    use serde_json::json;
    let lb = json!(["LoadBalancer"]);
    let rows = [
        new_rule(
            "BGPConfiguration",
            "spec",
            "self.communities",
            json!({"communities": [{"name": "a", "value": "64512:1"}]}),
            json!({"communities": [{"name": "a", "value": "64512:1"}],
                   "prefixAdvertisements": [{"cidr": "10.0.0.0/8", "communities": ["a"]}]}),
        ),
        new_rule(
            "BGPPeer",
            "spec",
            "self.reachableBy",
            json!({"reachableBy": "10.0.0.1"}),
            json!({"reachableBy": "10.0.0.1", "peerIP": "10.0.0.2"}),
        ),
        new_rule(
            "BGPPeer",
            "spec",
            "keepOriginalNextHop",
            json!({"keepOriginalNextHop": true, "nextHopMode": "Keep"}),
            json!({"keepOriginalNextHop": true}),
        ),
        new_rule(
            "FelixConfiguration",
            "spec",
            "natOutgoingAddress",
            json!({"natOutgoingAddress": "fd00::1"}),
            json!({"natOutgoingAddress": "10.0.0.1"}),
        ),
        new_rule(
            "FelixConfiguration",
            "spec",
            "has(self.deviceRouteSourceAddress)",
            json!({"deviceRouteSourceAddress": "fd00::1"}),
            json!({"deviceRouteSourceAddress": "10.0.0.1"}),
        ),
        new_rule(
            "FelixConfiguration",
            "spec",
            "deviceRouteSourceAddressIPv6",
            json!({"deviceRouteSourceAddressIPv6": "10.0.0.1"}),
            json!({"deviceRouteSourceAddressIPv6": "fd00::1"}),
        ),
        new_rule(
            "FelixConfiguration",
            "spec.routeTableRange",
            "self.max <= 250",
            json!({"routeTableRange": {"min": 1, "max": 251}}),
            json!({"routeTableRange": {"min": 1, "max": 250}}),
        ),
        new_rule(
            "FelixConfiguration",
            "spec.routeTableRanges[*]",
            "self.min >= 1",
            json!({"routeTableRanges": [{"min": 0, "max": 10}]}),
            json!({"routeTableRanges": [{"min": 1, "max": 10}]}),
        ),
        new_rule(
            "FelixConfiguration",
            "spec.routeTableRanges[*]",
            "self.min <= self.max",
            json!({"routeTableRanges": [{"min": 5, "max": 2}]}),
            json!({"routeTableRanges": [{"min": 2, "max": 5}]}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "self.ipipMode == 'Never'",
            json!({"cidr": "fd00::/64", "ipipMode": "Always"}),
            json!({"cidr": "fd00::/64", "ipipMode": "Never"}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "!self.disableBGPExport",
            json!({"cidr": "10.0.0.0/24", "allowedUses": lb, "disableBGPExport": true}),
            json!({"cidr": "10.0.0.0/24", "allowedUses": lb, "disableBGPExport": false}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "self.nodeSelector == 'all()'",
            json!({"cidr": "10.0.0.0/24", "allowedUses": lb, "nodeSelector": "rack == 'a'"}),
            json!({"cidr": "10.0.0.0/24", "allowedUses": lb, "nodeSelector": "all()"}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "u == 'Tunnel'",
            json!({"cidr": "10.0.0.0/24", "allowedUses": ["Tunnel"], "namespaceSelector": "a == 'b'"}),
            json!({"cidr": "10.0.0.0/24", "allowedUses": ["Tunnel"]}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "self.nodeSelector.contains('global(')",
            json!({"cidr": "10.0.0.0/24", "nodeSelector": "global()"}),
            json!({"cidr": "10.0.0.0/24", "nodeSelector": "all()"}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "self.namespaceSelector.contains('global(')",
            json!({"cidr": "10.0.0.0/24", "namespaceSelector": "global()"}),
            json!({"cidr": "10.0.0.0/24", "namespaceSelector": "a == 'b'"}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "cidr(self.cidr).masked()",
            json!({"cidr": "10.0.0.1/24"}),
            json!({"cidr": "10.0.0.0/24"}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "169.254.0.0/16",
            json!({"cidr": "169.254.1.0/24"}),
            json!({"cidr": "10.0.0.0/24"}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "fe80::/10",
            json!({"cidr": "fe80::/64"}),
            json!({"cidr": "fd00::/64"}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "self.blockSize >= 20",
            json!({"cidr": "10.0.0.0/16", "blockSize": 19}),
            json!({"cidr": "10.0.0.0/16", "blockSize": 26}),
        ),
        new_rule(
            "IPPool",
            "spec",
            "prefixLength() <=",
            json!({"cidr": "10.0.0.0/28", "blockSize": 26}),
            json!({"cidr": "10.0.0.0/24", "blockSize": 26}),
        ),
        new_rule(
            "Installation",
            "spec.calicoNetwork.nodeAddressAutodetectionV4",
            "firstFound",
            json!({"calicoNetwork": {"nodeAddressAutodetectionV4": {"firstFound": true, "interface": "eth0"}}}),
            json!({"calicoNetwork": {"nodeAddressAutodetectionV4": {"interface": "eth0"}}}),
        ),
        new_rule(
            "Installation",
            "spec.calicoNetwork.nodeAddressAutodetectionV6",
            "firstFound",
            json!({"calicoNetwork": {"nodeAddressAutodetectionV6": {"kubernetes": "NodeInternalIP", "canReach": "fd00::1"}}}),
            json!({"calicoNetwork": {"nodeAddressAutodetectionV6": {"kubernetes": "NodeInternalIP"}}}),
        ),
        new_rule(
            "Installation",
            "spec.typhaPodDisruptionBudget.spec",
            "maxUnavailable",
            json!({"typhaPodDisruptionBudget": {"spec": {"minAvailable": 1, "maxUnavailable": 1}}}),
            json!({"typhaPodDisruptionBudget": {"spec": {"minAvailable": 1}}}),
        ),
    ];
    let v3_32: BTreeSet<(String, String)> = Release::default_target()
        .crd_rules()
        .all()
        .map(|rule| (rule.kind.clone(), rule.rule.rule.clone()))
        .collect();
    let newest = Release::newest();
    let added: Vec<&cel::CompiledRule> = newest
        .crd_rules()
        .all()
        .filter(|rule| !v3_32.contains(&(rule.kind.clone(), rule.rule.rule.clone())))
        .collect();
    let names = |row: &NewRule, rule: &cel::CompiledRule| {
        rule.kind == row.kind && rule.path == row.path && rule.rule.rule.contains(row.fragment)
    };
    // Each added rule has exactly one row, and each row names exactly one added rule.
    for rule in &added {
        let rows_of = rows.iter().filter(|row| names(row, rule)).count();
        assert_eq!(
            rows_of, 1,
            "{} {}: `{}` has {rows_of} rows",
            rule.kind, rule.path, rule.rule.rule
        );
    }
    assert_eq!(added.len(), rows.len(), "23 rules added at 6609dea");
    for row in &rows {
        let object = |spec: &Value| serde_json::json!({"apiVersion": "x", "kind": row.kind, "metadata": {"name": "default"}, "spec": spec});
        let of_row = |spec: &Value| -> Vec<Outcome> {
            cel::evaluate(newest, row.kind, &object(spec))
                .into_iter()
                .filter(|failure| names(row, failure.rule))
                .map(|failure| failure.outcome)
                .collect()
        };
        let rejected = of_row(&row.rejects);
        assert!(
            matches!(rejected.as_slice(), [Outcome::Rejected(_)]),
            "{} `{}` does not reject {}: {rejected:?}",
            row.kind,
            row.fragment,
            row.rejects
        );
        let accepted = of_row(&row.accepts);
        assert!(
            accepted.is_empty(),
            "{} `{}` rejects {}: {accepted:?}",
            row.kind,
            row.fragment,
            row.accepts
        );
    }
}
