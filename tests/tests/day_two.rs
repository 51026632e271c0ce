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

/// One patch case: a desired file (a ClusterNetwork or upstream objects) and the live objects.
struct PatchCase {
    name: String,
    desired: std::path::PathBuf,
    live: std::path::PathBuf,
    /// Whether `desired` is a ClusterNetwork (else upstream objects).
    cluster_network: bool,
}

/// Every patch case of the repository: `tests/cases/patch/*/` and `tests/cases/plan/*/` with a
/// `desired.yaml` and a `live.yaml`, and each `tests/cases/patch-examples/<example>.live.yaml`
/// against `examples/<example>/cluster.yaml`.
fn patch_cases() -> Vec<PatchCase> {
    let root = workspace_root();
    let mut cases = Vec::new();
    for folder in ["tests/cases/patch", "tests/cases/plan"] {
        for entry in std::fs::read_dir(root.join(folder))
            .expect("case folder")
            .flatten()
        {
            let dir = entry.path();
            let (desired, live) = (dir.join("desired.yaml"), dir.join("live.yaml"));
            if desired.is_file() && live.is_file() {
                let name = format!("{folder}/{}", entry.file_name().to_string_lossy());
                let text = std::fs::read_to_string(&desired).expect("desired readable");
                let cluster_network = text.contains("apiVersion: calico-render.dev/v1alpha1");
                cases.push(PatchCase {
                    name,
                    desired,
                    live,
                    cluster_network,
                });
            }
        }
    }
    let examples = root.join("tests/cases/patch-examples");
    for entry in std::fs::read_dir(&examples)
        .expect("patch-examples")
        .flatten()
    {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(example) = file.strip_suffix(".live.yaml") else {
            continue;
        };
        cases.push(PatchCase {
            name: format!("tests/cases/patch-examples/{file}"),
            desired: root.join("examples").join(example).join("cluster.yaml"),
            live: entry.path(),
            cluster_network: true,
        });
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

/// What a library consumer computes for a case, printed as the CLI prints it: standard output
/// for `format`, the notes, or the refusals (exit 1). The consumer parses the files with
/// `calico_spec` and calls `day_two` (a ClusterNetwork) or `day_two_objects` (upstream objects,
/// every field stated).
fn library_patch(case: &PatchCase, format: Format, revert: bool) -> (i32, String, Vec<String>) {
    use calico_spec::source::{Limits, parse_stream};
    let read = |path: &std::path::Path| std::fs::read_to_string(path).expect("case readable");
    let live: Vec<Value> = parse_stream(&read(&case.live), &Limits::MANIFESTS)
        .expect("live parses")
        .into_iter()
        .filter(|document| !document.is_empty())
        .map(|document| document.value)
        .collect();
    let desired_text = read(&case.desired);
    let documents = parse_stream(&desired_text, &Limits::MANIFESTS).expect("desired parses");
    let options = DayTwoOptions::revert_unstated(revert);
    let is_cluster_network = documents
        .iter()
        .any(|document| document.value["apiVersion"] == "calico-render.dev/v1alpha1");
    assert_eq!(is_cluster_network, case.cluster_network, "{}", case.name);
    let result = if is_cluster_network {
        let file = case.desired.display().to_string();
        let loaded = cluster_network::load(&file, &desired_text).expect("the ClusterNetwork loads");
        patch::day_two(&loaded, &live, &options)
    } else {
        let desired: Vec<Value> = documents
            .into_iter()
            .filter(|document| !document.is_empty())
            .map(|document| document.value)
            .collect();
        patch::day_two_objects(&desired, None, &live, &options)
    };
    match result {
        Ok(day_two) => {
            let stdout = patch::render_output(&day_two.stream, format).expect("renders");
            let mut notes: Vec<String> = day_two
                .stream
                .notes()
                .iter()
                .map(ToString::to_string)
                .chain(
                    day_two
                        .stream
                        .patches()
                        .iter()
                        .flat_map(|object| object.notes().iter().map(ToString::to_string)),
                )
                .chain(day_two.unstated.iter().map(ToString::to_string))
                .map(|note| format!("note: {note}"))
                .collect();
            if day_two.stream.changed().next().is_none() {
                notes.push(
                    "note: LIVE already matches DESIRED on every managed field; nothing to patch"
                        .to_owned(),
                );
            }
            (0, stdout, notes)
        }
        Err(patch::PatchError::Refused { refusals }) => {
            let lines = refusals
                .iter()
                .flat_map(|refusal| {
                    [
                        format!("error: {refusal}"),
                        format!("  hint: {}", refusal.hint),
                    ]
                })
                .collect();
            (1, String::new(), lines)
        }
        Err(patch::PatchError::PoolsRemoved { removals }) => {
            let lines = removals
                .iter()
                .flat_map(|removal| {
                    [
                        format!("error: {removal}"),
                        format!("  hint: {}", removal.hint()),
                    ]
                })
                .collect();
            (1, String::new(), lines)
        }
        Err(err) => (1, String::new(), vec![format!("error: {err}")]),
    }
}

/// Issue 35: "the library consumer's patch equals the CLI's on every patch test case". Each
/// case, in both output formats and with and without `--revert-unstated`, through the library
/// calls and through the binary: the same exit code, the same standard output byte for byte,
/// and the same notes (or refusals) on standard error.
#[test]
fn the_library_patch_is_the_cli_patch_on_every_patch_case() {
    let cases = patch_cases();
    assert!(cases.len() >= 10, "{} cases", cases.len());
    let mut failures = Vec::new();
    let mut compared = 0;
    for case in &cases {
        for (format, flag) in [(Format::Json, "json"), (Format::Kubectl, "kubectl")] {
            // `--revert-unstated` changes nothing for upstream objects (every field is stated).
            let reverts: &[bool] = if case.cluster_network {
                &[false, true]
            } else {
                &[false]
            };
            for &revert in reverts {
                let (code, stdout, said) = library_patch(case, format, revert);
                let mut args = vec![
                    "patch",
                    "-f",
                    case.desired.to_str().expect("UTF-8"),
                    "--live",
                    case.live.to_str().expect("UTF-8"),
                    "-o",
                    flag,
                ];
                if revert {
                    args.push("--revert-unstated");
                }
                let cli = run_calico_render(&args, &workspace_root(), b"");
                let cli_stdout = String::from_utf8_lossy(&cli.stdout);
                let cli_stderr = String::from_utf8_lossy(&cli.stderr);
                // The CLI's own lines of the kinds the library computes (lints of the desired
                // objects are `validate`'s, held elsewhere).
                let mut under_error = false;
                let cli_said: Vec<&str> = cli_stderr
                    .lines()
                    .filter(|line| {
                        if !line.starts_with(' ') {
                            under_error = line.starts_with("error: ");
                        }
                        line.starts_with("note: ")
                            || line.starts_with("error: ")
                            || under_error && line.starts_with("  hint: ")
                    })
                    .collect();
                compared += 1;
                if cli.status.code() != Some(code) || cli_stdout != stdout || cli_said != said {
                    failures.push(format!(
                        "{} -o {flag} revert={revert}:\nCLI exit {:?}\n{cli_stdout}{cli_stderr}\
                         library exit {code}\n{stdout}{}",
                        case.name,
                        cli.status.code(),
                        said.join("\n")
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} runs differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
