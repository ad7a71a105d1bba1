//! A measurement record (`ktrav::measured`) as the book's pages: the whole
//! record for the hardware page, each chapter's section for its own page,
//! and a bar chart of every table.

use ktrav::measured::{Record, Section, Table};
use ktrav::report;
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
        let _ = writeln!(md, "\n### {}\n", s.chapter);
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
pub fn render_section(s: &Section, unmeasured: &[&str], mut chart: impl FnMut(usize) -> Option<String>) -> String {
    let mut md = String::new();
    for c in &s.checks {
        let verdict = if c.ok { "agrees" } else { "**DISAGREES**" };
        let _ = writeln!(md, "- {}: {} — {verdict}", c.label, c.detail);
    }
    if !s.lines.is_empty() {
        let _ = writeln!(md, "\n<pre class=\"measured\">");
        for l in &s.lines {
            let _ = writeln!(md, "{}", escape(l));
        }
        let _ = writeln!(md, "</pre>");
    }
    for (i, t) in s.tables.iter().enumerate() {
        match &t.yardstick {
            None => render_bandwidth_table(&mut md, t),
            Some(y) => render_speedup_table(&mut md, t, y),
        }
        if let Some(file) = chart(i) {
            let what = if t.yardstick.is_some() { "each version's speed-up over the yardstick" } else { "each kernel's bandwidth as a share of the copy's" };
            let _ = writeln!(md, "\n![Bar chart: {what}, {}]({file})", report::plain(&t.title));
        }
    }
    if !unmeasured.is_empty() {
        let names: Vec<String> = unmeasured.iter().map(|k| format!("`{k}`")).collect();
        let _ = writeln!(md, "\nNot measured yet (newer than this record): {}.", names.join(", "));
    }
    md
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
        "\n**{}**, median of {} launches, beside a device-to-device copy of {} bytes timed in the same run:\n",
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
                let mut rect =
                    Rectangle::new([(0.0, SegmentValue::Exact(i)), (p, SegmentValue::Exact(i + 1))], bar.mix(0.8).filled());
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
                checks: vec![Check { label: "a".into(), detail: "4 elements, all match".into(), ok: true }],
                lines: vec!["x < y".into()],
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
        assert!(md.contains("x &lt; y") && md.contains("1 of 1 agree") && md.contains("](figures/x.svg)"));
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
}
