//! The post-render stream: arbitrary bytes as a chart, our objects from an example. Never
//! panics; when it succeeds, the output is a YAML stream that parses.
#![no_main]
use calico_render::post_render::{Options, PlainFinish, post_render};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::sync::OnceLock;

const EXAMPLE: &str = include_str!("../../examples/bgp-loadbalancer/cluster.yaml");

fn ours() -> &'static [Value] {
    static OURS: OnceLock<Vec<Value>> = OnceLock::new();
    OURS.get_or_init(|| {
        let loaded = calico_spec::cluster_network::load("example.yaml", EXAMPLE)
            .expect("the example loads");
        loaded.objects.iter().map(|object| object.to_value()).collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let mut input = data;
    let mut output = Vec::new();
    let options = Options {
        spool_memory: 4096,
        ..Options::default()
    };
    if post_render(&mut input, &mut output, ours(), &PlainFinish, &options).is_ok() {
        let text = std::str::from_utf8(&output).expect("post-render writes UTF-8");
        let parsed: Result<Vec<Value>, _> = serde_saphyr::from_multiple(text);
        assert!(parsed.is_ok(), "output does not parse: {parsed:?}");
    }
});
