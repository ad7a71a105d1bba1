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
    /// `None`: the yardstick is a device-to-device copy and rows are shown
    /// as a share of its bandwidth. `Some(label)`: the yardstick is the
    /// named way of doing the same work (`copy_ms` is its time,
    /// `copy_bytes` what it writes) and rows are shown as speed-ups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yardstick: Option<String>,
}

impl Table {
    /// A row's effective bandwidth as a share of the copy's, in percent.
    pub fn percent_of_copy(&self, row: &Timing) -> f64 {
        let copy = self.copy_bytes as f64 / self.copy_ms;
        100.0 * (row.bytes as f64 / row.ms) / copy
    }

    /// How many times faster than the yardstick a row ran.
    pub fn speedup(&self, row: &Timing) -> f64 {
        self.copy_ms / row.ms
    }

    /// What the table's chart plots for a row: the speed-up over a named
    /// yardstick, or the share of the copy's bandwidth.
    pub fn value(&self, row: &Timing) -> f64 {
        if self.yardstick.is_some() {
            self.speedup(row)
        } else {
            self.percent_of_copy(row)
        }
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
/// chapter its checks, commentary and tables. `chart` names the figure file
/// of a table, or `None` for a table without a chart.
pub fn render_markdown(record: &Record, mut chart: impl FnMut(&Section, usize) -> Option<String>) -> String {
    let mut md = render_run(record);
    for s in &record.sections {
        let _ = writeln!(md, "\n### {}\n", s.chapter);
        md += &render_section(s, |i| chart(s, i));
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
/// record's page and for the chapter's own page. `chart` names the figure
/// file of table `i`, or `None` for a table without a chart.
pub fn render_section(s: &Section, mut chart: impl FnMut(usize) -> Option<String>) -> String {
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
    md
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
        assert_eq!(Record::from_json(&r.to_json()).unwrap(), r);
        let md = render_markdown(&r, |_, _| Some("figures/x.svg".into()));
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
        let md = render_section(&r.sections[0], |_| Some("measured/x-1.svg".into()));
        assert!(md.contains("| per-diagonal launches (yardstick) | 1000 | 30.000 ms | 1.00x |"), "{md}");
        assert!(md.contains("| v1 | 1000 | 0.120 ms | 250.00x |"), "{md}");
        assert!(render_chart(&r.sections[0].tables[0]).contains("times faster than per-diagonal launches"));
        // Older records, without the field, still read.
        let old = r#"{"title":"t","copy_bytes":1,"copy_ms":1.0,"repeats":1,"rows":[]}"#;
        assert_eq!(serde_json::from_str::<Table>(old).unwrap().yardstick, None);
        assert_eq!(section_key("K.7 Diagonal traversal"), Some("k7".into()));
        assert_eq!(section_key("K.12 x"), Some("k12".into()));
        assert_eq!(section_key("Hardware"), None);
    }

    #[test]
    fn ncu_csv_pages_parse_alike() {
        let details = concat!(
            "==PROF== Connected to process 1\n",
            "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n",
            "\"0\",\"1\",\"k2\",\"h\",\"tile(float*, const float*)\",\"1\",\"7\",\"(32, 32, 1)\",\"(4, 4, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"smsp__inst_executed_op_shared_ld.sum\",\"inst\",\"1,000\"\n",
            "\"0\",\"1\",\"k2\",\"h\",\"tile(float*, const float*)\",\"1\",\"7\",\"(32, 32, 1)\",\"(4, 4, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\",\"\",\"32,000\"\n",
            "\"1\",\"1\",\"k2\",\"h\",\"tile(float*, const float*)\",\"1\",\"7\",\"(32, 32, 1)\",\"(4, 4, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"smsp__inst_executed_op_shared_ld.sum\",\"inst\",\"1000\"\n",
            "\"1\",\"1\",\"k2\",\"h\",\"tile(float*, const float*)\",\"1\",\"7\",\"(32, 32, 1)\",\"(4, 4, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\",\"\",\"32000\"\n",
        );
        let k = parse_ncu_csv(details).unwrap();
        assert_eq!((k.len(), k[0].kernel.as_str(), k[0].launches), (1, "tile", 2));
        assert_eq!(k[0].wavefronts_per_shared_load(), Some(32.0));
        assert_eq!(k[0].sectors_per_global_request(), None);
        let raw = concat!(
            "\"ID\",\"Kernel Name\",\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\",\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\"\n",
            "\"\",\"\",\"\",\"sector\"\n",
            "\"0\",\"copy\",\"100\",\"3200\"\n",
        );
        let k = parse_ncu_csv(raw).unwrap();
        assert_eq!((k[0].kernel.as_str(), k[0].sectors_per_global_request()), ("copy", Some(32.0)));
        let pred = [Prediction { kernel: "copy".into(), wavefronts_per_shared_load: None, sectors_per_global_request: Some(32.0) }];
        assert!(render_counters(&k, &pred).contains("| `copy` |  | 1 | —, — | 32.00, 32.00 |"), "{}", render_counters(&k, &pred));
        assert!(parse_ncu_csv("no csv here").is_err());
    }
}

// ---- Hardware counters ------------------------------------------------------

/// The Nsight Compute metrics the hardware page reads.
pub mod metric {
    /// Shared-memory load wavefronts: one per bank-conflict-free pass.
    pub const SHARED_LD_WAVEFRONTS: &str = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
    /// Shared-memory load instructions executed (one per warp).
    pub const SHARED_LD_INSTRUCTIONS: &str = "smsp__inst_executed_op_shared_ld.sum";
    /// Shared-memory load bank conflicts.
    pub const SHARED_LD_CONFLICTS: &str = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
    /// 32-byte sectors global loads touched.
    pub const GLOBAL_LD_SECTORS: &str = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
    /// Global load requests (one per warp instruction).
    pub const GLOBAL_LD_REQUESTS: &str = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
}

/// One kernel's counters, summed over every launch of it that was profiled.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelCounters {
    /// The kernel's name, without any parameter list.
    pub kernel: String,
    /// The launches' grid, as ncu writes it: `(256, 256, 1)`.
    pub grid: String,
    /// Launches profiled.
    pub launches: usize,
    /// Metric name to value, summed over the launches.
    pub metrics: std::collections::BTreeMap<String, f64>,
}

impl KernelCounters {
    fn ratio(&self, num: &str, den: &str) -> Option<f64> {
        let (n, d) = (*self.metrics.get(num)?, *self.metrics.get(den)?);
        (d > 0.0).then(|| n / d)
    }

    /// Shared-memory wavefronts per shared load instruction: 1 without bank
    /// conflicts, up to 32 when all 32 lanes hit one bank.
    pub fn wavefronts_per_shared_load(&self) -> Option<f64> {
        self.ratio(metric::SHARED_LD_WAVEFRONTS, metric::SHARED_LD_INSTRUCTIONS)
    }

    /// 32-byte sectors per global load request: 4 when a warp reads 128
    /// contiguous bytes, 32 when each lane's float lies in its own sector.
    pub fn sectors_per_global_request(&self) -> Option<f64> {
        self.ratio(metric::GLOBAL_LD_SECTORS, metric::GLOBAL_LD_REQUESTS)
    }
}

/// Splits one CSV line into fields: double quotes group, `""` is a quote.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.trim_end_matches(['\r', '\n']).chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

/// A counter value as ncu prints it: `2,097,152`, `2097152`, `1.03` or
/// `n/a` (none).
fn counter_value(text: &str) -> Option<f64> {
    let t: String = text.trim().chars().filter(|c| *c != ',').collect();
    t.parse().ok()
}

/// Parses `ncu --csv` output, either page: `--page details` (the default:
/// one row per kernel launch and metric, with `Kernel Name`, `Metric Name`
/// and `Metric Value` columns) or `--page raw` (one row per launch, a
/// column per metric, and a row of units under the header). Lines before
/// the header (`==PROF==`, the program's own output) are skipped. Values
/// are summed per kernel over its launches; kernels keep their first
/// appearance's order.
pub fn parse_ncu_csv(text: &str) -> Result<Vec<KernelCounters>> {
    let mut lines = text.lines();
    let header = loop {
        let line = lines.next().context("no ncu CSV header (a line with \"Kernel Name\") found")?;
        if line.starts_with('"') && line.contains("\"Kernel Name\"") {
            break csv_fields(line);
        }
    };
    let col = |name: &str| header.iter().position(|h| h == name);
    let kernel_col = col("Kernel Name").expect("the header has it");
    let id_col = col("ID");
    let grid_col = col("Grid Size");
    let mut out: Vec<KernelCounters> = Vec::new();
    let mut seen_launch: std::collections::BTreeSet<(String, String)> = Default::default();
    let mut add = |out: &mut Vec<KernelCounters>, id: String, kernel: &str, grid: &str, metric: &str, value: f64| {
        let kernel = kernel.split('(').next().unwrap_or(kernel).trim().to_string();
        let at = match out.iter().position(|k| k.kernel == kernel && k.grid == grid) {
            Some(at) => at,
            None => {
                out.push(KernelCounters { kernel: kernel.clone(), grid: grid.to_string(), ..Default::default() });
                out.len() - 1
            }
        };
        if seen_launch.insert((kernel, id)) {
            out[at].launches += 1;
        }
        *out[at].metrics.entry(metric.to_string()).or_insert(0.0) += value;
    };
    let rows = lines.filter(|l| l.starts_with('"')).map(csv_fields).filter(|f| f.len() == header.len());
    if let (Some(name_col), Some(value_col)) = (col("Metric Name"), col("Metric Value")) {
        for (n, f) in rows.enumerate() {
            let id = id_col.map_or(n.to_string(), |c| f[c].clone());
            if let Some(v) = counter_value(&f[value_col]) {
                let grid = grid_col.map_or("", |c| f[c].as_str());
                add(&mut out, id, &f[kernel_col], grid, &f[name_col], v);
            }
        }
    } else {
        let metrics: Vec<(usize, &String)> = header.iter().enumerate().filter(|(_, h)| h.contains("__")).collect();
        anyhow::ensure!(!metrics.is_empty(), "the ncu CSV has neither a Metric Name column nor metric columns");
        for (n, f) in rows.enumerate() {
            // The raw page's second row holds the units, and no kernel name.
            if f[kernel_col].is_empty() {
                continue;
            }
            let id = id_col.map_or(n.to_string(), |c| f[c].clone());
            for &(c, name) in &metrics {
                if let Some(v) = counter_value(&f[c]) {
                    let grid = grid_col.map_or("", |c| f[c].as_str());
                    add(&mut out, id.clone(), &f[kernel_col], grid, name, v);
                }
            }
        }
    }
    anyhow::ensure!(!out.is_empty(), "the ncu CSV holds no kernel rows");
    Ok(out)
}

/// What the simulator predicts for one kernel, per warp request.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    pub kernel: String,
    /// Shared-memory wavefronts per load (the conflict degree), if the
    /// kernel reads shared memory.
    pub wavefronts_per_shared_load: Option<f64>,
    /// 32-byte sectors per warp's global load.
    pub sectors_per_global_request: Option<f64>,
}

/// The counters table of the hardware page: per kernel the measured ratios
/// beside the simulator's predictions. Kernels without a prediction are
/// listed with `—` in its columns.
pub fn render_counters(counters: &[KernelCounters], predictions: &[Prediction]) -> String {
    let num = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.2}"));
    let mut md = String::new();
    let _ = writeln!(md, "| Kernel | Grid | Launches | Wavefronts per shared load: measured, predicted | Sectors per request: measured, predicted |");
    let _ = writeln!(md, "| --- | --- | ---: | ---: | ---: |");
    for k in counters.iter().filter(|k| k.is_full_2d_grid()) {
        let p = predictions.iter().find(|p| p.kernel == k.kernel);
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {}, {} | {}, {} |",
            k.kernel,
            k.grid_text(),
            k.launches,
            num(k.wavefronts_per_shared_load()),
            num(p.and_then(|p| p.wavefronts_per_shared_load)),
            num(k.sectors_per_global_request()),
            num(p.and_then(|p| p.sectors_per_global_request)),
        );
    }
    let _ = writeln!(
        md,
        "\nOne row per kernel and grid, for the launches whose grid is at least {MIN_BLOCKS} blocks in both \
         dimensions together and more than one block along each (the chapters' large square-ish shapes; the \
         one-row and one-column extremes and the small source shapes are profiled too, but a warp there is \
         mostly idle lanes, which the per-warp prediction does not model). Measured values are over every such \
         launch; the predictions are the simulator's, per warp request of a full 32x32 tile (K.2) or a 32x8 block (K.3)."
    );
    md
}

/// Launches with fewer blocks than this are left out of the counters table.
pub const MIN_BLOCKS: u64 = 1024;

impl KernelCounters {
    /// The grid as `256x256`.
    pub fn grid_text(&self) -> String {
        let dims: Vec<&str> = self.grid.trim_matches(|c| c == '(' || c == ')').split(',').map(str::trim).collect();
        match dims.as_slice() {
            [x, y, "1"] => format!("{x}x{y}"),
            _ => self.grid.clone(),
        }
    }

    /// A grid with more than one block along x and y and at least
    /// [`MIN_BLOCKS`] blocks; an unparsable grid counts as full.
    pub fn is_full_2d_grid(&self) -> bool {
        let dims: Vec<u64> =
            self.grid.trim_matches(|c| c == '(' || c == ')').split(',').filter_map(|d| d.trim().parse().ok()).collect();
        match dims.as_slice() {
            [x, y, ..] => *x > 1 && *y > 1 && x * y >= MIN_BLOCKS,
            _ => true,
        }
    }
}
