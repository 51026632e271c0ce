//! Typed, validated model of a cluster's Calico network.
//!
//! calico-spec holds the wire types generated from Calico's CRDs, the validated vocabulary
//! (CIDRs, block sizes, selectors, ...), the rule catalogue with upstream parity, and the
//! `ClusterNetwork` spec with its compilation into wire objects.
//! It opens no files and prints nothing; it may parse text it is handed so that diagnostics
//! keep their line and column.
//!
//! # Quick start
//!
//! calico-spec picks no Kubernetes version: the binary that uses it enables one k8s-openapi
//! feature (`k8s-openapi = { version = "0.29", features = ["v1_35"] }`), as k8s-openapi
//! requires; [`k8s_openapi`] and [`ipnet`] are re-exported so that the versions match.
//!
//! **A ClusterNetwork text to wire objects.** [`cluster_network::load`] parses, checks,
//! compiles and runs the rule catalogue; it returns objects only when nothing is an error, and
//! every problem otherwise, each with its field path, line and column. (calico-render's
//! `bundle::render_bundle` turns the objects into YAML.)
//!
//! ```
//! use calico_spec::cluster_network::{ParseError, load};
//!
//! let text = "\
//! apiVersion: calico-render.dev/v1alpha1
//! kind: ClusterNetwork
//! spec:
//!   dataplane: BPF
//!   apiEndpoint: {host: control.k8s.example.com}
//!   podPools:
//!     - {name: default-ipv4-ippool, cidr: 172.20.0.0/16}
//! ";
//! let loaded = load("cluster.yaml", text)?;
//! let kinds: Vec<&str> = loaded.objects.iter().map(|object| object.kind()).collect();
//! assert_eq!(kinds, ["ConfigMap", "Installation", "APIServer"]);
//!
//! // A block size of 40 is refused with its position; no object comes back.
//! let Err(ParseError::Invalid { diagnostics }) = load("cluster.yaml", &text.replace(
//!     "cidr: 172.20.0.0/16}", "cidr: 172.20.0.0/16, blockSize: 40}",
//! )) else { unreachable!() };
//! let first = &diagnostics[0];
//! assert_eq!(first.path, "spec.podPools[0].blockSize");
//! assert_eq!(first.location.as_ref().and_then(|at| at.line), Some(7));
//! # Ok::<(), ParseError>(())
//! ```
//!
//! **The same ClusterNetwork built in Rust.** [`Default`] holds the documented defaults and
//! constructors take what has none; [`cluster_network::ClusterNetwork::compile`] gives the
//! guarantee `load` gives text. The types are `Serialize`, so a tool can write the file it
//! built.
//!
//! ```
//! use calico_spec::cluster_network::{ApiEndpoint, ClusterNetwork, ClusterNetworkSpec, Dataplane, PodPool};
//!
//! let cluster = ClusterNetwork::new("ha-ebpf", ClusterNetworkSpec {
//!     api_endpoint: Some(ApiEndpoint::new("control.k8s.example.com")),
//!     dataplane: Dataplane::Bpf,
//!     pod_pools: vec![PodPool::new("default-ipv4-ippool", "172.20.0.0/16".parse()?)],
//!     ..ClusterNetworkSpec::default()
//! });
//! assert_eq!(cluster.compile()?.objects.len(), 3);
//! let written = serde_json::to_value(&cluster)?;
//! assert_eq!(written["spec"]["podPools"][0]["cidr"], "172.20.0.0/16");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Hand-written manifests, every problem at once.** [`rules::validate_texts`] reads upstream
//! manifests (and ClusterNetworks) and walks them with the rule catalogue; each
//! [`diag::Diagnostic`] has a stable code that [`rules::lookup`] explains.
//!
//! ```
//! use calico_spec::diag::Severity;
//! use calico_spec::rules::{self, Context, SourceText};
//! use calico_spec::source::Limits;
//!
//! let text = "\
//! apiVersion: projectcalico.org/v3
//! kind: IPPool
//! metadata: {name: pods}
//! spec: {cidr: 172.20.0.0/16, blockSize: 40, ipipMode: Always, vxlanMode: Always}
//! ";
//! let inputs = [SourceText { name: "pools.yaml", text }];
//! let outcome = rules::validate_texts(&inputs, &Context::assumed(), &Limits::MANIFESTS)?;
//! for diag in &outcome.diagnostics {
//!     let rule = rules::lookup(diag.code).expect("every code is in the catalogue");
//!     let line = diag.location.as_ref().and_then(|at| at.line);
//!     println!("{} {} at {} (line {line:?}): {}", diag.severity, diag.code, diag.path, rule.summary);
//! }
//! assert!(outcome.diagnostics.iter().any(|diag| diag.severity == Severity::Error
//!     && diag.path == "spec.blockSize"));
//! # Ok::<(), rules::TextError>(())
//! ```
//!
//! **An Installation with the generated types.** [`generated`] has one module per API group
//! and version; the types are plain structs with `Default`, k8s-openapi's `Resource` and
//! `Metadata`, and string enums that keep values they do not list. A type refuses a field it
//! does not have; [`live::Lenient`] reads objects from a newer operator without losing theirs.
//!
//! ```
//! use calico_spec::generated::operator_tigera_io::v1::{
//!     Installation, InstallationSpec, InstallationSpecCalicoNetwork,
//!     InstallationSpecCalicoNetworkIpPools, InstallationSpecCalicoNetworkLinuxDataplane,
//! };
//! use calico_spec::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
//! use calico_spec::rules::{self, Context};
//!
//! let installation = Installation {
//!     metadata: ObjectMeta { name: Some("default".into()), ..ObjectMeta::default() },
//!     spec: Some(InstallationSpec {
//!         calico_network: Some(InstallationSpecCalicoNetwork {
//!             linux_dataplane: Some(InstallationSpecCalicoNetworkLinuxDataplane::Nftables),
//!             ip_pools: Some(vec![InstallationSpecCalicoNetworkIpPools {
//!                 name: Some("default-ipv4-ippool".into()),
//!                 cidr: "172.20.0.0/16".into(),
//!                 ..Default::default()
//!             }]),
//!             ..Default::default()
//!         }),
//!         ..Default::default()
//!     }),
//!     ..Installation::default()
//! };
//! let value = serde_json::to_value(&installation)?;
//! assert_eq!(value["kind"], "Installation");
//! assert!(rules::validate_values(&[value], &Context::assumed()).is_empty());
//! # Ok::<(), serde_json::Error>(())
//! ```

// The entry points most callers need, at the root. The modules stay public for everything
// else (the generated types, the vocabulary, the rule tables); `source`'s path helpers are
// `#[doc(hidden)]`: they serve the other crates of this workspace, not callers.
pub use cluster_network::{ClusterNetwork, Loaded, load};
pub use diag::{Diagnostic, Severity};
pub use objects::Object;
pub use release::{RELEASES, Release};
pub use rules::{Context, validate, validate_values};

pub mod cluster_network;
pub mod defaults;
pub mod diag;
pub mod fleet;
pub mod generated;
pub mod live;
pub mod objects;
pub mod release;
pub mod router;
pub mod rules;
pub mod source;
mod suggest;
mod typed;
pub mod vocab;

/// The k8s-openapi crate these types are built on (`ObjectMeta` is in every object), so a
/// dependent uses the same version without naming it. calico-spec enables no Kubernetes version
/// feature of k8s-openapi: the final binary picks one (`k8s-openapi = { version = "0.29",
/// features = ["v1_35"] }`, or `latest`), as k8s-openapi requires.
pub use k8s_openapi;

/// The ipnet crate whose `IpNet` the ClusterNetwork and the vocabulary use for CIDRs.
pub use ipnet;
