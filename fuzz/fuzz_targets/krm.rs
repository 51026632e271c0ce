//! The KRM ResourceList path over arbitrary text. Never panics.
#![no_main]
use calico_render::krm::{Generate, Generated, Origin, run};
use calico_render::post_render::PlainFinish;
use libfuzzer_sys::fuzz_target;

struct FuzzGenerate;

impl Generate for FuzzGenerate {
    fn generate(&self, _origin: &Origin, text: &str) -> Generated {
        let objects = calico_spec::cluster_network::load("fn.yaml", text)
            .map(|loaded| loaded.objects.iter().map(|object| object.to_value()).collect())
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

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = run(text, &FuzzGenerate, &PlainFinish);
    }
});
