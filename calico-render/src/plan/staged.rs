//! The dataplane switch (iptables/IPVS <-> eBPF) and BGP enablement: what must happen before
//! the one remaining patch and what only after it.
//!
//! - To eBPF: kube-proxy in IPVS mode goes to iptables mode first (Calico's eBPF mode does not
//!   take over from IPVS); the endpoint ConfigMap is created before the Installation asks for
//!   BPF (and the operator restarted, which reads it into its environment at start), or, with
//!   `bpfNetworkBootstrap`, removed first (the operator refuses that mode while the ConfigMap
//!   exists); kube-proxy is switched off only after the switch, while Calico already serves
//!   the Services, and only where its manager (kubeadm, an addon manager, GitOps) will not put
//!   it back.
//! - From eBPF: kube-proxy runs again on every node before the Installation leaves BPF.
//! - BGP towards a router: the peers are created with the rest of the change, the node-to-node
//!   mesh goes only after the peers are established (a user-checked step), and pod pools that
//!   are announced are named.
//!
//! What the objects cannot tell (the kube-proxy mode and manager, the kernel) comes from
//! [`Facts`] or is a precondition with the command that checks it.

use serde_json::{Value, json};

use super::{Change, Check, ObjectRef, PlanError, Requirement, Step, Undo};
use crate::patch::{ObjectId, ObjectPatch, Side, kubectl_command, shell_quote};

/// The mode kube-proxy runs in (`--kube-proxy-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum KubeProxyMode {
    /// iptables mode.
    Iptables,
    /// IPVS mode.
    Ipvs,
    /// nftables mode.
    Nftables,
    /// No kube-proxy in the cluster.
    Absent,
}

/// Who puts kube-proxy back when it is changed (`--kube-proxy-manager`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum KubeProxyManager {
    /// kubeadm (its `upgrade` re-applies the kube-proxy addon).
    Kubeadm,
    /// The Kubernetes addon manager (label `addonmanager.kubernetes.io/mode`).
    AddonManager,
    /// A GitOps tool (Argo CD, Flux) that syncs the DaemonSet from git.
    Gitops,
    /// Nothing reconciles it.
    Unmanaged,
}

/// Facts about the cluster the objects do not show, given by the user.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Facts {
    /// The kube-proxy mode, when known.
    pub kube_proxy_mode: Option<KubeProxyMode>,
    /// Who manages kube-proxy, when known.
    pub kube_proxy_manager: Option<KubeProxyManager>,
}

impl Facts {
    /// The facts as given.
    pub fn new(
        kube_proxy_mode: Option<KubeProxyMode>,
        kube_proxy_manager: Option<KubeProxyManager>,
    ) -> Facts {
        Facts {
            kube_proxy_mode,
            kube_proxy_manager,
        }
    }
}

/// What the staged transitions add around the remaining patch.
#[derive(Default)]
pub(super) struct Staging {
    pub before: Vec<Step>,
    pub after: Vec<Step>,
    /// The desired objects as the patch step is to reach them (the mesh held back).
    pub desired_for_patch: Vec<Value>,
    /// What the Installation's patch needs first (the endpoint ConfigMap, kube-proxy off
    /// IPVS), with the shell test the command runs for it.
    pub installation_requires: Vec<(Requirement, String)>,
    pub transitions: Vec<String>,
    pub preconditions: Vec<Check>,
    pub notes: Vec<String>,
}

fn is(value: &Value, api_version: &str, kind: &str) -> bool {
    value.get("apiVersion").and_then(Value::as_str) == Some(api_version)
        && value.get("kind").and_then(Value::as_str) == Some(kind)
}

fn named<'a>(objects: &'a [Value], api_version: &str, kind: &str, name: &str) -> Option<&'a Value> {
    objects.iter().find(|value| {
        is(value, api_version, kind)
            && value.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
    })
}

fn installation(objects: &[Value]) -> Option<&Value> {
    objects
        .iter()
        .find(|value| is(value, "operator.tigera.io/v1", "Installation"))
}

fn network_field<'a>(objects: &'a [Value], field: &str) -> Option<&'a str> {
    installation(objects)?
        .pointer(&format!("/spec/calicoNetwork/{field}"))
        .and_then(Value::as_str)
}

fn endpoint_config_map(objects: &[Value]) -> Option<&Value> {
    named(objects, "v1", "ConfigMap", "kubernetes-services-endpoint")
}

/// kube-proxy's ConfigMap as kubeadm writes it (`kube-system/kube-proxy`, its
/// KubeProxyConfiguration in `data["config.conf"]`).
fn kube_proxy_config(objects: &[Value]) -> Option<&Value> {
    objects.iter().find(|value| {
        is(value, "v1", "ConfigMap")
            && value.pointer("/metadata/name").and_then(Value::as_str) == Some("kube-proxy")
            && value.pointer("/metadata/namespace").and_then(Value::as_str) == Some("kube-system")
    })
}

/// The `mode:` line of a KubeProxyConfiguration's text: its index among the lines and the mode
/// (`""`, which is iptables on Linux, when the line says nothing).
fn configured_mode(text: &str) -> Option<(usize, String)> {
    text.lines().enumerate().find_map(|(index, line)| {
        let value = line.strip_prefix("mode:")?;
        let value = value.split('#').next().unwrap_or("").trim();
        Some((
            index,
            value.trim_matches(|c| c == '"' || c == '\'').to_owned(),
        ))
    })
}

fn kube_proxy(objects: &[Value]) -> Option<&Value> {
    objects.iter().find(|value| {
        is(value, "apps/v1", "DaemonSet")
            && value.pointer("/metadata/name").and_then(Value::as_str) == Some("kube-proxy")
            && value.pointer("/metadata/namespace").and_then(Value::as_str) == Some("kube-system")
    })
}

fn object_ref(value: &Value) -> Result<ObjectRef, PlanError> {
    Ok(ObjectRef::from(&ObjectId::of(value, Side::Desired, 0)?))
}

/// An object as it is to be created: identity, labels, and everything but status.
fn creatable(value: &Value) -> Value {
    let mut object = value.clone();
    if let Some(fields) = object.as_object_mut() {
        fields.remove("status");
        if let Some(metadata) = fields.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.retain(|key, _| {
                matches!(
                    key.as_str(),
                    "name" | "namespace" | "labels" | "annotations"
                )
            });
        }
    }
    object
}

fn create_step(
    id: String,
    title: String,
    why: String,
    value: &Value,
    wait: Vec<Check>,
) -> Result<Step, PlanError> {
    let object = creatable(value);
    let reference = object_ref(&object)?;
    let command = format!(
        "printf '%s\\n' {} | kubectl create -f -",
        shell_quote(&object.to_string())
    );
    let mut delete = format!(
        "kubectl delete {} {}",
        resource(&reference),
        shell_quote(&reference.name)
    );
    if let Some(namespace) = &reference.namespace {
        delete.push_str(&format!(" -n {}", shell_quote(namespace)));
    }
    Ok(Step {
        id,
        title,
        why,
        change: Change::Create {
            object,
            requires: Vec::new(),
            command,
        },
        wait,
        undo: Undo {
            description: format!("delete {} {} again", reference.kind, reference.name),
            change: Some(Change::Delete {
                object: reference,
                test: json!([]),
                command: delete,
            }),
        },
    })
}

fn resource(reference: &ObjectRef) -> String {
    let id = ObjectId {
        api_version: reference.api_version.clone(),
        kind: reference.kind.clone(),
        namespace: reference.namespace.clone(),
        name: reference.name.clone(),
    };
    crate::patch::kubectl_resource(&id).map_or_else(
        || format!("{}s", reference.kind.to_ascii_lowercase()),
        str::to_owned,
    )
}

/// The shell test a command runs first for a requirement that fields (or the object) are
/// absent, which RFC 6902 `test` cannot express: `kubectl get` must succeed and print nothing
/// for the field (kubectl's jsonpath prints nothing for a missing key; `--ignore-not-found -o
/// name` nothing for a missing object), so an unreachable server fails the test too.
pub(super) fn absent_guard(requirement: &Requirement) -> String {
    let reference = &requirement.object;
    let mut get = format!(
        "kubectl get {} {}",
        resource(reference),
        shell_quote(&reference.name)
    );
    if let Some(namespace) = &reference.namespace {
        get.push_str(&format!(" -n {}", shell_quote(namespace)));
    }
    let tests: Vec<String> = requirement
        .absent
        .iter()
        .map(|pointer| {
            let query = if pointer.is_empty() {
                "--ignore-not-found -o name".to_owned()
            } else {
                let path: Vec<String> = pointer
                    .split('/')
                    .skip(1)
                    .map(|segment| {
                        segment
                            .replace("~1", "/")
                            .replace("~0", "~")
                            .replace('.', "\\.")
                    })
                    .collect();
                format!(
                    "-o {}",
                    shell_quote(&format!("jsonpath={{.{}}}", path.join(".")))
                )
            };
            format!("[ \"$({get} {query} && echo absent)\" = absent ]")
        })
        .collect();
    tests.join(" && ")
}

/// A command behind the shell tests of its absence requirements.
fn guarded(command: String, requires: &[Requirement]) -> String {
    requires
        .iter()
        .filter(|requirement| !requirement.absent.is_empty())
        .map(absent_guard)
        .chain([command])
        .collect::<Vec<_>>()
        .join(" && ")
}

fn user_check(description: String, command: &str, data: Value) -> Check {
    Check {
        description,
        command: command.to_owned(),
        user_checked: true,
        data,
    }
}

/// The staged steps for the dataplane switch and BGP enablement, from the live objects as the
/// pool steps leave them.
pub(super) fn stage(
    desired: &[Value],
    live: &[Value],
    facts: &Facts,
) -> Result<Staging, PlanError> {
    let mut staging = Staging {
        desired_for_patch: desired.to_vec(),
        ..Staging::default()
    };
    dataplane(desired, live, facts, &mut staging)?;
    bgp(desired, live, &mut staging)?;
    Ok(staging)
}

const KERNEL_CHECK: &str = "kubectl get nodes -o custom-columns=NAME:.metadata.name,KERNEL:.status.nodeInfo.kernelVersion,OS:.status.nodeInfo.osImage";
const MODE_CHECK: &str = "kubectl -n kube-system get configmap kube-proxy -o jsonpath='{.data.config\\.conf}' | grep -E '^mode:'";
const MANAGER_CHECK: &str = "kubectl -n kube-system get daemonset kube-proxy -o jsonpath='{.metadata.labels}{\"\\n\"}{.metadata.annotations}'";

fn dataplane(
    desired: &[Value],
    live: &[Value],
    facts: &Facts,
    staging: &mut Staging,
) -> Result<(), PlanError> {
    let (Some(_), Some(_)) = (installation(desired), installation(live)) else {
        return Ok(());
    };
    let want = network_field(desired, "linuxDataplane").unwrap_or("Iptables");
    let have = network_field(live, "linuxDataplane").unwrap_or("Iptables");
    let operator_manages = network_field(desired, "kubeProxyManagement") == Some("Enabled");
    // kube-proxy follows the dataplane whether or not the switch is still to come: off once
    // eBPF runs, on again before it goes (so a resumed plan still has these steps).
    if !operator_manages && facts.kube_proxy_mode != Some(KubeProxyMode::Absent) {
        let selected = |daemon_set: &Value| {
            daemon_set
                .pointer("/spec/template/spec/nodeSelector/non-calico")
                .is_some()
        };
        match kube_proxy(live) {
            Some(daemon_set) if want == "BPF" && !selected(daemon_set) => {
                let step = kube_proxy_step(daemon_set, true, facts.kube_proxy_manager)?;
                staging.after.push(step);
            }
            Some(daemon_set) if want != "BPF" && selected(daemon_set) => {
                let step = kube_proxy_step(daemon_set, false, facts.kube_proxy_manager)?;
                staging.before.push(step);
            }
            Some(_) => {}
            None if want == "BPF" && have != "BPF" => staging.notes.push(
                "kube-proxy must stop once Calico serves the Services: add `kubectl -n \
                 kube-system get daemonset kube-proxy -o yaml` to LIVE for that step"
                    .to_owned(),
            ),
            None if want != "BPF" && have == "BPF" => staging.preconditions.push(user_check(
                "kube-proxy runs on every node again before the Installation leaves BPF \
                 (otherwise Services stop answering)"
                    .to_owned(),
                "kubectl -n kube-system get daemonset kube-proxy",
                json!({"condition": "kubeProxyRunning"}),
            )),
            None => {}
        }
    }
    if want == have || (want != "BPF" && have != "BPF") {
        return Ok(());
    }
    staging
        .transitions
        .push(format!("dataplane {have} -> {want}"));
    if want == "BPF" {
        staging.preconditions.push(user_check(
            "every node's kernel runs Calico's eBPF dataplane (see the Calico release's eBPF \
             requirements; an older kernel leaves the node without a dataplane)"
                .to_owned(),
            KERNEL_CHECK,
            json!({"condition": "kernelSupportsEbpf"}),
        ));
        // Moving kube-proxy off IPVS comes right before the switch (a user-checked step stays
        // in the plan until the change after it is applied).
        let ipvs = ipvs_steps(live, facts, staging)?;
        let manager = facts.kube_proxy_manager;
        if manager.is_none() && facts.kube_proxy_mode != Some(KubeProxyMode::Absent) {
            staging.preconditions.push(user_check(
                "who manages kube-proxy is known (pass --kube-proxy-manager): kubeadm, an \
                 addon manager or a GitOps tool puts a changed kube-proxy back"
                    .to_owned(),
                MANAGER_CHECK,
                json!({"condition": "kubeProxyManagerKnown"}),
            ));
        }
        if operator_manages
            && matches!(
                manager,
                Some(KubeProxyManager::AddonManager | KubeProxyManager::Gitops)
            )
        {
            return Err(PlanError::Unplannable {
                message: "DESIRED lets the operator manage kube-proxy, but an addon manager or \
                          a GitOps tool manages it; the operator refuses such a DaemonSet \
                          (tigera/operator PR #4058) and the manager would undo the change"
                    .to_owned(),
                hint: "switch kube-proxy off where it is managed (its manifest or its git \
                       source), and leave kubeProxyManagement unset in DESIRED"
                    .to_owned(),
            });
        }
        // The endpoint: the ConfigMap before the switch, or gone before bpfNetworkBootstrap.
        let bootstrap = network_field(desired, "bpfNetworkBootstrap") == Some("Enabled");
        if let Some(config_map) = endpoint_config_map(desired) {
            let reference = object_ref(config_map)?;
            let guard = format!(
                "kubectl get configmap {} -n {} >/dev/null",
                shell_quote(&reference.name),
                shell_quote(reference.namespace.as_deref().unwrap_or("tigera-operator"))
            );
            staging
                .installation_requires
                .push((Requirement::exists(reference), guard));
        }
        if bootstrap && endpoint_config_map(desired).is_none() {
            // The operator refuses bpfNetworkBootstrap while the ConfigMap exists (it looks for
            // it in its own namespace): the Installation's patch waits until it is gone.
            let gone = Requirement::absent(
                ObjectRef {
                    api_version: "v1".to_owned(),
                    kind: "ConfigMap".to_owned(),
                    name: "kubernetes-services-endpoint".to_owned(),
                    namespace: Some("tigera-operator".to_owned()),
                },
                "",
            );
            let guard = absent_guard(&gone);
            staging.installation_requires.push((gone, guard));
        }
        if let Some(config_map) = endpoint_config_map(desired)
            && endpoint_config_map(live).is_none()
        {
            staging.before.push(create_step(
                "create-endpoint-configmap".to_owned(),
                "create the kubernetes-services-endpoint ConfigMap".to_owned(),
                "in eBPF mode nothing resolves the kubernetes Service before Calico runs, so \
                 Calico needs the API server's real address first; the operator reads the \
                 ConfigMap into its environment when it starts, so it is restarted"
                    .to_owned(),
                config_map,
                super::patch_wait(&ObjectId::of(config_map, Side::Desired, 0)?),
            )?);
        } else if bootstrap
            && endpoint_config_map(desired).is_none()
            && let Some(config_map) = endpoint_config_map(live)
        {
            let reference = object_ref(config_map)?;
            let namespace = reference.namespace.clone().unwrap_or_default();
            staging.before.push(Step {
                id: "delete-endpoint-configmap".to_owned(),
                title: "delete the kubernetes-services-endpoint ConfigMap".to_owned(),
                why: "DESIRED finds the API server with bpfNetworkBootstrap, and the operator \
                      refuses that while the ConfigMap exists: the two are never combined"
                    .to_owned(),
                change: Change::Delete {
                    object: reference,
                    test: json!([]),
                    command: format!(
                        "kubectl delete configmap kubernetes-services-endpoint -n {}",
                        shell_quote(&namespace)
                    ),
                },
                wait: Vec::new(),
                undo: Undo {
                    description: "create it again from the LIVE of this run".to_owned(),
                    change: None,
                },
            });
        }
        staging.before.extend(ipvs);
    } else {
        staging
            .notes
            .push("leaving eBPF drops the connections its NAT tracks; plan a window".to_owned());
        // kube-proxy must be back before the Installation leaves BPF: the patch waits until
        // the node selector that stops it is gone (the operator removes it itself when it
        // manages kube-proxy, after the switch).
        if !operator_manages
            && facts.kube_proxy_mode != Some(KubeProxyMode::Absent)
            && let Some(daemon_set) = kube_proxy(live)
        {
            let back = Requirement::absent(
                object_ref(daemon_set)?,
                "/spec/template/spec/nodeSelector/non-calico",
            );
            let guard = absent_guard(&back);
            staging.installation_requires.push((back, guard));
        }
    }
    Ok(())
}

/// The annotation the ConfigMap step leaves on kube-proxy's ConfigMap: the mode it replaced.
const LEFT_IPVS: &str = "calico-render.dev/kube-proxy-left";

/// The steps that take kube-proxy off IPVS before the switch to eBPF.
///
/// With kube-proxy's ConfigMap in LIVE its `mode:` line is read: `ipvs` there is a guarded patch
/// of the ConfigMap (the whole text tested, so a second run or a changed ConfigMap fails). The
/// running kube-proxy keeps IPVS until it restarts and the nodes' IPVS state is cleared, which
/// only the nodes show: that user-checked step follows while the ConfigMap says ipvs or
/// `--kube-proxy-mode ipvs` says the processes still run it.
fn ipvs_steps(
    live: &[Value],
    facts: &Facts,
    staging: &mut Staging,
) -> Result<Vec<Step>, PlanError> {
    let config = kube_proxy_config(live);
    let text = config
        .and_then(|config| config.pointer("/data/config.conf"))
        .and_then(Value::as_str);
    let configured = text.and_then(configured_mode);
    let mut steps = Vec::new();
    if facts.kube_proxy_mode.is_none() && configured.is_none() {
        staging.preconditions.push(user_check(
            "the kube-proxy mode is known (pass --kube-proxy-mode, or add `kubectl -n \
             kube-system get configmap kube-proxy -o yaml` to LIVE): IPVS needs steps of its \
             own before the switch"
                .to_owned(),
            MODE_CHECK,
            json!({"condition": "kubeProxyModeKnown"}),
        ));
    }
    let configured_ipvs = configured
        .as_ref()
        .is_some_and(|(_, mode)| mode.eq_ignore_ascii_case("ipvs"));
    if let (Some(config), Some(text), Some((line, _))) = (config, text, &configured)
        && configured_ipvs
    {
        let new_text: Vec<&str> = text
            .lines()
            .enumerate()
            .map(|(index, old)| {
                if index == *line {
                    "mode: iptables"
                } else {
                    old
                }
            })
            .collect();
        let mut new_text = new_text.join("\n");
        if text.ends_with('\n') {
            new_text.push('\n');
        }
        let reference = object_ref(config)?;
        let id = ObjectId {
            api_version: reference.api_version.clone(),
            kind: reference.kind.clone(),
            namespace: reference.namespace.clone(),
            name: reference.name.clone(),
        };
        // The mark that IPVS ran, for the restart step after it (the text no longer shows it).
        let has_annotations = config.pointer("/metadata/annotations").is_some();
        let mark = |on: bool| -> Value {
            let path = format!("/metadata/annotations/{}", LEFT_IPVS.replace('/', "~1"));
            match (on, has_annotations) {
                (true, true) => json!({"op": "add", "path": path, "value": "ipvs"}),
                (true, false) => {
                    json!({"op": "add", "path": "/metadata/annotations", "value": {LEFT_IPVS: "ipvs"}})
                }
                (false, true) => json!({"op": "remove", "path": path}),
                (false, false) => json!({"op": "remove", "path": "/metadata/annotations"}),
            }
        };
        let patch = |from: &str, to: &str, on: bool| -> Result<(Value, String), PlanError> {
            let ops = json!([
                {"op": "test", "path": "/data/config.conf", "value": from},
                {"op": "replace", "path": "/data/config.conf", "value": to},
                mark(on),
            ]);
            let parsed: json_patch::Patch =
                serde_json::from_value(ops.clone()).map_err(|err| PlanError::SelfCheck {
                    step: "kube-proxy-iptables-mode".to_owned(),
                    detail: err.to_string(),
                })?;
            let command = kubectl_command(&ObjectPatch::from_parts(id.clone(), parsed))?;
            Ok((ops, command))
        };
        let (ops, command) = patch(text, &new_text, true)?;
        let (undo_ops, undo_command) = patch(&new_text, text, false)?;
        steps.push(Step {
            id: "kube-proxy-iptables-mode".to_owned(),
            title: "set kube-proxy's mode to iptables in its ConfigMap".to_owned(),
            why: "Calico's eBPF dataplane takes Services over from kube-proxy's iptables rules, \
                  not from IPVS. kubeadm keeps the mode in this ConfigMap (and writes it back \
                  from its ClusterConfiguration on `kubeadm upgrade`: set mode there too). The \
                  annotation calico-render.dev/kube-proxy-left says IPVS ran, for the restart \
                  step after this one. Guard: the whole config.conf text is tested, so the step fails if applied \
                  twice or after the ConfigMap changed"
                .to_owned(),
            change: Change::Patch {
                object: reference.clone(),
                patch: ops,
                requires: Vec::new(),
                command,
            },
            wait: Vec::new(),
            undo: Undo {
                description: "put mode: ipvs back (the text as it was)".to_owned(),
                change: Some(Change::Patch {
                    object: reference,
                    patch: undo_ops,
                    requires: Vec::new(),
                    command: undo_command,
                }),
            },
        });
    }
    let left = config
        .and_then(|config| {
            config.pointer(&format!(
                "/metadata/annotations/{}",
                LEFT_IPVS.replace('/', "~1")
            ))
        })
        .and_then(Value::as_str)
        == Some("ipvs");
    if let Some(config) = config
        && (configured_ipvs || left)
    {
        let reference = object_ref(config)?;
        let annotation = LEFT_IPVS.replace('/', "~1");
        staging.installation_requires.push((
            Requirement::tested(
                reference,
                json!([{"op": "test", "path": format!("/metadata/annotations/{annotation}"), "value": "ipvs"}]),
            ),
            format!(
                "[ \"$(kubectl -n kube-system get configmap kube-proxy -o \
                 jsonpath='{{.metadata.annotations.{}}}')\" = ipvs ]",
                LEFT_IPVS.replace('.', "\\.")
            ),
        ));
    }
    if configured_ipvs || left || facts.kube_proxy_mode == Some(KubeProxyMode::Ipvs) {
        let mut commands = Vec::new();
        if config.is_none() {
            commands.push(
                "kubectl -n kube-system edit configmap kube-proxy (set mode: iptables)".to_owned(),
            );
        }
        commands.push("kubectl -n kube-system rollout restart daemonset/kube-proxy".to_owned());
        commands.push(
            "on each node, clear the IPVS state: kube-proxy --cleanup, or reboot the node"
                .to_owned(),
        );
        steps.push(Step {
            id: "kube-proxy-leave-ipvs".to_owned(),
            title: "restart kube-proxy in iptables mode and clear the nodes' IPVS state".to_owned(),
            why: "kube-proxy reads its mode when it starts, and the IPVS services and the \
                  kube-ipvs0 interface it leaves on a node keep answering beside Calico's eBPF \
                  dataplane. Only the nodes show it, so this step stays in the plan until the \
                  change after it is applied"
                .to_owned(),
            change: Change::UserAction { commands },
            wait: vec![user_check(
                "kube-proxy runs in iptables mode on every node (its log says \"Using iptables \
                 Proxier\"; `ipvsadm -Ln` on a node lists nothing)"
                    .to_owned(),
                "kubectl -n kube-system logs ds/kube-proxy | grep -i proxier",
                json!({"condition": "kubeProxyMode", "mode": "iptables"}),
            )],
            undo: Undo {
                description: "set mode: ipvs again and restart kube-proxy".to_owned(),
                change: None,
            },
        });
    }
    Ok(steps)
}

/// Switch kube-proxy off (`off`) or on with the reversible node selector Calico documents.
fn kube_proxy_step(
    daemon_set: &Value,
    off: bool,
    manager: Option<KubeProxyManager>,
) -> Result<Step, PlanError> {
    let reference = object_ref(daemon_set)?;
    let mut ops = vec![json!({"op": "test", "path": "/metadata/name", "value": "kube-proxy"})];
    let undo_ops = if off {
        if let Some(selector) = daemon_set.pointer("/spec/template/spec/nodeSelector") {
            // The whole selector is tested, so a second run (the key is there then) fails.
            ops.push(json!({"op": "test", "path": "/spec/template/spec/nodeSelector", "value": selector}));
            ops.push(json!({"op": "add", "path": "/spec/template/spec/nodeSelector/non-calico", "value": "true"}));
            json!([{"op": "remove", "path": "/spec/template/spec/nodeSelector/non-calico"}])
        } else {
            // `add` of a whole selector replaces one that is there, so the absence is checked
            // first (`requires`, the command's shell test): a second run, or a selector put
            // there since (kubeadm's `kubernetes.io/os: linux`), fails instead of being
            // overwritten. The undo takes away the selector the step made, tested whole.
            ops.push(json!({"op": "add", "path": "/spec/template/spec/nodeSelector", "value": {"non-calico": "true"}}));
            json!([
                {"op": "test", "path": "/spec/template/spec/nodeSelector", "value": {"non-calico": "true"}},
                {"op": "remove", "path": "/spec/template/spec/nodeSelector"},
            ])
        }
    } else {
        let mut left = daemon_set
            .pointer("/spec/template/spec/nodeSelector")
            .cloned()
            .unwrap_or_else(|| json!({}));
        if let Some(fields) = left.as_object_mut() {
            fields.remove("non-calico");
        }
        if left.as_object().is_some_and(serde_json::Map::is_empty) {
            // The selector is only that key: it goes whole, as the API server drops an empty
            // one, and the undo puts it back where there is none (`requires`).
            let only = json!({"non-calico": "true"});
            ops.push(
                json!({"op": "test", "path": "/spec/template/spec/nodeSelector", "value": only}),
            );
            ops.push(json!({"op": "remove", "path": "/spec/template/spec/nodeSelector"}));
            json!([{"op": "add", "path": "/spec/template/spec/nodeSelector", "value": only}])
        } else {
            ops.push(json!({"op": "test", "path": "/spec/template/spec/nodeSelector/non-calico", "value": "true"}));
            ops.push(
                json!({"op": "remove", "path": "/spec/template/spec/nodeSelector/non-calico"}),
            );
            // The undo tests the selector as this step leaves it, so it fails a second time.
            json!([
                {"op": "test", "path": "/spec/template/spec/nodeSelector", "value": left},
                {"op": "add", "path": "/spec/template/spec/nodeSelector/non-calico", "value": "true"},
            ])
        }
    };
    // Where the step (or its undo) adds a whole selector, none may be there.
    let no_selector = Requirement::absent(reference.clone(), "/spec/template/spec/nodeSelector");
    let bare = daemon_set
        .pointer("/spec/template/spec/nodeSelector")
        .is_none_or(|selector| selector == &json!({"non-calico": "true"}));
    let (requires_selector, undo_requires) = match (bare, off) {
        (false, _) => (Vec::new(), Vec::new()),
        (true, true) => (vec![no_selector], Vec::new()),
        (true, false) => (Vec::new(), vec![no_selector]),
    };
    let patch = Value::Array(ops);
    let command = |patch: &Value| {
        format!(
            "kubectl -n kube-system patch daemonset kube-proxy --type=json -p {}",
            shell_quote(&patch.to_string())
        )
    };
    let keeper = match manager {
        Some(KubeProxyManager::Kubeadm) => {
            " kubeadm re-applies its kube-proxy addon on `kubeadm upgrade apply`: skip that \
             phase (--skip-phases=addon/kube-proxy) or repeat this step after an upgrade."
        }
        Some(KubeProxyManager::AddonManager) => {
            " The addon manager reverts this edit: change kube-proxy's manifest in the addons \
             directory of the control-plane nodes instead."
        }
        Some(KubeProxyManager::Gitops) => {
            " A GitOps tool reverts this edit: make it in the git source (or stop syncing \
             kube-proxy) instead."
        }
        Some(KubeProxyManager::Unmanaged) => "",
        None => " Check first that nothing reconciles kube-proxy (precondition above).",
    };
    let (id, title, why) = if off {
        (
            "disable-kube-proxy",
            "stop kube-proxy on the nodes Calico serves",
            format!(
                "Calico's eBPF dataplane now serves the Services; kube-proxy beside it only \
                 costs, and stopping it before the switch would leave Services unanswered. The \
                 node selector is the reversible way Calico documents.{keeper} Guard: the step \
                 tests the DaemonSet's name and its node selector as it is{}, so a second run \
                 fails, and the command first checks that the Installation is on BPF",
                if bare {
                    " (there is none: the command checks it is still absent, since adding a \
                     whole selector would replace one put there since)"
                } else {
                    ""
                }
            ),
        )
    } else {
        (
            "enable-kube-proxy",
            "run kube-proxy on every node again",
            format!(
                "the iptables and nftables dataplanes need kube-proxy for Services: it must \
                 run before the Installation leaves BPF, whose patch checks first that the \
                 non-calico key is gone.{keeper} Guard: the step tests the node selector it \
                 removes"
            ),
        )
    };
    let wait = vec![Check {
        description: if off {
            "no kube-proxy pod runs (the DaemonSet schedules none)".to_owned()
        } else {
            "kube-proxy runs on every node".to_owned()
        },
        command: "kubectl -n kube-system rollout status daemonset/kube-proxy --timeout=5m"
            .to_owned(),
        user_checked: false,
        data: json!({"condition": "kubeProxyRolledOut", "running": !off}),
    }];
    Ok(Step {
        id: id.to_owned(),
        title: title.to_owned(),
        why,
        change: Change::Patch {
            object: reference.clone(),
            command: guarded(
                if off {
                    format!(
                        "[ \"$(kubectl get installations.operator.tigera.io default -o \
                         jsonpath='{{.spec.calicoNetwork.linuxDataplane}}')\" = BPF ] && {}",
                        command(&patch)
                    )
                } else {
                    command(&patch)
                },
                &requires_selector,
            ),
            patch,
            requires: if off {
                let mut requires = vec![Requirement::tested(
                    ObjectRef {
                        api_version: "operator.tigera.io/v1".to_owned(),
                        kind: "Installation".to_owned(),
                        name: "default".to_owned(),
                        namespace: None,
                    },
                    json!([{"op": "test", "path": "/spec/calicoNetwork/linuxDataplane", "value": "BPF"}]),
                )];
                requires.extend(requires_selector);
                requires
            } else {
                requires_selector
            },
        },
        wait,
        undo: Undo {
            description: if off {
                "let kube-proxy run again".to_owned()
            } else {
                "stop kube-proxy again".to_owned()
            },
            change: Some(Change::Patch {
                object: reference,
                command: guarded(command(&undo_ops), &undo_requires),
                patch: undo_ops,
                requires: undo_requires,
            }),
        },
    })
}

const PEERS_CHECK: &str =
    "kubectl -n calico-system exec ds/calico-node -c calico-node -- birdcl show protocols";

fn bgp(desired: &[Value], live: &[Value], staging: &mut Staging) -> Result<(), PlanError> {
    let peers: Vec<&Value> = desired
        .iter()
        .filter(|value| is(value, "projectcalico.org/v3", "BGPPeer"))
        .collect();
    let new_peers: Vec<&Value> = peers
        .iter()
        .copied()
        .filter(|peer| {
            let name = peer
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            named(live, "projectcalico.org/v3", "BGPPeer", name).is_none()
        })
        .collect();
    let bgp_on = network_field(desired, "bgp") == Some("Enabled");
    if bgp_on && network_field(live, "bgp") != Some("Enabled") && installation(live).is_some() {
        staging.transitions.push("BGP enabled".to_owned());
        let announced: Vec<&str> = installation(desired)
            .and_then(|value| value.pointer("/spec/calicoNetwork/ipPools"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|pool| pool.get("disableBGPExport").and_then(Value::as_bool) != Some(true))
            .filter_map(|pool| pool.get("name").and_then(Value::as_str))
            .collect();
        if !announced.is_empty() && !peers.is_empty() {
            staging.notes.push(format!(
                "pod pool(s) {} will be announced to the BGP peers; set disableBGPExport: true \
                 unless the router is to route pod addresses",
                announced.join(", ")
            ));
        }
    }
    // The BGP settings (the AS number) before the peers, the mesh after them.
    mesh(desired, live, &peers, staging)?;
    for peer in &new_peers {
        let name = peer
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        staging.transitions.push(format!("BGPPeer {name} created"));
        staging.before.push(create_step(
            format!("create-peer/{name}"),
            format!("create BGPPeer {name}"),
            "the peering must exist, and be established, before the node-to-node mesh goes; \
             a peer alone changes no route of the cluster. Guard: `kubectl create` fails when \
             it exists"
                .to_owned(),
            peer,
            Vec::new(),
        )?);
    }
    Ok(())
}

/// The node-to-node mesh: removed only once the peers are established.
fn mesh(
    desired: &[Value],
    live: &[Value],
    peers: &[&Value],
    staging: &mut Staging,
) -> Result<(), PlanError> {
    // The mesh goes last, after the peers are established.
    let Some(want) = named(
        desired,
        "projectcalico.org/v3",
        "BGPConfiguration",
        "default",
    ) else {
        return Ok(());
    };
    if want.pointer("/spec/nodeToNodeMeshEnabled") != Some(&Value::Bool(false)) || peers.is_empty()
    {
        return Ok(());
    }
    let have = named(live, "projectcalico.org/v3", "BGPConfiguration", "default");
    let mesh_on = have.is_none_or(|have| {
        have.pointer("/spec/nodeToNodeMeshEnabled") != Some(&Value::Bool(false))
    });
    if !mesh_on {
        return Ok(());
    }
    staging
        .transitions
        .push("node-to-node mesh removed".to_owned());
    // Until the peers are up the mesh stays: the patch step reaches DESIRED's BGPConfiguration
    // with the mesh on, and one that LIVE lacks is created first that way (its AS number is
    // what the peers must see from the start).
    let mut held = want.clone();
    if let Some(spec) = held.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("nodeToNodeMeshEnabled".to_owned(), Value::Bool(true));
    }
    staging.desired_for_patch.retain(|value| {
        !(is(value, "projectcalico.org/v3", "BGPConfiguration")
            && value.pointer("/metadata/name").and_then(Value::as_str) == Some("default"))
    });
    staging.desired_for_patch.push(held.clone());
    if have.is_none() {
        staging.before.push(create_step(
            "create-bgp-configuration".to_owned(),
            "create BGPConfiguration default, the mesh still on".to_owned(),
            "the nodes' AS number and the rest of the BGP settings must be in place before the \
             peers come up; the mesh stays until they are established. Guard: `kubectl create` \
             fails when it exists"
                .to_owned(),
            &held,
            Vec::new(),
        )?);
    }
    let have = have.unwrap_or(&held);
    let peer_refs: Vec<Requirement> = peers
        .iter()
        .map(|peer| object_ref(peer).map(Requirement::exists))
        .collect::<Result<_, _>>()?;
    let names: Vec<String> = peer_refs
        .iter()
        .map(|peer| peer.object.name.clone())
        .collect();
    staging.after.push(Step {
        id: "peers-established".to_owned(),
        title: format!(
            "check the BGP sessions to {} are Established",
            names.join(", ")
        ),
        why: "the node-to-node mesh carries the routes until the peers do; removing it before \
              the sessions are up cuts nodes off each other. The plan cannot see BGP sessions, \
              so this step stays in the plan until the mesh is removed"
            .to_owned(),
        change: Change::UserAction {
            commands: vec![
                "configure the router side (the peers' AS numbers and addresses)".to_owned(),
            ],
        },
        wait: vec![user_check(
            "every node's sessions to the peers show Established".to_owned(),
            PEERS_CHECK,
            json!({"condition": "bgpPeersEstablished", "peers": names}),
        )],
        undo: Undo {
            description: "nothing to undo".to_owned(),
            change: None,
        },
    });
    let guard: String = names
        .iter()
        .map(|name| {
            format!(
                "kubectl get bgppeers.projectcalico.org {} >/dev/null && ",
                shell_quote(name)
            )
        })
        .collect();
    let step = {
        let id = ObjectId::of(have, Side::Live, 0)?;
        let mut ops = Vec::new();
        if let Some(value) = have.pointer("/spec/nodeToNodeMeshEnabled") {
            ops.push(json!({"op": "test", "path": "/spec/nodeToNodeMeshEnabled", "value": value}));
        }
        ops.push(json!({"op": "add", "path": "/spec/nodeToNodeMeshEnabled", "value": false}));
        let patch: json_patch::Patch =
            serde_json::from_value(Value::Array(ops.clone())).map_err(|err| {
                PlanError::SelfCheck {
                    step: "disable-mesh".to_owned(),
                    detail: err.to_string(),
                }
            })?;
        let command = kubectl_command(&ObjectPatch::from_parts(id.clone(), patch))?;
        let undo = json!([
            {"op": "test", "path": "/spec/nodeToNodeMeshEnabled", "value": false},
            {"op": "replace", "path": "/spec/nodeToNodeMeshEnabled", "value": true},
        ]);
        let undo_patch: json_patch::Patch =
            serde_json::from_value(undo.clone()).map_err(|err| PlanError::SelfCheck {
                step: "disable-mesh".to_owned(),
                detail: err.to_string(),
            })?;
        let undo_command = kubectl_command(&ObjectPatch::from_parts(id.clone(), undo_patch))?;
        Step {
            id: "disable-mesh".to_owned(),
            title: "remove the node-to-node mesh".to_owned(),
            why: "the peers carry the routes now. Guard: the mesh's current value is tested \
              and the command first checks that the peers exist"
                .to_owned(),
            change: Change::Patch {
                object: ObjectRef::from(&id),
                patch: Value::Array(ops),
                requires: peer_refs,
                command: format!("{guard}{command}"),
            },
            wait: Vec::new(),
            undo: Undo {
                description: "turn the mesh on again".to_owned(),
                change: Some(Change::Patch {
                    object: ObjectRef::from(&id),
                    patch: undo,
                    requires: Vec::new(),
                    command: undo_command,
                }),
            },
        }
    };
    staging.after.push(step);
    Ok(())
}
