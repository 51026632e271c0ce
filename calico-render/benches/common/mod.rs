//! What the benches share.

use std::path::PathBuf;

/// helm, from `CALICO_RENDER_E2E_TOOLS`, then `~/.cache/calico-render-e2e/bin` (where
/// `.ci/k8s-e2e.sh install` puts it).
pub fn find_helm() -> Option<PathBuf> {
    let from_env =
        std::env::var_os("CALICO_RENDER_E2E_TOOLS").map(|dir| PathBuf::from(dir).join("helm"));
    let from_home = std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".cache/calico-render-e2e/bin/helm"));
    from_env
        .into_iter()
        .chain(from_home)
        .find(|path| path.is_file())
}
