//! `validate` over arbitrary multi-document text, with the manifest budgets. Never panics.
#![no_main]
use calico_spec::rules::{Context, SourceText, validate_texts};
use calico_spec::source::Limits;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let texts = [SourceText {
            name: "fuzz.yaml",
            text,
        }];
        let _ = validate_texts(&texts, &Context::assumed(), &Limits::MANIFESTS);
    }
});
