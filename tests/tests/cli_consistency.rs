//! One CLI (issue 18): the same flag means the same thing on every subcommand. Each rule is a
//! table over the subcommands it applies to, so a subcommand added without it fails here:
//! `-f`/`--filename`/`--file`, `--allow`/`--deny` with a hint that can be followed, `-o FORMAT`,
//! `<stdin>`, empty results said on standard error, `--version`, `--color` and `NO_COLOR`,
//! completions and the man page.

use calico_render_tests::{calico_render, workspace_root};
use std::io::Write as _;
use std::process::{Command, Stdio};

pub(crate) struct Out {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Run from the repository root with `stdin`, the colour variables cleared, then `envs` set.
fn run_env(args: &[&str], stdin: &str, envs: &[(&str, &str)]) -> Out {
    let mut command = Command::new(calico_render());
    command.args(args).current_dir(workspace_root());
    for var in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        command.env_remove(var);
    }
    let mut child = command
        .envs(envs.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("calico-render starts");
    // A usage error exits before reading standard input; a closed pipe is not a failure then.
    let _ = child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(stdin.as_bytes());
    let output = child.wait_with_output().expect("calico-render finishes");
    Out {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

pub(crate) fn run(args: &[&str], stdin: &str) -> Out {
    run_env(args, stdin, &[])
}

/// The article's ClusterNetwork: valid, with one lint (CR8007: disableBGPExport while BGP is off).
const ARTICLE: &str = "examples/ha-ebpf/cluster.yaml";
const LIVE: &str = "tests/cases/patch/article-disable-bgp-export/live.yaml";
const CHART: &str = "---\n# Source: chart/templates/sa.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: tigera-operator\n";

fn resource_list() -> String {
    format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: calico\n  data:\n    file: {ARTICLE}\n"
    )
}

/// One subcommand that reports diagnostics, run on the article: the words before `-f`, what
/// comes after the file, standard input, and whether a failed run still writes its product
/// (KRM writes the list back with the results; validate prints its report).
struct Reporter {
    name: &'static str,
    head: Vec<&'static str>,
    tail: Vec<&'static str>,
    stdin: String,
    writes_on_failure: bool,
}

impl Reporter {
    fn args<'a>(&'a self, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = self.head.clone();
        if self.name != "krm" {
            args.extend(["-f", ARTICLE]);
        }
        args.extend(self.tail.iter().copied());
        args.extend(extra);
        args
    }

    fn run(&self, extra: &[&str]) -> Out {
        run(&self.args(extra), &self.stdin)
    }
}

fn reporters() -> Vec<Reporter> {
    vec![
        Reporter {
            name: "render",
            head: vec!["render"],
            tail: vec![],
            stdin: String::new(),
            writes_on_failure: false,
        },
        Reporter {
            name: "validate",
            head: vec!["validate"],
            tail: vec![],
            stdin: String::new(),
            writes_on_failure: true,
        },
        Reporter {
            name: "patch",
            head: vec!["patch"],
            tail: vec!["--live", LIVE],
            stdin: String::new(),
            writes_on_failure: false,
        },
        Reporter {
            name: "post-render",
            head: vec!["post-render"],
            tail: vec![],
            stdin: CHART.to_owned(),
            writes_on_failure: false,
        },
        Reporter {
            name: "krm",
            head: vec!["krm"],
            tail: vec![],
            stdin: resource_list(),
            writes_on_failure: true,
        },
    ]
}

/// Both streams: `validate` reports on standard output, KRM in its results and on standard
/// error, the others on standard error.
fn reported(out: &Out) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

#[test]
fn every_reporter_shows_the_lint_with_a_hint_that_works_there() {
    for sub in reporters() {
        let out = sub.run(&[]);
        assert_eq!(out.code, Some(0), "{}: {}", sub.name, out.stderr);
        let text = reported(&out);
        assert!(text.contains("CR8007"), "{}: no CR8007 in {text}", sub.name);
        // Follow the hint literally: the words it puts in backticks after "silence".
        let hint = text
            .lines()
            .find(|line| line.contains("silence") && line.contains("CR8007"))
            .unwrap_or_else(|| panic!("{}: no hint on silencing CR8007 in {text}", sub.name));
        if sub.name == "krm" {
            // The KRM user sets the function config, not flags.
            assert!(hint.contains("under `allow`"), "krm hint: {hint}");
            let list = resource_list().replace(
                &format!("    file: {ARTICLE}\n"),
                &format!("    file: {ARTICLE}\n    allow: CR8007\n"),
            );
            let out = run(&["krm"], &list);
            assert_eq!(out.code, Some(0), "krm allow: {}", out.stderr);
            assert!(!out.stderr.contains("CR8007"), "krm allow: {}", out.stderr);
            assert!(
                !out.stdout.contains("code: CR8007"),
                "krm allow: {}",
                out.stdout
            );
            continue;
        }
        let flag = hint
            .split('`')
            .nth(1)
            .unwrap_or_else(|| panic!("{}: the hint names no flag: {hint}", sub.name));
        assert_eq!(flag, "--allow CR8007", "{}: {hint}", sub.name);
        let words: Vec<&str> = flag.split(' ').collect();
        let out = sub.run(&words);
        assert_eq!(out.code, Some(0), "{} {flag}: {}", sub.name, out.stderr);
        assert!(
            !reported(&out).contains("CR8007"),
            "{} {flag} still reports it:\n{}",
            sub.name,
            reported(&out)
        );
    }
}

#[test]
fn every_reporter_takes_allow_and_deny_alike() {
    for sub in reporters() {
        for deny in [
            &["--deny", "warnings"][..],
            &["--deny", "CR8007"],
            &["--deny", "cr8007"],
            &["--deny=CR8001,CR8007"],
        ] {
            let out = sub.run(deny);
            assert_eq!(out.code, Some(1), "{} {deny:?}: {}", sub.name, out.stderr);
            assert!(
                reported(&out).contains("error[CR8007]") || out.stdout.contains("severity: error"),
                "{} {deny:?}: the denied lint is not an error:\n{}",
                sub.name,
                reported(&out)
            );
            if !sub.writes_on_failure {
                assert_eq!(out.stdout, "", "{} {deny:?} printed a product", sub.name);
            }
        }
        // `--allow CODE` wins over `--deny warnings`, as in clippy.
        let out = sub.run(&["--deny", "warnings", "--allow", "CR8007"]);
        assert_eq!(out.code, Some(0), "{}: {}", sub.name, out.stderr);

        // The same refusals, word for word, everywhere: usage errors, exit 2.
        for (flags, message) in [
            (
                &["--deny", "CR9999"][..],
                "unknown rule code `CR9999` in --deny",
            ),
            (&["--allow", "CR1003"], "CR1003 is an error, not a lint"),
            (
                &["--deny", "CR8007", "--allow", "CR8007"],
                "CR8007 is given to both --deny and --allow",
            ),
        ] {
            let out = sub.run(flags);
            assert_eq!(out.code, Some(2), "{} {flags:?}: {}", sub.name, out.stderr);
            assert!(
                out.stderr.contains(message),
                "{} {flags:?}: {}",
                sub.name,
                out.stderr
            );
            assert_eq!(out.stdout, "", "{} {flags:?}", sub.name);
        }
    }
}

#[test]
fn krm_takes_lint_levels_from_the_function_config() {
    let with = |key: &str, value: &str| {
        resource_list().replace(
            &format!("    file: {ARTICLE}\n"),
            &format!("    file: {ARTICLE}\n    {key}: {value}\n"),
        )
    };
    let out = run(&["krm"], &with("deny", "warnings"));
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stdout.contains("severity: error"), "{}", out.stdout);
    let out = run(&["krm"], &with("deny", "CR8001 CR8007"));
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    // A refused setting is a result naming the function config, and the items stay unchanged.
    let out = run(&["krm"], &with("allow", "CR9999"));
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(
        out.stdout.contains("path: functionConfig.data"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("unknown rule code `CR9999`"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("kind: Installation"), "{}", out.stdout);

    // A ClusterNetwork function config carries them as annotations.
    let article = std::fs::read_to_string(workspace_root().join(ARTICLE)).expect("example");
    let indented: String = article
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| format!("  {line}\n"))
        .collect();
    let annotated = indented.replacen(
        "  metadata:\n",
        "  metadata:\n    annotations:\n      calico-render.dev/deny: warnings\n",
        1,
    );
    assert_ne!(annotated, indented, "the example has a metadata block");
    let list = |config: &str| {
        format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n{config}"
        )
    };
    let out = run(&["krm"], &list(&indented));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let out = run(&["krm"], &list(&annotated));
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stdout.contains("severity: error"), "{}", out.stdout);
}

/// `-f`, `--filename` and `--file` are one flag wherever a file is read.
#[test]
fn every_file_reader_takes_filename_and_its_aliases() {
    let codegen_crd = workspace_root().join("tests/cases/codegen/crds/enums.yaml");
    let codegen_crd = codegen_crd.to_str().expect("UTF-8 path");
    // (subcommand words before the flag, the file, words after, stdin)
    let rows: Vec<(Vec<&str>, &str, Vec<&str>, String)> = vec![
        (vec!["render"], ARTICLE, vec![], String::new()),
        (vec!["validate"], ARTICLE, vec![], String::new()),
        (vec!["patch"], ARTICLE, vec!["--live", LIVE], String::new()),
        (vec!["post-render"], ARTICLE, vec![], CHART.to_owned()),
    ];
    for (head, file, tail, stdin) in &rows {
        let outs: Vec<Out> = ["-f", "--filename", "--file"]
            .iter()
            .map(|flag| {
                let mut args = head.clone();
                args.extend([*flag, *file]);
                args.extend(tail.iter().copied());
                run(&args, stdin)
            })
            .collect();
        assert_eq!(outs[0].code, Some(0), "{head:?}: {}", outs[0].stderr);
        assert!(!outs[0].stdout.is_empty(), "{head:?} printed nothing");
        for (flag, out) in ["--filename", "--file"].iter().zip(&outs[1..]) {
            assert_eq!(
                (out.code, &out.stdout, &out.stderr),
                (outs[0].code, &outs[0].stdout, &outs[0].stderr),
                "{head:?} {flag}"
            );
        }
        // `--filename=FILE` too, as Helm passes post-renderer arguments.
        let mut args = head.clone();
        let joined = format!("--filename={file}");
        args.push(&joined);
        args.extend(tail.iter().copied());
        assert_eq!(
            run(&args, stdin).stdout,
            outs[0].stdout,
            "{head:?} --filename="
        );
    }
    // codegen keeps `--crd` (the generated headers record it) and takes the same three.
    let mut outputs = Vec::new();
    for flag in ["--crd", "-f", "--filename", "--file"] {
        let dir = tempfile::tempdir().expect("temporary directory");
        let status = Command::new(calico_render())
            .args(["codegen", flag, codegen_crd, "--out-dir", "gen"])
            .current_dir(dir.path())
            .output()
            .expect("codegen runs");
        assert_eq!(status.status.code(), Some(0), "codegen {flag}");
        let kinds = std::fs::read_dir(dir.path().join("gen")).expect("gen written");
        outputs.push((
            String::from_utf8_lossy(&status.stderr).into_owned(),
            kinds.count(),
        ));
    }
    assert!(
        outputs.windows(2).all(|pair| pair[0] == pair[1]),
        "{outputs:?}"
    );
}

/// Every `-o` is `-o/--output <FORMAT>`, and `json` means JSON wherever it is offered.
#[test]
fn every_output_flag_is_named_alike() {
    for sub in ["render", "validate", "patch"] {
        let help = run(&[sub, "--help"], "");
        assert!(
            help.stdout.contains("-o, --output <FORMAT>"),
            "{sub}: {}",
            help.stdout
        );
    }
    for sub in reporters() {
        if !matches!(sub.name, "render" | "validate" | "patch") {
            continue;
        }
        let out = sub.run(&["-o", "json"]);
        assert_eq!(out.code, Some(0), "{}: {}", sub.name, out.stderr);
        let _: serde_json::Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|err| panic!("{} -o json: {err}: {}", sub.name, out.stdout));
    }
}

/// Standard input is `<stdin>` in every message, never `-`.
#[test]
fn standard_input_is_named_stdin() {
    let article = std::fs::read_to_string(workspace_root().join(ARTICLE)).expect("example");
    for args in [
        &["render", "-f", "-"][..],
        &["validate", "-f", "-"],
        &["patch", "-f", "-", "--live", LIVE],
    ] {
        let out = run(args, &article);
        let text = reported(&out);
        assert!(text.contains("<stdin>:21:25"), "{args:?}: {text}");
        assert!(!text.contains("-:21:25"), "{args:?}: {text}");
    }
    let out = run(&["render", "-f", "-"], "spec: [\n");
    assert!(
        out.stderr.starts_with("error: <stdin>:1:"),
        "{}",
        out.stderr
    );
}

/// A run that produces nothing says so on standard error, and only then.
#[test]
fn empty_results_are_said_on_standard_error() {
    for example in [
        "bgp-loadbalancer",
        "dual-stack",
        "ebpf-self-managed",
        "ha-ebpf",
        "iptables-ipip",
    ] {
        let file = format!("examples/{example}/cluster.yaml");
        let out = run(
            &[
                "render", "-f", &file, "--stage", "calico", "--allow", "CR8007",
            ],
            "",
        );
        assert_eq!(out.code, Some(0), "{example}: {}", out.stderr);
        let said = out.stderr.contains("nothing to emit for `--stage calico`");
        assert_eq!(
            said,
            out.stdout.is_empty(),
            "{example}: stdout {:?}, stderr {:?}",
            out.stdout,
            out.stderr
        );
    }

    let skipped_only = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n";
    for (stdin, reason) in [
        ("", "the input holds no objects"),
        ("# only a comment\n---\n", "the input holds no objects"),
        (skipped_only, "1 skipped"),
    ] {
        // Nothing checked fails unless `--allow-empty` accepts it (issue 35).
        let refused = run(&["validate", "-f", "-"], stdin);
        assert_eq!(refused.code, Some(1), "{stdin:?}: {}", refused.stderr);
        assert!(
            refused.stderr.contains("--allow-empty"),
            "{}",
            refused.stderr
        );
        let out = run(&["validate", "-f", "-", "--allow-empty"], stdin);
        assert_eq!(out.code, Some(0), "{stdin:?}: {}", out.stderr);
        assert!(
            out.stdout.ends_with("no objects checked\n"),
            "{stdin:?}: {}",
            out.stdout
        );
        assert!(!out.stdout.contains("no problems found"), "{stdin:?}");
        assert!(
            out.stderr.contains("no objects were checked") && out.stderr.contains(reason),
            "{stdin:?}: {}",
            out.stderr
        );
    }
    let out = run(&["validate", "-f", ARTICLE, "--allow", "CR8007"], "");
    assert_eq!(out.stdout, "1 object checked, no problems found\n");
    assert_eq!(out.stderr, "");
    // Chart values are checked too, not "no objects" (and the Goldmane and Whisker the chart's
    // defaults render are checked with them, not listed as skipped).
    let out = run(&["validate", "-f", "examples/chart-values/values.yaml"], "");
    assert_eq!(out.stdout, "1 object checked, no problems found\n");
    assert_eq!(out.stderr, "");
}

/// `--version` names the releases: the ClusterNetwork's default Calico version and the operator
/// of the pinned chart values, on the top level and on every subcommand.
#[test]
fn version_names_the_target_releases() {
    let calico = calico_spec::cluster_network::DEFAULT_CALICO_VERSION;
    let values = std::fs::read_to_string(workspace_root().join(format!(
        "calico-render/chart-values/{calico}/tigera-operator-values.yaml"
    )))
    .expect("pinned chart values");
    let operator = values
        .split("tigeraOperator:")
        .nth(1)
        .and_then(|rest| {
            rest.lines()
                .find_map(|line| line.trim().strip_prefix("version: "))
        })
        .expect("tigeraOperator.version in the chart values");
    let expected = format!("(targets Calico {calico} and tigera-operator {operator};");
    for args in [&["--version"][..], &["render", "--version"], &["krm", "-V"]] {
        let out = run(args, "");
        assert_eq!(out.code, Some(0), "{args:?}");
        assert!(out.stdout.contains(&expected), "{args:?}: {}", out.stdout);
        // v3.33's data is its release branch, not the tag: said where users look.
        assert!(
            out.stdout
                .trim_end()
                .ends_with("release-v3.33 branch of 2026-08-21, not the v3.33.0 tag)"),
            "{args:?}: {}",
            out.stdout
        );
    }
}

const ESC: &str = "\u{1b}[";

/// Colour: never in a pipe by default, forced by `--color always` or CLICOLOR_FORCE, off with
/// `--color never` or NO_COLOR; the same for clap's help and our diagnostics.
#[test]
fn colour_follows_the_flag_and_the_environment() {
    let lint = ["render", "-f", ARTICLE];
    // (flags, environment, whether standard error is coloured)
    type Row<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], bool);
    let rows: [Row<'_>; 6] = [
        (&[], &[], false),
        (&["--color", "always"], &[], true),
        (&["--color=never"], &[("CLICOLOR_FORCE", "1")], false),
        (&[], &[("CLICOLOR_FORCE", "1")], true),
        (&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], false),
        (&["--color", "always"], &[("NO_COLOR", "1")], true),
    ];
    for (flags, envs, coloured) in rows {
        let mut args = lint.to_vec();
        args.extend(flags);
        let out = run_env(&args, "", envs);
        assert_eq!(out.code, Some(0), "{flags:?} {envs:?}: {}", out.stderr);
        assert_eq!(
            out.stderr.contains(ESC),
            coloured,
            "{flags:?} {envs:?}: {:?}",
            out.stderr
        );
        assert!(!out.stdout.contains(ESC), "manifests are never coloured");
        // Stripped of its escapes, the coloured text is the plain text.
        let plain = run(&lint, "").stderr;
        assert_eq!(strip(&out.stderr), plain, "{flags:?} {envs:?}");

        let mut help = vec!["validate", "--help"];
        help.extend(flags);
        let out = run_env(&help, "", envs);
        assert_eq!(
            out.stdout.contains(ESC),
            coloured,
            "help {flags:?} {envs:?}"
        );
    }
    // validate's report on standard output, and --color before the subcommand.
    let out = run(&["--color", "always", "validate", "-f", ARTICLE], "");
    assert!(out.stdout.contains(ESC), "{:?}", out.stdout);
    assert_eq!(
        strip(&out.stdout),
        run(&["validate", "-f", ARTICLE], "").stdout
    );
    // JSON is data: never coloured.
    let out = run(
        &["--color", "always", "validate", "-f", ARTICLE, "-o", "json"],
        "",
    );
    assert!(!out.stdout.contains(ESC), "{:?}", out.stdout);
    let out = run(&["--color", "sometimes", "render", "-f", ARTICLE], "");
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("sometimes"), "{}", out.stderr);
}

/// Remove SGR escape sequences (`ESC [ ... m`).
fn strip(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(ESC) {
        out.push_str(&rest[..start]);
        let after = &rest[start + ESC.len()..];
        let end = after.find('m').expect("an SGR sequence ends with m");
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The patch help shows a command to review, not one piped into a shell.
#[test]
fn patch_help_does_not_pipe_into_a_shell() {
    let out = run(&["patch", "--help"], "");
    assert_eq!(out.code, Some(0));
    assert!(out.stdout.contains("--patch-file"), "{}", out.stdout);
    for line in out.stdout.lines() {
        let line = line.trim_end();
        assert!(
            !line.ends_with("| sh") && !line.contains("| bash") && !line.contains("| sh "),
            "{line}"
        );
    }
}

/// Lock `text` as `snapshots/cli/<name>.snap` (shared with `render_cli`).
pub(crate) fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/cli"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// Completion scripts come from the parser's definition: every shell gets one that knows every
/// subcommand and the shared flags; bash's is locked by a snapshot.
#[test]
fn completions_for_every_shell() {
    let subcommands = [
        "render",
        "validate",
        "patch",
        "plan",
        "codegen",
        "schema",
        "explain",
        "post-render",
        "krm",
        "completions",
        "man",
    ];
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(&["completions", shell], "");
        assert_eq!(out.code, Some(0), "{shell}: {}", out.stderr);
        for word in subcommands
            .iter()
            .chain(&["filename", "allow", "deny", "color"])
        {
            assert!(out.stdout.contains(word), "{shell} completion lacks {word}");
        }
        if shell == "bash" {
            snapshot("completions.bash", &out.stdout);
        }
    }
    let out = run(&["completions", "tcsh"], "");
    assert_eq!(out.code, Some(2), "{}", out.stderr);
}

/// `man` prints calico-render.1; `man --out-dir` writes one page per subcommand, the same top
/// page among them. The top page and render's are locked by snapshots.
#[test]
fn man_pages() {
    let out = run(&["man"], "");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.starts_with(".ie \\n(.g"), "{}", out.stdout);
    snapshot("man-calico-render.1", &out.stdout);
    let printed = out.stdout;

    let dir = tempfile::tempdir().expect("temporary directory");
    let pages = dir.path().join("man1");
    let out = run(
        &["man", "--out-dir", pages.to_str().expect("UTF-8 path")],
        "",
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let mut names: Vec<String> = std::fs::read_dir(&pages)
        .expect("pages written")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "calico-render-codegen.1",
            "calico-render-completions.1",
            "calico-render-explain.1",
            "calico-render-import.1",
            "calico-render-krm.1",
            "calico-render-man.1",
            "calico-render-patch.1",
            "calico-render-picture.1",
            "calico-render-plan.1",
            "calico-render-post-render.1",
            "calico-render-render.1",
            "calico-render-router.1",
            "calico-render-schema.1",
            "calico-render-upgrade.1",
            "calico-render-validate.1",
            "calico-render.1",
        ]
    );
    let top = std::fs::read_to_string(pages.join("calico-render.1")).expect("top page");
    assert_eq!(
        top, printed,
        "the printed page is the installed calico-render.1"
    );
    let render = std::fs::read_to_string(pages.join("calico-render-render.1")).expect("page");
    for flag in ["filename", "allow", "deny", "stage"] {
        assert!(render.contains(flag), "render page lacks {flag}");
    }
    snapshot("man-calico-render-render.1", &render);
}
