//! The bodies of the fuzz targets (`fuzz/fuzz_targets/*.rs`), here so that the libFuzzer
//! binaries (nightly, `fuzz/run.sh`) and the stable corpus replay (`tests/tests/fuzz_corpus.rs`)
//! call the same code. Each body takes the raw input, must never panic, hang or run out of
//! memory, and asserts the target's invariant (fuzz/README.md) with a panic when it breaks.

use calico_render::krm::{Generate, Generated, Origin};
use calico_render::merge::Checked;
use calico_render::post_render::Options;
use serde_json::Value;
use std::sync::OnceLock;

/// A target's body: the raw input; panics when the target's invariant breaks.
pub type Body = fn(&[u8]);

/// Every target by the name of its binary and corpus folder (`fuzz/corpus/<name>`).
pub const TARGETS: [(&str, Body); 9] = [
    ("cluster_network_load", cluster_network_load),
    ("validate", validate),
    ("selector", selector),
    ("cidr", cidr),
    ("post_render", post_render),
    ("krm", krm),
    ("patch", patch),
    ("patch_installations", patch_installations),
    ("codegen", codegen),
];

/// ClusterNetwork load: parse, check, compile and validate arbitrary text.
pub fn cluster_network_load(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = calico_spec::cluster_network::load("fuzz.yaml", text);
    }
}

/// `validate` over arbitrary multi-document text, with the manifest budgets.
pub fn validate(data: &[u8]) {
    use calico_spec::rules::{Context, SourceText, validate_texts};
    use calico_spec::source::Limits;
    if let Ok(text) = std::str::from_utf8(data) {
        let texts = [SourceText {
            name: "fuzz.yaml",
            text,
        }];
        let _ = validate_texts(&texts, &Context::assumed(), &Limits::MANIFESTS);
    }
}

/// The Calico selector parser.
pub fn selector(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = calico_spec::vocab::selector::parse_selector(text);
    }
}

/// CIDR and address parsing: a strict CIDR is also a CIDR, and whatever parses prints back to
/// text that parses to the same network.
pub fn cidr(data: &[u8]) {
    use calico_spec::vocab::cidr::{parse_cidr, parse_ip, parse_ip_or_cidr, parse_strict_cidr};
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_ip(text);
    let _ = parse_ip_or_cidr(text);
    if let Ok(net) = parse_cidr(text) {
        assert_eq!(parse_cidr(&net.to_string()).ok(), Some(net), "{text:?}");
    }
    if let Ok(net) = parse_strict_cidr(text) {
        assert!(parse_cidr(text).is_ok(), "strict but not a CIDR: {text:?}");
        assert_eq!(
            parse_strict_cidr(&net.to_string()).ok(),
            Some(net),
            "{text:?}"
        );
    }
}

/// Our objects for the post-render target: the compiled `examples/bgp-loadbalancer`.
fn ours() -> &'static [Value] {
    const EXAMPLE: &str = include_str!("../../examples/bgp-loadbalancer/cluster.yaml");
    static OURS: OnceLock<Vec<Value>> = OnceLock::new();
    OURS.get_or_init(|| {
        let loaded =
            calico_spec::cluster_network::load("example.yaml", EXAMPLE).expect("the example loads");
        loaded
            .objects
            .iter()
            .map(|object| object.to_value())
            .collect()
    })
}

/// The post-render stream: arbitrary bytes as a chart, our objects from an example, a small
/// spool so that the spill to a temporary file is exercised too. When it succeeds on a UTF-8
/// chart, the output is UTF-8, and when the chart parses as a YAML stream, so does the output.
/// (A document that is not ours is copied unread, byte for byte: a chart that is not UTF-8 or
/// not YAML may well stay so.)
pub fn post_render(data: &[u8]) {
    let mut input = data;
    let mut output = Vec::new();
    let options = Options {
        spool_memory: 4096,
        ..Options::default()
    };
    let result = calico_render::post_render::post_render(
        &mut input,
        &mut output,
        ours(),
        &Checked,
        &options,
    );
    let Ok(chart) = std::str::from_utf8(data) else {
        return;
    };
    if result.is_ok() {
        let text = std::str::from_utf8(&output).expect("a UTF-8 chart gives UTF-8 output");
        if serde_saphyr::from_multiple::<Value>(chart).is_ok() {
            let parsed: Result<Vec<Value>, _> = serde_saphyr::from_multiple(text);
            assert!(parsed.is_ok(), "output does not parse: {parsed:?}");
        }
    }
}

/// The KRM function's generator for fuzzing: `cluster_network::load`, no files.
struct FuzzGenerate;

impl Generate for FuzzGenerate {
    fn generate(&self, _origin: &Origin, text: &str) -> Generated {
        let objects = calico_spec::cluster_network::load("fn.yaml", text)
            .map(|loaded| {
                loaded
                    .objects
                    .iter()
                    .map(|object| object.to_value())
                    .collect()
            })
            .unwrap_or_default();
        Generated {
            objects,
            diagnostics: Vec::new(),
        }
    }

    fn read_file(&self, _path: &str) -> std::io::Result<String> {
        Err(std::io::Error::other("no files while fuzzing"))
    }
}

/// The KRM ResourceList path over arbitrary text.
pub fn krm(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = calico_render::krm::run(text, &FuzzGenerate, &Checked);
    }
}

/// `patch` over two objects (the input split at the first `\n---\n`): a patch it makes,
/// applied to the live object, leaves nothing more to patch.
pub fn patch(data: &[u8]) {
    use calico_render::patch::diff_object;
    fn parse(text: &str) -> Option<Value> {
        serde_saphyr::from_str::<Value>(text).ok()
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some((desired, live)) = text.split_once("\n---\n") else {
        return;
    };
    let (Some(desired), Some(live)) = (parse(desired), parse(live)) else {
        return;
    };
    let Ok(patch) = diff_object(&desired, &live) else {
        return;
    };
    let mut patched = live.clone();
    json_patch::patch(&mut patched, patch.patch()).expect("our patch applies to the live object");
    let again = diff_object(&desired, &patched).expect("the patched object diffs");
    assert!(
        again.is_empty(),
        "patch left a difference: {}",
        again.to_json()
    );
}

/// Structure-aware `patch`: the input is read as the choices of the Installation generator
/// (`crate::installations`), which gives two valid Installations (the first as the cluster
/// holds it, the operator's defaults, metadata and status written back); a quarter of the
/// time a pool kept by both changes its CIDR or block size, which Calico cannot do in place.
/// The patch applied to the first gives the second on every managed field (see
/// [`crate::installations::check_patch`]), or it is refused with a reason, and only then.
pub fn patch_installations(data: &[u8]) {
    installation_pair(data);
}

/// What one generated pair of [`patch_installations`] came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairOutcome {
    /// The patch was checked; `changed` when it holds an operation.
    Patched {
        /// Whether the patch was not empty.
        changed: bool,
    },
    /// A change Calico cannot make in place was refused, with a reason.
    Refused,
}

/// The body of [`patch_installations`], returning what the pair came to (for the bounded
/// stable test's counts); panics when the invariant breaks.
pub fn installation_pair(data: &[u8]) -> PairOutcome {
    use crate::installations::{Choices, as_live, check_patch, gen_installation};
    use calico_render::patch::{PatchError, diff_object};
    let mut choices = arbitrary::Unstructured::new(data);
    let first = gen_installation(&mut choices);
    let mut second = gen_installation(&mut choices);
    let live = as_live(&first, &mut choices);
    let moved = if choices.chance(25) {
        move_kept_pool(&mut second, &live, &mut choices)
    } else {
        None
    };
    let context = || format!("\nlive: {live}\ndesired: {second}");
    match moved {
        None => {
            let object = check_patch(&second, &live)
                .unwrap_or_else(|failure| panic!("{failure}{}", context()));
            PairOutcome::Patched {
                changed: !object.is_empty(),
            }
        }
        Some(field) => match diff_object(&second, &live) {
            Err(PatchError::Refused { refusals }) => {
                assert!(
                    refusals.iter().any(|refusal| refusal.path.ends_with(field)),
                    "the {field} change is not among the refusals {refusals:?}{}",
                    context()
                );
                for refusal in &refusals {
                    assert!(
                        !refusal.hint.is_empty(),
                        "a refusal without a hint: {refusal:?}"
                    );
                }
                PairOutcome::Refused
            }
            other => panic!(
                "a changed pool {field} was not refused: {other:?}{}",
                context()
            ),
        },
    }
}

/// Change the CIDR or the block size of a pool `desired` shares (by name) with `live`, to
/// another valid one; returns the field changed, `None` when no pool is shared.
fn move_kept_pool(
    desired: &mut Value,
    live: &Value,
    choices: &mut impl crate::installations::Choices,
) -> Option<&'static str> {
    let live_pools = live["spec"]["calicoNetwork"]["ipPools"].as_array()?;
    let pool = desired["spec"]["calicoNetwork"]["ipPools"]
        .as_array_mut()?
        .iter_mut()
        .find(|pool| live_pools.iter().any(|old| old["name"] == pool["name"]))?;
    let ipv6 = pool["cidr"].as_str().is_some_and(|cidr| cidr.contains(':'));
    // None of the generator's pools has these, so each is a change.
    let (field, value) = match (choices.chance(50), ipv6) {
        (true, false) => ("cidr", serde_json::json!("192.168.200.0/24")),
        (true, true) => ("cidr", serde_json::json!("fd00:10:99::/56")),
        (false, false) => ("blockSize", serde_json::json!(30)),
        (false, true) => ("blockSize", serde_json::json!(124)),
    };
    pool[field] = value;
    Some(field)
}

/// codegen over arbitrary text as a CRD file.
pub fn codegen(data: &[u8]) {
    use calico_codegen::{Options, Source, generate};
    if let Ok(text) = std::str::from_utf8(data) {
        let sources = [Source {
            name: "fuzz.yaml".to_owned(),
            text: text.to_owned(),
        }];
        let options = Options {
            docs: true,
            command: "calico-render codegen --crd fuzz.yaml --out gen".to_owned(),
        };
        let _ = generate(&sources, &options);
    }
}
