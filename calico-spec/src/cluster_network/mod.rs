//! `ClusterNetwork`: our declarative input kind, and its compilation into wire objects.
//!
//! A ClusterNetwork (`apiVersion: calico-render.dev/v1alpha1`) says, in the platform
//! engineer's terms, what the cluster's Calico network is: the dataplane, the pod pools, BGP,
//! LoadBalancer pools, the API endpoint the nodes reach. The flow is
//! [`parse`] (text -> [`ClusterNetwork`], strict, with positions) -> [`check`] (cross-field
//! rules, run by `parse`) -> [`compile_unchecked`] (-> wire objects in bundle order).
//! [`load`] does all of it and also runs the rule catalogue over the compiled objects;
//! [`ClusterNetwork::compile`] does the same for a value built in Rust (`build`).
//! [`origin`] maps a field of a compiled object back to the ClusterNetwork field it came from.

mod build;
mod check;
mod compile;
mod load;
mod overrides;
mod parse;
mod spec;
mod tolerant;

pub use check::check;
pub use compile::{
    CompileError, DEFAULT_NAME, ENDPOINT_CONFIG_MAP, OPERATOR_NAMESPACE,
    compile as compile_unchecked, default_block_size, default_load_balancer_block_size, origin,
    stated_objects,
};
pub use load::{Loaded, context, load, load_for, validate_objects};
pub use parse::{ParseError, Parsed, locate, parse};
pub use spec::*;
