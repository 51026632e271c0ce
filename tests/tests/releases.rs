//! Several Calico releases (issue 15): what each release's schema index accepts, as `validate`
//! and `patch` report it with `--calico-version`, against the newest release's verdict.

use std::process::{Command, Output};

use calico_spec::release::{RELEASES, Release};
use calico_spec::rules::{self, Context, InputDocument};
use calico_spec::source::{Limits, parse_stream};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// `(code, path)` of every error of `yaml` validated for `version`.
fn errors(version: &str, yaml: &str) -> Vec<(String, String)> {
    let release = Release::for_version(version).expect("supported");
    let documents = parse_stream(yaml, &Limits::MANIFESTS).expect("YAML");
    let inputs: Vec<InputDocument<'_>> = documents
        .iter()
        .map(|document| InputDocument {
            file: "case.yaml",
            document,
        })
        .collect();
    let ctx = Context {
        release: Some(release),
        ..Context::assumed()
    };
    let mut outcome = rules::validate(&inputs, &ctx);
    calico_spec::release::apply_to_outcome(release, &inputs, &mut outcome);
    outcome
        .diagnostics
        .iter()
        .filter(|d| d.severity == calico_spec::diag::Severity::Error)
        .map(|d| (d.code.to_owned(), d.path.clone()))
        .collect()
}

fn felix(spec: &str) -> String {
    format!(
        "apiVersion: projectcalico.org/v3\nkind: FelixConfiguration\nmetadata:\n  name: default\nspec:\n{spec}"
    )
}

fn installation(spec: &str) -> String {
    format!(
        "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n{spec}"
    )
}

fn owned(rows: &[(&str, &str)]) -> Vec<(String, String)> {
    rows.iter()
        .map(|(c, p)| (c.to_string(), p.to_string()))
        .collect()
}

/// One row: a document, and the errors each release (v3.30.7, v3.31.7, v3.32.1, v3.33)
/// reports.
struct Row {
    yaml: String,
    per_release: [&'static [(&'static str, &'static str)]; 4],
}

#[test]
fn each_release_accepts_its_own_fields_and_values() {
    let rows = [
        // Added in v3.31.
        Row {
            yaml: felix("  bpfJITHardening: Auto\n"),
            per_release: [&[("CR0007", "spec.bpfJITHardening")], &[], &[], &[]],
        },
        // Added in v3.32.
        Row {
            yaml: felix("  istioAmbientMode: Enabled\n"),
            per_release: [
                &[("CR0007", "spec.istioAmbientMode")],
                &[("CR0007", "spec.istioAmbientMode")],
                &[],
                &[],
            ],
        },
        // Dropped in v3.32: known to v3.30 and v3.31.
        Row {
            yaml: felix("  iptablesLockTimeout: 10s\n"),
            per_release: [
                &[],
                &[],
                &[("CR0001", "spec.iptablesLockTimeout")],
                &[("CR0001", "spec.iptablesLockTimeout")],
            ],
        },
        // An enum value dropped in v3.32.
        Row {
            yaml: felix("  bpfRedirectToPeer: L2Only\n"),
            per_release: [
                &[],
                &[],
                &[("CR4010", "spec.bpfRedirectToPeer")],
                &[("CR4010", "spec.bpfRedirectToPeer")],
            ],
        },
        // An enum value added in v3.31.
        Row {
            yaml: installation("  kubernetesProvider: Kind\n"),
            per_release: [&[("CR0008", "spec.kubernetesProvider")], &[], &[], &[]],
        },
        // cni.specVersion exists in v3.31, is gone in v3.32 and is back in v3.33 (Auto, 0.3.1,
        // 0.4.0, 1.0.0): v3.32 now says the field arrives (again) with v3.33.
        Row {
            yaml: installation("  cni:\n    type: Calico\n    specVersion: 0.3.1\n"),
            per_release: [
                &[("CR0007", "spec.cni.specVersion")],
                &[],
                &[("CR0007", "spec.cni.specVersion")],
                &[],
            ],
        },
        Row {
            yaml: installation("  calicoNetwork:\n    kubeProxyManagement: Enabled\n"),
            per_release: [&[("CR0007", "spec.calicoNetwork.kubeProxyManagement")], &[], &[], &[]],
        },
        Row {
            yaml: "apiVersion: projectcalico.org/v3\nkind: BGPPeer\nmetadata:\n  name: p\nspec:\n  peerIP: 10.0.0.1\n  asNumber: 64512\n  keepaliveTime: 30s\n  localASNumber: 64513\n".to_owned(),
            per_release: [
                &[("CR0007", "spec.keepaliveTime"), ("CR0007", "spec.localASNumber")],
                &[("CR0007", "spec.keepaliveTime")],
                &[],
                &[],
            ],
        },
        Row {
            yaml: "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: p\nspec:\n  cidr: 10.10.0.0/16\n  allowedUses: [Workload]\n  namespaceSelector: all()\n".to_owned(),
            per_release: [&[("CR0007", "spec.namespaceSelector")], &[], &[], &[]],
        },
        // APIv1 leftovers of the v1 storage schema: the v3 API refuses them in every release.
        Row {
            yaml: "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: p\nspec:\n  cidr: 10.10.0.0/16\n  nat-outgoing: true\n".to_owned(),
            per_release: [
                &[("CR0001", "spec.nat-outgoing")],
                &[("CR0001", "spec.nat-outgoing")],
                &[("CR0001", "spec.nat-outgoing")],
                &[("CR0001", "spec.nat-outgoing")],
            ],
        },
        // tigera-operator v1.40 (read) and v1.38 (assumed) accept `nonPrivileged: Enabled`, but
        // not with the BPF dataplane; v1.42 refuses it in every case.
        Row {
            yaml: installation("  nonPrivileged: Enabled\n"),
            per_release: [
                &[],
                &[],
                &[("CR5018", "spec.nonPrivileged")],
                &[("CR5018", "spec.nonPrivileged")],
            ],
        },
        Row {
            yaml: installation("  nonPrivileged: Enabled\n  calicoNetwork:\n    linuxDataplane: BPF\n"),
            per_release: [
                &[("CR5018", "spec.nonPrivileged")],
                &[("CR5018", "spec.nonPrivileged")],
                &[("CR5018", "spec.nonPrivileged")],
                &[("CR5018", "spec.nonPrivileged")],
            ],
        },
        Row {
            yaml: installation("  nonPrivileged: Disabled\n"),
            per_release: [&[], &[], &[], &[]],
        },
        // Known everywhere: nothing to say in any release.
        Row {
            yaml: felix("  logSeverityScreen: Info\n"),
            per_release: [&[], &[], &[], &[]],
        },
        // New in v3.33 (operator release-v1.44 / calico release-v3.33 CRDs).
        Row {
            yaml: installation("  cni:\n    type: Calico\n    installMode: CalicoOnly\n"),
            per_release: [
                &[("CR0007", "spec.cni.installMode")],
                &[("CR0007", "spec.cni.installMode")],
                &[("CR0007", "spec.cni.installMode")],
                &[],
            ],
        },
        Row {
            yaml: installation("  imagePullPolicy: Always\n  calicoRunHostPath: /run/calico\n"),
            per_release: [
                &[("CR0007", "spec.calicoRunHostPath"), ("CR0007", "spec.imagePullPolicy")],
                &[("CR0007", "spec.calicoRunHostPath"), ("CR0007", "spec.imagePullPolicy")],
                &[("CR0007", "spec.calicoRunHostPath"), ("CR0007", "spec.imagePullPolicy")],
                &[],
            ],
        },
        Row {
            yaml: installation("  variant: CalicoEnterprise\n"),
            per_release: [
                &[("CR0008", "spec.variant")],
                &[("CR0008", "spec.variant")],
                &[("CR0008", "spec.variant")],
                &[],
            ],
        },
        Row {
            yaml: installation("  calicoNetwork:\n    clusterRoutingMode: FelixIPIPOnly\n"),
            per_release: [
                &[("CR0007", "spec.calicoNetwork.clusterRoutingMode")],
                &[("CR0007", "spec.calicoNetwork.clusterRoutingMode")],
                &[("CR0008", "spec.calicoNetwork.clusterRoutingMode")],
                &[],
            ],
        },
        // FIPS: v1.42 refuses it only with the Enterprise variant; release-v1.44 with every
        // variant ("FIPS mode has been removed", validateCustomResource).
        Row {
            yaml: installation("  fipsMode: Enabled\n"),
            per_release: [&[], &[], &[], &[("CR5018", "spec.fipsMode")]],
        },
        // v1.44 takes an unset clusterRoutingMode as FelixIPIPOnly: IPIP pools no longer need
        // BGP, unencapsulated pools still do; v1.42 and older refuse both.
        Row {
            yaml: installation(
                "  calicoNetwork:\n    bgp: Disabled\n    ipPools:\n    - cidr: 10.20.0.0/16\n      encapsulation: IPIP\n",
            ),
            per_release: [
                &[("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation")],
                &[("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation")],
                &[("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation")],
                &[],
            ],
        },
        Row {
            yaml: installation(
                "  calicoNetwork:\n    bgp: Disabled\n    ipPools:\n    - cidr: 10.20.0.0/16\n      encapsulation: None\n",
            ),
            per_release: [
                &[("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation")],
                &[("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation")],
                &[("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation")],
                &[("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation")],
            ],
        },
        Row {
            yaml: installation(
                "  calicoNetwork:\n    bgp: Disabled\n    clusterRoutingMode: BIRD\n    ipPools:\n    - cidr: 10.20.0.0/16\n      encapsulation: IPIP\n",
            ),
            per_release: [
                &[
                    ("CR0007", "spec.calicoNetwork.clusterRoutingMode"),
                    ("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation"),
                ],
                &[
                    ("CR0007", "spec.calicoNetwork.clusterRoutingMode"),
                    ("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation"),
                ],
                &[("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation")],
                &[("CR5009", "spec.calicoNetwork.ipPools[0].encapsulation")],
            ],
        },
    ];
    let mut failures = Vec::new();
    for row in &rows {
        for (release, expected) in RELEASES.iter().zip(row.per_release) {
            let mut got = errors(release.calico, &row.yaml);
            got.sort();
            let mut want = owned(expected);
            want.sort();
            if got != want {
                failures.push(format!(
                    "{}:\n{}\n  got {got:?}\n  want {want:?}",
                    release.calico, row.yaml
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The message of the refusal v1.40 keeps says why, and names the operator it follows.
#[test]
fn non_privileged_with_bpf_names_the_operator() {
    let yaml =
        installation("  nonPrivileged: Enabled\n  calicoNetwork:\n    linuxDataplane: BPF\n");
    let documents = parse_stream(&yaml, &Limits::MANIFESTS).expect("YAML");
    let inputs = [InputDocument {
        file: "i.yaml",
        document: &documents[0],
    }];
    let mut outcome = rules::validate(&inputs, &Context::assumed());
    let release = Release::for_version("v3.31.7").expect("supported");
    calico_spec::release::apply_to_outcome(release, &inputs, &mut outcome);
    let diag = outcome
        .diagnostics
        .iter()
        .find(|d| d.path == "spec.nonPrivileged")
        .expect("refused");
    assert_eq!(
        diag.message,
        "`nonPrivileged: Enabled` is not supported with the BPF dataplane by tigera-operator v1.40.0"
    );
    let location = diag.location.as_ref().expect("located");
    assert_eq!(location.line, Some(6));
}

/// What `render` writes for each release: the v1.40 operator's `nonPrivileged: Disabled`
/// default for v3.31 (and, assumed, v3.30), none for v3.32.
#[test]
fn rendered_installation_carries_the_release_operators_defaults() {
    let cn = |version: &str| {
        format!(
            "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: c\nspec:\n  calicoVersion: {version}\n  podPools:\n  - name: pods\n    cidr: 172.20.0.0/16\n"
        )
    };
    for (version, want) in [
        ("v3.30.7", Some("Disabled")),
        ("v3.31.7", Some("Disabled")),
        ("v3.32.1", None),
    ] {
        let loaded = calico_spec::cluster_network::load("c.yaml", &cn(version)).expect("loads");
        let installation = loaded
            .objects
            .iter()
            .find_map(|object| match object {
                calico_spec::objects::Object::Installation(installation) => Some(installation),
                _ => None,
            })
            .expect("an Installation");
        let got = installation
            .spec
            .as_ref()
            .and_then(|spec| spec.non_privileged.as_deref());
        assert_eq!(got, want, "{version}");
    }
}

/// The same verdicts for an Installation override in a ClusterNetwork: `nonPrivileged: Enabled`
/// renders for v3.31 (and v3.30), is CN-located CR5018 for v3.32 and, with BPF, for v3.31 too.
#[test]
fn non_privileged_override_follows_the_release() {
    let cn = |version: &str, dataplane: &str| {
        format!(
            "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: c\nspec:\n  calicoVersion: {version}\n  dataplane: {dataplane}\n  podPools:\n  - name: pods\n    cidr: 172.20.0.0/16\n  overrides:\n    installation:\n      spec:\n        nonPrivileged: Enabled\n"
        )
    };
    let refusals = |text: &str| match calico_spec::cluster_network::load("c.yaml", text) {
        Ok(_) => Vec::new(),
        Err(calico_spec::cluster_network::ParseError::Invalid { diagnostics }) => diagnostics
            .iter()
            .filter(|d| d.severity == calico_spec::diag::Severity::Error)
            .map(|d| format!("{} {}", d.code, d.path))
            .collect(),
        Err(err) => panic!("{err}"),
    };
    let refused = vec!["CR5018 spec.overrides.installation.spec.nonPrivileged".to_owned()];
    assert_eq!(refusals(&cn("v3.30.7", "Iptables")), Vec::<String>::new());
    assert_eq!(refusals(&cn("v3.31.7", "Iptables")), Vec::<String>::new());
    assert_eq!(refusals(&cn("v3.32.1", "Iptables")), refused);
    assert_eq!(refusals(&cn("v3.31.7", "BPF")), refused);
}

#[test]
fn a_field_of_a_later_release_names_that_release() {
    let release = &RELEASES[0];
    let documents =
        parse_stream(&felix("  istioAmbientMode: Enabled\n"), &Limits::MANIFESTS).expect("YAML");
    let inputs = [InputDocument {
        file: "f.yaml",
        document: &documents[0],
    }];
    let ctx = Context {
        release: Some(release),
        ..Context::assumed()
    };
    let mut outcome = rules::validate(&inputs, &ctx);
    calico_spec::release::apply_to_outcome(release, &inputs, &mut outcome);
    let diag = &outcome.diagnostics[0];
    assert_eq!(diag.code, "CR0007");
    assert_eq!(
        diag.message,
        "field `istioAmbientMode` is not known to Calico v3.30 (v3.30.7); it first appears in Calico v3.32"
    );
    let location = diag.location.as_ref().expect("located");
    assert_eq!((location.line, location.column), (Some(6), Some(3)));
}

fn run(args: &[&str]) -> Output {
    Command::new(calico_render_tests::calico_render())
        .args(args)
        .current_dir(ROOT)
        .output()
        .expect("calico-render runs")
}

#[test]
fn validate_refuses_an_unsupported_version_with_the_list() {
    for bad in ["v3.29.4", "v3.34.0", "latest"] {
        let out = run(&[
            "validate",
            "-f",
            "examples/invalid/manifests.yaml",
            "--calico-version",
            bad,
        ]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("supported: v3.30.x, v3.31.x, v3.32.x, v3.33.x (v3.33: data from"),
            "{bad}: {stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn the_default_is_v3_32() {
    let file = "examples/invalid/manifests.yaml";
    let default = run(&["validate", "-f", file, "-o", "json"]);
    let newest = run(&[
        "validate",
        "-f",
        file,
        "-o",
        "json",
        "--calico-version",
        "v3.32.1",
    ]);
    assert_eq!(default.stdout, newest.stdout);
    assert_eq!(default.status.code(), newest.status.code());
}

#[test]
fn validate_and_patch_follow_the_version() {
    let dir = tempfile::tempdir().expect("temp dir");
    let desired = dir.path().join("felix.yaml");
    std::fs::write(&desired, felix("  bpfJITHardening: Auto\n")).expect("write");
    let live = dir.path().join("live.yaml");
    std::fs::write(&live, felix("  logSeverityScreen: Info\n")).expect("write");
    let desired = desired.to_str().expect("utf-8 path");
    let live = live.to_str().expect("utf-8 path");
    for (version, code) in [("v3.30.7", 1), ("v3.31.7", 0), ("v3.32.1", 0)] {
        let out = run(&["validate", "-f", desired, "--calico-version", version]);
        assert_eq!(out.status.code(), Some(code), "validate {version}");
        let out = run(&[
            "patch",
            "-f",
            desired,
            "--live",
            live,
            "--calico-version",
            version,
        ]);
        assert_eq!(out.status.code(), Some(code), "patch {version}");
        if code == 1 {
            assert!(out.stdout.is_empty(), "a refused patch prints nothing");
            assert!(String::from_utf8_lossy(&out.stderr).contains("CR0007"));
        }
    }
}

// ---- ClusterNetworks for each release: render, refusals, snapshots, schema check ----

/// The example's ClusterNetwork with `spec.calicoVersion` set to `version`.
fn example_for(name: &str, version: &str) -> String {
    let text = std::fs::read_to_string(format!("{ROOT}/examples/{name}/cluster.yaml"))
        .expect("example readable");
    let mut out = String::new();
    let mut set = false;
    for line in text.lines() {
        if line.trim_start().starts_with("calicoVersion:") && line.starts_with("  ") {
            out.push_str(&format!("  calicoVersion: {version}\n"));
            set = true;
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if line == "spec:" && !text.contains("\n  calicoVersion:") {
            out.push_str(&format!("  calicoVersion: {version}\n"));
            set = true;
        }
    }
    assert!(set, "{name}: no place for calicoVersion");
    out
}

fn example_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(format!("{ROOT}/examples"))
        .expect("examples")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().to_string_lossy().into_owned();
            (name != "invalid" && entry.path().join("cluster.yaml").is_file()).then_some(name)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    names
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../snapshots/releases"
    ));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

fn render_yaml(objects: &[calico_spec::objects::Object]) -> String {
    use calico_render::bundle::{self, Format, RenderConfig, Stage};
    bundle::render_bundle(
        &RenderConfig {
            stage: Stage::All,
            format: Format::Yaml,
        },
        objects,
    )
    .expect("bundle renders")
}

/// Every example for every release but the default: the YAML bundle, or the refusal, pinned by
/// a snapshot (`snapshots/releases/<example>.<release>.snap`; v3.33's are
/// `<example>.v3.33.0.snap`). The default release's bundles are
/// `snapshots/render/<example>.yaml.snap`, which `the_default_release_renders_as_the_default`
/// ties to an explicit `calicoVersion`.
#[test]
fn every_example_for_every_release() {
    for name in example_names() {
        for release in RELEASES.iter().filter(|r| *r != Release::default_target()) {
            let file = format!("examples/{name}/cluster.yaml");
            let text = example_for(&name, release.calico);
            let shown = match calico_spec::cluster_network::load(&file, &text) {
                // A v3.33 bundle starts with the API mode it assumes and the install order.
                Ok(loaded) => {
                    calico_render::bundle::mode_header(&loaded.cluster_network).unwrap_or_default()
                        + &render_yaml(&loaded.objects)
                }
                Err(calico_spec::cluster_network::ParseError::Invalid { diagnostics }) => {
                    let mut out = String::from("# refused\n");
                    for diag in diagnostics
                        .iter()
                        .filter(|d| d.severity == calico_spec::diag::Severity::Error)
                    {
                        out.push_str(&format!("{} {}: {}\n", diag.code, diag.path, diag.message));
                    }
                    out
                }
                Err(err) => panic!("{file} for {}: {err}", release.calico),
            };
            snapshot(&format!("{name}.{}", release.calico), &shown);
        }
    }
}

/// For the default release (v3.32, not yet the newest) the output is the default output,
/// byte for byte.
#[test]
fn the_default_release_renders_as_the_default() {
    for name in example_names() {
        let file = format!("examples/{name}/cluster.yaml");
        let default = std::fs::read_to_string(format!("{ROOT}/{file}")).expect("example");
        let newest = example_for(&name, Release::default_target().calico);
        let a = calico_spec::cluster_network::load(&file, &default).expect("loads");
        let b = calico_spec::cluster_network::load(&file, &newest).expect("loads");
        assert_eq!(render_yaml(&a.objects), render_yaml(&b.objects), "{name}");
    }
}

#[test]
fn cluster_network_versions() {
    let cn = |version: &str, extra: &str| {
        format!(
            "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: c\nspec:\n  calicoVersion: {version}\n  podPools:\n  - name: pods\n    cidr: 172.20.0.0/16\n{extra}"
        )
    };
    let codes = |text: &str| -> Vec<(String, String)> {
        match calico_spec::cluster_network::load("c.yaml", text) {
            Ok(_) => Vec::new(),
            Err(calico_spec::cluster_network::ParseError::Invalid { diagnostics }) => diagnostics
                .iter()
                .filter(|d| d.severity == calico_spec::diag::Severity::Error)
                .map(|d| (d.code.to_owned(), d.path.clone()))
                .collect(),
            Err(err) => panic!("{err}"),
        }
    };
    for version in [
        "v3.30.0", "v3.30.7", "v3.31.7", "v3.32.1", "v3.32.9", "v3.33.0", "v3.33.2",
    ] {
        assert_eq!(codes(&cn(version, "")), vec![], "{version}");
    }
    for version in ["v3.29.9", "v3.34.0", "v3.33", "3.32.1"] {
        assert_eq!(
            codes(&cn(version, "")),
            owned(&[("CN0101", "spec.calicoVersion")]),
            "{version}"
        );
    }
    let no_api_server =
        "  calicoAPIServer: false\n  bgp:\n    enabled: true\n    asNumber: 64512\n";
    assert_eq!(
        codes(&cn("v3.31.7", no_api_server)),
        owned(&[("CN0112", "spec.calicoAPIServer")])
    );
    assert_eq!(codes(&cn("v3.32.1", no_api_server)), vec![]);
    let bootstrap = "  dataplane: BPF\n  bpfNetworkBootstrap: true\n  manageKubeProxy: true\n";
    let mut got = codes(&cn("v3.30.7", bootstrap));
    got.sort();
    assert_eq!(
        got,
        owned(&[
            ("CN0112", "spec.bpfNetworkBootstrap"),
            ("CN0112", "spec.manageKubeProxy")
        ])
    );
    assert_eq!(codes(&cn("v3.31.7", bootstrap)), vec![]);
}

/// An offline structural check of a value against a CRD schema, written from the Kubernetes
/// rules (unknown fields are refused where the schema does not preserve them, required fields,
/// types, enums, bounds, lengths), independent of the schema index that rendering consults.
fn schema_problems(
    schema: &calico_codegen::ir::Schema,
    value: &serde_json::Value,
    path: &str,
    out: &mut Vec<String>,
) {
    use calico_codegen::ir::SchemaType;
    use serde_json::Value;
    let c = &schema.constraints;
    if !c.enum_values.is_empty() && !c.enum_values.contains(value) {
        out.push(format!("{path}: {value} not in enum"));
    }
    match (&schema.ty, value) {
        (
            SchemaType::Object {
                properties,
                additional,
            },
            Value::Object(map),
        ) => {
            for prop in properties.iter().filter(|p| p.required) {
                if !map.contains_key(&prop.name) {
                    out.push(format!("{path}: required {} missing", prop.name));
                }
            }
            for (key, child) in map {
                let child_path = format!("{path}.{key}");
                if path.is_empty() && key == "metadata" {
                    continue;
                }
                match properties.iter().find(|p| &p.name == key) {
                    Some(prop) => schema_problems(&prop.schema, child, &child_path, out),
                    None => match additional {
                        Some(additional) => schema_problems(additional, child, &child_path, out),
                        None => out.push(format!("{child_path}: unknown field")),
                    },
                }
            }
        }
        (SchemaType::Array(items), Value::Array(list)) => {
            if c.max_items.is_some_and(|max| list.len() as u64 > max) {
                out.push(format!("{path}: too many items"));
            }
            for (idx, item) in list.iter().enumerate() {
                schema_problems(items, item, &format!("{path}[{idx}]"), out);
            }
        }
        (SchemaType::String, Value::String(text)) => {
            let n = text.chars().count() as u64;
            if c.max_length.is_some_and(|max| n > max) || c.min_length.is_some_and(|min| n < min) {
                out.push(format!("{path}: length {n} out of bounds"));
            }
        }
        (SchemaType::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => {
            let x = n.as_f64().unwrap_or_default();
            let min = c.minimum.as_ref().and_then(serde_json::Number::as_f64);
            let max = c.maximum.as_ref().and_then(serde_json::Number::as_f64);
            if min.is_some_and(|m| x < m) || max.is_some_and(|m| x > m) {
                out.push(format!("{path}: {x} out of bounds"));
            }
            if c.format.as_deref() == Some("int32")
                && !(i32::MIN as f64..=i32::MAX as f64).contains(&x)
            {
                out.push(format!("{path}: {x} is not an int32"));
            }
        }
        (SchemaType::Number, Value::Number(_))
        | (SchemaType::Boolean, Value::Bool(_))
        | (SchemaType::IntOrString, Value::Number(_) | Value::String(_))
        | (SchemaType::Any { .. }, _) => {}
        (_, Value::Null) if c.nullable => {}
        (ty, value) => out.push(format!("{path}: {value} is not of type {ty:?}")),
    }
}

/// The CRD schema of `kind` in `release`: the native v3 CRD where the release has one, else
/// the crd.projectcalico.org/v1 CRD the Calico API server stores v3 objects in.
fn crd_schema(release: &Release, kind: &str) -> Option<calico_codegen::ir::Schema> {
    let dir = format!("{ROOT}/crds/{}", release.data);
    let group_prefix = if release.native_v3_crds {
        "projectcalico.org_"
    } else {
        "crd.projectcalico.org_"
    };
    for entry in std::fs::read_dir(&dir).expect("release CRDs").flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if !(file.starts_with(group_prefix) || file.starts_with("operator.tigera.io_")) {
            continue;
        }
        let source = calico_codegen::Source {
            name: file.clone(),
            text: std::fs::read_to_string(entry.path()).expect("CRD readable"),
        };
        for crd in calico_codegen::crd::parse_source(&source).expect("CRD parses") {
            if crd.kind == kind {
                return crd.versions.last().map(|v| v.schema.clone());
            }
        }
    }
    None
}

/// Every object rendered for a release fits that release's own CRD schema.
#[test]
fn every_rendered_object_fits_its_release_crds() {
    // Every release's schema and CEL rules, v3.33's included (offline: no API server).
    let mut problems = Vec::new();
    let mut n_checked = 0;
    for name in example_names() {
        for release in &RELEASES {
            let file = format!("examples/{name}/cluster.yaml");
            let Ok(loaded) =
                calico_spec::cluster_network::load(&file, &example_for(&name, release.calico))
            else {
                continue;
            };
            for object in &loaded.objects {
                let value = object.to_value();
                let Some(kind) = calico_spec::release::indexed_kind(&value) else {
                    continue;
                };
                let schema = crd_schema(release, kind)
                    .unwrap_or_else(|| panic!("{} has no {kind} CRD", release.calico));
                let mut found = Vec::new();
                schema_problems(&schema, &value, "", &mut found);
                // And the CEL rules of the release's CRDs (v3.32 and v3.33 have them).
                for failure in calico_spec::release::cel::evaluate(release, kind, &value) {
                    found.push(format!("{}: {:?}", failure.at, failure.outcome));
                }
                n_checked += 1;
                for problem in found {
                    problems.push(format!("{name} {} {kind}: {problem}", release.calico));
                }
            }
        }
    }
    assert!(n_checked > 30, "only {n_checked} objects checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A ClusterNetwork for `version` with one pod pool, BGP on (so it renders a BGPConfiguration,
/// a projectcalico.org/v3 object) and `extra` spec lines.
fn mode_case(version: &str, extra: &str) -> String {
    format!(
        "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: c\nspec:\n  calicoVersion: {version}\n  podPools:\n  - name: pods\n    cidr: 172.20.0.0/16\n  bgp:\n    enabled: true\n    asNumber: 64512\n{extra}"
    )
}

/// The API mode each release assumes (tigera-operator release-v1.44 `pkg/apis/version.go`
/// `useV3CRDs` starts a new install on the native v3 CRDs; v1.42.3 on the v1 CRDs), what
/// `apiMode` and `calicoAPIServer` change, and what no release can express.
#[test]
fn the_api_mode_follows_the_release_and_the_file() {
    use calico_spec::cluster_network::{ApiMode, ParseError, load};
    /// The mode, or the one error `(code, path)`.
    type Verdict = Result<ApiMode, (&'static str, &'static str)>;
    let rows: [(&str, &str, Verdict); 9] = [
        ("v3.33.0", "", Ok(ApiMode::NativeV3)),
        (
            "v3.33.0",
            "  calicoAPIServer: false\n",
            Ok(ApiMode::NativeV3),
        ),
        (
            "v3.33.0",
            "  apiMode: Aggregated\n",
            Ok(ApiMode::Aggregated),
        ),
        ("v3.32.1", "", Ok(ApiMode::Aggregated)),
        (
            "v3.32.1",
            "  calicoAPIServer: false\n",
            Ok(ApiMode::NativeV3),
        ),
        ("v3.32.1", "  apiMode: NativeV3\n", Ok(ApiMode::NativeV3)),
        // Nothing serves projectcalico.org/v3 for the BGPConfiguration.
        (
            "v3.33.0",
            "  apiMode: Aggregated\n  calicoAPIServer: false\n",
            Err(("CN0002", "spec.calicoAPIServer")),
        ),
        (
            "v3.31.7",
            "  apiMode: NativeV3\n",
            Err(("CN0112", "spec.apiMode")),
        ),
        (
            "v3.30.7",
            "  calicoAPIServer: false\n",
            Err(("CN0112", "spec.calicoAPIServer")),
        ),
    ];
    for (version, extra, expected) in rows {
        let text = mode_case(version, extra);
        match (load("c.yaml", &text), expected) {
            (Ok(loaded), Ok(mode)) => {
                assert_eq!(
                    loaded.cluster_network.spec.resolved_api_mode(),
                    mode,
                    "{version} {extra:?}"
                );
                let header = calico_render::bundle::mode_header(&loaded.cluster_network);
                let apiserver = loaded.objects.iter().any(|o| o.kind() == "APIServer");
                assert_eq!(apiserver, !extra.contains("calicoAPIServer: false"));
                match (version, mode) {
                    ("v3.33.0", ApiMode::NativeV3) => {
                        let header = header.expect("a v3.33 bundle says its mode");
                        assert!(header.contains("# API mode: NativeV3"), "{header}");
                        assert!(header.contains("/v3.33.0/manifests/v3_projectcalico_org.yaml"));
                        assert_eq!(header.contains("calico-webhooks"), apiserver, "{header}");
                    }
                    ("v3.33.0", ApiMode::Aggregated) => {
                        let header = header.expect("a v3.33 bundle says its mode");
                        assert!(header.contains("# API mode: Aggregated"), "{header}");
                        assert!(header.contains("/v3.33.0/manifests/operator-crds.yaml"));
                    }
                    _ => assert_eq!(header, None, "{version}: bundles stay as they were"),
                }
                assert!(header_lines_are_comments(
                    calico_render::bundle::mode_header(&loaded.cluster_network).as_deref()
                ));
            }
            (Err(ParseError::Invalid { diagnostics }), Err((code, path))) => {
                let errors: Vec<(&str, &str)> = diagnostics
                    .iter()
                    .filter(|d| d.severity == calico_spec::diag::Severity::Error)
                    .map(|d| (d.code, d.path.as_str()))
                    .collect();
                assert_eq!(errors, [(code, path)], "{version} {extra:?}");
            }
            (got, want) => panic!(
                "{version} {extra:?}: {:?} against {want:?}",
                got.map(|_| ())
            ),
        }
    }
}

fn header_lines_are_comments(header: Option<&str>) -> bool {
    header.is_none_or(|h| h.ends_with('\n') && h.lines().all(|line| line.starts_with("# ")))
}

/// An existing v3.32 cluster on the aggregated API server keeps that mode on the way to v3.33,
/// whose operator starts only *new* installs on the native v3 CRDs: the plan writes
/// `apiMode: Aggregated` into the file, replaces operator-crds.yaml (the v1 CRDs) and renders
/// the target in that mode.
#[test]
fn an_aggregated_cluster_keeps_its_mode_on_the_way_to_v3_33() {
    use calico_render::upgrade::{Version, plan, to_json};
    let text = mode_case("v3.32.1", "");
    let to: Version = "v3.33.0".parse().expect("supported");
    let levels = calico_render::report::LintLevels::default();
    let planned = plan("c.yaml", &text, &to, &levels).expect("plans");
    assert!(!planned.native_v3);
    let json = to_json(&planned);
    assert_eq!(json["keepApiMode"], "Aggregated", "{json:#}");
    assert_eq!(
        json["steps"]["crds"]["url"],
        "https://raw.githubusercontent.com/projectcalico/calico/v3.33.0/manifests/operator-crds.yaml"
    );
    // The same file, moved as step 0 says, renders in the kept mode.
    let moved = text.replace("v3.32.1", "v3.33.0") + "  apiMode: Aggregated\n";
    let loaded = calico_spec::cluster_network::load("c.yaml", &moved).expect("loads");
    let header = calico_render::bundle::mode_header(&loaded.cluster_network).expect("v3.33");
    assert!(header.contains("# API mode: Aggregated"), "{header}");
    // A native v3.32 cluster needs nothing written: v3.33 assumes its mode already.
    let native = mode_case("v3.32.1", "  calicoAPIServer: false\n");
    let planned = plan("c.yaml", &native, &to, &levels).expect("plans");
    assert!(planned.native_v3);
    assert_eq!(planned.keep_api_mode, None);
}

/// The images to mirror for the air-gapped example (its registry, `imagePath` and
/// `kubeletVolumePluginPath: None`), per release: `render -o images`
/// (`snapshots/releases/air-gapped.<release>.images.snap`). v3.33 pulls `calico/calico` where
/// v3.32 pulled kube-controllers, typha, cni, flexvol and the API server.
#[test]
fn the_air_gapped_images_per_release() {
    let dir = tempfile::tempdir().expect("temp dir");
    for release in &RELEASES {
        let path = dir.path().join(format!("{}.yaml", release.calico));
        std::fs::write(&path, example_for("air-gapped", release.calico)).expect("write");
        let out = run(&[
            "render",
            "-f",
            path.to_str().expect("utf-8"),
            "-o",
            "images",
            "--allow",
            "CN0204",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let images: Vec<&str> = text
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| line.split_whitespace().next())
            .collect();
        let mirror = "registry.corp.internal:5000/mirror/calico/";
        let calico = images.contains(&format!("{mirror}calico:{}", release.calico).as_str());
        let typha = images.contains(&format!("{mirror}typha:{}", release.calico).as_str());
        assert_eq!(calico, release.minor == "v3.33", "{text}");
        assert_eq!(typha, release.minor != "v3.33", "{text}");
        assert!(
            !images.iter().any(|image| image.contains("/csi:")),
            "kubeletVolumePluginPath: None: {text}"
        );
        assert!(images.contains(&format!("quay.io/tigera/operator:{}", release.operator).as_str()));
        snapshot(&format!("air-gapped.{}.images", release.calico), &text);
    }
    // `--stage` does not apply.
    let out = run(&[
        "render",
        "-f",
        &format!("{ROOT}/examples/air-gapped/cluster.yaml"),
        "-o",
        "images",
        "--stage",
        "operator",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

/// ImageSets judged by the target release's operator (`ValidateImageSet`, `GetImageSet`):
/// v3.33 dropped the component images, so an ImageSet carried over from v3.32 is refused.
#[test]
fn image_sets_follow_the_release() {
    let image_set = |name: &str, images: &[(&str, &str)]| {
        let mut out = format!(
            "apiVersion: operator.tigera.io/v1\nkind: ImageSet\nmetadata:\n  name: {name}\nspec:\n  images:\n"
        );
        for (image, digest) in images {
            out.push_str(&format!("  - image: {image}\n    digest: {digest}\n"));
        }
        out
    };
    let sha = "sha256:0123";
    let v3_32 = image_set(
        "calico-v3.32.1",
        &[
            ("calico/typha", sha),
            ("calico/node", sha),
            ("calico/apiserver", sha),
        ],
    );
    assert_eq!(errors("v3.32.1", &v3_32), owned(&[]));
    // The same set under v3.33's operator: the name and both dropped images.
    assert_eq!(
        errors("v3.33.0", &v3_32),
        owned(&[
            ("CR5022", "metadata.name"),
            ("CR5022", "spec.images[0].image"),
            ("CR5022", "spec.images[2].image"),
        ])
    );
    let v3_33 = image_set(
        "calico-v3.33.0",
        &[
            ("calico/calico", sha),
            ("calico/node", sha),
            ("calico/whisker", "md5:1"),
        ],
    );
    assert_eq!(
        errors("v3.33.0", &v3_33),
        owned(&[("CR5022", "spec.images[2].digest")])
    );
    assert_eq!(
        errors("v3.32.1", &v3_33),
        owned(&[
            ("CR5022", "metadata.name"),
            ("CR5022", "spec.images[0].image"),
            ("CR5022", "spec.images[2].digest"),
        ])
    );
}

/// The CLI says the mode a v3.33 bundle assumes: as the first lines of the YAML stream, and on
/// standard error for `-o json` (a JSON List holds no comments), whose standard output stays
/// the List alone; a v3.32 bundle says nothing.
#[test]
fn render_says_the_mode_of_a_v3_33_bundle() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("c.yaml");
    let file = path.to_str().expect("utf-8");
    std::fs::write(&path, mode_case("v3.33.0", "")).expect("write");
    let yaml = run(&["render", "-f", file]);
    assert!(yaml.status.success());
    let yaml = String::from_utf8(yaml.stdout).expect("utf-8");
    assert!(
        yaml.starts_with("# calico-render: a bundle for Calico v3.33.0"),
        "{yaml}"
    );
    assert!(yaml.contains("\n# API mode: NativeV3"), "{yaml}");
    let json = run(&["render", "-f", file, "-o", "json"]);
    assert!(json.status.success());
    let list: serde_json::Value = serde_json::from_slice(&json.stdout).expect("a JSON List");
    assert_eq!(list["kind"], "List");
    let stderr = String::from_utf8(json.stderr).expect("utf-8");
    assert!(stderr.contains("# API mode: NativeV3"), "{stderr}");
    std::fs::write(&path, mode_case("v3.32.1", "")).expect("write");
    let old = run(&["render", "-f", file]);
    assert!(old.status.success());
    assert!(old.stdout.starts_with(b"apiVersion: "));
}
