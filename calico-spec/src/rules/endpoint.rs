//! The `kubernetes-services-endpoint` ConfigMap (calico-model.md section 4) and the APIServer
//! name rule (section 5).

use serde_json::Value;

use super::catalogue as c;
use super::{Context, Fields, Sink, check_enum, items};
use crate::source::{Quoting, SpanMap};
use crate::vocab::{self, Host};

/// The ConfigMap's name.
pub(crate) const ENDPOINT_NAME: &str = "kubernetes-services-endpoint";
/// The operator's namespace.
pub(crate) const OPERATOR_NAMESPACE: &str = "tigera-operator";
/// The keys the operator reads, as (host key, port key) pairs.
const PAIRS: &[(&str, &str)] = &[
    ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"),
    (
        "KUBERNETES_SERVICE_HOST_POD_NETWORK",
        "KUBERNETES_SERVICE_PORT_POD_NETWORK",
    ),
];

/// Check the endpoint ConfigMap. `spans` tells quoted from unquoted scalars.
pub(crate) fn check_configmap(sink: &mut Sink, ctx: &Context, doc: &Value, spans: &SpanMap) {
    let meta = Fields::of(doc.get("metadata"), "metadata");
    match meta.str("namespace") {
        Some(OPERATOR_NAMESPACE) => {}
        Some(other) => sink.report(
            &c::ENDPOINT_NAMESPACE,
            meta.at("namespace"),
            format!(
                "the operator reads `{ENDPOINT_NAME}` from its own namespace, usually `{OPERATOR_NAMESPACE}`, not `{other}`"
            ),
            Some(format!(
                "set `namespace: {OPERATOR_NAMESPACE}`, or allow CR6101 if the operator runs in `{other}` (a Helm release namespace)"
            )),
        ),
        None => sink.report(
            &c::ENDPOINT_NAMESPACE,
            meta.at("namespace"),
            format!("`{ENDPOINT_NAME}` has no namespace; `kubectl apply` would put it in the current one"),
            Some(format!("set `namespace: {OPERATOR_NAMESPACE}`")),
        ),
    }
    let data = Fields::of(doc.get("data"), "data");
    for key in data.keys() {
        let path = data.at(key);
        let value = data.raw(key);
        let known = PAIRS.iter().any(|(host, port)| key == host || key == port);
        let is_port = PAIRS.iter().any(|(_, port)| key == port);
        if !known {
            let close =
                crate::suggest::closest(key, PAIRS.iter().flat_map(|(host, port)| [*host, *port]));
            sink.report(
                &c::LINT_ENDPOINT_KEY,
                path.clone(),
                format!("the operator ignores key `{key}`"),
                close.map(|candidate| format!("did you mean `{candidate}`?")),
            );
        }
        match value {
            Some(Value::String(_)) => {}
            Some(other) if is_port => sink.report(
                &c::ENDPOINT_PORT,
                path,
                format!(
                    "`{key}: {other}` is {}, not a string; kubectl rejects it",
                    describe(other)
                ),
                Some(format!("quote it: `{key}: \"{other}\"`")),
            ),
            Some(other) => {
                let written = if spans.quoting(&path) == Some(Quoting::Plain) {
                    "an unquoted value that YAML reads as "
                } else {
                    ""
                };
                sink.report(
                    &c::ENDPOINT_NOT_STRING,
                    path,
                    format!("`{key}` is {written}{}, not a string", describe(other)),
                    Some("quote the value".into()),
                );
            }
            None => {}
        }
    }
    for (host_key, port_key) in PAIRS {
        let host = data.str(host_key);
        let port = data.raw(port_key);
        if let Some(host) = host {
            match vocab::parse_host(host) {
                Ok(Host::Ip(addr)) => {
                    if ctx
                        .service_cidrs
                        .iter()
                        .any(|net| first_host(net) == Some(addr))
                    {
                        sink.report(
                            &c::LINT_ENDPOINT_IS_CLUSTER_IP,
                            data.at(host_key),
                            format!(
                                "`{host}` is the `kubernetes` Service ClusterIP, which only kube-proxy makes reachable"
                            ),
                            Some("use the API server's VIP or DNS name (e.g. the kubeadm controlPlaneEndpoint)".into()),
                        );
                    }
                }
                Ok(Host::Name(_)) => {}
                Err(err) => sink.report(
                    &c::ENDPOINT_HOST,
                    data.at(host_key),
                    err.to_string(),
                    Some(
                        "write only the host, e.g. `control.k8s.example.com` or `10.0.0.10`".into(),
                    ),
                ),
            }
        }
        if let Some(Value::String(port)) = port
            && let Err(err) = vocab::parse_port(port)
        {
            sink.report(&c::ENDPOINT_PORT, data.at(port_key), err.to_string(), None);
        }
        let host_set = host.is_some_and(|h| !h.is_empty());
        let port_set = port.is_some_and(|p| p.as_str() != Some(""));
        if host_set != port_set {
            let (missing, present) = if host_set {
                (port_key, host_key)
            } else {
                (host_key, port_key)
            };
            sink.report(
                &c::ENDPOINT_PAIR,
                data.at(present),
                format!("`{present}` is set but `{missing}` is not; the operator ignores the pair"),
                Some(format!("add `{missing}`")),
            );
        }
    }
}

/// The values of the APIServer's `logSeverity` fields (the CRD enum; note `Warn`, where Felix
/// and BGPConfiguration say `Warning`).
const APISERVER_LOG_SEVERITIES: &[&str] = &["Fatal", "Error", "Warn", "Info", "Debug", "Trace"];

/// The names one deployment override of an APIServer accepts for its pod's parts.
struct DeploymentNames {
    /// The field under `spec`.
    field: &'static str,
    /// Valid `containers[].name` values.
    containers: &'static [&'static str],
    /// Valid `containers[].ports[].name` values.
    ports: &'static [&'static str],
    /// Valid `initContainers[].name` values.
    init_containers: &'static [&'static str],
}

/// The deployment overrides of an APIServer and the names the CRD enumerates for them.
const APISERVER_DEPLOYMENTS: &[DeploymentNames] = &[
    DeploymentNames {
        field: "apiServerDeployment",
        containers: &[
            "calico-apiserver",
            "tigera-queryserver",
            "calico-l7-admission-controller",
        ],
        ports: &["apiserver", "queryserver", "l7admctrl"],
        init_containers: &["calico-apiserver-certs-key-cert-provisioner"],
    },
    DeploymentNames {
        field: "calicoWebhooksDeployment",
        containers: &["calico-webhooks"],
        ports: &["calico-webhooks"],
        init_containers: &[],
    },
];

/// Check an operator.tigera.io/v1 APIServer: the CRD enums users set (log severities, the
/// container and port names of deployment overrides). The name (CR6001) is the CRD's CEL rule,
/// evaluated by `crate::release::cel` for the releases whose CRD has it.
pub(crate) fn check_apiserver(sink: &mut Sink, doc: &Value) {
    let spec = Fields::of(doc.get("spec"), "spec");
    let logging = Fields::of(spec.raw("logging"), "spec.logging");
    for component in ["apiServer", "queryServer"] {
        let path = logging.at(component);
        let fields = Fields::of(logging.raw(component), &path);
        if fields.str("logSeverity") == Some("Warning") {
            sink.report(
                &c::APISERVER_ENUM,
                fields.at("logSeverity"),
                format!(
                    "`logSeverity: Warning` is not supported; valid values: {}",
                    APISERVER_LOG_SEVERITIES.join(", ")
                ),
                Some("the APIServer spells it `Warn` (FelixConfiguration and BGPConfiguration say `Warning`)".into()),
            );
        } else {
            check_enum(
                sink,
                &c::APISERVER_ENUM,
                &fields,
                "logSeverity",
                APISERVER_LOG_SEVERITIES,
            );
        }
    }
    for deployment_names in APISERVER_DEPLOYMENTS {
        let deployment = deployment_names.field;
        let Some(pod) = spec
            .raw(deployment)
            .and_then(|value| value.get("spec"))
            .and_then(|value| value.get("template"))
            .and_then(|value| value.get("spec"))
        else {
            continue;
        };
        let pod_path = format!("spec.{deployment}.spec.template.spec");
        let pod = Fields::of(Some(pod), &pod_path);
        for (key, names) in [
            ("containers", deployment_names.containers),
            ("initContainers", deployment_names.init_containers),
        ] {
            for (path, item) in items(pod.list(key), &pod.at(key)) {
                let container = Fields::of(Some(item), &path);
                check_enum(sink, &c::APISERVER_ENUM, &container, "name", names);
                if key == "containers" {
                    for (port_path, port) in items(container.list("ports"), &container.at("ports"))
                    {
                        let port = Fields::of(Some(port), &port_path);
                        check_enum(
                            sink,
                            &c::APISERVER_ENUM,
                            &port,
                            "name",
                            deployment_names.ports,
                        );
                    }
                }
            }
        }
    }
}

/// The first usable address of a range: the kubernetes Service's ClusterIP in it.
fn first_host(net: &ipnet::IpNet) -> Option<std::net::IpAddr> {
    net.hosts().next()
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
        Value::Null => "null",
        Value::String(_) => "a string",
    }
}
