//! codegen over arbitrary CRD YAML. Never panics.
#![no_main]
use calico_codegen::{Options, Source, generate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
