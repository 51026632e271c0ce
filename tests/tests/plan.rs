//! `calico-render plan`: snapshots of the plan (text and `-o json`) for every example pair of
//! live and desired objects in `tests/` (`tests/cases/plan/`, `tests/cases/patch/`, and
//! `tests/cases/patch-examples/` against their `examples/`), and the state machine as a table:
//! each case's steps as the documented pool migration orders them, and from every intermediate
//! state (the steps so far applied to LIVE) the plan is exactly the steps left, each guard
//! refuses a repeat or a skip, and finishing reaches a state `patch` leaves alone.

use std::path::{Path, PathBuf};

use calico_render::patch::{DayTwoOptions, day_two_objects};
use calico_render::plan::{self, Change, Plan, Step};
use calico_render_tests::workspace_root;
use calico_spec::cluster_network;
use calico_spec::source::{self, Limits};
use serde_json::Value;

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(workspace_root().join("snapshots/plan"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// The objects of a file, `List`s expanded (as a user reading the cluster again after a step
/// would get them, whatever the grouping).
fn load(path: &Path) -> Vec<Value> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    source::parse_stream(&text, &Limits::MANIFESTS)
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
        .into_iter()
        .filter(|document| !document.is_empty())
        .flat_map(
            |document| match calico_spec::rules::list_items(&document.value) {
                Some(items) => items.into_iter().map(|item| item.into_owned()).collect(),
                None => vec![document.value],
            },
        )
        .collect()
}

/// A ClusterNetwork compiled as `plan -f` compiles it: its objects and its stated objects.
fn compile(path: &Path) -> (Vec<Value>, Vec<Value>) {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let parsed = cluster_network::parse(&path.display().to_string(), &text)
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let objects = cluster_network::compile_unchecked(&parsed.cluster_network)
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
        .iter()
        .map(|object| object.to_value())
        .collect();
    (
        objects,
        cluster_network::stated_objects(&parsed.cluster_network),
    )
}

/// One pair: desired objects, the stated ones for a ClusterNetwork, live objects.
struct Pair {
    name: String,
    desired: Vec<Value>,
    stated: Option<Vec<Value>>,
    live: Vec<Value>,
    facts: plan::Facts,
    /// `--temporary-pool`, from the `facts` file (`temporary-pool: CIDR`).
    temporary: Vec<String>,
}

impl Pair {
    fn plan(&self, live: &[Value]) -> Result<Plan, plan::PlanError> {
        plan::plan(
            &self.desired,
            self.stated.as_deref(),
            live,
            &plan::PlanOptions::new(DayTwoOptions::default(), self.facts)
                .with_temporary_pools(self.temporary.clone()),
        )
    }
}

fn dirs(under: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(workspace_root().join(under))
        .expect("case directory")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The facts a case gives as flags, from its `facts` file (`kube-proxy-mode: ipvs`,
/// `kube-proxy-manager: kubeadm`, one a line); none without it.
fn facts(dir: &Path) -> plan::Facts {
    let text = std::fs::read_to_string(dir.join("facts")).unwrap_or_default();
    let mut mode = None;
    let mut manager = None;
    for line in text.lines() {
        match line.split_once(": ") {
            Some(("kube-proxy-mode", "iptables")) => mode = Some(plan::KubeProxyMode::Iptables),
            Some(("kube-proxy-mode", "ipvs")) => mode = Some(plan::KubeProxyMode::Ipvs),
            Some(("kube-proxy-manager", "kubeadm")) => {
                manager = Some(plan::KubeProxyManager::Kubeadm)
            }
            Some(("kube-proxy-manager", "gitops")) => {
                manager = Some(plan::KubeProxyManager::Gitops)
            }
            _ => {}
        }
    }
    plan::Facts::new(mode, manager)
}

/// The temporary pools a case gives (`temporary-pool: CIDR` lines of its `facts` file).
fn temporary(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("facts")).unwrap_or_default();
    text.lines()
        .filter_map(|line| line.strip_prefix("temporary-pool: "))
        .map(str::to_owned)
        .collect()
}

/// A case's live objects: `live.yaml`, and `kube-proxy.yaml` beside it when there is one (the
/// kubeadm objects the e2e test also creates).
fn case_live(dir: &Path) -> Vec<Value> {
    let mut live = load(&dir.join("live.yaml"));
    let kube_proxy = dir.join("kube-proxy.yaml");
    if kube_proxy.is_file() {
        live.extend(load(&kube_proxy));
    }
    live
}

/// Every example pair in `tests/`.
fn pairs() -> Vec<Pair> {
    let mut pairs = Vec::new();
    for (prefix, under) in [("plan", "tests/cases/plan"), ("patch", "tests/cases/patch")] {
        for dir in dirs(under) {
            let name = dir.file_name().and_then(|n| n.to_str()).expect("name");
            pairs.push(Pair {
                name: format!("{prefix}-{name}"),
                desired: load(&dir.join("desired.yaml")),
                stated: None,
                live: case_live(&dir),
                facts: facts(&dir),
                temporary: temporary(&dir),
            });
        }
    }
    let mut examples: Vec<PathBuf> =
        std::fs::read_dir(workspace_root().join("tests/cases/patch-examples"))
            .expect("patch-examples")
            .map(|entry| entry.expect("entry").path())
            .collect();
    examples.sort();
    for path in examples {
        let file = path.file_name().and_then(|n| n.to_str()).expect("name");
        let Some(example) = file.strip_suffix(".live.yaml") else {
            continue;
        };
        let (desired, stated) = compile(
            &workspace_root()
                .join("examples")
                .join(example)
                .join("cluster.yaml"),
        );
        pairs.push(Pair {
            name: format!("example-{example}"),
            desired,
            stated: Some(stated),
            live: load(&path),
            facts: plan::Facts::default(),
            temporary: Vec::new(),
        });
    }
    pairs
}

#[test]
fn plan_snapshots_for_every_pair() {
    let pairs = pairs();
    assert!(pairs.len() >= 15, "{} pairs", pairs.len());
    for pair in &pairs {
        let text = match pair.plan(&pair.live) {
            Ok(plan) => {
                let json = serde_json::to_string_pretty(&plan).expect("serializes");
                format!("# text\n{}# -o json\n{json}\n", plan::render_text(&plan))
            }
            Err(err) => format!(
                "# refused (exit 1)\nerror: {err}\n  hint: {}\n",
                err.hint().unwrap_or("-")
            ),
        };
        snapshot(&pair.name, &text);
    }
}

/// The step ids each pair's plan must have, from the documented order (add the new pools,
/// stop allocating from the old, move the workloads, remove the old; then one patch for the
/// rest), or the refusal it must give.
const EXPECTED: &[(&str, Result<&[&str], &str>)] = &[
    (
        "plan-operator-ipv4-migrate",
        Ok(&[
            "add-pools/pods-2",
            "disable-pool/default-ipv4-ippool",
            "move-workloads/default-ipv4-ippool",
            "remove-pool/default-ipv4-ippool",
        ]),
    ),
    (
        "plan-operator-dual-stack-migrate",
        Ok(&[
            "add-pools/pods-v4,pods-v6",
            "disable-pool/default-ipv4-ippool",
            "disable-pool/default-ipv6-ippool",
            "move-workloads/default-ipv4-ippool",
            "remove-pool/default-ipv4-ippool",
            "move-workloads/default-ipv6-ippool",
            "remove-pool/default-ipv6-ippool",
        ]),
    ),
    (
        "plan-standalone-migrate",
        Ok(&[
            "create-pool/pool-b",
            "create-pool/pool-b6",
            "disable-pool/pool-a",
            "disable-pool/pool-a6",
            "move-workloads/pool-a",
            "remove-pool/pool-a",
            "move-workloads/pool-a6",
            "remove-pool/pool-a6",
        ]),
    ),
    // The same pool in another text form is the same pool: nothing to do.
    ("plan-ipv6-text-form", Ok(&[])),
    ("plan-refused-block-size", Err("changes blockSize 26 -> 24")),
    (
        "plan-refused-overlap",
        Err("overlaps pool default-ipv4-ippool"),
    ),
    // To eBPF (Calico's documented order): the endpoint first, kube-proxy off IPVS right
    // before the switch, kube-proxy stopped only once Calico serves the Services.
    (
        "plan-dataplane-to-ebpf-ipvs",
        Ok(&[
            "create-endpoint-configmap",
            "kube-proxy-leave-ipvs",
            "patch/Installation/default",
            "disable-kube-proxy",
        ]),
    ),
    // The same with kubeadm's kube-proxy ConfigMap in LIVE: the mode is read from it and
    // changed by a guarded patch, the restart stays the user's.
    (
        "plan-dataplane-to-ebpf-ipvs-kubeadm",
        Ok(&[
            "create-endpoint-configmap",
            "kube-proxy-iptables-mode",
            "kube-proxy-leave-ipvs",
            "patch/Installation/default",
            "disable-kube-proxy",
        ]),
    ),
    // bpfNetworkBootstrap and the ConfigMap are never combined: the ConfigMap goes first.
    (
        "plan-dataplane-to-ebpf-bootstrap",
        Ok(&["delete-endpoint-configmap", "patch/Installation/default"]),
    ),
    // From eBPF: kube-proxy back before the Installation leaves BPF.
    (
        "plan-dataplane-from-ebpf",
        Ok(&["enable-kube-proxy", "patch/Installation/default"]),
    ),
    (
        "plan-dataplane-from-ebpf-no-selector",
        Ok(&["enable-kube-proxy", "patch/Installation/default"]),
    ),
    // A kube-proxy without a node selector: stopping it adds one (guarded by its absence).
    (
        "plan-dataplane-to-ebpf-no-selector",
        Ok(&[
            "create-endpoint-configmap",
            "patch/Installation/default",
            "disable-kube-proxy",
        ]),
    ),
    (
        "plan-dataplane-gitops-refused",
        Err("GitOps tool manages it"),
    ),
    // BGP: peers with the change, the mesh only after they are established.
    (
        "plan-bgp-enable",
        Ok(&[
            "create-bgp-configuration",
            "create-peer/router-a",
            "patch/Installation/default",
            "peers-established",
            "disable-mesh",
        ]),
    ),
    (
        "plan-bgp-enable-mesh-live",
        Ok(&[
            "create-peer/router-a",
            "patch/Installation/default",
            "patch/BGPConfiguration/default",
            "peers-established",
            "disable-mesh",
        ]),
    ),
    ("patch-add-pool", Ok(&["add-pools/pods-2"])),
    // A block size change on the same CIDR with --temporary-pool (Calico's documented way):
    // to the temporary pool, the old IPPool deleted by the operator, back with the new size.
    (
        "plan-block-size-temporary",
        Ok(&[
            "add-pools/default-ipv4-ippool-temporary",
            "disable-pool/default-ipv4-ippool",
            "move-workloads/default-ipv4-ippool",
            "remove-pool/default-ipv4-ippool",
            "add-pools/default-ipv4-ippool",
            "disable-pool/default-ipv4-ippool-temporary",
            "move-workloads/default-ipv4-ippool-temporary",
            "remove-pool/default-ipv4-ippool-temporary",
        ]),
    ),
    (
        "plan-standalone-block-size-temporary",
        Ok(&[
            "create-pool/pool-a6-temporary",
            "disable-pool/pool-a6",
            "move-workloads/pool-a6",
            "remove-pool/pool-a6",
            "create-pool/pool-a6",
            "disable-pool/pool-a6-temporary",
            "move-workloads/pool-a6-temporary",
            "remove-pool/pool-a6-temporary",
        ]),
    ),
    // The live pool not in DESIRED is already disabled: straight to moving and removing.
    (
        "patch-remove-pool",
        Ok(&[
            "move-workloads/old-default-pool",
            "remove-pool/old-default-pool",
        ]),
    ),
    ("patch-refused-cidr", Err("under the same name")),
    (
        "patch-article-disable-bgp-export",
        Ok(&["patch/Installation/default"]),
    ),
];

fn ids(steps: &[Step]) -> Vec<&str> {
    steps.iter().map(|step| step.id.as_str()).collect()
}

#[test]
fn step_order_per_pair() {
    let pairs = pairs();
    for (name, expected) in EXPECTED {
        let pair = pairs
            .iter()
            .find(|pair| pair.name == *name)
            .unwrap_or_else(|| panic!("no pair {name}"));
        match (pair.plan(&pair.live), expected) {
            (Ok(plan), Ok(want)) => assert_eq!(ids(&plan.steps), *want, "{name}"),
            (Err(err), Err(want)) => {
                assert!(err.to_string().contains(want), "{name}: {err}");
                assert!(!err.is_internal(), "{name}: {err}");
            }
            (got, _) => panic!("{name}: {got:?}"),
        }
    }
}

/// The state after applying the first `count` steps' changes to LIVE.
fn state_after(live: &[Value], steps: &[Step], count: usize) -> Vec<Value> {
    let mut state = live.to_vec();
    for step in &steps[..count] {
        plan::apply_change(&mut state, step)
            .unwrap_or_else(|err| panic!("step {} does not apply: {err}", step.id));
    }
    state
}

/// The steps a resumed plan must give after `count` steps: the rest, except that a step
/// that changes nothing (moving workloads) cannot be seen done, so it stays until the change
/// after it is applied.
fn remaining(steps: &[Step], count: usize) -> &[Step] {
    let mut start = count;
    while start > 0 && steps[start - 1].change.changes_nothing() {
        start -= 1;
    }
    &steps[start..]
}

#[test]
fn every_intermediate_state_plans_the_steps_left() {
    let mut checked = 0;
    for pair in pairs() {
        let Ok(full) = pair.plan(&pair.live) else {
            continue;
        };
        let steps = &full.steps;
        for count in 0..=steps.len() {
            let state = state_after(&pair.live, steps, count);
            let resumed = pair
                .plan(&state)
                .unwrap_or_else(|err| panic!("{} after {count} steps: {err}", pair.name));
            let want = remaining(steps, count);
            assert_eq!(
                ids(&resumed.steps),
                ids(want),
                "{} after {count} steps",
                pair.name
            );
            for (got, step) in resumed.steps.iter().zip(want) {
                let json = |step: &Step| serde_json::to_string_pretty(step).expect("JSON");
                assert_eq!(
                    json(got),
                    json(step),
                    "{} after {count} steps: step {} differs",
                    pair.name,
                    step.id
                );
            }
            checked += 1;
        }
        // The end state: `patch` has nothing left to do.
        let end = state_after(&pair.live, steps, steps.len());
        let day_two = day_two_objects(
            &pair.desired,
            pair.stated.as_deref(),
            &end,
            &DayTwoOptions::default(),
        )
        .unwrap_or_else(|err| panic!("{}: {err}", pair.name));
        assert_eq!(
            day_two.stream.changed().count(),
            0,
            "{}: patch still differs at the end",
            pair.name
        );
    }
    assert!(checked >= 30, "{checked} states checked");
}

/// A step applied twice fails or changes nothing; a step applied before the change that
/// must precede it fails (the guards).
#[test]
fn guards_refuse_repeats_and_skips() {
    for pair in pairs() {
        let Ok(full) = pair.plan(&pair.live) else {
            continue;
        };
        let steps = &full.steps;
        for (index, step) in steps.iter().enumerate() {
            if step.change.changes_nothing() {
                continue;
            }
            let once = state_after(&pair.live, steps, index + 1);
            let mut twice = once.clone();
            if plan::apply_change(&mut twice, step).is_ok() {
                assert_eq!(
                    twice, once,
                    "{}: step {} applied twice changed the state again",
                    pair.name, step.id
                );
            }
            // Skips: this step on a state where an earlier change is missing.
            for skipped in 0..index {
                let earlier = &steps[skipped];
                if earlier.change.changes_nothing() || !depends(step, earlier) {
                    continue;
                }
                let mut state = pair.live.clone();
                for (at, other) in steps[..index].iter().enumerate() {
                    if at != skipped {
                        let _ = plan::apply_change(&mut state, other);
                    }
                }
                assert!(
                    plan::apply_change(&mut state, step).is_err(),
                    "{}: step {} applied without step {} did not fail",
                    pair.name,
                    step.id,
                    earlier.id
                );
            }
        }
    }
}

/// Whether `step` needs `earlier` first, by the migration's rule: stopping allocation needs
/// the new pools of its family (added in an earlier step), removal needs the pool disabled.
fn depends(step: &Step, earlier: &Step) -> bool {
    let pool = |id: &str, prefix: &str| id.strip_prefix(prefix).map(str::to_owned);
    if let Some(name) = pool(&step.id, "remove-pool/") {
        return pool(&earlier.id, "disable-pool/").as_deref() == Some(name.as_str());
    }
    if step.id == "disable-kube-proxy" {
        return earlier.id == "patch/Installation/default";
    }
    // The switch needs the endpoint as the mode wants it (the ConfigMap there, or gone for
    // bpfNetworkBootstrap), and leaving eBPF needs kube-proxy back.
    if step.id == "patch/Installation/default" {
        return matches!(
            earlier.id.as_str(),
            "create-endpoint-configmap" | "delete-endpoint-configmap" | "enable-kube-proxy"
        );
    }
    if step.id == "disable-mesh" {
        return earlier.id.starts_with("create-peer/");
    }
    if step.id.starts_with("disable-pool/") {
        return earlier.id.starts_with("add-pools/")
            || (earlier.id.starts_with("create-pool/") && mentions(step, &earlier.id[12..]));
    }
    false
}

/// Whether a step's change names a pool (its guard tests it).
fn mentions(step: &Step, pool: &str) -> bool {
    match &step.change {
        Change::Patch { requires, .. } => requires.iter().any(|needed| needed.object.name == pool),
        _ => false,
    }
}

#[test]
fn help() {
    let out = std::process::Command::new(calico_render_tests::calico_render())
        .args(["plan", "--help"])
        .env("COLUMNS", "100")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    snapshot("help-plan", &String::from_utf8(out.stdout).expect("UTF-8"));
}

/// The CLI prints what the library plans, and refuses what cannot be planned with exit 1 and
/// nothing on standard output; `patch`'s refusal of a new CIDR points to `plan`.
#[test]
fn cli_prints_the_plan_and_patch_points_to_it() {
    let case = workspace_root().join("tests/cases/plan/operator-ipv4-migrate");
    let run = |args: &[&str]| {
        std::process::Command::new(calico_render_tests::calico_render())
            .args(args)
            .output()
            .expect("runs")
    };
    let desired = case.join("desired.yaml");
    let live = case.join("live.yaml");
    let (desired, live) = (desired.to_str().unwrap(), live.to_str().unwrap());
    let out = run(&["plan", "-f", desired, "--live", live, "-o", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let printed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let steps = printed["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 4);
    assert_eq!(steps[2]["change"]["kind"], "userAction");
    assert_eq!(steps[2]["wait"][0]["userChecked"], true);

    let refused = workspace_root().join("tests/cases/patch/refused-cidr");
    let (desired, live) = (refused.join("desired.yaml"), refused.join("live.yaml"));
    let (desired, live) = (desired.to_str().unwrap(), live.to_str().unwrap());
    let out = run(&["plan", "-f", desired, "--live", live]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let out = run(&["patch", "-f", desired, "--live", live]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`calico-render plan`"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A step's undo, where it is a patch, brings the objects back to the state before the step
/// (the remaining patch's undo is computed from the object as the step finds it).
#[test]
fn undo_patches_restore_the_state_before_the_step() {
    let mut checked = 0;
    for pair in pairs() {
        let Ok(full) = pair.plan(&pair.live) else {
            continue;
        };
        for (index, step) in full.steps.iter().enumerate() {
            let Some(undo @ Change::Patch { .. }) = &step.undo.change else {
                continue;
            };
            let before = state_after(&pair.live, &full.steps, index);
            let mut state = state_after(&pair.live, &full.steps, index + 1);
            let mut back = step.clone();
            back.change = undo.clone();
            plan::apply_change(&mut state, &back)
                .unwrap_or_else(|err| panic!("{}: undo of {}: {err}", pair.name, step.id));
            assert_eq!(state, before, "{}: undo of {}", pair.name, step.id);
            // Twice: the undo's tests refuse a second run.
            assert!(
                plan::apply_change(&mut state, &back).is_err(),
                "{}: undo of {} applied twice",
                pair.name,
                step.id
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} undos checked");
}

/// The step with `id` of a pair's plan from its LIVE.
fn step_of(pair: &Pair, id: &str) -> Step {
    let full = pair
        .plan(&pair.live)
        .unwrap_or_else(|err| panic!("{}: {err}", pair.name));
    full.steps
        .into_iter()
        .find(|step| step.id == id)
        .unwrap_or_else(|| panic!("{}: no step {id}", pair.name))
}

fn pair(name: &str) -> Pair {
    pairs()
        .into_iter()
        .find(|pair| pair.name == name)
        .unwrap_or_else(|| panic!("no pair {name}"))
}

/// A step's printed command run by bash against a stand-in `kubectl` that answers `get` as
/// the real one does (`-o jsonpath` prints nothing for a missing key and exits 0; a missing
/// object is an error) from `answers` (a jsonpath fragment and what to print, `None`: the
/// object is missing), and records `patch` instead of sending it. Returns whether the command
/// succeeded and whether it patched.
fn run_printed(step: &Step, answers: &[(&str, Option<&str>)]) -> (bool, bool) {
    let Change::Patch { command, .. } = &step.change else {
        panic!("{} is not a patch", step.id);
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let mut script = String::from(
        "#!/bin/bash\ncase \" $* \" in *' patch '*) echo \"$*\" >> \"$FAKE/patched\"; exit 0;; esac\n\
         case \"$*\" in\n",
    );
    for (fragment, answer) in answers {
        match answer {
            Some(text) => script.push_str(&format!("  *'{fragment}'*) printf %s '{text}';;\n")),
            None => script.push_str(&format!(
                "  *'{fragment}'*) echo 'Error from server (NotFound)' >&2; exit 1;;\n"
            )),
        }
    }
    script.push_str("  *) echo \"unexpected: $*\" >&2; exit 2;;\nesac\n");
    let kubectl = dir.path().join("kubectl");
    std::fs::write(&kubectl, script).expect("fake kubectl");
    std::fs::set_permissions(
        &kubectl,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-c", command])
        .env("PATH", path)
        .env("FAKE", dir.path())
        .output()
        .expect("bash runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("unexpected:"), "{}: {stderr}", step.id);
    (out.status.success(), dir.path().join("patched").exists())
}

/// Leaving eBPF while kube-proxy is still stopped (its DaemonSet still has the `non-calico`
/// node selector) is refused: the simulated step fails and changes nothing, and the printed
/// command's guard stops before the patch; once kube-proxy is back it goes through.
#[test]
fn leaving_ebpf_before_kube_proxy_is_back_is_refused() {
    for name in [
        "plan-dataplane-from-ebpf",
        "plan-dataplane-from-ebpf-no-selector",
    ] {
        let pair = pair(name);
        let leave = step_of(&pair, "patch/Installation/default");
        let mut state = pair.live.clone();
        let err = plan::apply_change(&mut state, &leave).expect_err(name);
        assert!(err.to_string().contains("not as required"), "{name}: {err}");
        assert_eq!(
            state, pair.live,
            "{name}: the refused step changed the state"
        );
        // After kube-proxy is back it applies.
        let enable = step_of(&pair, "enable-kube-proxy");
        plan::apply_change(&mut state, &enable).expect("enable-kube-proxy applies");
        plan::apply_change(&mut state, &leave).expect("then leaving eBPF applies");
        // The printed command: refused while the key is there or the DaemonSet cannot be
        // read, through once the key is gone.
        let key = "nodeSelector.non-calico";
        assert_eq!(
            run_printed(&leave, &[(key, Some("true"))]),
            (false, false),
            "{name}"
        );
        assert_eq!(
            run_printed(&leave, &[(key, None)]),
            (false, false),
            "{name}"
        );
        assert_eq!(
            run_printed(&leave, &[(key, Some(""))]),
            (true, true),
            "{name}"
        );
    }
}

/// `disable-kube-proxy` on a DaemonSet without a node selector adds the whole selector, and
/// `add` replaces one that is there: harmless right after the first run, but a selector put
/// there since (kubeadm re-applying its kube-proxy with `kubernetes.io/os: linux`) would be
/// overwritten, and the undo would then leave kube-proxy unrestricted. So the step requires
/// the selector to be absent: a second run fails, here and in the printed command.
#[test]
fn disabling_kube_proxy_twice_is_refused() {
    let pair = pair("plan-dataplane-to-ebpf-no-selector");
    let full = pair.plan(&pair.live).expect("plans");
    let end = state_after(&pair.live, &full.steps, full.steps.len());
    let disable = step_of(&pair, "disable-kube-proxy");
    let mut again = end.clone();
    assert!(plan::apply_change(&mut again, &disable).is_err());
    assert_eq!(again, end);
    // A selector that appeared before the step is not overwritten either.
    let mut moved = state_after(&pair.live, &full.steps, full.steps.len() - 1);
    for object in &mut moved {
        if object["kind"] == "DaemonSet" {
            object["spec"]["template"]["spec"]["nodeSelector"] =
                serde_json::json!({"kubernetes.io/os": "linux"});
        }
    }
    assert!(plan::apply_change(&mut moved.clone(), &disable).is_err());
    let bpf = ("linuxDataplane", Some("BPF"));
    let selector = "{.spec.template.spec.nodeSelector}";
    assert_eq!(
        run_printed(
            &disable,
            &[bpf, (selector, Some(r#"{"non-calico":"true"}"#))]
        ),
        (false, false)
    );
    assert_eq!(
        run_printed(
            &disable,
            &[bpf, (selector, Some(r#"{"kubernetes.io/os":"linux"}"#))]
        ),
        (false, false)
    );
    assert_eq!(
        run_printed(&disable, &[bpf, (selector, Some(""))]),
        (true, true)
    );
    assert_eq!(
        run_printed(
            &disable,
            &[("linuxDataplane", Some("Iptables")), (selector, Some(""))]
        ),
        (false, false)
    );
}

/// A block size change keeps the pool's name, so "the new pool exists" by name alone would
/// pass for the old one: disabling the temporary pool before the old pool is gone and the new
/// one made (with the old one disabled, no pool would allocate) must fail.
#[test]
fn the_temporary_pool_stays_until_the_new_pool_replaces_the_old() {
    let pair = pair("plan-standalone-block-size-temporary");
    let full = pair.plan(&pair.live).expect("plans");
    let at = |id: &str| {
        full.steps
            .iter()
            .position(|step| step.id == id)
            .unwrap_or_else(|| panic!("no step {id}"))
    };
    let disable_temporary = &full.steps[at("disable-pool/pool-a6-temporary")];
    let recreate = at("create-pool/pool-a6");
    // Every state before the new pool-a6 is made, pool-a6 (old or none) is not the new one.
    for count in 1..=recreate {
        let mut state = state_after(&pair.live, &full.steps, count);
        let before = state.clone();
        assert!(
            plan::apply_change(&mut state, disable_temporary).is_err(),
            "disabling the temporary pool after {count} steps went through"
        );
        assert_eq!(state, before);
    }
    let mut state = state_after(&pair.live, &full.steps, recreate + 1);
    plan::apply_change(&mut state, disable_temporary).expect("applies once pool-a6 is new");
}
