//! The first hour (issue 35): the mistakes a new user makes get one clear answer. `render`
//! given upstream objects names what it takes and the commands that take them; `-o
//! helm-values` with `--stage` is a usage error; a patch body handed to `validate` is
//! recognised, with why a merge patch replaces whole pool lists.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const EXAMPLE: &str = "examples/iptables-ipip/cluster.yaml";

fn run(args: &[&str], stdin: &str) -> Output {
    calico_render_tests::run_calico_render(args, Path::new(ROOT), stdin.as_bytes())
}

#[test]
fn render_given_upstream_objects_names_validate_and_import() {
    let pool = "apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: p\nspec:\n  \
                cidr: 10.48.0.0/16\n";
    let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: operator.tigera.io/v1\n  \
                kind: Installation\n  metadata:\n    name: default\n";
    for (input, what) in [
        (pool, "holds IPPool (projectcalico.org/v3)"),
        (list, "holds a List (v1) of objects"),
        (
            "# the operator's object\napiVersion: operator.tigera.io/v1\nkind: Installation\n\
             metadata:\n  name: default\nspec: {}\n",
            "holds Installation (operator.tigera.io/v1)",
        ),
    ] {
        let output = run(&["render", "-f", "-"], input);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(output.stdout.is_empty());
        assert!(stderr.contains(what), "{stderr}");
        assert!(stderr.contains("not a ClusterNetwork"), "{stderr}");
        assert!(
            stderr.contains("`calico-render validate -f -`")
                && stderr.contains("`calico-render import -f -`"),
            "{stderr}"
        );
        assert_eq!(
            stderr.lines().count(),
            2,
            "one error and its hint: {stderr}"
        );
    }
    // A ClusterNetwork with a typo in its kind only is still read as one: the usual error.
    let typo = std::fs::read_to_string(format!("{ROOT}/{EXAMPLE}"))
        .expect("example")
        .replace("kind: ClusterNetwork", "kind: ClusterNetwrok");
    let output = run(&["render", "-f", "-"], &typo);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr.contains("CN0002") && stderr.contains("ClusterNetwrok"),
        "{stderr}"
    );
    assert!(!stderr.contains("not a ClusterNetwork"), "{stderr}");
}

#[test]
fn helm_values_with_a_stage_is_a_usage_error() {
    for stage in ["operator", "calico"] {
        let output = run(
            &[
                "render",
                "-f",
                EXAMPLE,
                "-o",
                "helm-values",
                "--stage",
                stage,
            ],
            "",
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stage}: {stderr}");
        assert!(output.stdout.is_empty());
        assert!(stderr.contains("`--stage` does not apply"), "{stderr}");
    }
    let output = run(&["render", "-f", EXAMPLE, "-o", "helm-values"], "");
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn a_patch_body_given_to_validate_is_recognised() {
    let cases = [
        (
            r#"[{"op":"replace","path":"/spec/calicoNetwork/mtu","value":1400}]"#,
            Some("this is a JSON patch (RFC 6902"),
        ),
        (
            "- op: test\n  path: /spec/calicoNetwork/ipPools/0/name\n  value: pods\n",
            Some("this is a JSON patch (RFC 6902"),
        ),
        (
            r#"{"spec":{"calicoNetwork":{"ipPools":[{"cidr":"10.48.0.0/16"}]}}}"#,
            Some("replaces all pools with those it lists"),
        ),
        // Not a patch: no advice about patches.
        ("just text\n", None),
        ("[1, 2]\n", None),
    ];
    for (input, advice) in cases {
        let output = run(&["validate", "-f", "-", "-o", "json"], input);
        assert_eq!(output.status.code(), Some(1), "{input}");
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let diag = &report["diagnostics"][0];
        assert_eq!(diag["code"], "CR0004", "{input}: {report:#}");
        let hint = diag["hint"].as_str();
        match advice {
            Some(advice) => assert!(
                hint.is_some_and(|hint| hint.contains(advice)),
                "{input}: {hint:?}"
            ),
            None => assert!(
                hint.is_none_or(|hint| !hint.contains("patch")),
                "{input}: {hint:?}"
            ),
        }
    }
}

/// `cargo add calico-render` writes `calico-render = "0.1"`, default features on. Those must not
/// include the binary's: its `k8s-openapi/latest` meets the dependent's own version feature and
/// k8s-openapi's build script fails with a message that does not name us (issue 35, item 4).
/// The dependent CI builds (`tests/consumer-v1_35`) depends on us exactly that way.
#[test]
fn cargo_add_gives_the_library_without_the_cli() {
    let manifest: toml_lite::Table = toml_lite::parse(
        &std::fs::read_to_string(Path::new(ROOT).join("calico-render/Cargo.toml")).unwrap(),
    );
    let default = manifest.array("features", "default");
    assert!(
        default.iter().all(|feature| feature != "cli"),
        "calico-render's default features hold `cli`: {default:?}"
    );
    let cli = manifest.array("features", "cli");
    assert!(
        cli.iter()
            .any(|feature| feature.starts_with("k8s-openapi/")),
        "the `cli` feature is where the binary picks its Kubernetes version: {cli:?}"
    );
    // Nothing on by default may reach a k8s-openapi version feature.
    assert!(
        default.iter().all(|f| !f.starts_with("k8s-openapi/")),
        "{default:?}"
    );
    let consumer =
        std::fs::read_to_string(Path::new(ROOT).join("tests/consumer-v1_35/Cargo.toml")).unwrap();
    let line = consumer
        .lines()
        .find(|line| line.starts_with("calico-render ="))
        .unwrap();
    assert!(
        !line.contains("default-features") && !line.contains("features"),
        "the consumer must depend on calico-render as `cargo add` writes it: {line}"
    );
    // README's library section says the same.
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    assert!(
        readme.contains("calico-render = \"0.1\""),
        "README's toml snippet"
    );
    assert!(
        readme.contains("`cargo install calico-render\n--features cli`"),
        "README says how to install the binary"
    );
}

/// A tiny reader of the two `[features]` arrays this test needs (no TOML crate in the suite).
mod toml_lite {
    pub struct Table(String);

    pub fn parse(text: &str) -> Table {
        Table(text.to_owned())
    }

    impl Table {
        /// The strings of `key = [ ... ]` in `[section]`.
        pub fn array(&self, section: &str, key: &str) -> Vec<String> {
            let header = format!("[{section}]");
            let body = self.0.split(&header).nth(1).unwrap_or("");
            let body = body.split("\n[").next().unwrap_or("");
            let start = body
                .find(&format!("\n{key} = ["))
                .or_else(|| body.find(&format!("{key} = [")))
                .unwrap_or_else(|| panic!("no `{key}` in [{section}]"));
            let rest = &body[start..];
            let open = rest.find('[').unwrap();
            let close = rest.find(']').unwrap();
            rest[open + 1..close]
                .split(',')
                .map(|item| item.trim().trim_matches('"').to_owned())
                .filter(|item| !item.is_empty())
                .collect()
        }
    }
}

/// README's import recipe reads the endpoint ConfigMap too (without it, an eBPF cluster's
/// import has no `apiEndpoint` and says the Installation is inexpressible), the same commands
/// `import --help` gives, and names the manifest-install path.
#[test]
fn readmes_import_recipe_includes_the_endpoint_config_map() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let endpoint =
        "kubectl -n tigera-operator get cm kubernetes-services-endpoint -o yaml > endpoint.yaml";
    assert!(readme.contains(endpoint), "README lacks `{endpoint}`");
    assert!(
        readme.contains("calico-render import -f live.yaml -f endpoint.yaml --out cluster.yaml"),
        "README's import line does not read endpoint.yaml"
    );
    assert!(readme.contains("calico-render import -f calico.yaml"));
    let help = run(&["import", "--help"], "");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains(
            "kubectl -n tigera-operator get cm kubernetes-services-endpoint -o yaml > endpoint.yaml"
        ),
        "{help}"
    );
    assert!(help.contains("calico-render import -f live.yaml -f endpoint.yaml --out cluster.yaml"));
}

/// The quick start says how long the first build takes, right after its first command (a
/// newcomer watching a silent `cargo run -q` for minutes otherwise thinks it hangs).
#[test]
fn readme_says_how_long_the_first_build_takes() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let command = "cargo run -q -p calico-render --features cli -- render";
    let at = readme.find(command).expect("README's first command");
    let after = &readme[at..];
    let next_step = after.find("**2.").expect("README's second step");
    let between = &after[..next_step];
    assert!(
        between.contains("first build") && between.contains("minutes"),
        "no build time between the first and the second step: {between}"
    );
}

/// Hints fit the mistake (issue 35, first hour): a kubeconfig's `server:` URL written as the
/// API endpoint's host is named as such, with the host and the port where they go; the
/// Installation's `bgp: Disabled` written in a ClusterNetwork says what a ClusterNetwork takes.
#[test]
fn hints_fit_the_mistake() {
    let cluster = |spec: &str| {
        format!(
            "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: \
             t\nspec:\n{spec}  podPools:\n    - name: p\n      cidr: 10.244.0.0/16\n      \
             encapsulation: VXLAN\n"
        )
    };
    let cases = [
        (
            "  apiEndpoint:\n    host: https://10.0.0.1:6443\n    port: 6443\n",
            "CN0110",
            "this is a URL, as a kubeconfig's `server:` writes it: write only its host `10.0.0.1` \
             here, and its port in spec.apiEndpoint.port: 6443",
        ),
        (
            "  apiEndpoint:\n    host: https://[fd00::1]:6443/\n",
            "CN0110",
            "write only its host `fd00::1` here, and its port in spec.apiEndpoint.port: 6443",
        ),
        (
            "  apiEndpoint:\n    host: https://api.example.com\n",
            "CN0110",
            "write only its host `api.example.com` here (the port goes in spec.apiEndpoint.port)",
        ),
        (
            "  bgp: Disabled\n",
            "CN0002",
            "`bgp: {enabled: true}` for the Installation's `bgp: Enabled`; for `Disabled` leave \
             `bgp` out (BGP is off unless `enabled: true`)",
        ),
    ];
    for (spec, code, hint) in cases {
        let output = run(&["validate", "-f", "-"], &cluster(spec));
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let said = format!("{stdout}{stderr}");
        assert_eq!(output.status.code(), Some(1), "{spec}{said}");
        assert!(said.contains(&format!("error[{code}]")), "{spec}{said}");
        assert!(said.contains(hint), "{spec}{said}");
    }
}

/// The JSON Schema an editor checks with and the tool agree on the AS number's bounds (issue
/// 35, first hour): the schema's `maximum` for the cluster's and a peer's `asNumber` is
/// accepted by `validate`, and one more is refused at that field.
#[test]
fn the_json_schema_and_the_tool_agree_on_as_numbers() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(ROOT).join("examples/clusternetwork.schema.json"))
            .expect("the committed schema"),
    )
    .expect("JSON");
    for (definition, path) in [
        ("Bgp", "spec.bgp.asNumber"),
        ("BgpPeer", "spec.bgp.peers[0].asNumber"),
    ] {
        let maximum = schema["definitions"][definition]["properties"]["asNumber"]["maximum"]
            .as_u64()
            .unwrap_or_else(|| panic!("{definition}.asNumber has a maximum"));
        for (value, accepted) in [(maximum, true), (maximum + 1, false)] {
            let (cluster_as, peer_as) = if definition == "Bgp" {
                (value, 64513)
            } else {
                (64512, value)
            };
            let text = format!(
                "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  \
                 name: t\nspec:\n  bgp:\n    enabled: true\n    asNumber: {cluster_as}\n    \
                 peers:\n      - name: tor\n        peerIP: 192.168.10.1\n        asNumber: \
                 {peer_as}\n  podPools:\n    - name: p\n      cidr: 10.244.0.0/16\n"
            );
            let output = run(&["validate", "-f", "-", "-o", "json"], &text);
            let report: Value = serde_json::from_slice(&output.stdout)
                .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&output.stderr)));
            let refused_here = report["diagnostics"].as_array().is_some_and(|all| {
                all.iter()
                    .any(|d| d["severity"] == "error" && d["path"] == path)
            });
            assert_eq!(!refused_here, accepted, "{path} = {value}: {report:#}");
        }
    }
}

/// `patch` removes an Installation pool LIVE lists and DESIRED does not only with an explicit
/// `--remove-pools` (issue 35, first hour): a pool that still holds addresses breaks the pods
/// on it, so Calico's documented way is disable, move the workloads, then delete. Without the
/// opt-in the patch is refused as a CIDR change is (exit 1, nothing on standard output, the
/// steps and `calico-render plan` in the hint); with it, the guarded removal is printed. The
/// library's `DayTwoOptions` carries the same opt-in.
#[test]
fn patch_removes_a_live_only_pool_only_when_asked() {
    use calico_render::patch::{self, DayTwoOptions, PatchError};
    let case = "tests/cases/patch/remove-pool";
    let (desired, live) = (format!("{case}/desired.yaml"), format!("{case}/live.yaml"));
    // (extra flags, exit code, whether the removal is printed, what standard error says)
    let cases: [(&[&str], i32, bool, &[&str]); 3] = [
        (
            &[],
            1,
            false,
            &[
                "error: ",
                "pool old-default-pool",
                "--remove-pools",
                "disableNewAllocations: true on pool old-default-pool",
                "`calico-render plan`",
            ],
        ),
        (&["-o", "kubectl"], 1, false, &["--remove-pools"]),
        (&["--remove-pools"], 0, true, &["note: "]),
    ];
    for (extra, code, removes, said) in cases {
        let mut args = vec!["patch", "-f", &desired, "--live", &live];
        args.extend_from_slice(extra);
        let output = run(&args, "");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{extra:?}: {stderr}");
        // The stock pool is first in LIVE: its removal is guarded by a test of its name.
        let removal = r#"{"op":"test","path":"/spec/calicoNetwork/ipPools/0/name","value":"old-default-pool"},{"op":"remove","path":"/spec/calicoNetwork/ipPools/0"}"#;
        assert_eq!(stdout.contains(removal), removes, "{extra:?}: {stdout}");
        if !removes {
            assert!(stdout.is_empty(), "{extra:?}: {stdout}");
        }
        for words in said {
            assert!(stderr.contains(words), "{extra:?}: {words} in {stderr}");
        }
    }

    // The library: the same refusal, and the same opt-in.
    let read = |path: &str| {
        let text = std::fs::read_to_string(Path::new(ROOT).join(path)).expect("case");
        calico_spec::source::parse_stream(&text, &calico_spec::source::Limits::MANIFESTS)
            .expect("YAML")
            .into_iter()
            .map(|document| document.value)
            .collect::<Vec<Value>>()
    };
    let (desired, live) = (read(&desired), read(&live));
    match patch::day_two_objects(&desired, None, &live, &DayTwoOptions::default()) {
        Err(PatchError::PoolsRemoved { removals }) => {
            let pools: Vec<&str> = removals.iter().map(|r| r.pool.as_str()).collect();
            assert_eq!(pools, ["old-default-pool"]);
        }
        other => panic!("expected a refusal: {other:?}"),
    }
    let asked = DayTwoOptions::default().with_remove_pools(true);
    let day_two = patch::day_two_objects(&desired, None, &live, &asked).expect("a patch");
    assert_eq!(day_two.stream.changed().count(), 1);
}

/// One layout for YAML syntax errors (issue 35, first hour): every subcommand that reads a
/// file names the broken spot as every other diagnostic does, `FILE:LINE:COLUMN: message`
/// (report.rs's one-line form, and the `--> FILE:LINE:COLUMN` of `validate`), with the same
/// words, and exits 2 with nothing on standard output. The input's `[` is at line 2,
/// column 8 and is never closed.
#[test]
fn yaml_syntax_errors_have_one_layout() {
    let broken = "apiVersion: v1\nitems: [\n";
    let expected = "error: <stdin>:2:8: not valid YAML: unclosed bracket '['";
    let live = "tests/cases/patch/remove-pool/live.yaml";
    let commands: &[&[&str]] = &[
        &["validate", "-f", "-"],
        &["render", "-f", "-"],
        &["patch", "-f", "-", "--live", live],
        &["patch", "-f", EXAMPLE, "--live", "-"],
        &["plan", "-f", "-", "--live", live],
        &["plan", "-f", EXAMPLE, "--live", "-"],
        &["import", "-f", "-"],
        &["upgrade", "-f", "-", "--to", "v3.33.0"],
        &["router", "-f", "-"],
        // Standard input carries the chart and the ResourceList here.
        &["post-render", "-f", EXAMPLE],
        &["krm"],
    ];
    for args in commands {
        let output = run(args, broken);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr.lines().next(), Some(expected), "{args:?}: {stderr}");
    }
}

/// One range per diagnostic (issue 35, first hour): a pool that overlaps several declared
/// ranges gets one diagnostic per range, each naming its range, so one run shows every clash.
/// 10.244.0.0/16 contains 10.244.0.0/24 and 10.244.8.0/24 and lies inside 10.0.0.0/8; it
/// shares nothing with 192.168.0.0/16. The same holds for the Service range and the node
/// subnets (CR8003).
#[test]
fn one_range_per_diagnostic() {
    let text = "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: \
                t\nspec:\n  network:\n    avoid:\n      - 10.244.0.0/24\n      - 192.168.0.0/16\n      \
                - 10.244.8.0/24\n      - 10.0.0.0/8\n    serviceCIDRs:\n      - 10.244.16.0/20\n    \
                nodeSubnets:\n      - 10.244.32.0/24\n      - 172.31.0.0/16\n  podPools:\n    - \
                name: p\n      cidr: 10.244.0.0/16\n      encapsulation: VXLAN\n";
    let output = run(&["validate", "-f", "-", "-o", "json"], text);
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&output.stderr)));
    let messages = |code: &str| -> Vec<String> {
        report["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["code"] == code)
            .filter_map(|d| d["message"].as_str().map(str::to_owned))
            .collect()
    };
    for (code, overlapping) in [
        (
            "CR8001",
            &["10.244.0.0/24", "10.244.8.0/24", "10.0.0.0/8"][..],
        ),
        ("CR8003", &["10.244.16.0/20", "10.244.32.0/24"][..]),
    ] {
        let said = messages(code);
        assert_eq!(said.len(), overlapping.len(), "{code}: {said:#?}");
        for range in overlapping {
            let naming: Vec<_> = said
                .iter()
                .filter(|m| m.ends_with(&format!(" {range}")))
                .collect();
            assert_eq!(naming.len(), 1, "{code} {range}: {said:#?}");
        }
        assert!(
            !said
                .iter()
                .any(|m| m.contains("192.168.0.0/16") || m.contains("172.31.0.0/16")),
            "{said:#?}"
        );
    }
}

/// The JSON Schema and the tool agree on quoted numbers (issue 35, first hour): the schema an
/// editor checks with types the API endpoint's port (and the AS number) as an integer, so a
/// quoted `"6443"` is refused there; the tool refuses the same inputs, at the field, and
/// accepts the same numbers unquoted. A quoted port is the endpoint ConfigMap's form (its
/// values are strings), not the ClusterNetwork's.
#[test]
fn the_json_schema_and_the_tool_agree_on_quoted_ports() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(ROOT).join("examples/clusternetwork.schema.json"))
            .expect("the committed schema"),
    )
    .expect("JSON");
    let schema_type = |definition: &str, field: &str| {
        schema["definitions"][definition]["properties"][field]["type"].clone()
    };
    // The schema's side: an integer (or null where optional), never a string.
    for (definition, field) in [("ApiEndpoint", "port"), ("Bgp", "asNumber")] {
        let types: Vec<Value> = match schema_type(definition, field) {
            Value::Array(types) => types,
            one => vec![one],
        };
        assert!(
            types.contains(&Value::from("integer")) && !types.contains(&Value::from("string")),
            "{definition}.{field}: {types:?}"
        );
    }

    let cluster = |port: &str, as_number: &str| {
        format!(
            "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: \
             t\nspec:\n  apiEndpoint:\n    host: 10.0.0.1\n    port: {port}\n  bgp:\n    \
             enabled: true\n    asNumber: {as_number}\n  podPools:\n    - name: p\n      cidr: \
             10.244.0.0/16\n"
        )
    };
    // (port as written, asNumber as written, the paths refused)
    let cases: [(&str, &str, &[&str]); 5] = [
        ("6443", "64512", &[]),
        ("\"6443\"", "64512", &["spec.apiEndpoint.port"]),
        ("'6443'", "64512", &["spec.apiEndpoint.port"]),
        ("6443", "\"64512\"", &["spec.bgp.asNumber"]),
        (
            "\"6443\"",
            "'64512'",
            &["spec.apiEndpoint.port", "spec.bgp.asNumber"],
        ),
    ];
    for (port, as_number, refused) in cases {
        let output = run(
            &["validate", "-f", "-", "-o", "json"],
            &cluster(port, as_number),
        );
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&output.stderr)));
        let mut errors: Vec<&str> = report["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["severity"] == "error")
            .filter_map(|d| d["path"].as_str())
            .collect();
        errors.sort_unstable();
        assert_eq!(
            errors, refused,
            "port {port} asNumber {as_number}: {report:#}"
        );
        let expected_code = if refused.is_empty() { 0 } else { 1 };
        assert_eq!(output.status.code(), Some(expected_code), "{report:#}");
        if refused.contains(&"spec.apiEndpoint.port") {
            let output = run(&["validate", "-f", "-"], &cluster(port, as_number));
            let stderr = String::from_utf8_lossy(&output.stderr);
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                format!("{stdout}{stderr}").contains("write it unquoted, `port: 6443`"),
                "{stdout}{stderr}"
            );
        }
    }
}

/// A ClusterNetwork whose `spec.clusterNetwork` text is broken gives a KRM result in the same
/// layout (the list itself reads, so the problem belongs in its `results`).
#[test]
fn a_broken_cluster_network_in_a_resource_list_is_a_result_in_the_same_layout() {
    let list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n\
                functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: calico\n\
                \x20 data:\n    clusterNetwork: \"apiVersion: v1\\nitems: [\\n\"\n";
    let output = run(&["krm"], list);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let list: Value = serde_saphyr::from_str(&stdout).expect("a ResourceList");
    let messages: Vec<&str> = list["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|result| result["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|message| message.contains(":2:8: not valid YAML: unclosed bracket '['")),
        "{messages:?}"
    );
}

/// The diagnostics of one run as `CODE LINE:COLUMN PATH`, sorted: from `validate -o json`, and
/// from the one-line text form `FILE:LINE:COLUMN: error[CODE]: ... (at PATH)` of `render`.
fn located(json: &[u8]) -> Vec<String> {
    let report: Value = serde_json::from_slice(json).expect("validate -o json");
    let mut out: Vec<String> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|diag| {
            format!(
                "{} {}:{} {}",
                diag["code"].as_str().unwrap_or_default(),
                diag["line"],
                diag["column"],
                diag["path"].as_str().unwrap_or_default()
            )
        })
        .collect();
    out.sort();
    out
}

fn located_text(stderr: &str) -> Vec<String> {
    let mut out: Vec<String> = stderr
        .lines()
        .filter_map(|line| {
            let (at, rest) = line
                .split_once(": error[")
                .or_else(|| line.split_once(": warning["))?;
            let (code, rest) = rest.split_once(']')?;
            let position = at.strip_prefix("<stdin>:")?;
            let path = rest.rsplit_once("(at ")?.1.strip_suffix(')')?;
            Some(format!("{code} {position} {path}"))
        })
        .collect();
    out.sort();
    out
}

/// Every ClusterNetwork problem in one run (issue 35, first hour): the checks run on the fields
/// that did read, so a field that fails to read no longer hides the cross-field errors; and a
/// check whose input failed stays silent. Positions are counted by hand in each text.
#[test]
fn every_cluster_network_problem_in_one_run() {
    const HEAD: &str = "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nspec:\n";
    let rows: &[(&str, &str, &[&str])] = &[
        (
            // A value of the wrong type, and two errors of the pool that reads: a block size
            // out of IPv4's range (20-32) and IP-in-IP without BGP.
            "one read error and two cross-field errors",
            "  mtu: lots\n  podPools:\n    - name: pods\n      cidr: 10.244.0.0/16\n      \
             blockSize: 33\n      encapsulation: IPIP\n",
            &[
                "CN0002 4:8 spec.mtu",
                "CN0103 8:18 spec.podPools[0].blockSize",
                "CN0104 9:22 spec.podPools[0].encapsulation",
            ],
        ),
        (
            // A misspelt key (read as missing, or as the field meant: both give the error).
            "a misspelt field and a block size",
            "  bgp:\n    enabled: true\n  podPools:\n    - name: pods\n      cidr: 10.244.0.0/16\n      \
             natOutgoin: true\n      blockSize: 33\n",
            &[
                "CN0001 9:7 spec.podPools[0].natOutgoin",
                "CN0103 10:18 spec.podPools[0].blockSize",
            ],
        ),
        (
            // Only read errors. `bpfNetworkBootstrap` needs `dataplane: BPF`, which did not
            // read; block size 122 fits an IPv6 pool, whose CIDR did not read: neither is
            // reported (with the failed fields left at their defaults, both would be).
            "read errors only, no cascade",
            "  dataplane: Bpff\n  bpfNetworkBootstrap: true\n  podPools:\n    - name: pods\n      \
             cidr: 10.244.0.0/166\n      blockSize: 122\n",
            &[
                "CN0002 4:14 spec.dataplane",
                "CN0002 8:13 spec.podPools[0].cidr",
            ],
        ),
    ];
    for (name, spec, expected) in rows {
        let text = format!("{HEAD}{spec}");
        let expected: Vec<String> = expected.iter().map(|row| (*row).to_owned()).collect();
        let validate = run(&["validate", "-f", "-", "-o", "json"], &text);
        assert_eq!(validate.status.code(), Some(1), "{name}");
        assert_eq!(located(&validate.stdout), expected, "{name}: validate");
        let render = run(&["render", "-f", "-"], &text);
        let stderr = String::from_utf8_lossy(&render.stderr);
        assert_eq!(render.status.code(), Some(1), "{name}: {stderr}");
        assert!(render.stdout.is_empty(), "{name}");
        assert_eq!(located_text(&stderr), expected, "{name}: render\n{stderr}");
    }
}

/// The codes of `error[CODE]` and `warning[CODE]` in a run's standard error.
fn codes(stderr: &str) -> std::collections::BTreeSet<String> {
    ["error[", "warning["]
        .iter()
        .flat_map(|marker| stderr.match_indices(marker).map(|(idx, m)| idx + m.len()))
        .filter_map(|start| {
            let rest = stderr.get(start..)?;
            Some(rest.split_once(']')?.0.to_owned())
        })
        .collect()
}

/// `post-render` and `krm` report what `validate` reports on the merged objects (issue 35,
/// first hour). The chart's endpoint ConfigMap carries a misspelt key the operator ignores
/// (CR8009); the merge keeps the chart's keys, so only the merged object shows it.
#[test]
fn post_render_and_krm_lint_the_merged_objects_as_validate_does() {
    const CLUSTER: &str = "examples/ha-ebpf/cluster.yaml";
    let config_map = |extra: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kubernetes-services-endpoint\n  \
             namespace: tigera-operator\ndata:\n  KUBERNETES_SERVICE_HOST: \"10.0.0.1\"\n  \
             KUBERNETES_SERVICE_PORT: \"6443\"\n{extra}"
        )
    };
    for (extra, trips) in [
        ("  KUBERNETES_SERVICE_HOTS: \"10.0.0.1\"\n", true),
        ("", false),
    ] {
        let chart = format!(
            "---\n# Source: tigera-operator/templates/endpoint.yaml\n{}",
            config_map(extra)
        );
        let merged = run(&["post-render", "-f", CLUSTER], &chart);
        let stderr = String::from_utf8_lossy(&merged.stderr);
        assert_eq!(merged.status.code(), Some(0), "{stderr}");
        let validated = run(
            &["validate", "-f", "-"],
            &String::from_utf8_lossy(&merged.stdout),
        );
        // `validate` prints its report on standard output.
        let validate_codes = codes(&String::from_utf8_lossy(&validated.stdout));
        assert_eq!(codes(&stderr), validate_codes, "{stderr}");
        assert_eq!(
            validate_codes.contains("CR8009"),
            trips,
            "{validate_codes:?}"
        );
        if trips {
            assert!(
                stderr.contains("merged ConfigMap `kubernetes-services-endpoint`")
                    && stderr.contains("(at data.KUBERNETES_SERVICE_HOTS)"),
                "{stderr}"
            );
            // A denied lint of the merged objects stops the post-renderer: nothing written.
            let denied = run(&["post-render", "-f", CLUSTER, "--deny", "CR8009"], &chart);
            assert_eq!(denied.status.code(), Some(1));
            assert!(denied.stdout.is_empty());
        }

        // krm: the same finding as a result naming the merged object and its field.
        let item = config_map(extra).replace('\n', "\n  ");
        let output = run(&["krm"], &list_text(&item));
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{stdout}");
        let list: Value = serde_saphyr::from_str(&stdout).expect("a ResourceList");
        let found: Vec<&Value> = list["results"]
            .as_array()
            .map(|results| {
                results
                    .iter()
                    .filter(|result| result["tags"]["code"] == "CR8009")
                    .collect()
            })
            .unwrap_or_default();
        if trips {
            assert_eq!(found.len(), 1, "{stdout}");
            let result = found.first().expect("one");
            assert_eq!(result["severity"], "warning");
            assert_eq!(result["field"]["path"], "data.KUBERNETES_SERVICE_HOTS");
            assert_eq!(result["resourceRef"]["kind"], "ConfigMap");
            assert_eq!(
                result["resourceRef"]["name"],
                "kubernetes-services-endpoint"
            );
            assert_eq!(result["resourceRef"]["namespace"], "tigera-operator");
            // `deny` in the function config makes it an error, and the function fails.
            let denied = run(&["krm"], &format!("{}    deny: CR8009\n", list_text(&item)));
            assert_eq!(denied.status.code(), Some(1));
            assert!(String::from_utf8_lossy(&denied.stdout).contains("severity: error"));
        } else {
            assert!(found.is_empty(), "{stdout}");
        }
    }
}

/// The ResourceList of the test above, for one item.
fn list_text(item: &str) -> String {
    format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {item}\n\
         functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: calico\n  \
         data:\n    file: examples/ha-ebpf/cluster.yaml\n"
    )
}
