//! `calico-render picture`: the SVG and HTML bytes are locked by snapshots and do not depend on
//! the number of threads, and a real renderer (librsvg's `rsvg-convert`) draws the SVG with every
//! overlap mark in vermillion where the SVG says it is and the other bars in their own colours.

use calico_render_tests::{run_calico_render, say_skipped, workspace_root};
use std::process::Command;

const FLEET: &str = "examples/fleet/fleet.yaml";
const BROKEN: &str = "examples/fleet/broken/fleet.yaml";
const ENV_MODE: &str = "CALICO_RENDER_E2E";

fn picture(args: &[&str]) -> String {
    let mut all = vec!["picture"];
    all.extend(args);
    let out = run_calico_render(&all, &workspace_root(), b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/fleet"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

#[test]
fn pictures_are_locked_and_the_readme_copy_is_fresh() {
    let clean = picture(&["-f", FLEET]);
    snapshot("picture-fleet.svg", &clean);
    // README shows this file: it must be what the command draws today.
    let committed = std::fs::read_to_string(workspace_root().join("examples/fleet/plan.svg"))
        .expect("examples/fleet/plan.svg");
    assert!(
        committed == clean,
        "examples/fleet/plan.svg is stale: run `calico-render picture -f {FLEET} > examples/fleet/plan.svg`"
    );
    snapshot("picture-broken-fleet.svg", &picture(&["-f", BROKEN]));
    let html = picture(&["-f", BROKEN, "-o", "html"]);
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<svg "));
    // Self-contained: nothing is fetched and nothing runs.
    for banned in ["<script", "src=", "href=", "@import", "url(http"] {
        assert!(!html.contains(banned), "{banned}");
    }
    snapshot("picture-broken-fleet.html", &html);
    snapshot(
        "picture-dual-stack.svg",
        &picture(&["-f", "examples/dual-stack/cluster.yaml"]),
    );
}

#[test]
fn bytes_do_not_depend_on_threads() {
    let with = |threads: &str| {
        Command::new(calico_render_tests::calico_render())
            .args(["picture", "-f", BROKEN])
            .current_dir(workspace_root())
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .expect("runs")
            .stdout
    };
    assert_eq!(with("1"), with("8"));
}

/// The numbers of the `name="..."` attributes of the first tag starting `<rect class="CLASS"` in
/// each line, with its `fill`.
fn rects(svg: &str, class: &str) -> Vec<([f64; 4], String)> {
    let start = format!("<rect class=\"{class}\"");
    let attr = |tag: &str, name: &str| -> String {
        let key = format!(" {name}=\"");
        let from = tag.find(&key).expect("attribute") + key.len();
        tag[from..].split('"').next().expect("value").to_owned()
    };
    svg.lines()
        .filter_map(|line| line.find(&start).map(|at| &line[at..]))
        .map(|tag| {
            let n = |name| attr(tag, name).parse::<f64>().expect("number");
            ([n("x"), n("y"), n("width"), n("height")], attr(tag, "fill"))
        })
        .collect()
}

fn hex(colour: &str) -> [u8; 3] {
    let value = u32::from_str_radix(colour.trim_start_matches('#'), 16).expect("hex colour");
    [(value >> 16) as u8, (value >> 8) as u8, value as u8]
}

fn close(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 24)
}

#[test]
fn a_real_renderer_draws_the_overlaps_where_the_layout_puts_them() {
    let required = std::env::var(ENV_MODE).is_ok_and(|mode| mode == "required");
    if Command::new("rsvg-convert")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            !required,
            "{ENV_MODE}=required but rsvg-convert (Debian's librsvg2-bin) is missing"
        );
        say_skipped(
            "rsvg-convert",
            "picture: rsvg-convert (librsvg2-bin) is not installed",
        );
        return;
    }
    let svg = picture(&["-f", BROKEN]);
    let dir = tempfile::tempdir().expect("temp dir");
    let svg_path = dir.path().join("plan.svg");
    let png_path = dir.path().join("plan.png");
    std::fs::write(&svg_path, &svg).expect("write svg");
    let status = Command::new("rsvg-convert")
        .arg(&svg_path)
        .arg("-o")
        .arg(&png_path)
        .status()
        .expect("rsvg-convert runs");
    assert!(status.success());

    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png_path).expect("png"),
    ));
    let mut reader = decoder.read_info().expect("png header");
    let mut buffer = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buffer).expect("png frame");
    let channels = info.color_type.samples();
    let (width, height) = (info.width as usize, info.height as usize);
    assert_eq!(width, 1000, "one SVG unit is one pixel");
    let pixel = |x: f64, y: f64| -> [u8; 3] {
        let (x, y) = (x.round() as usize, y.round() as usize);
        let at = (y * width + x) * channels;
        let p = &buffer[at..at + 3];
        // Fully transparent counts as the white page behind it.
        if channels == 4 && buffer[at + 3] == 0 {
            [255, 255, 255]
        } else {
            [p[0], p[1], p[2]]
        }
    };

    // Not blank: a good share of the page is drawn, in many colours.
    let mut colours = std::collections::BTreeSet::new();
    let mut drawn = 0usize;
    for y in (0..height).step_by(3) {
        for x in (0..width).step_by(3) {
            let p = pixel(x as f64, y as f64);
            colours.insert(p);
            drawn += usize::from(p != [255, 255, 255]);
        }
    }
    assert!(
        drawn * 10 > (width / 3) * (height / 3),
        "mostly blank: {drawn}"
    );
    assert!(colours.len() > 12, "{} colours", colours.len());

    // Each overlap mark: its outline is vermillion at the middle of its top edge.
    let vermillion = hex(calico_render::picture::OVERLAP_COLOUR);
    let marks = rects(&svg, "overlap");
    assert!(marks.len() >= 20, "{}", marks.len());
    for ([x, y, w, _], _) in &marks {
        let found = (-1..=1).any(|dy| close(pixel(x + w / 2.0, y + f64::from(dy)), vermillion));
        assert!(
            found,
            "no vermillion at the mark at x={x} y={y}: {:?}",
            pixel(x + w / 2.0, *y)
        );
    }
    // A bar no mark touches shows its own colour at its centre, and no vermillion anywhere along
    // its middle line.
    let bars = rects(&svg, "bar");
    let unmarked: Vec<_> = bars
        .iter()
        .filter(|([_, y, w, _], fill)| {
            // Wide enough that its centre is not its outline; avoided ranges are translucent.
            *w >= 8.0 && fill != "#999999" && !marks.iter().any(|([_, my, _, _], _)| my == y)
        })
        .collect();
    assert!(unmarked.len() >= 3, "{}", unmarked.len());
    for ([x, y, w, h], fill) in unmarked {
        let (cx, cy) = (x + w / 2.0, y + h / 2.0);
        assert!(
            close(pixel(cx, cy), hex(fill)),
            "bar at y={y}: {:?} is not {fill}",
            pixel(cx, cy)
        );
        let mut along = *x + 1.0;
        while along < x + w - 1.0 {
            assert!(
                !close(pixel(along, cy), vermillion),
                "vermillion on an unmarked bar at y={y}"
            );
            along += 1.0;
        }
    }
}
