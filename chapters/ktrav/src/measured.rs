//! What a run on real hardware measured, as data, and the book's pages made
//! from it.
//!
//! The GPU suite, run with `KTRAV_RECORD=FILE`, writes one [`Record`]: the
//! card, driver, compiler, date and command, then every chapter's checks,
//! commentary and bandwidth tables. The records are committed under
//! `book/measured/`; [`render_markdown`] and [`render_chart`] turn one into
//! the page fragment and the charts the book includes, and a test renders
//! every committed record again and compares, so no measured number in the
//! book is copied by hand.

use crate::report;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Where the run happened.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// `NVIDIA H200`.
    pub card: String,
    /// `9.0`.
    pub compute_capability: String,
    /// The driver's CUDA version, `13.0`.
    pub driver_cuda: String,
    /// The driver's release, `580.159.04`, where the system says it.
    pub driver: String,
    /// What compiled the kernels: the embedded nvcc's version line.
    pub compiler: String,
    /// UTC, as `2026-11-30T04:10:00Z`.
    pub date: String,
    /// The command that made the record.
    pub command: String,
}

/// One cross-check: `label: detail`, and whether it agreed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub label: String,
    pub detail: String,
    pub ok: bool,
}

/// One timed kernel in a bandwidth table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub label: String,
    /// Bytes the kernel must move: each input read once plus each output
    /// written once.
    pub bytes: u64,
    /// Median milliseconds.
    pub ms: f64,
}

/// Kernels timed side by side with a device-to-device copy in one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub title: String,
    /// The yardstick: a copy of this many bytes (read + write counted).
    pub copy_bytes: u64,
    pub copy_ms: f64,
    pub repeats: usize,
    pub rows: Vec<Timing>,
}

impl Table {
    /// A row's effective bandwidth as a share of the copy's, in percent.
    pub fn percent_of_copy(&self, row: &Timing) -> f64 {
        let copy = self.copy_bytes as f64 / self.copy_ms;
        100.0 * (row.bytes as f64 / row.ms) / copy
    }
}

/// One chapter's GPU section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// `K.2 Transpose on the GPU ...`.
    pub chapter: String,
    pub checks: Vec<Check>,
    /// Commentary lines, in order, colour removed.
    pub lines: Vec<String>,
    pub tables: Vec<Table>,
}

/// A whole run: where, and every chapter's section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub run: Run,
    pub sections: Vec<Section>,
}

impl Run {
    /// The run on `gpu` now, made by `command`.
    pub fn on(gpu: &crate::gpu::Gpu, command: &str) -> Run {
        let info = &gpu.info;
        Run {
            card: info.name.clone(),
            compute_capability: format!("{}.{}", info.compute_capability.0, info.compute_capability.1),
            driver_cuda: format!("{}.{}", info.driver_version / 1000, (info.driver_version % 1000) / 10),
            driver: driver_release().unwrap_or_else(|| "unknown".into()),
            compiler: crate::kernels::NVCC_VERSION.unwrap_or("no nvcc: kernels not embedded").to_string(),
            date: now_utc(),
            command: command.to_string(),
        }
    }
}

/// The NVIDIA kernel module's release, from `/proc/driver/nvidia/version`.
fn driver_release() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "Module")?;
    words.get(at + 1).map(|w| w.to_string())
}

/// The current time in UTC, to the second.
pub fn now_utc() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

impl Record {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a record always serialises") + "\n"
    }

    pub fn from_json(text: &str) -> Result<Record> {
        serde_json::from_str(text).context("not a measurement record")
    }

    /// Every check agreed.
    pub fn all_agree(&self) -> bool {
        self.sections.iter().all(|s| s.checks.iter().all(|c| c.ok))
    }
}

fn ms(v: f64) -> String {
    format!("{v:.3} ms")
}

fn gbps(bytes: u64, ms: f64) -> String {
    format!("{:.0} GB/s", bytes as f64 / (ms * 1e-3) / 1e9)
}

/// The markdown the book includes for one record: where it ran, then per
/// chapter its checks, commentary and bandwidth tables. `chart` names the
/// figure file of a table, or `None` for a table without a chart.
pub fn render_markdown(record: &Record, mut chart: impl FnMut(&Section, usize) -> Option<String>) -> String {
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
    for s in &record.sections {
        let _ = writeln!(md, "\n### {}\n", s.chapter);
        for c in &s.checks {
            let verdict = if c.ok { "agrees" } else { "**DISAGREES**" };
            let _ = writeln!(md, "- {}: {} — {verdict}", c.label, c.detail);
        }
        if !s.lines.is_empty() {
            let _ = writeln!(md, "\n<pre class=\"measured\">");
            for l in &s.lines {
                let _ = writeln!(md, "{}", l.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;"));
            }
            let _ = writeln!(md, "</pre>");
        }
        for (i, t) in s.tables.iter().enumerate() {
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
            if let Some(file) = chart(s, i) {
                let _ = writeln!(
                    md,
                    "\n![Bar chart: each kernel's bandwidth as a share of the copy's, {}]({file})",
                    report::plain(&t.title)
                );
            }
        }
    }
    md
}

/// A horizontal bar chart of one table: each kernel's share of the copy's
/// bandwidth, as SVG. Text and axes use `currentColor`, so the chart reads
/// in the book's light and dark themes.
pub fn render_chart(table: &Table) -> String {
    use plotters::prelude::*;
    let rows = table.rows.len().max(1);
    let height = 70 + 34 * rows as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, height)).into_drawing_area();
        let max = table.rows.iter().map(|r| table.percent_of_copy(r)).fold(100.0, f64::max).ceil();
        let label_w = 300;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(label_w)
            .build_cartesian_2d(0.0..max, (0..rows).into_segmented())
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
            .x_desc("% of a device-to-device copy's bandwidth")
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
                let p = table.percent_of_copy(r);
                Rectangle::new([(0.0, SegmentValue::Exact(i)), (p, SegmentValue::Exact(i + 1))], bar.mix(0.8).filled())
            }))
            .expect("drawing to a string cannot fail");
        root.present().expect("drawing to a string cannot fail");
    }
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

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
                }],
            }],
        }
    }

    #[test]
    fn records_round_trip_and_render() {
        let r = sample();
        assert_eq!(Record::from_json(&r.to_json()).unwrap(), r);
        let md = render_markdown(&r, |_, _| Some("figures/x.svg".into()));
        assert!(md.contains("| v1 | 1000 | 2.000 ms | 0 GB/s | 50.0% |"), "{md}");
        assert!(md.contains("x &lt; y") && md.contains("1 of 1 agree") && md.contains("](figures/x.svg)"));
        let svg = render_chart(&r.sections[0].tables[0]);
        assert!(svg.starts_with("<svg") && svg.contains("v1"));
        assert_eq!(svg, render_chart(&r.sections[0].tables[0]), "charts are deterministic");
    }
}
