//! The arithmetic of a check's timings, apart from any GPU: the median and
//! spread of repeated runs, the peak bandwidth the device's memory clock and
//! bus width allow, the test that rejects a time as impossible, and what a
//! timing record holds and how it is printed.
//!
//! How the times are taken (device events around the launches only, the L2
//! cache flushed before every run, the copy yardstick in the same run) is
//! `ktrav_gpu::check`'s part; this module only judges the numbers.

use ktrav_term::report::Report;
use serde::{Deserialize, Serialize};

/// The times of one kernel's repeated runs, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub median_ms: f32,
    pub min_ms: f32,
    pub max_ms: f32,
    /// The first and third quartiles: half the runs lie between them.
    pub q1_ms: f32,
    pub q3_ms: f32,
}

/// The value at fraction `p` (0 to 1) of sorted `v`, interpolated linearly
/// between neighbours.
fn quantile(v: &[f32], p: f64) -> f32 {
    let at = p * (v.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    let frac = (at - lo as f64) as f32;
    v[lo] + (v[hi] - v[lo]) * frac
}

impl Sample {
    /// The median, extremes and quartiles of `times`; `None` when there are
    /// none, or one of them is not a finite number.
    pub fn of(times: &[f32]) -> Option<Sample> {
        if times.is_empty() || times.iter().any(|t| !t.is_finite()) {
            return None;
        }
        let mut v = times.to_vec();
        v.sort_by(f32::total_cmp);
        Some(Sample {
            median_ms: quantile(&v, 0.5),
            min_ms: v[0],
            max_ms: v[v.len() - 1],
            q1_ms: quantile(&v, 0.25),
            q3_ms: quantile(&v, 0.75),
        })
    }

    /// `0.033 ms (0.032 to 0.035)`: the median, then the extremes.
    pub fn describe(&self) -> String {
        format!("{:.3} ms ({:.3} to {:.3})", self.median_ms, self.min_ms, self.max_ms)
    }
}

/// GB/s of moving `bytes` in `ms` milliseconds.
pub fn gbps(bytes: u64, ms: f32) -> f64 {
    bytes as f64 / (ms as f64 * 1e-3) / 1e9
}

/// The device memory's peak bandwidth in GB/s, from its clock in kHz and
/// its bus width in bits, as the CUDA samples compute it: two transfers per
/// clock (double data rate), bus-width bits each.
pub fn peak_gbps(memory_clock_khz: u64, bus_width_bits: u64) -> f64 {
    2.0 * memory_clock_khz as f64 * 1e3 * (bus_width_bits as f64 / 8.0) / 1e9
}

/// The bytes a run must move to or from device memory itself rather than
/// the L2 cache, after the cache was flushed: every input byte is read from
/// memory, and of the output at most the cache's size can still sit in it
/// when the run ends.
pub fn dram_bytes(input_bytes: u64, output_bytes: u64, l2_bytes: u64) -> u64 {
    input_bytes + output_bytes.saturating_sub(l2_bytes)
}

/// Whether `ms` is too short to be true: moving `dram_bytes` at the peak
/// bandwidth takes longer. A kernel timed that fast did not do its work on
/// every run (it noticed it ran before, say), or the timing is broken.
pub fn impossible(ms: f32, dram_bytes: u64, peak_gbps: f64) -> bool {
    peak_gbps > 0.0 && (ms as f64) * 1e-3 * peak_gbps * 1e9 < dram_bytes as f64
}

/// Whether the device is a MIG instance (a slice of a GPU): its name says
/// `MIG`, as the driver names an instance (`NVIDIA A100-SXM4-40GB MIG
/// 1g.5gb`), or `CUDA_VISIBLE_DEVICES` picks it by a `MIG-` UUID.
pub fn is_mig(device_name: &str, visible_devices: Option<&str>) -> bool {
    device_name.split_whitespace().any(|w| w == "MIG" || w.starts_with("MIG-"))
        || visible_devices.is_some_and(|v| v.split(',').any(|d| d.trim().starts_with("MIG-")))
}

/// The line a check prints and records on a MIG instance.
pub const MIG_NOTE: &str =
    "this device is a MIG instance, a slice of a GPU: its timings are not comparable with a whole GPU's";

/// Timings of the last phase (never asserted).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Timing {
    pub rows: u64,
    pub cols: u64,
    pub repeats: usize,
    /// Bytes the kernel moves: each input read once, the output written once.
    pub bytes: u64,
    /// The L2 cache's size; before every timed run a buffer of
    /// [`FLUSH_FACTOR`] times it is written.
    pub l2_bytes: u64,
    /// Medians, as the copy, your kernel, and the chapter's own.
    pub copy_ms: f32,
    pub yours_ms: f32,
    pub chapter_ms: Option<f32>,
    pub copy: Sample,
    pub yours: Sample,
    pub chapter: Option<Sample>,
    /// Your kernel's effective bandwidth: [`Timing::bytes`] over its median.
    pub gbps: f64,
    /// The copy's median time over your kernel's: 1.0 is as fast as a
    /// device-to-device copy of the same bytes, higher is faster.
    pub share_of_copy: f64,
    /// The device memory's peak bandwidth, from its attributes.
    pub peak_gbps: Option<f64>,
    /// Set when a time is shorter than the peak bandwidth allows.
    pub impossible: Option<String>,
    /// Set on a MIG instance ([`MIG_NOTE`]).
    pub note: Option<String>,
}

/// The scratch buffer written before every timed run, as a multiple of the
/// L2 cache's size, so that nothing a run left in the cache survives.
pub const FLUSH_FACTOR: u64 = 2;

impl Timing {
    /// The verdict on the fastest runs: `Some(line)` when a time is impossible.
    pub fn judge(&mut self, input_bytes: u64, output_bytes: u64) {
        let Some(peak) = self.peak_gbps else { return };
        // Each run against the bytes it must move itself: the kernel's, and
        // the copy's (half its bytes read, half written).
        let runs = [
            ("your kernel's fastest run", self.yours.min_ms, dram_bytes(input_bytes, output_bytes, self.l2_bytes)),
            ("the copy's fastest run", self.copy.min_ms, dram_bytes(self.bytes / 2, self.bytes / 2, self.l2_bytes)),
        ];
        let said: Vec<String> = runs
            .iter()
            .filter(|(_, ms, least)| impossible(*ms, *least, peak))
            .map(|(who, ms, least)| {
                let fastest = *least as f64 / (peak * 1e9) * 1e3;
                format!("{who}, {ms:.4} ms is impossible: moving {least} bytes at the peak {peak:.0} GB/s takes {fastest:.4} ms")
            })
            .collect();
        if !said.is_empty() {
            self.impossible = Some(said.join("; "));
        }
    }

    /// The lines a report prints.
    pub fn render(&self, out: &mut Report) {
        out.line(format!(
            "timing on {}x{}, median (fastest to slowest) of {} runs, events around the launches only, the L2 cache ({} MB) flushed before each (timings vary run to run; never asserted):",
            self.rows,
            self.cols,
            self.repeats,
            self.l2_bytes >> 20
        ));
        if let Some(note) = &self.note {
            out.line(format!("  note: {note}"));
        }
        out.line(format!(
            "  device-to-device copy of the same {} MB: {}, {:.0} GB/s",
            self.bytes >> 20,
            self.copy.describe(),
            gbps(self.bytes, self.copy_ms)
        ));
        out.line(format!(
            "  your kernel: {}, {:.0} GB/s, {:.2} of the copy's speed",
            self.yours.describe(),
            self.gbps,
            self.share_of_copy
        ));
        if let Some(c) = &self.chapter {
            out.line(format!(
                "  the chapter's kernel: {}, {:.0} GB/s, {:.2} of the copy's speed",
                c.describe(),
                gbps(self.bytes, c.median_ms),
                self.copy_ms / c.median_ms
            ));
        }
        if let Some(peak) = self.peak_gbps {
            out.line(format!("  the memory's peak, from its clock and bus width: {peak:.0} GB/s"));
        }
        if let Some(why) = &self.impossible {
            out.line(format!("  {}: {why}", ktrav_term::report::flag(false, "FAIL")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_has_its_median_extremes_and_quartiles() {
        let s = Sample::of(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!((s.median_ms, s.min_ms, s.max_ms, s.q1_ms, s.q3_ms), (3.0, 1.0, 5.0, 2.0, 4.0));
        let even = Sample::of(&[4.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!((even.median_ms, even.q1_ms, even.q3_ms), (2.5, 1.75, 3.25));
        assert_eq!(Sample::of(&[7.0]).unwrap().median_ms, 7.0);
        assert!(Sample::of(&[]).is_none() && Sample::of(&[1.0, f32::NAN]).is_none());
        assert_eq!(s.describe(), "3.000 ms (1.000 to 5.000)");
    }

    #[test]
    fn peak_bandwidth_is_two_transfers_per_clock_over_the_bus() {
        // 1 GHz, a 1024-bit bus: 2e9 transfers of 128 bytes.
        assert_eq!(peak_gbps(1_000_000, 1024), 256.0);
        assert_eq!(peak_gbps(0, 1024), 0.0);
        assert_eq!(gbps(2_000_000_000, 1000.0), 2.0);
    }

    #[test]
    fn a_time_below_the_peak_is_impossible_and_one_above_is_not() {
        // 1 GB at 1000 GB/s takes 1 ms.
        assert!(impossible(0.99, 1_000_000_000, 1000.0));
        assert!(!impossible(1.01, 1_000_000_000, 1000.0));
        assert!(!impossible(0.0001, 1_000_000_000, 0.0), "an unknown peak rejects nothing");
        assert_eq!(dram_bytes(100, 300, 200), 200);
        assert_eq!(dram_bytes(100, 150, 200), 100);
    }

    fn timing(yours: f32, copy: f32) -> Timing {
        let s = |ms| Sample::of(&[ms]).unwrap();
        Timing {
            rows: 1024,
            cols: 1024,
            repeats: 1,
            bytes: 8 << 20,
            l2_bytes: 1 << 20,
            copy_ms: copy,
            yours_ms: yours,
            chapter_ms: None,
            copy: s(copy),
            yours: s(yours),
            chapter: None,
            gbps: gbps(8 << 20, yours),
            share_of_copy: (copy / yours) as f64,
            peak_gbps: Some(1000.0),
            impossible: None,
            note: None,
        }
    }

    #[test]
    fn judging_names_the_run_that_beat_the_peak() {
        // 4 MB in, 4 MB out with 1 MB of it in L2: 7 MB at 1000 GB/s, 0.0073 ms.
        let mut fine = timing(0.01, 0.01);
        fine.judge(4 << 20, 4 << 20);
        assert_eq!(fine.impossible, None);
        let mut fast = timing(0.001, 0.01);
        fast.judge(4 << 20, 4 << 20);
        let why = fast.impossible.clone().unwrap();
        assert!(why.starts_with("your kernel's fastest run, 0.0010 ms is impossible: moving 7340032 bytes"), "{why}");
        // A copy faster than the peak is judged on the copy's own bytes
        // (4 MB read, 4 MB written, 1 MB of it in L2), not the kernel's.
        let mut fast_copy = timing(0.01, 0.001);
        fast_copy.judge(2 << 20, 1 << 20);
        let why = fast_copy.impossible.clone().unwrap();
        assert_eq!(why, "the copy's fastest run, 0.0010 ms is impossible: moving 7340032 bytes at the peak 1000 GB/s takes 0.0073 ms");
        let shown = |t: &Timing| {
            let mut out = Report::new();
            t.render(&mut out);
            ktrav_term::report::plain(&out.into_string())
        };
        assert!(shown(&fast).contains("FAIL: your kernel's fastest run") && !shown(&fine).contains("FAIL"));
        let mut sliced = fine.clone();
        sliced.note = Some(MIG_NOTE.into());
        assert!(shown(&sliced).contains(&format!("note: {MIG_NOTE}")) && !shown(&fine).contains("note:"));
        assert!(shown(&fine).contains("the L2 cache (1 MB) flushed before each"), "{}", shown(&fine));
    }

    #[test]
    fn mig_instances_are_told_by_name_or_by_uuid() {
        assert!(is_mig("NVIDIA A100-SXM4-40GB MIG 1g.5gb", None));
        assert!(is_mig("MIG 3g.71gb", None));
        assert!(is_mig("NVIDIA H200", Some("MIG-5c89a7f4-6a2f-5e2c-9c10-1f0a6f4e2d11")));
        assert!(!is_mig("NVIDIA H200", Some("0")) && !is_mig("NVIDIA H200", None));
        assert!(!is_mig("NVIDIA MIGHTY", None));
    }
}
