//! `patch` over two objects (the input split at the first `\n---\n`): never panics, and a
//! patch it makes, applied to the live object, leaves nothing more to patch.
#![no_main]
use calico_render::patch::diff_object;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn parse(text: &str) -> Option<Value> {
    serde_saphyr::from_str::<Value>(text).ok()
}

fuzz_target!(|data: &[u8]| {
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
    assert!(again.is_empty(), "patch left a difference: {}", again.to_json());
});
