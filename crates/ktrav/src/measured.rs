//! What a run on real hardware measured, as data: the schema of a
//! measurement record.
//!
//! `appendix_k record FILE` writes one [`Record`]: the
//! card, driver, compiler, date and command, then every chapter's checks,
//! commentary and bandwidth tables. The records are committed under
//! `book/measured/`, and the book's own tooling (`tools/booktools`) renders
//! them into the pages and charts the book includes, so no measured number in
//! the book is copied by hand.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

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
    /// How many of its section's commentary lines the run had printed
    /// before this check, so a page can show the two in the run's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_lines: Option<usize>,
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
    /// `K.2 A tiled transpose for any shape ...`.
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn records_round_trip_and_give_their_ratios() {
        let r = sample();
        assert_eq!(Record::from_json(&r.to_json()).unwrap(), r);
        assert!(r.all_agree());
        let t = &r.sections[0].tables[0];
        assert_eq!((t.percent_of_copy(&t.rows[0]), t.speedup(&t.rows[0]), t.value(&t.rows[0])), (50.0, 0.5, 50.0));
        // Older records, without the yardstick field, still read.
        let old = r#"{"title":"t","copy_bytes":1,"copy_ms":1.0,"repeats":1,"rows":[]}"#;
        assert_eq!(serde_json::from_str::<Table>(old).unwrap().yardstick, None);
        assert!(Record::from_json("{").is_err());
    }
}
