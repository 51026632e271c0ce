//! A picture of an address plan (one cluster's or a fleet's): SVG, and a self-contained HTML
//! page around it, with the same bytes on every run.
//!
//! The ranges are sorted by family and start and split into regions: a region is a run of
//! ranges that overlap one another (merged intervals), so unrelated ranges never share an axis
//! and a /26 is not a hair on a 2^32 scale. Each region gets a header and one row per range;
//! inside a region the x axis is linear from the region's first to its last address. Pools show
//! their block size, blocks and the most nodes they serve. Every overlap the fleet checks report
//! is marked on every row it names with a vermillion outline and hatch (`class="overlap"`, its box in
//! `x`/`y`/`width`/`height`), so it reads in print and without colour vision. Colours are the
//! Okabe-Ito palette; every shape carries a `<title>` (hover details). Coordinates are written
//! with one decimal, always.

use std::fmt::Write as _;

use calico_spec::fleet::{AddressPlan, Fleet, LISTED, NamedRange, Overlap, Owner, RangeKind};
use calico_spec::ipnet::IpNet;

/// Width of the picture.
const WIDTH: f64 = 1000.0;
/// Where bars start and end.
const BAR_X0: f64 = 430.0;
const BAR_X1: f64 = 980.0;
/// Height of a range row and of a region header.
const ROW: f64 = 34.0;
const HEADER: f64 = 26.0;
const TOP: f64 = 56.0;

/// The colour of the overlap marks (Okabe-Ito vermillion).
pub const OVERLAP_COLOUR: &str = "#D55E00";

/// What a row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Range(RangeKind),
    Reserved,
    Routed,
}

impl Kind {
    /// Okabe-Ito colours; the overlap's vermillion is used for nothing else.
    fn colour(self) -> &'static str {
        match self {
            Kind::Range(RangeKind::PodPool) => "#0072B2",
            Kind::Range(RangeKind::Service) => "#009E73",
            Kind::Range(RangeKind::LoadBalancer) => "#E69F00",
            Kind::Range(RangeKind::NodeSubnet) => "#56B4E9",
            Kind::Range(RangeKind::Avoided) => "#999999",
            Kind::Reserved => "#CC79A7",
            Kind::Routed => "#F0E442",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Kind::Range(kind) => kind.describe(),
            Kind::Reserved => "reserved range (fleet)",
            Kind::Routed => "routed network (fleet)",
        }
    }

    const LEGEND: [Kind; 7] = [
        Kind::Range(RangeKind::PodPool),
        Kind::Range(RangeKind::Service),
        Kind::Range(RangeKind::LoadBalancer),
        Kind::Range(RangeKind::NodeSubnet),
        Kind::Range(RangeKind::Avoided),
        Kind::Reserved,
        Kind::Routed,
    ];
}

/// A range before layout.
struct Item {
    v6: bool,
    start: u128,
    end: u128,
    owner: Owner,
    net: IpNet,
    kind: Kind,
    label: String,
    detail: String,
}

/// A box in the picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// One range row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The owner (cluster and range, or a fleet range).
    pub owner: Owner,
    /// First line of the label (cluster, kind, name).
    pub label: String,
    /// Second line (range, blocks, nodes).
    pub detail: String,
    /// The range.
    pub net: IpNet,
    /// Its bar.
    pub bar: Rect,
    kind: Kind,
}

/// A region header.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    /// `first – last` address of the region.
    pub span: String,
    /// Top of the header.
    pub y: f64,
}

/// An overlap mark on one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// Where it is drawn.
    pub rect: Rect,
    /// What overlaps (hover text).
    pub title: String,
}

/// The laid-out picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The title (the fleet's or the cluster's name).
    pub title: String,
    /// Region headers.
    pub regions: Vec<Region>,
    /// Range rows.
    pub rows: Vec<Row>,
    /// Overlap marks.
    pub marks: Vec<Mark>,
    /// How many overlaps the marks show (each marks every range it names).
    pub overlaps: usize,
    /// Total height.
    pub height: f64,
    /// Where the legend starts.
    legend_y: f64,
}

fn bounds(net: IpNet) -> (bool, u128, u128) {
    match net {
        IpNet::V4(net) => (
            false,
            u128::from(u32::from(net.network())),
            u128::from(u32::from(net.broadcast())),
        ),
        IpNet::V6(net) => (true, u128::from(net.network()), u128::from(net.broadcast())),
    }
}

/// `n` with thousands separators, or `2^k` when it is a power of two past a trillion.
fn count(n: u128) -> String {
    if n >= 1 << 40 && n.is_power_of_two() {
        return format!("2^{}", n.trailing_zeros());
    }
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `1 block`, `1,024 blocks`.
fn plural(n: u128, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", count(n))
    }
}

fn address(v6: bool, value: u128) -> String {
    if v6 {
        std::net::Ipv6Addr::from(value).to_string()
    } else {
        std::net::Ipv4Addr::from(u32::try_from(value).unwrap_or(u32::MAX)).to_string()
    }
}

/// Lay out `plans` (and the fleet's reserved and routed ranges), marking `overlaps`.
pub fn layout(
    title: &str,
    plans: &[AddressPlan],
    fleet: Option<&Fleet>,
    overlaps: &[Overlap],
) -> Layout {
    let (reserved, routed): (&[NamedRange], &[NamedRange]) = match fleet {
        Some(fleet) => (&fleet.spec.reserved, &fleet.spec.routed),
        None => (&[], &[]),
    };
    let mut items: Vec<Item> = Vec::new();
    for (p, plan) in plans.iter().enumerate() {
        for (r, range) in plan.ranges.iter().enumerate() {
            let (v6, start, end) = bounds(range.net);
            let name = range
                .name
                .as_deref()
                .map(|name| format!(" `{name}`"))
                .unwrap_or_default();
            let label = format!("{} · {}{name}", plan.cluster, range.kind.describe());
            let detail = match range.blocks {
                Some(blocks) => format!(
                    "{} · {} of /{} ({} addresses) · up to {}",
                    range.net,
                    plural(blocks.count, "block"),
                    blocks.block_size,
                    count(blocks.addresses_per_block),
                    plural(blocks.max_nodes(), "node")
                ),
                None => range.net.to_string(),
            };
            let owner = Owner::Cluster { plan: p, range: r };
            items.push(Item {
                v6,
                start,
                end,
                owner,
                net: range.net,
                kind: Kind::Range(range.kind),
                label,
                detail,
            });
        }
    }
    for (kind, list, make) in [
        (
            Kind::Reserved,
            reserved,
            Owner::Reserved as fn(usize) -> Owner,
        ),
        (Kind::Routed, routed, Owner::Routed as fn(usize) -> Owner),
    ] {
        for (i, named) in list.iter().enumerate() {
            let (v6, start, end) = bounds(named.cidr);
            let label = match &named.reason {
                Some(reason) => format!("fleet · {} · {reason}", kind.describe()),
                None => format!("fleet · {}", kind.describe()),
            };
            items.push(Item {
                v6,
                start,
                end,
                owner: make(i),
                net: named.cidr,
                kind,
                label,
                detail: named.cidr.to_string(),
            });
        }
    }
    // By family and start, containers before contents, then owner: a stable order.
    items.sort_by_key(|item| (item.v6, item.start, std::cmp::Reverse(item.end), item.owner));

    let mut regions = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut y = TOP;
    let mut index = 0;
    while index < items.len() {
        // A region: the run of items whose intervals chain into one another.
        let Some(first) = items.get(index) else { break };
        let (v6, start) = (first.v6, first.start);
        let mut end = first.end;
        let mut last = index + 1;
        while let Some(next) = items.get(last) {
            if next.v6 != v6 || next.start > end {
                break;
            }
            end = end.max(next.end);
            last += 1;
        }
        regions.push(Region {
            span: format!("{} – {}", address(v6, start), address(v6, end)),
            y,
        });
        y += HEADER;
        // Positions as fractions of the region; f64 is exact enough for a picture.
        #[expect(
            clippy::cast_precision_loss,
            reason = "a fraction of a drawing's width"
        )]
        let scale = |value: u128| -> f64 {
            let span = (end - start) as f64 + 1.0;
            BAR_X0 + (BAR_X1 - BAR_X0) * ((value - start) as f64 / span)
        };
        for item in items.get(index..last).unwrap_or_default() {
            let x0 = scale(item.start);
            let x1 =
                scale(item.end).max(x0) + (BAR_X1 - BAR_X0) / ((end - start) as f64 + 1.0).max(1.0);
            let x1 = x1.min(BAR_X1);
            let width = (x1 - x0).max(2.0);
            rows.push(Row {
                owner: item.owner,
                label: item.label.clone(),
                detail: item.detail.clone(),
                net: item.net,
                bar: Rect {
                    x: round(x0),
                    y: round(y + 7.0),
                    width: round(width),
                    height: 20.0,
                },
                kind: item.kind,
            });
            y += ROW;
        }
        index = last;
    }

    let mut marks = Vec::new();
    let row_of: std::collections::BTreeMap<Owner, &Row> =
        rows.iter().map(|row| (row.owner, row)).collect();
    for overlap in overlaps {
        let (_, shared_start, shared_end) = bounds(overlap.shared);
        let owners: Vec<Owner> = overlap
            .first
            .iter()
            .chain(&overlap.second)
            .copied()
            .collect();
        let mut names: Vec<String> = owners
            .iter()
            .filter_map(|owner| row_of.get(owner))
            .map(|row| format!("{} ({})", row.label, row.net))
            .collect();
        names.sort();
        let names = match names.as_slice() {
            [_, _] => names.join(" and "),
            _ if names.len() > LISTED => format!(
                "{} and {} more",
                names.get(..LISTED).unwrap_or_default().join(", "),
                names.len() - LISTED
            ),
            _ => names.join(", "),
        };
        for owner in &owners {
            let Some(row) = row_of.get(owner) else {
                continue;
            };
            let (_, start, end) = bounds(row.net);
            // The shared part as a share of this row's bar.
            #[expect(
                clippy::cast_precision_loss,
                reason = "a fraction of a drawing's width"
            )]
            let (from, to) = {
                let span = (end - start) as f64 + 1.0;
                (
                    (shared_start.saturating_sub(start)) as f64 / span,
                    (shared_end.saturating_sub(start) as f64 + 1.0) / span,
                )
            };
            let x0 = row.bar.x + row.bar.width * from;
            let x1 = row.bar.x + row.bar.width * to.min(1.0);
            marks.push(Mark {
                rect: Rect {
                    x: round(x0),
                    y: row.bar.y,
                    width: round((x1 - x0).max(4.0)),
                    height: row.bar.height,
                },
                title: format!("overlap {}: {names}", overlap.shared),
            });
        }
    }
    let legend_y = y + 16.0;
    Layout {
        title: title.to_owned(),
        regions,
        rows,
        marks,
        overlaps: overlaps.len(),
        height: legend_y + 24.0 * 4.0 + 16.0,
        legend_y,
    }
}

fn round(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

/// Text for XML: `&`, `<`, `>` and `"` escaped.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            other => out.push(other),
        }
    }
    out
}

/// The SVG document.
pub fn svg(layout: &Layout) -> String {
    let mut out = String::new();
    let height = layout.height;
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH:.1}\" height=\"{height:.1}\" viewBox=\"0 0 {WIDTH:.1} {height:.1}\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(
        out,
        "<title>{}</title>",
        esc(&format!("Address plan: {}", layout.title))
    );
    // The hatch: vermillion stripes over the bar's own colour, so a mark reads without colour
    // and in print and the range's kind still shows through.
    let _ = writeln!(
        out,
        "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"3\" height=\"6\" fill=\"{OVERLAP_COLOUR}\"/></pattern></defs>"
    );
    let _ = writeln!(
        out,
        "<rect width=\"{WIDTH:.1}\" height=\"{height:.1}\" fill=\"#FFFFFF\"/>"
    );
    let _ = writeln!(
        out,
        "<text x=\"10.0\" y=\"28.0\" font-size=\"18\" font-weight=\"bold\">{}</text>",
        esc(&format!("Address plan: {}", layout.title))
    );
    let _ = writeln!(
        out,
        "<text x=\"10.0\" y=\"46.0\" fill=\"#444444\">{} ranges in {} regions; {} overlaps marked</text>",
        layout.rows.len(),
        layout.regions.len(),
        layout.overlaps
    );
    for region in &layout.regions {
        let _ = writeln!(
            out,
            "<g class=\"region\"><rect x=\"0.0\" y=\"{:.1}\" width=\"{WIDTH:.1}\" height=\"{HEADER:.1}\" fill=\"#EEEEEE\"/><text x=\"10.0\" y=\"{:.1}\" font-weight=\"bold\">{}</text></g>",
            region.y,
            region.y + 17.0,
            esc(&region.span)
        );
    }
    for row in &layout.rows {
        let Rect {
            x,
            y,
            width,
            height,
        } = row.bar;
        let dashed = if row.kind == Kind::Range(RangeKind::Avoided) {
            " stroke-dasharray=\"4 2\" fill-opacity=\"0.35\""
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<g class=\"range\"><title>{}</title><text x=\"10.0\" y=\"{:.1}\">{}</text><text x=\"10.0\" y=\"{:.1}\" fill=\"#444444\" font-size=\"11\">{}</text><rect class=\"bar\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{height:.1}\" fill=\"{}\" stroke=\"#000000\" stroke-width=\"0.5\"{dashed}/></g>",
            esc(&format!("{}\n{}", row.label, row.detail)),
            y + 8.0,
            esc(&row.label),
            y + 21.0,
            esc(&row.detail),
            row.kind.colour()
        );
    }
    for mark in &layout.marks {
        let Rect {
            x,
            y,
            width,
            height,
        } = mark.rect;
        let _ = writeln!(
            out,
            "<rect class=\"overlap\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{height:.1}\" fill=\"url(#hatch)\" stroke=\"{OVERLAP_COLOUR}\" stroke-width=\"2.0\"><title>{}</title></rect>",
            esc(&mark.title)
        );
    }
    // The legend: two columns of swatches, then the overlap mark.
    let mut entries: Vec<(String, String)> = Kind::LEGEND
        .iter()
        .map(|kind| {
            let fill = kind.colour().to_owned();
            (fill, kind.describe().to_owned())
        })
        .collect();
    entries.push((
        String::from("url(#hatch)"),
        String::from("overlap (marked on both ranges)"),
    ));
    for (i, (fill, text)) in entries.iter().enumerate() {
        let column = f64::from(u8::try_from(i % 2).unwrap_or(0));
        let line = f64::from(u8::try_from(i / 2).unwrap_or(0));
        let x = 10.0 + column * 330.0;
        let y = layout.legend_y + line * 24.0;
        let stroke = if fill.starts_with("url") {
            OVERLAP_COLOUR
        } else {
            "#000000"
        };
        let _ = writeln!(
            out,
            "<g class=\"legend\"><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"28.0\" height=\"16.0\" fill=\"{fill}\" stroke=\"{stroke}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
            x + 36.0,
            y + 12.0,
            esc(text)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// A self-contained HTML page: the SVG inline (hover a range or a mark for its details), then a
/// table of the ranges. No script, no external asset.
pub fn html(layout: &Layout) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"
    );
    let _ = writeln!(
        out,
        "<title>{}</title>",
        esc(&format!("Address plan: {}", layout.title))
    );
    out.push_str(
        "<style>\nbody{font-family:\"DejaVu Sans\",Verdana,sans-serif;margin:1em;color:#111}\n\
         g.range:hover rect.bar{stroke-width:2.5}\ng.range:hover text{font-weight:bold}\n\
         rect.overlap:hover{stroke-width:4}\ntable{border-collapse:collapse;margin-top:1em}\n\
         td,th{border:1px solid #999;padding:2px 8px;text-align:left;font-size:13px}\n\
         @media print{g.range:hover rect.bar{stroke-width:0.5}}\n</style>\n</head>\n<body>\n",
    );
    out.push_str(&svg(layout));
    out.push_str("<table>\n<tr><th>range</th><th>what</th><th>overlaps</th></tr>\n");
    for row in &layout.rows {
        let marks: Vec<&str> = layout
            .marks
            .iter()
            .filter(|mark| mark.rect.y == row.bar.y)
            .map(|mark| mark.title.as_str())
            .collect();
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&row.detail),
            esc(&row.label),
            esc(&marks.join("; "))
        );
    }
    out.push_str("</table>\n</body>\n</html>\n");
    out
}
