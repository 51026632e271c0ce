//! `render` and `validate` of a fleet: the report is locked by snapshots, a fleet renders each
//! cluster exactly as a render of that cluster alone would, the bytes do not depend on the
//! number of threads, and one invalid cluster is named without hiding the others and stops
//! every write.

use calico_render_tests::{run_calico_render, workspace_root};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

const FLEET: &str = "examples/fleet/fleet.yaml";
const BROKEN: &str = "examples/fleet/broken/fleet.yaml";

fn run(args: &[&str]) -> Output {
    run_calico_render(args, &workspace_root(), b"")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/fleet"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// Every file under `dir`, by path relative to it, to its contents.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).expect("list") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).expect("below dir");
                out.insert(
                    relative.display().to_string(),
                    std::fs::read_to_string(&path).expect("read"),
                );
            }
        }
    }
    out
}

#[test]
fn validate_reports_a_clean_fleet_and_a_broken_one() {
    let clean = run(&["validate", "-f", FLEET]);
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean.stderr));
    snapshot("validate-fleet", &text(&clean.stdout));

    // Warnings only: exit 0, and every overlap the broken fleet was built with is there.
    let broken = run(&["validate", "-f", BROKEN]);
    assert_eq!(broken.status.code(), Some(0), "{}", text(&broken.stderr));
    let report = text(&broken.stdout);
    for code in [
        "FL0101", "FL0102", "FL0104", "FL0105", "FL0106", "FL0107", "FL0202", "FL0203", "FL0204",
    ] {
        assert!(
            report.contains(&format!("warning[{code}]")),
            "{code} missing:\n{report}"
        );
    }
    snapshot("validate-broken-fleet", &report);
    let json = run(&["validate", "-f", BROKEN, "-o", "json"]);
    assert_eq!(json.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(value["clusters"].as_array().map(Vec::len), Some(9));
    snapshot("validate-broken-fleet-json", &text(&json.stdout));

    // `--deny` applies to fleet codes like any lint.
    let denied = run(&["validate", "-f", BROKEN, "--deny", "FL0101"]);
    assert_eq!(denied.status.code(), Some(1));
    assert!(text(&denied.stdout).contains("error[FL0101]"));
}

#[test]
fn a_folder_is_a_fleet_without_a_fleet_file() {
    let out = run(&["validate", "-f", "examples/fleet/clusters"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    for name in ["east-1", "east-2", "edge-1", "west-1"] {
        assert!(report.contains(name), "{report}");
    }
    assert!(report.starts_with("CLUSTER"), "{report}");
}

/// A fleet's folders hold exactly what `render --out-dir` of each cluster alone writes, and the
/// bytes are the same on one thread and on eight.
#[test]
fn render_writes_each_cluster_as_a_single_render_would() {
    let fleet_dir = tempfile::tempdir().expect("temp dir");
    let out = fleet_dir.path().to_str().expect("UTF-8");
    let rendered = run_calico_render_env(&["render", "-f", FLEET, "--out-dir", out], "1");
    assert_eq!(
        rendered.status.code(),
        Some(0),
        "{}",
        text(&rendered.stderr)
    );
    let fleet = tree(fleet_dir.path());

    let mut alone = BTreeMap::new();
    for name in ["east-1", "east-2", "edge-1", "west-1"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = format!("examples/fleet/clusters/{name}.yaml");
        let one = run(&[
            "render",
            "-f",
            &file,
            "--out-dir",
            dir.path().to_str().expect("UTF-8"),
        ]);
        assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
        for (path, contents) in tree(dir.path()) {
            alone.insert(format!("{name}/{path}"), contents);
        }
    }
    assert_eq!(fleet, alone);

    let again = tempfile::tempdir().expect("temp dir");
    let out = again.path().to_str().expect("UTF-8");
    let eight = run_calico_render_env(&["render", "-f", FLEET, "--out-dir", out], "8");
    assert_eq!(eight.status.code(), Some(0));
    assert_eq!(tree(again.path()), fleet);
    assert_eq!(eight.stderr, rendered.stderr);
    snapshot("render-fleet-stderr", &text(&rendered.stderr));
}

fn run_calico_render_env(args: &[&str], threads: &str) -> Output {
    std::process::Command::new(calico_render_tests::calico_render())
        .args(args)
        .current_dir(workspace_root())
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("calico-render runs")
}

#[test]
fn one_invalid_cluster_is_named_and_nothing_is_written() {
    let input = tempfile::tempdir().expect("temp dir");
    for name in ["east-1", "edge-1"] {
        std::fs::copy(
            workspace_root().join(format!("examples/fleet/clusters/{name}.yaml")),
            input.path().join(format!("{name}.yaml")),
        )
        .expect("copy");
    }
    std::fs::write(
        input.path().join("bad.yaml"),
        "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: bad\nspec:\n  podPools:\n    - name: p\n      cidr: 10.0.0.1/16\n",
    )
    .expect("write");
    std::fs::write(input.path().join("notyaml.yaml"), "a: [\n").expect("write");
    let out_dir = tempfile::tempdir().expect("temp dir");
    let target = out_dir.path().join("out");
    let out = run(&[
        "render",
        "-f",
        input.path().to_str().expect("UTF-8"),
        "--out-dir",
        target.to_str().expect("UTF-8"),
    ]);
    // Text that is not YAML is exit 2, as for one cluster.
    assert_eq!(out.status.code(), Some(2));
    let report = text(&out.stderr);
    assert!(report.contains("bad.yaml:8:13: error[CN0102]"), "{report}");
    assert!(report.contains("notyaml.yaml:"), "{report}");
    for (name, status) in [
        ("bad", "invalid"),
        ("east-1", "ok"),
        ("edge-1", "ok"),
        ("notyaml", "not-yaml"),
    ] {
        assert!(
            report
                .lines()
                .any(|line| line.starts_with(name) && line.contains(status)),
            "{name} {status}:\n{report}"
        );
    }
    assert!(report.contains("nothing was written"), "{report}");
    assert!(!target.exists());
}

#[test]
fn fleet_file_mistakes_and_usage() {
    let dir = tempfile::tempdir().expect("temp dir");
    let clusters = workspace_root().join("examples/fleet/clusters");
    let fleet = dir.path().join("fleet.yaml");
    std::fs::write(
        &fleet,
        format!(
            "apiVersion: calico-render.dev/v1alpha1\nkind: Fleet\nspec:\n  clusters:\n    - {}/*.yaml\n    - nowhere/*.yaml\n",
            clusters.display()
        ),
    )
    .expect("write");
    let out = run(&["validate", "-f", fleet.to_str().expect("UTF-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains(":6:7: error[FL0001]: `nowhere/*.yaml` names no ClusterNetwork file"),
        "{}",
        text(&out.stderr)
    );

    std::fs::write(
        &fleet,
        format!(
            "apiVersion: calico-render.dev/v1alpha1\nkind: Fleet\nspec:\n  clusters: ['{}']\n  routing:\n    - name: g\n      clusters: [east-1, east2]\n",
            clusters.display()
        ),
    )
    .expect("write");
    let out = run(&["validate", "-f", fleet.to_str().expect("UTF-8")]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(
        report.contains(":7:26: error[FL0001]: routing group `g` names `east2`"),
        "{report}"
    );
    assert!(report.contains("did you mean `east-2`?"), "{report}");

    let out = run(&["render", "-f", FLEET]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("add `--out-dir DIR`"));
    assert!(out.stdout.is_empty());
}

/// Entries of `dir` whose names start with a dot: the staging folder a fleet render writes into
/// must never be left behind.
fn hidden_entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("list")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.starts_with('.'))
        .collect()
}

/// A generated cluster: its own /24 of pods in 10.128.0.0/16, a /28 of nodes in 100.64.0.0/16,
/// and kubeadm's Service range, which every generated cluster shares (not compared outside a
/// routing group).
fn generated(i: usize, pods: &str) -> String {
    format!(
        "apiVersion: calico-render.dev/v1alpha1\nkind: ClusterNetwork\nmetadata:\n  name: gen-{i:03}\nspec:\n  podPools:\n    - name: pods-ipv4\n      cidr: {pods}\n      encapsulation: VXLAN\n  network:\n    nodeSubnets: [100.64.{i}.0/28]\n    serviceCIDRs: [10.96.0.0/12]\n"
    )
}

/// The examples' clusters and 200 generated ones in one folder: `validate` names the one overlap
/// planted (gen-007 takes east-1's pod pool, 10.16.0.0/16) and nothing else, and `render` writes
/// one folder per cluster and no staging folder.
#[test]
fn examples_and_generated_clusters_render_validate_and_report_overlaps() {
    let input = tempfile::tempdir().expect("temp dir");
    for name in ["east-1", "east-2", "edge-1", "west-1"] {
        std::fs::copy(
            workspace_root().join(format!("examples/fleet/clusters/{name}.yaml")),
            input.path().join(format!("{name}.yaml")),
        )
        .expect("copy");
    }
    for i in 0..200 {
        let pods = if i == 7 {
            String::from("10.16.0.0/16")
        } else {
            format!("10.128.{i}.0/24")
        };
        std::fs::write(
            input.path().join(format!("gen-{i:03}.yaml")),
            generated(i, &pods),
        )
        .expect("write");
    }
    let dir = input.path().to_str().expect("UTF-8");
    let out = run(&["validate", "-f", dir]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let findings: Vec<&str> = report.lines().filter(|line| line.contains("[FL")).collect();
    assert_eq!(findings.len(), 1, "{report}");
    assert!(
        findings[0].contains("warning[FL0101]")
            && findings[0].contains("gen-007")
            && findings[0].contains("`east-1`")
            && findings[0].contains("both hold 10.16.0.0/16"),
        "{report}"
    );
    assert!(
        report.contains("fleet: 204 clusters, 204 valid, 0 invalid; 1 fleet findings"),
        "{report}"
    );

    let out_dir = tempfile::tempdir().expect("temp dir");
    let target = out_dir.path().join("rendered");
    let rendered = run(&[
        "render",
        "-f",
        dir,
        "--out-dir",
        target.to_str().expect("UTF-8"),
    ]);
    assert_eq!(
        rendered.status.code(),
        Some(0),
        "{}",
        text(&rendered.stderr)
    );
    let folders: Vec<String> = std::fs::read_dir(&target)
        .expect("list")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(folders.len(), 204, "{folders:?}");
    assert!(hidden_entries(&target).is_empty());
    // A generated cluster's folder holds what a render of it alone writes.
    let alone = tempfile::tempdir().expect("temp dir");
    let one = run(&[
        "render",
        "-f",
        input.path().join("gen-123.yaml").to_str().expect("UTF-8"),
        "--out-dir",
        alone.path().to_str().expect("UTF-8"),
    ]);
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    assert_eq!(tree(&target.join("gen-123")), tree(alone.path()));
}

/// Files are written to a staging folder as clusters are rendered and moved into place only when
/// every cluster is valid and no folder has a file in the way: otherwise the output folder is as
/// it was (the user's files untouched, no cluster folder, no staging folder).
#[test]
fn a_fleet_render_leaves_nothing_behind_when_it_writes_nothing() {
    let first = tempfile::tempdir().expect("temp dir");
    let out = run(&[
        "render",
        "-f",
        FLEET,
        "--out-dir",
        first.path().to_str().expect("UTF-8"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = tree(first.path());
    let in_the_way = written
        .keys()
        .find_map(|path| path.strip_prefix("west-1/"))
        .expect("west-1 has files")
        .to_owned();

    // A file of west-1's that calico-render did not write stops every cluster.
    let out_dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(out_dir.path().join("notes.txt"), "mine\n").expect("write");
    std::fs::create_dir(out_dir.path().join("west-1")).expect("mkdir");
    std::fs::write(
        out_dir.path().join("west-1").join(&in_the_way),
        "mine too\n",
    )
    .expect("write");
    let before = tree(out_dir.path());
    let out = run(&[
        "render",
        "-f",
        FLEET,
        "--out-dir",
        out_dir.path().to_str().expect("UTF-8"),
    ]);
    // The exit status a single `render --out-dir` meets on that file.
    let single = run(&[
        "render",
        "-f",
        "examples/fleet/clusters/west-1.yaml",
        "--out-dir",
        out_dir.path().join("west-1").to_str().expect("UTF-8"),
    ]);
    assert_eq!(out.status.code(), single.status.code());
    assert_ne!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("was not written by calico-render"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(tree(out_dir.path()), before);
    assert!(!out_dir.path().join("east-1").exists());
    assert!(hidden_entries(out_dir.path()).is_empty());

    // An invalid fleet into an existing folder: the folder is as it was.
    let broken = tempfile::tempdir().expect("temp dir");
    std::fs::write(broken.path().join("notes.txt"), "mine\n").expect("write");
    let before = tree(broken.path());
    let out = run(&[
        "render",
        "-f",
        BROKEN,
        "--deny",
        "FL0101",
        "--out-dir",
        broken.path().to_str().expect("UTF-8"),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(tree(broken.path()), before);
    assert!(hidden_entries(broken.path()).is_empty());

    // Rendering again over a fleet's own output replaces it with the same bytes.
    let out = run(&[
        "render",
        "-f",
        FLEET,
        "--out-dir",
        first.path().to_str().expect("UTF-8"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(tree(first.path()), written);
    assert!(hidden_entries(first.path()).is_empty());
}

/// What Argo CD does with `examples/argocd/applicationset.yaml` and the plugin of
/// `examples/argocd/cmp-plugin.yaml`, done by hand (no Argo CD runs here): the git directory
/// generator's pattern picks one folder per cluster in a repository laid out as the
/// ApplicationSet says (`clusters/<name>/calico/cluster.yaml`, from `examples/fleet/clusters`);
/// in each, the plugin's `discover` command must accept the folder and its `generate` command,
/// run with the Application's plugin env as Argo CD passes it (`ARGOCD_ENV_` before each name)
/// and calico-render on `PATH`, must print what `render --stage <that stage>` of the cluster
/// prints: a stream of Kubernetes objects.
#[test]
fn the_argocd_applicationset_renders_each_cluster_through_the_plugin() {
    use serde_json::Value;
    let read = |path: &str| -> Value {
        let text = std::fs::read_to_string(workspace_root().join(path)).expect("read");
        serde_saphyr::from_str(&text).expect("YAML")
    };
    let set = read("examples/argocd/applicationset.yaml");
    let plugin = read("examples/argocd/cmp-plugin.yaml");
    let pattern = set["spec"]["generators"][0]["git"]["directories"][0]["path"]
        .as_str()
        .expect("a directory pattern");
    assert_eq!(pattern, "clusters/*/calico");
    assert_eq!(
        set["spec"]["template"]["metadata"]["name"],
        "calico-{{ index .path.segments 1 }}"
    );
    let source = &set["spec"]["template"]["spec"]["source"];
    assert_eq!(source["plugin"]["name"], "calico-render-v1");
    assert_eq!(
        format!(
            "{}-{}",
            plugin["metadata"]["name"].as_str().expect("name"),
            plugin["spec"]["version"].as_str().expect("version")
        ),
        "calico-render-v1",
        "Argo CD names a versioned plugin <name>-<version>"
    );
    let env: Vec<(String, String)> = source["plugin"]["env"]
        .as_array()
        .expect("plugin env")
        .iter()
        .map(|item| {
            (
                format!("ARGOCD_ENV_{}", item["name"].as_str().expect("name")),
                item["value"].as_str().expect("value").to_owned(),
            )
        })
        .collect();
    let stage = env
        .iter()
        .find(|(name, _)| name == "ARGOCD_ENV_CALICO_STAGE")
        .map(|(_, value)| value.clone())
        .expect("the stage is set");
    let command = |value: &Value| -> Vec<String> {
        value
            .as_array()
            .expect("a command")
            .iter()
            .map(|part| {
                part.as_str()
                    .unwrap_or_else(|| panic!("{part} is not text"))
                    .to_owned()
            })
            .collect()
    };
    let discover = command(&plugin["spec"]["discover"]["find"]["command"]);
    let generate = command(&plugin["spec"]["generate"]["command"]);

    let repo = tempfile::tempdir().expect("temp dir");
    let names = ["east-1", "east-2", "edge-1", "west-1"];
    for name in names {
        let dir = repo.path().join("clusters").join(name).join("calico");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::copy(
            workspace_root().join(format!("examples/fleet/clusters/{name}.yaml")),
            dir.join("cluster.yaml"),
        )
        .expect("copy");
    }
    // A folder the pattern does not take.
    std::fs::create_dir_all(repo.path().join("clusters/docs")).expect("mkdir");
    let bin = tempfile::tempdir().expect("temp dir");
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        calico_render_tests::calico_render(),
        bin.path().join("calico-render"),
    )
    .expect("link");
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );

    // The generator: `clusters/*/calico`, one segment matched by `*`.
    let mut apps = Vec::new();
    for entry in std::fs::read_dir(repo.path().join("clusters")).expect("list") {
        let cluster = entry.expect("entry").path();
        let dir = cluster.join("calico");
        if dir.is_dir() {
            let segment = cluster
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            apps.push((format!("calico-{segment}"), dir));
        }
    }
    apps.sort();
    let expected: Vec<String> = names.iter().map(|name| format!("calico-{name}")).collect();
    assert_eq!(
        apps.iter().map(|(app, _)| app.clone()).collect::<Vec<_>>(),
        expected
    );
    for (app, dir) in &apps {
        let run_in = |parts: &[String]| {
            std::process::Command::new(&parts[0])
                .args(&parts[1..])
                .current_dir(dir)
                .env("PATH", &path)
                .envs(env.iter().map(|(name, value)| (name, value)))
                .output()
                .expect("sh runs")
        };
        let found = run_in(&discover);
        assert_eq!(found.status.code(), Some(0), "{app}: discover");
        assert_eq!(text(&found.stdout).trim(), "cluster.yaml", "{app}");
        let generated = run_in(&generate);
        assert_eq!(
            generated.status.code(),
            Some(0),
            "{app}: {}",
            text(&generated.stderr)
        );
        let alone = run(&[
            "render",
            "-f",
            dir.join("cluster.yaml").to_str().expect("UTF-8"),
            "--stage",
            &stage,
        ]);
        assert_eq!(alone.status.code(), Some(0));
        assert_eq!(text(&generated.stdout), text(&alone.stdout), "{app}");
        let objects: Vec<Value> =
            serde_saphyr::from_multiple(&text(&generated.stdout)).expect("a YAML stream");
        assert!(!objects.is_empty(), "{app}");
        for object in &objects {
            assert!(
                object["apiVersion"].is_string()
                    && object["kind"].is_string()
                    && object["metadata"]["name"].is_string(),
                "{app}: {object}"
            );
        }
        assert!(
            objects
                .iter()
                .any(|object| object["kind"] == "Installation"),
            "{app}: the operator stage holds the Installation"
        );
    }
}

/// Eight clusters that copy one pod pool (10.244.0.0/16, the common default) and keep apart
/// otherwise: one FL0101 for all eight, not 28 pairs. The text names the first five and says how
/// many more; the JSON report's `overlaps` lists all eight with the range they share.
#[test]
fn clusters_that_copy_one_pool_are_one_finding() {
    let input = tempfile::tempdir().expect("temp dir");
    for i in 0..8 {
        std::fs::write(
            input.path().join(format!("gen-{i:03}.yaml")),
            generated(i, "10.244.0.0/16"),
        )
        .expect("write");
    }
    let dir = input.path().to_str().expect("UTF-8");
    let out = run(&["validate", "-f", dir]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let findings: Vec<&str> = report.lines().filter(|line| line.contains("[FL")).collect();
    assert_eq!(findings.len(), 1, "{report}");
    assert!(
        findings[0].contains("gen-007.yaml")
            && findings[0].ends_with(
                "warning[FL0101]: pod pool 10.244.0.0/16 is used by 8 clusters: `gen-000`, `gen-001`, `gen-002`, `gen-003`, `gen-004` and 3 more; all hold 10.244.0.0/16 (at spec.podPools[0].cidr)"
            ),
        "{report}"
    );

    let out = run(&["validate", "-f", dir, "-o", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let names: Vec<String> = (0..8).map(|i| format!("gen-{i:03}")).collect();
    assert_eq!(
        report["overlaps"],
        serde_json::json!([{
            "code": "FL0101",
            "severity": "warning",
            "cluster": "gen-007",
            "path": "spec.podPools[0].cidr",
            "range": "10.244.0.0/16",
            "clusters": names,
        }])
    );
}
