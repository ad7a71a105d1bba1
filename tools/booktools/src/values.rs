//! `book/values.txt`: every value the book's `{{value NAME}}` directives
//! read (see `tools/mdbook-values`). The chapters' own values and the lab's
//! batteries come from [`appendix_k::values`]; this adds what the measured
//! records hold, so a rate the prose quotes is the record's. For every
//! record `NAME.json`, every table `T` (numbered from 1 within a chapter's
//! section `kN`) and every row, named by the row label's first word (the
//! kernel):
//!
//! * `NAME.kN.tT.KERNEL.ms`: the median time, in milliseconds;
//! * `NAME.kN.tT.KERNEL.gb_s`: its bytes over that time, in GB/s;
//! * `NAME.kN.tT.KERNEL.tb_s`: the same in TB/s, to two places;
//! * `NAME.kN.tT.copy.gb_s` and `.tb_s`: the table's device-to-device copy
//!   (for a table timed against a copy);
//! * `NAME.kN.tT.KERNEL.share`: the kernel's rate as a percentage of that
//!   copy's, or of the best copy rate the record measured when its own
//!   yardstick is another kernel;
//! * `NAME.kN.tT.yardstick.ms` and `NAME.kN.tT.KERNEL.speedup`: for a
//!   table timed against another way of doing the same work (K.7's graph),
//!   that yardstick's median and how many times faster the row ran;
//! * `NAME.copy.best.gb_s` and `.tb_s`: that best copy rate;
//! * `NAME.date`: the day of the run (UTC), the date part of its time stamp;
//! * `NAME.ncu.date` and `NAME.ncu.driver`: the day and the driver of the
//!   Nsight Compute session whose counters `NAME-ncu.csv` holds, where
//!   `NAME-ncu-session.txt` says them;
//! * `NAME.ncu.KERNEL.l2_bytes` and `.l2_throughput`: from `NAME-ncu.csv`, the
//!   L2's bytes and its throughput (Nsight Compute's) as shares of peak, for each version
//!   profiled for throughput, at 8192x8192 ([`crate::goals::throughput_values`]);
//! * `NAME.kN.tallyI.clean_runs` and `.runs`: for each tally of rows left
//!   wrong (K.4's row-only fill), the GPU runs with no row wrong, and all of
//!   its GPU runs;
//! * `NAME.kN.waited.KERNEL.event_ms`: for a fill timed one launch at a
//!   time with a wait after each (K.7's), the time between each launch's
//!   two events summed over the launches; each span holds the host's
//!   enqueue of its launch as well as the kernel.

use crate::{files, measured_dir, read, records::section_key, stem};
use anyhow::{Context, Result};
use ktrav::measured::{Record, Table};

/// The header of `book/values.txt`.
pub const HEADER: &str = "The values the book's {{value NAME}} directives read, computed by the code:\n\
    each chapter's values(), the lab's batteries and the measured records.\n\
    Written by `scripts/refresh-outputs`; the book's tests fail when it is stale.";

/// Where the values file lives.
pub fn values_path() -> std::path::PathBuf {
    ktrav_book::outputs_dir().join("../values.txt")
}

/// Every value, in the file's order.
pub fn values() -> Result<Vec<(String, String)>> {
    let mut all = appendix_k::values::values();
    all.extend(goal_values());
    for path in files(&measured_dir(), "json")? {
        let record = Record::from_json(&read(&path)?).with_context(|| format!("{}", path.display()))?;
        all.extend(record_values(&stem(&path), &record));
        let session = measured_dir().join(format!("{}-ncu-session.txt", stem(&path)));
        if session.exists() {
            all.extend(ncu_session_values(&stem(&path), &read(&session)?)?);
        }
        if let Some(counters) = crate::record_counters(&stem(&path))? {
            all.extend(crate::goals::throughput_values(&stem(&path), &counters));
        }
        all.extend(record_goal_values(&stem(&path), &record));
    }
    Ok(all)
}

/// The goals the measured ladders are held to ([`crate::goals`]), as the
/// prose states them: `goal.k6.share` (K.6's share of a copy),
/// `goal.k7.speedup` and `goal.k7.aim` (K.7's speed-up over the graph).
pub fn goal_values() -> Vec<(String, String)> {
    use crate::goals::{SPIRAL_GOAL_PERCENT, WAVEFRONT_AIM, WAVEFRONT_GOAL};
    vec![
        ("goal.k6.share".to_string(), format!("{SPIRAL_GOAL_PERCENT:.0}%")),
        ("goal.k7.speedup".to_string(), format!("{WAVEFRONT_GOAL:.0}")),
        ("goal.k7.aim".to_string(), format!("{WAVEFRONT_AIM:.0}")),
    ]
}

/// What a record says of K.7's goal: `NAME.goal.k7.best` (the fastest
/// version that keeps the recurrence), `NAME.goal.k7.best.speedup` (how
/// many times faster than the graph) and `NAME.goal.k7.best.short_by` (the
/// factor by which it misses the goal; 1.0 when it meets it).
pub fn record_goal_values(stem: &str, record: &Record) -> Vec<(String, String)> {
    let Some(table) = crate::goals::wavefront_table(record) else { return Vec::new() };
    let Some((kernel, ms)) = crate::goals::best_wavefront(table) else { return Vec::new() };
    let speedup = table.copy_ms / ms;
    vec![
        (format!("{stem}.goal.k7.best"), kernel.to_string()),
        (format!("{stem}.goal.k7.best.speedup"), format!("{speedup:.1}")),
        (format!("{stem}.goal.k7.best.short_by"), format!("{:.1}", (crate::goals::WAVEFRONT_GOAL / speedup).max(1.0))),
    ]
}

/// The text of `book/values.txt`.
pub fn values_file() -> Result<String> {
    let values = values()?;
    Ok(mdbook_values::Values::render(HEADER, values.iter().map(|(n, v)| (n.as_str(), v.as_str()))))
}

fn gb_s(bytes: u64, ms: f64) -> f64 {
    bytes as f64 / (ms * 1e-3) / 1e9
}

/// A row's name: its label's first word, in the characters a value name allows.
fn kernel_of(label: &str) -> String {
    let word = label.split_whitespace().next().unwrap_or("row").trim_end_matches(',');
    word.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// The fills a section times one launch at a time, waiting after each
/// (`KERNEL (...): N launches, X ms of ... summed over them, ...`, as
/// [`k7_diagonal::gpu::fill_line`] writes them): each kernel with the time
/// its launches' events add up to, the first figure in milliseconds after
/// the launch count.
pub fn waited_event_ms(section: &ktrav::measured::Section) -> Vec<(String, f64)> {
    section
        .lines
        .iter()
        .filter_map(|line| {
            let line = line.trim();
            let (_, after) = line.split_once(" launches, ")?;
            let (ms, rest) = after.split_once(" ms of ")?;
            if !rest.split(", ").next()?.contains(" summed over them") {
                return None;
            }
            Some((kernel_of(line), ms.parse().ok()?))
        })
        .collect()
}

/// When and with which driver the counters beside record `stem` were
/// taken, from the `ncu-session.txt` that `scripts/measure ncu` writes:
/// `NAME.ncu.date` (the day, UTC) and `NAME.ncu.driver`.
pub fn ncu_session_values(stem: &str, text: &str) -> Result<Vec<(String, String)>> {
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .with_context(|| format!("{stem}-ncu-session.txt has no `{key}: ...` line"))
    };
    let day = field("date")?.split('T').next().unwrap_or_default().to_string();
    Ok(vec![(format!("{stem}.ncu.date"), day), (format!("{stem}.ncu.driver"), field("driver")?.to_string())])
}

/// The values of one record named `stem`.
pub fn record_values(stem: &str, record: &Record) -> Vec<(String, String)> {
    let copies = |t: &Table| t.yardstick.is_none().then(|| gb_s(t.copy_bytes, t.copy_ms));
    let best_copy = record.sections.iter().flat_map(|s| &s.tables).filter_map(copies).fold(0.0_f64, f64::max);
    let day = record.run.date.split('T').next().unwrap_or_default();
    let mut out = vec![
        (format!("{stem}.date"), day.to_string()),
        (format!("{stem}.copy.best.gb_s"), format!("{best_copy:.0}")),
        (format!("{stem}.copy.best.tb_s"), format!("{:.2}", best_copy / 1e3)),
    ];
    for section in &record.sections {
        let Some(key) = section_key(&section.chapter) else { continue };
        for (kernel, ms) in waited_event_ms(section) {
            out.push((format!("{stem}.{key}.waited.{kernel}.event_ms"), format!("{ms:.1}")));
        }
        for (i, tally) in crate::rows_wrong::tallies(section).iter().enumerate() {
            let clean = tally.counts.iter().find(|c| c.0 == 0).map_or(0, |c| c.1);
            out.push((format!("{stem}.{key}.tally{}.clean_runs", i + 1), clean.to_string()));
            out.push((format!("{stem}.{key}.tally{}.runs", i + 1), tally.gpu_runs.to_string()));
        }
        for (t, table) in section.tables.iter().enumerate() {
            let prefix = format!("{stem}.{key}.t{}", t + 1);
            let copy = copies(table);
            if let Some(rate) = copy {
                out.push((format!("{prefix}.copy.gb_s"), format!("{rate:.0}")));
                out.push((format!("{prefix}.copy.tb_s"), format!("{:.2}", rate / 1e3)));
            }
            if table.yardstick.is_some() {
                out.push((format!("{prefix}.yardstick.ms"), format!("{:.3}", table.copy_ms)));
            }
            let mut seen = std::collections::BTreeSet::new();
            for row in &table.rows {
                let mut name = kernel_of(&row.label);
                let mut n = 2;
                while !seen.insert(name.clone()) {
                    name = format!("{}-{n}", kernel_of(&row.label));
                    n += 1;
                }
                let rate = gb_s(row.bytes, row.ms);
                out.push((format!("{prefix}.{name}.ms"), format!("{:.3}", row.ms)));
                out.push((format!("{prefix}.{name}.gb_s"), format!("{rate:.0}")));
                out.push((format!("{prefix}.{name}.tb_s"), format!("{:.2}", rate / 1e3)));
                if table.yardstick.is_some() {
                    out.push((format!("{prefix}.{name}.speedup"), format!("{:.1}", table.speedup(row))));
                }
                let against = copy.unwrap_or(best_copy);
                if against > 0.0 {
                    out.push((format!("{prefix}.{name}.share"), format!("{:.0}%", 100.0 * rate / against)));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::measured::Section;

    /// The timing lines K.7's GPU section writes are read back by kernel,
    /// their summed event time and nothing else.
    #[test]
    fn waited_fills_are_read_from_the_lines_the_section_writes() {
        let fill = k7_diagonal::gpu::fill_line;
        let section = Section {
            chapter: k7_diagonal::CHAPTER.heading(),
            checks: vec![],
            lines: vec![
                "times on the 4096x4096 table, median of 3 fills (timings vary; never asserted):".into(),
                "  scalar DP on the host, one core: 61.0 ms".into(),
                fill("lattice_wavefront (block_dim_x=256)", 8191, 54.34, 121.1),
                fill("lattice_tiled (32x32 tiles)", 255, 4.8, 6.7),
                "  (wall time includes the runner's synchronisation after every launch)".into(),
                "  lattice_v1_systolic, 2 launches, 3.5 ms of wall time".into(),
            ],
            tables: vec![],
        };
        let read = waited_event_ms(&section);
        assert_eq!(read, vec![("lattice_wavefront".to_string(), 54.3), ("lattice_tiled".to_string(), 4.8)]);
    }

    /// The session file `scripts/measure ncu` writes gives the counters'
    /// own day and driver; a file without them is an error, not a blank.
    #[test]
    fn the_counters_session_is_read_from_its_file() {
        let text = "date: 2026-12-04T15:01:02Z\ndriver: 580.159.04\ncard: NVIDIA H200\n";
        let v = ncu_session_values("h200", text).unwrap();
        assert_eq!(
            v,
            vec![
                ("h200.ncu.date".to_string(), "2026-12-04".to_string()),
                ("h200.ncu.driver".into(), "580.159.04".into())
            ]
        );
        assert!(ncu_session_values("h200", "date: 2026-12-04T15:01:02Z\ndriver: \n").is_err());
        assert!(ncu_session_values("h200", "").is_err());
    }
}
