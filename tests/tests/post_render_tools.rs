//! The adapters against the real tools: Helm 3 (`--post-renderer` binary), Helm 4 (plugin),
//! `kustomize build --enable-alpha-plugins --enable-exec` (generator and transformer),
//! `kpt fn eval --exec`, and the chart values fed to the test chart `tests/charts/tigera-operator`.
//!
//! # Enabling it
//! The tools are looked for in `CALICO_RENDER_E2E_TOOLS` (a directory holding `helm` (3),
//! `helm4`, `kustomize` and `kpt`), else in `~/.cache/calico-render-e2e/bin`, where
//! `.ci/k8s-e2e.sh install` (run by `.ci/run`) links them. When they are missing every test prints how to get them and passes, unless
//! `CALICO_RENDER_E2E=required` (set by CI), which makes a missing tool a failure.
//!
//! # Which calico-render binary
//! As in `e2e_k8s.rs`: `CALICO_RENDER_E2E_BIN`, else `target/<profile>/calico-render` after a
//! `cargo build -p calico-render --bin calico-render` for this test executable's profile.
//!
//! Every test works in its own temporary directory, with its own Helm home, so tests run in
//! parallel and leave nothing behind.

use calico_render_tests::workspace_root;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use calico_render::helm_values;
use serde_json::Value;

const ENV_TOOLS: &str = "CALICO_RENDER_E2E_TOOLS";
const ENV_MODE: &str = "CALICO_RENDER_E2E";

const HOW_TO_ENABLE: &str = "run `.ci/k8s-e2e.sh install` (it links the tools into \
    ~/.cache/calico-render-e2e/bin) or set CALICO_RENDER_E2E_TOOLS to a directory with helm, \
    helm4, kustomize and kpt";

/// The real tools.
struct Tools {
    helm3: PathBuf,
    helm4: PathBuf,
    kustomize: PathBuf,
    kpt: PathBuf,
    calico_render: PathBuf,
}

/// The tools, or `None` (after printing why) when they are absent and not required.
fn tools() -> Option<&'static Tools> {
    static TOOLS: OnceLock<Result<Option<Tools>, String>> = OnceLock::new();
    match TOOLS.get_or_init(find_tools) {
        Ok(Some(tools)) => Some(tools),
        Ok(None) => {
            calico_render_tests::say_skipped(
                "helm/kustomize/kpt",
                &format!("the Helm/kustomize/kpt tools are not installed; {HOW_TO_ENABLE}"),
            );
            None
        }
        Err(message) => panic!("{message}"),
    }
}

fn find_tools() -> Result<Option<Tools>, String> {
    let required = env::var(ENV_MODE).is_ok_and(|mode| mode == "required");
    let dir = match env::var_os(ENV_TOOLS).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => match env::var_os("HOME") {
            Some(home) => Path::new(&home).join(".cache/calico-render-e2e/bin"),
            None => PathBuf::from("/nonexistent"),
        },
    };
    let find = |name: &str| {
        let path = dir.join(name);
        path.is_file().then_some(path)
    };
    let (Some(helm3), Some(helm4), Some(kustomize), Some(kpt)) =
        (find("helm"), find("helm4"), find("kustomize"), find("kpt"))
    else {
        if required {
            return Err(format!(
                "{ENV_MODE}=required but {} lacks one of helm, helm4, kustomize, kpt; {HOW_TO_ENABLE}",
                dir.display()
            ));
        }
        return Ok(None);
    };
    let calico_render = calico_render_tests::try_calico_render()?.to_path_buf();
    Ok(Some(Tools {
        helm3,
        helm4,
        kustomize,
        kpt,
        calico_render,
    }))
}

/// Run a command, returning its output; the command must be found.
fn run(command: &mut Command) -> Output {
    command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|err| panic!("cannot run {command:?}: {err}"))
}

fn stdout_of(what: &str, output: &Output) -> String {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("tools write UTF-8")
}

/// A Helm command with its own home directories under `dir`.
fn helm(binary: &Path, dir: &Path) -> Command {
    let mut command = Command::new(binary);
    for (var, sub) in [
        ("HELM_DATA_HOME", "helm/data"),
        ("HELM_CONFIG_HOME", "helm/config"),
        ("HELM_CACHE_HOME", "helm/cache"),
    ] {
        command.env(var, dir.join(sub));
    }
    command.env_remove("HELM_PLUGINS");
    command
}

fn chart() -> PathBuf {
    workspace_root().join("tests/charts/tigera-operator")
}

fn example(name: &str) -> PathBuf {
    workspace_root()
        .join("examples")
        .join(name)
        .join("cluster.yaml")
}

/// A wrapper around calico-render that records its standard input and output next to itself.
fn tee_wrapper(dir: &Path, bin: &Path, subcommand: &str) -> PathBuf {
    let script = dir.join(format!("calico-render-{subcommand}-tee"));
    let text = format!(
        "#!/bin/sh\ntee '{dir}/in.yaml' | '{bin}' {subcommand} \"$@\" > '{dir}/out.yaml'\nstatus=$?\ncat '{dir}/out.yaml'\nexit $status\n",
        dir = dir.display(),
        bin = bin.display(),
    );
    fs::write(&script, text).expect("write the wrapper");
    make_executable(&script);
    script
}

/// A script that runs `calico-render krm`, for tools that take only an executable path.
fn krm_wrapper(dir: &Path, bin: &Path) -> PathBuf {
    let script = dir.join("calico-render-krm");
    fs::write(
        &script,
        format!("#!/bin/sh\nexec '{}' krm \"$@\"\n", bin.display()),
    )
    .expect("write the wrapper");
    make_executable(&script);
    script
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Split a stream into documents at `---` lines, keeping each document's bytes.
fn documents(text: &str) -> Vec<&str> {
    let mut starts = vec![0];
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if offset > 0 && (line == "---\n" || line.starts_with("--- ")) {
            starts.push(offset);
        }
        offset += line.len();
    }
    starts.push(text.len());
    starts
        .windows(2)
        .map(|w| &text[w[0]..w[1]])
        .filter(|d| !d.is_empty())
        .collect()
}

fn parse_all(text: &str) -> Vec<Value> {
    serde_saphyr::from_multiple::<Value>(text)
        .expect("tool output is YAML")
        .into_iter()
        .filter(|v| v.is_object())
        .collect()
}

fn find<'a>(objects: &'a [Value], kind: &str, name: &str) -> Option<&'a Value> {
    objects
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
}

/// Is this document one the post-renderer may rewrite?
fn is_ours(doc: &str) -> bool {
    parse_all(doc).iter().any(is_our_object)
}

fn is_our_object(object: &Value) -> bool {
    matches!(
        (object["kind"].as_str(), object["metadata"]["name"].as_str()),
        (Some("Installation" | "APIServer"), Some("default"))
            | (Some("ConfigMap"), Some("kubernetes-services-endpoint"))
    )
}

/// What the post-renderer received and wrote: every document it did not rewrite is the same
/// bytes, in the same order, and the rewritten ones keep their leading comment lines.
fn check_pass_through(input: &str, output: &str) {
    let ins = documents(input);
    let outs = documents(output);
    assert!(outs.len() >= ins.len(), "documents were dropped");
    for (idx, (doc_in, doc_out)) in ins.iter().zip(&outs).enumerate() {
        if is_ours(doc_in) {
            let lead: String = doc_in
                .lines()
                .take_while(|l| l.starts_with('#') || *l == "---")
                .map(|l| format!("{l}\n"))
                .collect();
            assert!(
                doc_out.starts_with(&lead),
                "document {idx} lost its comments:\n{doc_out}"
            );
        } else {
            assert_eq!(
                doc_in, doc_out,
                "document {idx} was not passed through byte for byte"
            );
        }
    }
}

const CHART_SETS: [&str; 4] = [
    "--set",
    "kubernetesServiceEndpoint.host=old.example",
    "--set",
    "installation.registry=registry.example/",
];

/// The merged objects carry our settings and the chart's own.
fn check_merged(objects: &[Value]) {
    let installation = find(objects, "Installation", "default").expect("Installation");
    assert_eq!(
        installation["spec"]["calicoNetwork"]["linuxDataplane"],
        "BPF"
    );
    assert_eq!(
        installation["spec"]["registry"], "registry.example/",
        "chart field kept"
    );
    let config_map = find(objects, "ConfigMap", "kubernetes-services-endpoint").expect("ConfigMap");
    assert_eq!(
        config_map["data"]["KUBERNETES_SERVICE_HOST"],
        "control.k8s.example.com"
    );
    assert_eq!(config_map["data"]["KUBERNETES_SERVICE_PORT"], "6443");
    assert_eq!(
        config_map["metadata"]["namespace"], "calico-system",
        "release namespace"
    );
    assert!(find(objects, "Deployment", "tigera-operator").is_some());
}

#[test]
fn helm3_post_renderer_binary() {
    let Some(tools) = tools() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let wrapper = tee_wrapper(dir.path(), &tools.calico_render, "post-render");
    let output = run(helm(&tools.helm3, dir.path())
        .args(["template", "calico"])
        .arg(chart())
        .args(["--namespace", "calico-system"])
        .args(CHART_SETS)
        .arg("--post-renderer")
        .arg(&wrapper)
        .arg(format!(
            "--post-renderer-args=--file={}",
            example("ha-ebpf").display()
        )));
    let rendered = stdout_of("helm 3 template with the post-renderer", &output);
    let input = fs::read_to_string(dir.path().join("in.yaml")).expect("captured input");
    let ours = fs::read_to_string(dir.path().join("out.yaml")).expect("captured output");
    check_pass_through(&input, &ours);
    assert!(input.contains("# Source: tigera-operator/templates/crs/custom-resources.yaml"));
    check_merged(&parse_all(&rendered));
}

#[test]
fn helm4_plugin() {
    let Some(tools) = tools() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let wrapper = tee_wrapper(dir.path(), &tools.calico_render, "post-render");
    let plugin = workspace_root().join("integrations/helm-plugin");
    let install = run(helm(&tools.helm4, dir.path())
        .args(["plugin", "install"])
        .arg(&plugin));
    stdout_of("helm 4 plugin install", &install);
    let passthrough = dir.path().join("passthrough");
    fs::write(
        &passthrough,
        format!(
            "#!/bin/sh\n# The plugin calls $CALICO_RENDER post-render ARGS.\nshift\nexec '{}' \"$@\"\n",
            wrapper.display()
        ),
    )
    .expect("write");
    make_executable(&passthrough);
    let output = run(helm(&tools.helm4, dir.path())
        .env("CALICO_RENDER", &passthrough)
        .args(["template", "calico"])
        .arg(chart())
        .args(["--namespace", "calico-system"])
        .args(CHART_SETS)
        .args(["--post-renderer", "calico-render"])
        .arg(format!(
            "--post-renderer-args=--file={}",
            example("ha-ebpf").display()
        )));
    let rendered = stdout_of("helm 4 template with the plugin", &output);
    let input = fs::read_to_string(dir.path().join("in.yaml")).expect("captured input");
    let ours = fs::read_to_string(dir.path().join("out.yaml")).expect("captured output");
    // Helm 4 stamps every document with the file it came from; we keep the stamp, including
    // on the documents we rewrite, so Helm files them back under their template.
    assert!(input.contains("postrenderer.helm.sh/postrender-filename"));
    check_pass_through(&input, &ours);
    let stamped = |text: &str| {
        text.matches("postrenderer.helm.sh/postrender-filename")
            .count()
    };
    assert_eq!(stamped(&ours), stamped(&input), "every stamp kept");
    let installation_source = rendered
        .split("\n---\n")
        .find(|doc| doc.contains("kind: Installation"))
        .expect("Installation in Helm's output");
    assert!(
        installation_source
            .contains("# Source: tigera-operator/templates/crs/custom-resources.yaml"),
        "Helm re-filed the merged Installation under its template:\n{installation_source}"
    );
    check_merged(&parse_all(&rendered));
}

#[test]
fn helm_fails_cleanly_on_an_invalid_merge() {
    let Some(tools) = tools() else { return };
    let check = |set: &[&str], expected: &str| {
        let dir = tempfile::tempdir().expect("temp dir");
        let output = run(helm(&tools.helm3, dir.path())
            .args(["template", "calico"])
            .arg(chart())
            .args(set)
            .arg("--post-renderer")
            .arg(&tools.calico_render)
            .args(["--post-renderer-args", "post-render"])
            .arg(format!(
                "--post-renderer-args=--file={}",
                example("ha-ebpf").display()
            )));
        assert!(!output.status.success(), "helm must fail with {set:?}");
        assert!(output.stdout.is_empty(), "nothing rendered with {set:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{set:?}: {stderr}");
    };
    // A chart value of the wrong type cannot be merged into a valid Installation.
    check(
        &["--set-string", "installation.typhaMetricsPort=many"],
        "does not fit its CRD schema",
    );
    // A chart setting that contradicts ours: the rule catalogue refuses the merged result.
    check(
        &[
            "--set",
            "installation.calicoNetwork.bpfNetworkBootstrap=Enabled",
        ],
        "error[CR7003]: merged Installation `default`",
    );
}

fn write_kustomization(dir: &Path, body: &str) {
    fs::write(dir.join("kustomization.yaml"), body).expect("write kustomization");
}

fn function_annotation() -> &'static str {
    "  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./calico-render-krm\n"
}

#[test]
fn kustomize_generator() {
    let Some(tools) = tools() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    krm_wrapper(dir.path(), &tools.calico_render);
    let cluster = fs::read_to_string(example("ha-ebpf")).expect("example");
    let with_annotation = cluster.replacen(
        "metadata:\n",
        &format!("metadata:\n{}", function_annotation()),
        1,
    );
    fs::write(dir.path().join("cluster.yaml"), with_annotation).expect("write");
    write_kustomization(dir.path(), "generators:\n  - cluster.yaml\n");
    let output = run(Command::new(&tools.kustomize)
        .args(["build", "--enable-alpha-plugins", "--enable-exec"])
        .arg(dir.path()));
    let built = parse_all(&stdout_of("kustomize build (generator)", &output));
    let rendered = run(Command::new(&tools.calico_render)
        .arg("render")
        .arg("-f")
        .arg(example("ha-ebpf")));
    let mut expected = parse_all(&stdout_of("calico-render render", &rendered));
    // kustomize orders resources by its own kind order; compare as sets.
    let mut built = built;
    let key = |o: &Value| (o["kind"].to_string(), o["metadata"]["name"].to_string());
    built.sort_by_key(key);
    expected.sort_by_key(key);
    assert_eq!(
        built, expected,
        "kustomize generates exactly what render prints"
    );
}

#[test]
fn kustomize_transformer_leaves_other_resources_alone() {
    let Some(tools) = tools() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    krm_wrapper(dir.path(), &tools.calico_render);
    let chart_output = run(helm(&tools.helm3, dir.path())
        .args(["template", "calico"])
        .arg(chart())
        .args(["--namespace", "calico-system"])
        .args(CHART_SETS));
    fs::write(
        dir.path().join("chart.yaml"),
        stdout_of("helm template", &chart_output),
    )
    .expect("write");
    fs::copy(example("ha-ebpf"), dir.path().join("cluster.yaml")).expect("copy");
    fs::write(
        dir.path().join("calico.yaml"),
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: calico\n{}data:\n  file: cluster.yaml\n",
            function_annotation()
        ),
    )
    .expect("write");
    let build = |kustomization: &str| {
        write_kustomization(dir.path(), kustomization);
        let output = run(Command::new(&tools.kustomize)
            .args(["build", "--enable-alpha-plugins", "--enable-exec"])
            .arg(dir.path()));
        stdout_of("kustomize build", &output)
    };
    let plain = build("resources:\n  - chart.yaml\n");
    let transformed = build("resources:\n  - chart.yaml\ntransformers:\n  - calico.yaml\n");
    let plain_docs = documents(&plain);
    let transformed_docs = documents(&transformed);
    let mut untouched = 0;
    for doc in &plain_docs {
        if !is_ours(doc) {
            assert!(
                transformed_docs.contains(doc),
                "changed by the transformer:\n{doc}"
            );
            untouched += 1;
        }
    }
    assert!(
        untouched >= 7,
        "the chart's other resources are all there ({untouched})"
    );
    check_merged(&parse_all(&transformed));
    // The APIServer matched the chart's; nothing of ours is duplicated.
    assert_eq!(transformed_docs.len(), plain_docs.len());
}

#[test]
fn kpt_fn_eval_exec() {
    let Some(tools) = tools() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let wrapper = krm_wrapper(dir.path(), &tools.calico_render);
    let package = dir.path().join("pkg");
    fs::create_dir(&package).expect("mkdir");
    let chart_output = run(helm(&tools.helm3, dir.path())
        .args(["template", "calico"])
        .arg(chart())
        .args(["--namespace", "calico-system"])
        .args(CHART_SETS)
        .args(["--output-dir"])
        .arg(&package));
    stdout_of("helm template --output-dir", &chart_output);
    let files = |root: &Path| -> Vec<(PathBuf, String)> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).expect("read dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let text = fs::read_to_string(&path).expect("read");
                    out.push((path.strip_prefix(root).expect("prefix").to_path_buf(), text));
                }
            }
        }
        out.sort();
        out
    };
    // kpt reformats every file it writes back (it drops the leading `---`), so the baseline is
    // the same package after a function that changes nothing.
    let baseline = dir.path().join("baseline");
    copy_dir(&package, &baseline);
    let identity = dir.path().join("identity");
    fs::write(&identity, "#!/bin/sh\nexec cat\n").expect("write");
    make_executable(&identity);
    let eval = |package: &Path, exec: &Path, args: &[String]| {
        let output = run(Command::new(&tools.kpt)
            .args(["fn", "eval"])
            .arg(package)
            .arg("--exec")
            .arg(exec)
            .arg("--")
            .args(args));
        stdout_of("kpt fn eval --exec", &output);
    };
    eval(&baseline, &identity, &[]);
    eval(
        &package,
        &wrapper,
        &[format!("file={}", example("ha-ebpf").display())],
    );
    let before = files(&baseline);
    let after = files(&package);
    let mut unchanged = 0;
    for (path, text) in &before {
        let now = after
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.as_str());
        if parse_all(text).iter().any(is_our_object) {
            continue;
        }
        assert_eq!(now, Some(text.as_str()), "{} changed", path.display());
        unchanged += 1;
    }
    assert!(unchanged >= 5, "untouched files: {unchanged}");
    let all: Vec<Value> = after.iter().flat_map(|(_, text)| parse_all(text)).collect();
    check_merged(&all);
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for entry in fs::read_dir(from).expect("read dir") {
        let path = entry.expect("entry").path();
        let target = to.join(path.file_name().expect("name"));
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            fs::copy(&path, &target).expect("copy");
        }
    }
}

/// Compare the chart's rendering of our values with our objects, per example.
#[test]
fn chart_values_give_our_objects() {
    let Some(tools) = tools() else { return };
    for name in ["ha-ebpf", "bgp-loadbalancer", "dual-stack", "iptables-ipip"] {
        let path = example(name);
        let text = fs::read_to_string(&path).expect("example");
        let parsed = calico_spec::cluster_network::parse(name, &text).expect("valid example");
        let objects: Vec<Value> =
            calico_spec::cluster_network::compile_unchecked(&parsed.cluster_network)
                .expect("compiles")
                .iter()
                .map(calico_spec::objects::Object::to_value)
                .collect();
        let chart_values = helm_values::to_chart_values(&objects);
        let dir = tempfile::tempdir().expect("temp dir");
        let values = dir.path().join("values.yaml");
        fs::write(
            &values,
            helm_values::to_values_yaml(&chart_values).expect("yaml"),
        )
        .expect("write");
        let output = run(helm(&tools.helm3, dir.path())
            .args(["template", "calico"])
            .arg(chart())
            .args(["--namespace", "tigera-operator", "--values"])
            .arg(&values));
        let rendered = parse_all(&stdout_of(
            &format!("helm template with {name}'s values"),
            &output,
        ));
        for object in objects.iter().filter(|o| !chart_values.extra.contains(o)) {
            let kind = object["kind"].as_str().unwrap_or_default();
            let name_ = object["metadata"]["name"].as_str().unwrap_or_default();
            let mut from_chart = find(&rendered, kind, name_)
                .unwrap_or_else(|| panic!("{name}: the chart does not render {kind} {name_}"))
                .clone();
            // What the chart's templates always do differently (see helm_values' docs).
            if kind == "Installation" {
                let spec = from_chart["spec"].as_object_mut().expect("spec");
                if spec.get("imagePullSecrets") == Some(&Value::Array(Vec::new())) {
                    spec.remove("imagePullSecrets");
                }
            }
            if kind == "FelixConfiguration" {
                assert_eq!(from_chart["apiVersion"], "crd.projectcalico.org/v1");
                from_chart["apiVersion"] = object["apiVersion"].clone();
            }
            assert_eq!(
                &from_chart, object,
                "{name}: the chart's {kind} {name_} differs"
            );
        }
        for kind in ["Goldmane", "Whisker"] {
            assert!(
                find(&rendered, kind, "default").is_none(),
                "{name}: {kind} disabled"
            );
        }
    }
}
