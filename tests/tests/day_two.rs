//! `patch::day_two` (issue 35): the day-two patch as one library call is the patch the CLI
//! prints, for every example, with a chart's `kubeletVolumePluginPath: None` kept (and said)
//! unless reverting is asked for.

use calico_render::patch::{self, DayTwoOptions, Format};
use calico_render_tests::{run_calico_render, workspace_root};
use calico_spec::cluster_network;
use serde_json::{Value, json};

use crate::e2e_k8s::example_inputs;

#[test]
fn the_library_call_is_the_cli_patch() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut failures = Vec::new();
    for input in example_inputs() {
        let file = input.display().to_string();
        let text = std::fs::read_to_string(&input).expect("example readable");
        let loaded = cluster_network::load(&file, &text).expect("the example loads");
        let mut live: Vec<Value> = loaded.objects.iter().map(|o| o.to_value()).collect();
        // An example that states the chart's value already (an imported one) has nothing to
        // keep.
        let states_none = live.iter().any(|object| {
            object["kind"] == "Installation" && object["spec"]["kubeletVolumePluginPath"] == "None"
        });
        for object in &mut live {
            if object["kind"] == "Installation" {
                object["spec"]["kubeletVolumePluginPath"] = json!("None");
                object["spec"]["calicoNetwork"]["mtu"] = json!(1234);
                object["status"] = json!({"variant": "Calico"});
            }
        }
        let live_list = json!({"apiVersion": "v1", "kind": "List", "items": live});
        let live_path = dir.path().join("live.json");
        std::fs::write(&live_path, live_list.to_string()).expect("written");
        for revert in [false, true] {
            let day_two = patch::day_two(
                &loaded,
                std::slice::from_ref(&live_list),
                &DayTwoOptions::revert_unstated(revert),
            )
            .expect("a patch");
            let library = patch::render_output(&day_two.stream, Format::Json).expect("renders");
            let mut args = vec![
                "patch",
                "-f",
                input.to_str().expect("UTF-8"),
                "--live",
                live_path.to_str().expect("UTF-8"),
            ];
            if revert {
                args.push("--revert-unstated");
            }
            let cli = run_calico_render(&args, &workspace_root(), b"");
            let stdout = String::from_utf8_lossy(&cli.stdout);
            let stderr = String::from_utf8_lossy(&cli.stderr);
            if cli.status.code() != Some(0) || stdout != library {
                failures.push(format!(
                    "{file} revert={revert}: CLI {stdout} {stderr}\nlibrary {library}"
                ));
            }
            // The chart's value: kept and said, or reverted.
            let reverts = library.contains("/spec/kubeletVolumePluginPath");
            let said = day_two
                .unstated
                .iter()
                .any(|field| field.to_string().contains("kubeletVolumePluginPath"));
            if !states_none && (reverts != revert || said == revert) {
                failures.push(format!(
                    "{file} revert={revert}: reverts {reverts}, said {said}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
