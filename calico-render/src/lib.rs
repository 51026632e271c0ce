//! Rendering of Calico bundles, patches and stream adapters.
//!
//! # Quick start
//!
//! As a library, depend on calico-render as `cargo add calico-render` writes it: the binary is
//! the `cli` feature, off by default (it brings clap and the code generator and picks
//! k8s-openapi's `latest` Kubernetes version), and a dependent picks its own
//! (`k8s-openapi = { version = "0.29", features = ["v1_35"] }`). The model, [`calico_spec`], is re-exported, with [`k8s_openapi`]
//! and [`ipnet`]; its own crate documentation shows building a ClusterNetwork in Rust, the
//! generated types and reading live objects from a newer operator.
//!
//! **Text -> load -> render.** [`calico_spec::cluster_network::load`] returns objects only
//! when nothing is an error; [`bundle::render_bundle`] writes them in bundle order, with the
//! same bytes for the same input.
//!
//! ```
//! use calico_render::bundle::{Format, RenderConfig, Stage, render_bundle};
//! use calico_render::calico_spec::cluster_network::load;
//!
//! let text = "\
//! apiVersion: calico-render.dev/v1alpha1
//! kind: ClusterNetwork
//! spec:
//!   podPools:
//!     - {name: default-ipv4-ippool, cidr: 172.20.0.0/16}
//! ";
//! let loaded = load("cluster.yaml", text)?;
//! let config = RenderConfig { stage: Stage::All, format: Format::Yaml };
//! let yaml = render_bundle(&config, &loaded.objects)?;
//! assert!(yaml.starts_with("apiVersion: operator.tigera.io/v1\nkind: Installation\n"), "{yaml}");
//! assert!(yaml.contains("name: default-ipv4-ippool\n"), "{yaml}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Validate hand-written manifests and report them.** The rule catalogue finds every
//! problem at once; [`report`] words the diagnostics as the CLI does (text with the quoted
//! line, one line each, or JSON).
//!
//! ```
//! use std::collections::BTreeMap;
//!
//! use calico_render::calico_spec::rules::{self, Context, SourceText};
//! use calico_render::calico_spec::source::Limits;
//! use calico_render::report::{self, Palette};
//!
//! let text = "\
//! apiVersion: projectcalico.org/v3
//! kind: BGPPeer
//! metadata: {name: router}
//! spec: {peerIP: 192.168.10.300, asNumber: 64512}
//! ";
//! let inputs = [SourceText { name: "peers.yaml", text }];
//! let outcome = rules::validate_texts(&inputs, &Context::assumed(), &Limits::MANIFESTS)?;
//! assert!(report::has_errors(&outcome.diagnostics));
//! for diag in &outcome.diagnostics {
//!     // A stable code, the field path and, from text, the line and column.
//!     assert_eq!(diag.path, "spec.peerIP");
//!     assert_eq!(diag.location.as_ref().and_then(|at| at.line), Some(4));
//! }
//! let sources = BTreeMap::from([("peers.yaml".to_owned(), text.to_owned())]);
//! let shown = report::render_text(&outcome.diagnostics, &outcome.skipped, &sources,
//!     outcome.checked, &Palette::PLAIN);
//! assert!(shown.contains("peers.yaml:4:"), "{shown}");
//! # Ok::<(), rules::TextError>(())
//! ```
//!
//! **The day-two patch.** [`patch::day_two`] is the patch `calico-render patch -f
//! cluster.yaml --live live.yaml` prints, in one call: the ClusterNetwork's objects against
//! the live ones (objects, a `List` or typed lists, as a kube client or `kubectl get -o json`
//! returns them), one guarded patch per object. An Installation value that only the operator's
//! defaults set on our side and the cluster set otherwise (a chart's `kubeletVolumePluginPath:
//! None`) is kept and reported in [`patch::DayTwo::unstated`], as the CLI does.
//!
//! ```
//! use calico_render::calico_spec::cluster_network::load;
//! use calico_render::patch::{self, DayTwoOptions};
//! use serde_json::json;
//!
//! let text = "\
//! apiVersion: calico-render.dev/v1alpha1
//! kind: ClusterNetwork
//! spec:
//!   mtu: 1400
//!   podPools:
//!     - {name: default-ipv4-ippool, cidr: 172.20.0.0/16}
//! ";
//! let loaded = load("cluster.yaml", text)?;
//! // The live Installation, installed by the tigera-operator chart: another MTU, and the
//! // chart's `kubeletVolumePluginPath: None`, which the ClusterNetwork does not state.
//! let mut live = loaded.objects.iter().map(|object| object.to_value())
//!     .find(|object| object["kind"] == "Installation").expect("an Installation");
//! live["metadata"]["resourceVersion"] = json!("48213");
//! live["spec"]["calicoNetwork"]["mtu"] = json!(1450);
//! live["spec"]["kubeletVolumePluginPath"] = json!("None");
//! let live = [json!({"apiVersion": "v1", "kind": "List", "items": [live]})];
//!
//! let day_two = patch::day_two(&loaded, &live, &DayTwoOptions::default())?;
//! let changed: Vec<&patch::ObjectPatch> = day_two.stream.changed().collect();
//! assert_eq!(changed.len(), 1);
//! assert_eq!(
//!     changed[0].to_rfc6902(),
//!     json!([{"op": "replace", "path": "/spec/calicoNetwork/mtu", "value": 1400}])
//! );
//! // The chart's choice is kept, and said (`--revert-unstated` reverts it).
//! assert_eq!(day_two.unstated.len(), 1);
//! assert!(day_two.unstated[0].to_string().contains("kubeletVolumePluginPath"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **A patch of one object, and sending it with kube.** [`patch::diff_object`] is the raw
//! diff: it compares a desired object with the live one (as the API server returns it) and
//! gives the smallest guarded RFC 6902 patch of every field the desired object sets (operator
//! defaults included, so it would revert the chart's value above), already applied to the live
//! object and checked before it is returned.
//! [`patch::ObjectPatch::to_rfc6902`] is that patch as plain JSON, which any json-patch
//! version reads: kube 5's `Patch::Json` takes json-patch 4's `Patch`, so a kube client sends
//! it with `let ops: json_patch::Patch = serde_json::from_value(body)?;` and
//! `Api::<Installation>::all(client).patch("default", &PatchParams::default(),
//! &Patch::Json::<()>(ops)).await?` (kube is not a dependency of this crate, so that line is
//! not compiled here). What goes over the wire is the JSON below with the content type
//! `application/json-patch+json`, as `kubectl patch --type=json` sends it.
//!
//! ```
//! use calico_render::calico_spec::cluster_network::load;
//! use calico_render::patch;
//! use serde_json::json;
//!
//! let text = "\
//! apiVersion: calico-render.dev/v1alpha1
//! kind: ClusterNetwork
//! spec:
//!   mtu: 1400
//!   podPools:
//!     - {name: default-ipv4-ippool, cidr: 172.20.0.0/16}
//! ";
//! let loaded = load("cluster.yaml", text)?;
//! let desired = loaded.objects.iter().map(|object| object.to_value())
//!     .find(|object| object["kind"] == "Installation").expect("an Installation");
//! // The live object, as `kube::Api::get` or `kubectl get -o json` returns it.
//! let mut live = desired.clone();
//! live["metadata"]["resourceVersion"] = json!("48213");
//! live["spec"]["calicoNetwork"]["mtu"] = json!(1450);
//!
//! let patch = patch::diff_object(&desired, &live)?;
//! let body = patch.to_rfc6902();
//! assert_eq!(body, json!([{"op": "replace", "path": "/spec/calicoNetwork/mtu", "value": 1400}]));
//! // The same value read by a json-patch crate (ours is re-exported; kube's is version 4).
//! let ops: calico_render::json_patch::Patch = serde_json::from_value(body)?;
//! assert_eq!(ops.0.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The entry points most callers need, at the root; the modules stay public for the rest.
pub use bundle::{RenderConfig, Stage, render_bundle};
pub use import::{import_texts, import_values};
pub use patch::{ObjectPatch, PatchError, StreamPatch, day_two, diff_object, diff_streams};
pub use post_render::post_render;
pub use yaml::EmitError;

pub mod bundle;
// Not API: what the tigera-operator chart does with its values, public for the chart round trip
// in tests/ only.
#[doc(hidden)]
pub mod chart;
pub mod chart_values;
pub mod fleet;
pub mod helm_values;
pub mod import;
pub mod krm;
pub mod merge;
pub mod patch;
pub mod picture;
pub mod plan;
pub mod post_render;
pub mod report;
pub mod router;
// Not API: the post-render scanner, public only for its differential test in tests/.
#[doc(hidden)]
pub mod scan;
pub mod schema;
pub mod upgrade;
pub mod yaml;

/// The model this crate renders (wire types, rules, ClusterNetwork), so one dependency is enough.
pub use calico_spec;
/// The ipnet crate of the ClusterNetwork's CIDRs.
pub use calico_spec::ipnet;
/// The k8s-openapi crate the wire types use; its Kubernetes version is the final binary's choice.
pub use calico_spec::k8s_openapi;
/// The json-patch crate (version 5) of [`patch::ObjectPatch::patch`]. For a crate that takes
/// another version (kube takes json-patch 4), [`patch::ObjectPatch::to_rfc6902`] is the same
/// patch as plain RFC 6902 JSON.
pub use json_patch;
