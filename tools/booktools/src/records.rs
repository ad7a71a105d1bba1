//! A measurement record (`ktrav::measured`) as the book's pages: the whole
//! record for the hardware page, each chapter's section for its own page,
//! and a bar chart of every table.

use ktrav::measured::{Check, Record, Section, Table};
use ktrav_term::report;
use std::fmt::Write as _;

fn ms(v: f64) -> String {
    format!("{v:.3} ms")
}

fn gbps(bytes: u64, ms: f64) -> String {
    format!("{:.0} GB/s", bytes as f64 / (ms * 1e-3) / 1e9)
}

/// The markdown the book includes for one record: where it ran, then per
/// chapter its checks, commentary and tables. `unmeasured` names the
/// chapter's versions that no table of its section times; `chart` names the
/// figure file of a table, or `None` for a table without a chart.
pub fn render_markdown(
    record: &Record,
    unmeasured: impl Fn(&Section) -> Vec<&'static str>,
    mut chart: impl FnMut(&Section, usize) -> Option<String>,
) -> String {
    let mut md = render_run(record);
    for s in &record.sections {
        let _ = writeln!(md, "\n### {}\n", crate::current_heading(&s.chapter));
        md += &render_section(s, &unmeasured(s), |i| chart(s, i));
    }
    md
}

/// The table saying where a record's run happened and how many checks agreed.
pub fn render_run(record: &Record) -> String {
    let r = &record.run;
    let checks: usize = record.sections.iter().map(|s| s.checks.len()).sum();
    let agreed: usize = record.sections.iter().map(|s| s.checks.iter().filter(|c| c.ok).count()).sum();
    let mut md = String::new();
    let _ = writeln!(md, "| Run | |\n| --- | --- |");
    let _ = writeln!(md, "| Card | {}, compute capability {} |", r.card, r.compute_capability);
    let _ = writeln!(md, "| Driver | {} (CUDA {}) |", r.driver, r.driver_cuda);
    let _ = writeln!(md, "| Kernels compiled by | {} |", r.compiler);
    let _ = writeln!(md, "| Date (UTC) | {} |", r.date);
    let _ = writeln!(md, "| Command | `{}` |", r.command);
    let _ = writeln!(md, "| Checks | {agreed} of {checks} agree |");
    md
}

/// The short key of a section's chapter, from its heading: `K.2 Transpose
/// ...` gives `k2`. `None` for a heading that does not start `K.<digits>`.
pub fn section_key(chapter: &str) -> Option<String> {
    let rest = chapter.strip_prefix("K.")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty()).then(|| format!("k{digits}"))
}

/// One chapter's section: its checks, commentary and tables, for the whole
/// record's page and for the chapter's own page, then the versions of the
/// chapter the record has no timing of (`unmeasured`), said to be not
/// measured yet. `chart` names the figure file of table `i`, or `None` for
/// a table without a chart.
///
/// The commentary keeps its place around the tables, as the run printed it:
/// the lines before the first table's heading come first, and the lines a
/// run printed after a table (below its rows, on the terminal) follow that
/// table. The heading line itself is left out, the table's title says it.
pub fn render_section(s: &Section, unmeasured: &[&str], mut chart: impl FnMut(usize) -> Option<String>) -> String {
    let mut md = render_checks(&s.checks, &s.lines);
    let lines = with_placed_checks(&s.checks, &s.lines);
    let s = &Section { lines, ..s.clone() };
    let headings = table_headings(&s.lines, &s.tables);
    let found: Vec<usize> = headings.iter().flatten().copied().collect();
    let next_heading =
        |after: Option<usize>| found.iter().copied().find(|&h| after.is_none_or(|a| h > a)).unwrap_or(s.lines.len());
    render_lines(&mut md, &s.lines[..next_heading(None)]);
    for (i, t) in s.tables.iter().enumerate() {
        match &t.yardstick {
            None => render_bandwidth_table(&mut md, t),
            Some(y) => render_speedup_table(&mut md, t, y),
        }
        if let Some(file) = chart(i) {
            let what = if t.yardstick.is_some() {
                "each version's speed-up over the yardstick"
            } else {
                "each kernel's bandwidth as a share of the copy's"
            };
            let _ = writeln!(md, "\n![Bar chart: {what}, {}]({file})", report::plain(&t.title));
        }
        if let Some(h) = headings[i] {
            render_lines(&mut md, &s.lines[h + 1..next_heading(Some(h))]);
        }
    }
    if !unmeasured.is_empty() {
        let names: Vec<String> = unmeasured.iter().map(|k| format!("`{k}`")).collect();
        let _ = writeln!(md, "\nNot measured yet (newer than this record): {}.", names.join(", "));
    }
    md
}

/// Where the run announced each of `tables` in `lines`: the heading line
/// (one ending in `:`) that names the table's title, such as `bandwidth on
/// 8192x8192 floats, how fast can it go, median of 20 (...):`, matched in
/// order; `None` for a table no heading after the previous one names.
pub fn table_headings(lines: &[String], tables: &[Table]) -> Vec<Option<usize>> {
    let mut from = 0;
    tables
        .iter()
        .map(|t| {
            let at = (from..lines.len()).find(|&i| lines[i].trim_end().ends_with(':') && lines[i].contains(&t.title));
            if let Some(i) = at {
                from = i + 1;
            }
            at
        })
        .collect()
}

/// The shown ones of `lines` (see [`shown_lines`]) as a block of
/// preformatted text, their common indentation removed; nothing when none
/// is shown.
fn render_lines(md: &mut String, lines: &[String]) {
    let lines = shown_lines(lines);
    let indent = lines.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min();
    let Some(indent) = indent else {
        return;
    };
    let _ = writeln!(md, "\n<pre class=\"measured\">");
    for l in lines {
        let _ = writeln!(md, "{}", escape(l.get(indent..).unwrap_or("")));
    }
    let _ = writeln!(md, "</pre>");
}

/// A check's label read as `SHAPE ... KERNEL ...`: the shape (`8191x8193`),
/// the kernel (the first word of lowercase letters, digits and
/// underscores that holds an underscore), and what else the label says
/// (`grid 257x256, 1 round(s)`). `None` for a label without both.
pub fn shape_and_kernel(label: &str) -> Option<(String, String, String)> {
    let label = label.trim();
    let (first, rest) = label.split_once(' ')?;
    let shape = first.trim_end_matches(',');
    let is_shape = shape.split_once('x').is_some_and(|(r, c)| {
        !r.is_empty()
            && !c.is_empty()
            && r.chars().all(|ch| ch.is_ascii_digit())
            && c.chars().all(|ch| ch.is_ascii_digit())
    });
    if !is_shape {
        return None;
    }
    let words: Vec<&str> = rest.split(' ').filter(|w| !w.is_empty()).collect();
    let is_kernel = |w: &str| {
        let w = w.trim_end_matches(',');
        w.contains('_') && w.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    let at = words.iter().position(|w| is_kernel(w))?;
    let kernel = words[at].trim_end_matches(',').to_string();
    let mut others: Vec<&str> = words[..at].to_vec();
    others.extend(&words[at + 1..]);
    let extra = others.join(" ").trim_matches([',', ' ']).to_string();
    Some((shape.to_string(), kernel, extra))
}

/// A check's cell: its verdict, then what its label and detail add to the
/// shape and kernel (the element count when it is the shape's, and "all
/// match", say nothing more and are left out).
fn cell(shape: &str, extra: &str, c: &Check) -> String {
    let elements: Option<u64> =
        shape.split_once('x').and_then(|(r, col)| Some(r.parse::<u64>().ok()? * col.parse::<u64>().ok()?));
    let detail: Vec<&str> = c
        .detail
        .split(", ")
        .filter(|part| *part != "all match" && Some(*part) != elements.map(|n| format!("{n} elements")).as_deref())
        .collect();
    // A label's parenthesised remark alone needs no second pair of brackets.
    let extra =
        extra.strip_prefix('(').and_then(|e| e.strip_suffix(')')).filter(|e| !e.contains(['(', ')'])).unwrap_or(extra);
    let mut notes: Vec<String> = Vec::new();
    if !extra.is_empty() {
        notes.push(extra.to_string());
    }
    if !detail.is_empty() {
        notes.push(detail.join(", "));
    }
    let verdict = if c.ok { "agrees" } else { "**DISAGREES**" };
    let text = if notes.is_empty() { verdict.to_string() } else { format!("{verdict} ({})", notes.join("; ")) };
    text.replace('|', "\\|")
}

/// The shapes the commentary `lines` name (`4097x8191,` in a heading),
/// each with its element count.
fn named_shapes(lines: &[String]) -> Vec<(String, u64)> {
    let mut shapes: Vec<(String, u64)> = Vec::new();
    for word in lines.iter().flat_map(|l| l.split(' ')) {
        let word = word.trim_end_matches([',', ':']);
        let Some((r, c)) = word.split_once('x') else { continue };
        if let (Ok(r), Ok(c)) = (r.parse::<u64>(), c.parse::<u64>()) {
            if !shapes.iter().any(|(w, _)| w == word) {
                shapes.push((word.to_string(), r * c));
            }
        }
    }
    shapes
}

/// A check whose label names a kernel but no shape, placed at the one
/// shape of `shapes` whose element count its detail states
/// (`33558527 elements, ...`): the shape its heading named.
fn shape_from_detail(c: &Check, shapes: &[(String, u64)]) -> Option<(String, String, String)> {
    let (kernel, extra) = c.label.trim().split_once(' ').unwrap_or((c.label.trim(), ""));
    if !(kernel.contains('_') && kernel.chars().all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')) {
        return None;
    }
    let n: u64 = c.detail.strip_suffix(", all match").unwrap_or(&c.detail).split_once(" elements")?.0.parse().ok()?;
    let mut at = shapes.iter().filter(|(_, count)| *count == n);
    match (at.next(), at.next()) {
        (Some((shape, _)), None) => Some((shape.clone(), kernel.to_string(), extra.trim().to_string())),
        _ => None,
    }
}

/// The commentary `lines` with the checks that no shape-by-kernel table
/// shows and whose place in the run is known put back among them, each as
/// the run printed it (`  label: detail: agrees`).
pub fn with_placed_checks(checks: &[Check], lines: &[String]) -> Vec<String> {
    let named = named_shapes(lines);
    let placed: Vec<(usize, String)> = checks
        .iter()
        .filter(|c| in_table(c, &named).is_none())
        .filter_map(|c| {
            let verdict = if c.ok { "agrees" } else { "DISAGREES" };
            Some((c.after_lines?, format!("  {}: {}: {verdict}", c.label, c.detail)))
        })
        .collect();
    let mut out = Vec::with_capacity(lines.len() + placed.len());
    for at in 0..=lines.len() {
        out.extend(
            placed
                .iter()
                .filter(|(after, _)| *after == at || (at == lines.len() && *after > at))
                .map(|(_, l)| l.clone()),
        );
        if let Some(l) = lines.get(at) {
            out.push(l.clone());
        }
    }
    out
}

/// Where a check goes in its section's shape-by-kernel table: its shape,
/// kernel and what else its label says; `None` for a check shown apart.
fn in_table(c: &Check, named: &[(String, u64)]) -> Option<(String, String, String)> {
    shape_and_kernel(&c.label).or_else(|| shape_from_detail(c, named))
}

/// A section's checks: one table, a row per shape and a column per kernel,
/// for the checks whose label names both, or names the kernel and states
/// the element count of a shape the commentary `lines` name (each cell the
/// verdict of every check of that kernel on that shape, in order; `—` where
/// none ran), then, as a list, the other checks whose place among the
/// commentary is not recorded (the others are shown there, see
/// [`with_placed_checks`]).
pub fn render_checks(checks: &[Check], lines: &[String]) -> String {
    let named = named_shapes(lines);
    let mut shapes: Vec<String> = Vec::new();
    let mut kernels: Vec<String> = Vec::new();
    let mut cells: Vec<(String, String, String)> = Vec::new();
    let mut others: Vec<&Check> = Vec::new();
    for c in checks {
        match in_table(c, &named) {
            Some((shape, kernel, extra)) => {
                if !shapes.contains(&shape) {
                    shapes.push(shape.clone());
                }
                if !kernels.contains(&kernel) {
                    kernels.push(kernel.clone());
                }
                let text = cell(&shape, &extra, c);
                cells.push((shape, kernel, text));
            }
            None if c.after_lines.is_none() => others.push(c),
            None => {}
        }
    }
    let mut md = String::new();
    if !cells.is_empty() {
        let agreed = checks.iter().filter(|c| c.ok).count();
        let rest = checks.len() - cells.len();
        let _ = write!(md, "{agreed} of {} checks agree", checks.len());
        if rest == 0 {
            let _ = writeln!(md, "; each shape (rows x columns) against each kernel:\n");
        } else {
            let others =
                if rest == 1 { "the other one follows".to_string() } else { format!("the other {rest} follow") };
            let _ = writeln!(
                md,
                ". This table holds the {} that pair a shape (rows x columns) with a kernel; {others} below it:\n",
                cells.len()
            );
        }
        // The kernels' names are too long to head a column each: the columns
        // are numbered, and the key below the table names them.
        let heads: Vec<String> = (1..=kernels.len()).map(|i| i.to_string()).collect();
        let _ = writeln!(md, "| Shape | {} |", heads.join(" | "));
        let _ = writeln!(md, "| --- |{}", " --- |".repeat(kernels.len()));
        for shape in &shapes {
            let row: Vec<String> = kernels
                .iter()
                .map(|k| {
                    let here: Vec<&str> =
                        cells.iter().filter(|(s, kk, _)| s == shape && kk == k).map(|(_, _, t)| t.as_str()).collect();
                    if here.is_empty() {
                        "—".to_string()
                    } else {
                        here.join("; ")
                    }
                })
                .collect();
            let _ = writeln!(md, "| {shape} | {} |", row.join(" | "));
        }
        let key: Vec<String> = kernels.iter().enumerate().map(|(i, k)| format!("{} `{k}`", i + 1)).collect();
        let _ = writeln!(md, "\nKernels: {}.", key.join(", "));
        if !others.is_empty() {
            md.push('\n');
        }
    }
    for c in others {
        let verdict = if c.ok { "agrees" } else { "**DISAGREES**" };
        let _ = writeln!(md, "- {}: {} — {verdict}", c.label.trim(), c.detail);
    }
    md
}

/// The commentary lines worth showing: every line but the headings left
/// empty. A heading is a line ending in `:`; it is empty when it is the
/// last line, or when the next line is another heading no deeper than it
/// (what it headed were checks, which the checks table shows, or a timing
/// table, which has its own title).
pub fn shown_lines(lines: &[String]) -> Vec<&str> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let heading = |l: &str| l.trim_end().ends_with(':');
    lines
        .iter()
        .enumerate()
        .filter(|(i, l)| {
            !heading(l) || lines.get(i + 1).is_some_and(|next| !(heading(next) && indent(next) <= indent(l)))
        })
        .map(|(_, l)| l.as_str())
        .collect()
}

/// The versions among `kernels` that no table row of `section` times.
pub fn unmeasured<'a>(section: &Section, kernels: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    kernels.into_iter().filter(|k| !section.tables.iter().any(|t| t.rows.iter().any(|r| r.label == *k))).collect()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn render_bandwidth_table(md: &mut String, t: &Table) {
    let _ = writeln!(
        md,
        "\n**{}**, median of {} launches, beside a device-to-device copy moving {} bytes (half read, half written) timed in the same run:\n",
        t.title, t.repeats, t.copy_bytes
    );
    let _ = writeln!(md, "| Kernel | Bytes moved | Time | Bandwidth | Share of the copy's bandwidth |");
    let _ = writeln!(md, "| --- | ---: | ---: | ---: | ---: |");
    let _ = writeln!(
        md,
        "| device-to-device copy (yardstick) | {} | {} | {} | 100.0% |",
        t.copy_bytes,
        ms(t.copy_ms),
        gbps(t.copy_bytes, t.copy_ms)
    );
    for row in &t.rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.1}% |",
            row.label,
            row.bytes,
            ms(row.ms),
            gbps(row.bytes, row.ms),
            t.percent_of_copy(row)
        );
    }
}

fn render_speedup_table(md: &mut String, t: &Table, yardstick: &str) {
    let _ = writeln!(
        md,
        "\n**{}**, median of {} runs, each against {yardstick} timed in the same run:\n",
        t.title, t.repeats
    );
    let _ = writeln!(md, "| Version | Bytes written | Time | Speed-up |");
    let _ = writeln!(md, "| --- | ---: | ---: | ---: |");
    let _ = writeln!(md, "| {yardstick} (yardstick) | {} | {} | 1.00x |", t.copy_bytes, ms(t.copy_ms));
    for row in &t.rows {
        let _ = writeln!(md, "| {} | {} | {} | {:.2}x |", row.label, row.bytes, ms(row.ms), t.speedup(row));
    }
}

/// A horizontal bar chart of one table: each kernel's share of the copy's
/// bandwidth (or, for a table with a named yardstick, its speed-up), as SVG. Text and axes use `currentColor`, so the chart reads
/// in the book's light and dark themes.
pub fn render_chart(table: &Table) -> String {
    use plotters::prelude::*;
    let rows = table.rows.len().max(1);
    let height = 70 + 34 * rows as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, height)).into_drawing_area();
        let floor = if table.yardstick.is_some() { 1.0 } else { 100.0 };
        let max = table.rows.iter().map(|r| table.value(r)).fold(floor, f64::max).ceil();
        let label_w = 300;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(label_w)
            .build_cartesian_2d(0.0..max, (0..(rows - 1).max(1)).into_segmented())
            .expect("the chart's ranges are valid");
        let ink = RGBColor(128, 128, 128);
        let labels: Vec<String> = table.rows.iter().map(|r| r.label.clone()).collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(ink.mix(0.15))
            .bold_line_style(ink.mix(0.3))
            .axis_style(ink)
            .label_style(("sans-serif", 13).into_font().color(&ink))
            .x_desc(match &table.yardstick {
                Some(y) => format!("times faster than {y}"),
                None => "% of a device-to-device copy's bandwidth".to_string(),
            })
            .axis_desc_style(("sans-serif", 13).into_font().color(&ink))
            .y_label_formatter(&|seg| match seg {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .draw()
            .expect("drawing to a string cannot fail");
        let bar = RGBColor(66, 133, 244);
        chart
            .draw_series(table.rows.iter().enumerate().map(|(i, r)| {
                let p = table.value(r);
                // A segmented axis of 0..rows-1 has one slot per row (a
                // lone row gets an empty slot above it); a margin keeps
                // neighbouring bars apart.
                let mut rect = Rectangle::new(
                    [(0.0, SegmentValue::Exact(i)), (p, SegmentValue::Exact(i + 1))],
                    bar.mix(0.8).filled(),
                );
                rect.set_margin(5, 5, 0, 0);
                rect
            }))
            .expect("drawing to a string cannot fail");
        root.present().expect("drawing to a string cannot fail");
    }
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::measured::{Check, Run, Timing};

    fn sample() -> Record {
        Record {
            run: Run { card: "Card".into(), compute_capability: "9.0".into(), ..Default::default() },
            sections: vec![Section {
                chapter: "K.2 Transpose".into(),
                checks: vec![Check {
                    label: "a".into(),
                    detail: "4 elements, all match".into(),
                    ok: true,
                    after_lines: None,
                }],
                lines: vec!["x < y".into(), "  below".into()],
                tables: vec![Table {
                    title: "8192x8192".into(),
                    copy_bytes: 1000,
                    copy_ms: 1.0,
                    repeats: 20,
                    rows: vec![Timing { label: "v1".into(), bytes: 1000, ms: 2.0 }],
                    yardstick: None,
                }],
            }],
        }
    }

    #[test]
    fn records_round_trip_and_render() {
        let r = sample();
        let md = render_markdown(&r, |_| vec![], |_, _| Some("figures/x.svg".into()));
        assert!(md.contains("| v1 | 1000 | 2.000 ms | 0 GB/s | 50.0% |"), "{md}");
        assert!(md.contains("x &lt; y\n  below"), "{md}");
        assert!(md.contains("1 of 1 agree") && md.contains("](figures/x.svg)"));
        assert!(md.contains("- a: 4 elements, all match — agrees"), "{md}");
        let svg = render_chart(&r.sections[0].tables[0]);
        assert!(svg.starts_with("<svg") && svg.contains("v1"));
        assert_eq!(svg, render_chart(&r.sections[0].tables[0]), "charts are deterministic");
    }

    #[test]
    fn speedup_tables_render_against_their_yardstick() {
        let mut r = sample();
        let t = &mut r.sections[0].tables[0];
        t.yardstick = Some("per-diagonal launches".into());
        t.copy_ms = 30.0;
        t.rows[0].ms = 0.12;
        let md = render_section(&r.sections[0], &[], |_| Some("measured/x-1.svg".into()));
        assert!(md.contains("| per-diagonal launches (yardstick) | 1000 | 30.000 ms | 1.00x |"), "{md}");
        assert!(md.contains("| v1 | 1000 | 0.120 ms | 250.00x |"), "{md}");
        assert!(render_chart(&r.sections[0].tables[0]).contains("times faster than per-diagonal launches"));
        assert_eq!(section_key("K.7 Diagonal traversal"), Some("k7".into()));
        assert_eq!(section_key("K.12 x"), Some("k12".into()));
        assert_eq!(section_key("Hardware"), None);
    }

    #[test]
    fn versions_no_table_times_are_said_to_be_not_measured_yet() {
        let r = sample();
        let missing = unmeasured(&r.sections[0], ["v1", "v2"]);
        assert_eq!(missing, ["v2"]);
        let md = render_section(&r.sections[0], &missing, |_| None);
        assert!(md.ends_with("\nNot measured yet (newer than this record): `v2`.\n"), "{md}");
        assert!(!render_section(&r.sections[0], &[], |_| None).contains("Not measured"));
    }

    fn check(label: &str, detail: &str, ok: bool) -> Check {
        Check { label: label.into(), detail: detail.into(), ok, after_lines: None }
    }

    #[test]
    fn checks_become_one_table_of_shapes_by_kernels() {
        let checks = [
            check("8x8 transpose_tile32", "64 elements, all match", true),
            check("8x8 transpose_tile32_padded", "64 elements, all match", true),
            check("  8191x8193 transpose_v1_32x8, grid 257x256", "67108863 elements, all match", true),
            check("  8191x8193 transpose_v1_32x8, grid 257x256, again", "67108863 elements, 3 mismatched", false),
            check("4x6, 4x4 blocks, add_row_major (row-major data)", "24 elements, all match", true),
            check("5x5 lattice_wavefront", "9 launches, 25 elements, all match", true),
            check("  fill_checked", "2000 of 2000 runs equal the simulator", true),
            check("  add_col_major (col-major data)", "33558527 elements, all match", true),
        ];
        let md = render_checks(&checks, &["4097x8191, 32x8 blocks, each pairing:".to_string()]);
        assert!(
            md.starts_with("7 of 8 checks agree. This table holds the 7 that pair a shape (rows x columns) with a kernel; the other one follows below it:"),
            "{md}"
        );
        assert!(md.contains("| Shape | 1 | 2 | 3 | 4 | 5 | 6 |"), "{md}");
        let key = "Kernels: 1 `transpose_tile32`, 2 `transpose_tile32_padded`, 3 `transpose_v1_32x8`, 4 `add_row_major`, 5 `lattice_wavefront`, 6 `add_col_major`.";
        assert!(md.contains(key), "{md}");
        assert!(md.contains("| 8x8 | agrees | agrees | — | — | — | — |"), "{md}");
        assert!(md.contains("| 8191x8193 | — | — | agrees (grid 257x256); **DISAGREES** (grid 257x256, again; 3 mismatched) | — | — | — |"), "{md}");
        assert!(md.contains("| 4x6 | — | — | — | agrees (4x4 blocks, (row-major data)) | — | — |"), "{md}");
        assert!(md.contains("| 5x5 | — | — | — | — | agrees (9 launches) | — |"), "{md}");
        assert!(md.contains("| 4097x8191 | — | — | — | — | — | agrees (col-major data) |"), "{md}");
        assert!(md.ends_with("\n- fill_checked: 2000 of 2000 runs equal the simulator — agrees\n"), "{md}");
        assert_eq!(shape_and_kernel("the timed fills"), None);
    }

    /// A line the run printed below a table's rows stays below the table;
    /// the lines before its heading stay above, and the heading itself,
    /// which the table's title repeats, is left out.
    #[test]
    fn commentary_keeps_its_place_around_the_tables() {
        let mut s = sample().sections.remove(0);
        s.lines = [
            "times on the table, median of 3:",
            "  scalar DP: 101.3 ms",
            "times on the 8192x8192, median of 20 (never asserted):",
            "  every speed-up above is 2.08 times larger",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(table_headings(&s.lines, &s.tables), [Some(2)]);
        let md = render_section(&s, &[], |_| None);
        let (before, after) = md.split_once("| v1 |").expect("the table");
        assert!(
            before
                .contains("<pre class=\"measured\">\ntimes on the table, median of 3:\n  scalar DP: 101.3 ms\n</pre>"),
            "{md}"
        );
        assert!(after.contains("<pre class=\"measured\">\nevery speed-up above is 2.08 times larger\n</pre>"), "{md}");
        assert!(!md.contains("median of 20 (never asserted)"), "{md}");
        // A table no heading names: every line stays above the tables.
        s.lines.truncate(2);
        assert_eq!(table_headings(&s.lines, &s.tables), [None]);
        let md = render_section(&s, &[], |_| None);
        assert!(md.find("scalar DP").unwrap() < md.find("| v1 |").unwrap(), "{md}");
    }

    /// A check no shape-by-kernel table shows appears among the commentary
    /// where the run printed it, and no longer in the list apart.
    #[test]
    fn checks_apart_keep_their_place_among_the_lines() {
        let mut s = sample().sections.remove(0);
        s.tables.clear();
        s.lines = ["sgemm calls:", "  A 2x3, B 3x4:", "    C read row-major: 0 of 8 right", "the end"]
            .map(String::from)
            .to_vec();
        let placed = |label: &str, ok, at| Check { after_lines: Some(at), ..check(label, "8 elements, all match", ok) };
        s.checks = vec![placed("    as-is sgemm(N, N)", true, 2), placed("    fix sgemm(N, N)", false, 3)];
        let md = render_section(&s, &[], |_| None);
        let want = "<pre class=\"measured\">\nsgemm calls:\n  A 2x3, B 3x4:\n      as-is sgemm(N, N): 8 elements, all match: agrees\n    C read row-major: 0 of 8 right\n      fix sgemm(N, N): 8 elements, all match: DISAGREES\nthe end\n</pre>";
        assert!(md.contains(want), "{md}");
        assert!(!md.contains("- "), "{md}");
        // A check past the last line goes last; one without a place, in the list.
        s.checks[1].after_lines = Some(9);
        assert!(with_placed_checks(&s.checks, &s.lines).last().unwrap().contains("fix sgemm"));
        s.checks[1].after_lines = None;
        let md = render_section(&s, &[], |_| None);
        assert!(md.starts_with("- fix sgemm(N, N): 8 elements, all match — **DISAGREES**"), "{md}");
    }

    #[test]
    fn headings_left_empty_are_not_shown() {
        let lines: Vec<String> = [
            "the source's shapes:",
            "larger shapes, each kernel against the plain one:",
            "  1x67108864 copy_x_to_row: not launchable",
            "each kernel launched many times; before every launch",
            "the matrix is poisoned:",
            "4x10 matrix, 2000 runs",
            "times on the table:",
            "  scalar DP: 101.3 ms",
            "bandwidth on 8192x8192 floats:",
        ]
        .map(String::from)
        .to_vec();
        let shown = shown_lines(&lines);
        assert_eq!(
            shown,
            [
                "larger shapes, each kernel against the plain one:",
                "  1x67108864 copy_x_to_row: not launchable",
                "each kernel launched many times; before every launch",
                "the matrix is poisoned:",
                "4x10 matrix, 2000 runs",
                "times on the table:",
                "  scalar DP: 101.3 ms",
            ]
        );
        let mut s = sample().sections.remove(0);
        s.lines = vec!["only a heading:".into()];
        assert!(!render_section(&s, &[], |_| None).contains("<pre"));
    }
}
