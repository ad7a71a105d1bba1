//! Timing a kernel that passed, the way a fair benchmark does it: device
//! events around the launches only (the watchdog that polls waits after
//! the second event, outside the timed span), the L2 cache flushed before
//! every run by writing a scratch buffer of twice its size, and a
//! device-to-device copy of the same bytes timed in the same run,
//! interleaved with the kernels, so all three meet the same clocks and
//! the same neighbours. An exercise of many launches is captured once into
//! a CUDA graph and the replay is timed, as the chapter times its
//! yardstick. The numbers are judged by `ktrav::lab::timing`.
//!
//! Every run of the student's kernel, the warm-up and each timed one, starts
//! from a poisoned output and is judged afterwards, as the shapes are: a
//! kernel that does its work only on its first launch in a module (or on
//! some launches) and returns at once on the others would otherwise be
//! timed as fast. Poisoning is queued before the first event, like the
//! flush, so it is not timed.

use super::run::{buffers, enqueue_all, enqueue_on, guarded_words, wait, Fit};
use super::worker::{enter, Phase};
use crate::graph::Graph;
use crate::runner::{DeviceBuffer, Gpu, Kernel};
use anyhow::{anyhow, Result};
use ktrav::lab::timing::{gbps, is_mig, peak_gbps, Sample, Timing, FLUSH_FACTOR, MIG_NOTE};
use ktrav::lab::{case_launches, judge, Case, Exercise, Verdict, TIMING_REPEATS};
use ktrav::Shape;
use std::time::Duration;

/// How far the check's timing of a chapter's kernel may be from the
/// chapter ladder's timing of the same kernel on the same shape, as a
/// fraction of the ladder's: the GPU suite holds the two to it.
pub const LADDER_AGREEMENT: f64 = 0.10;

/// Bytes the kernel of `ex` moves on `shape`: (input bytes, output bytes).
pub fn traffic(ex: &Exercise, shape: Shape) -> (u64, u64) {
    let n = shape.elements();
    (n * 4 * ex.inputs() as u64, n * 4 * ex.elem.words() as u64)
}

/// A run of the student's kernel during timing that left the output wrong:
/// its work was skipped on that launch, so its time means nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} left the output wrong ({found}): the kernel must do all of its work on every launch, not only on the first",
    self.which()
)]
pub struct SkippedWork {
    /// Which run (0 is the warm-up) of how many.
    pub run: usize,
    pub runs: usize,
    /// What the judge found, as a shape's line says it.
    pub found: String,
}

impl SkippedWork {
    /// `the warm-up run`, or `timed run 2 of 5`.
    fn which(&self) -> String {
        match self.run {
            0 => "the warm-up run".to_string(),
            run => format!("timed run {run} of {}", self.runs - 1),
        }
    }
}

/// The note a check prints on this device, if any: a MIG instance's.
pub fn device_note(gpu: &Gpu) -> Option<String> {
    let visible = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    is_mig(&gpu.info.name, visible.as_deref()).then(|| MIG_NOTE.to_string())
}

/// Times `yours` (and the chapter's kernel `theirs`, when given) on `shape`
/// as `ex` launches them, beside a device copy of the same bytes:
/// [`TIMING_REPEATS`] runs of each, interleaved, after one warm-up run of
/// each. `timeout` bounds every wait. The result says whether a time was
/// impossible; it never fails for that.
pub fn time(
    gpu: &Gpu,
    yours: &Kernel,
    theirs: Option<&Kernel>,
    ex: &Exercise,
    shape: Shape,
    timeout: Duration,
) -> Result<Timing> {
    let mut bufs = buffers(gpu, ex, shape, Fit::Guarded)?;
    let (input_bytes, output_bytes) = traffic(ex, shape);
    let bytes = input_bytes + output_bytes;
    // The copy reads half the bytes and writes the other half.
    let copy_words = (bytes / 8).max(1) as usize;
    let src = gpu.poisoned::<u32>(copy_words)?;
    let mut dst = gpu.poisoned::<u32>(copy_words)?;
    let l2 = gpu.l2_bytes()? as u64;
    let mut scratch: DeviceBuffer<u32> = gpu.poisoned((FLUSH_FACTOR * l2 / 4).max(1) as usize)?;
    let verdict = |v: ktrav::lab::Verdict| anyhow!("{}", v.describe(shape.elements()));
    let case = Case::public(String::new(), shape);
    let mut kernels: Vec<&Kernel> = vec![yours];
    kernels.extend(theirs);
    // Many launches (K.7's one per diagonal) are captured into a graph and
    // replayed, so what is timed is the device running them, not the host
    // issuing one driver call per launch.
    let graphs = if case_launches(ex, &case)?.len() > 1 {
        let capture =
            |k: &Kernel| Graph::capture(gpu, |c| enqueue_on(c, gpu, k, ex, &case, &bufs, None).map_err(verdict));
        kernels.iter().map(|k| capture(k).map(Some)).collect::<Result<Vec<_>>>()?
    } else {
        kernels.iter().map(|_| None).collect()
    };
    let mut times: Vec<Vec<f32>> = vec![Vec::new(); 1 + kernels.len()];
    let expected = (ex.expected)(shape);
    enter(Phase::Kernel);
    for round in 0..=TIMING_REPEATS {
        for (which, list) in times.iter_mut().enumerate() {
            // Flushing and poisoning are queued before the first event: they are not timed.
            gpu.poison(&mut scratch)?;
            if which == 1 {
                gpu.poison(&mut bufs.out)?;
            }
            let ms = match which.checked_sub(1).and_then(|k| graphs[k].as_ref()) {
                // The replay waits for the flush first and for itself after.
                Some(graph) => graph.replay_ms(gpu)?,
                None => {
                    let span = if which == 0 {
                        gpu.span(|| gpu.enqueue_copy(&src, &mut dst))?
                    } else {
                        gpu.span(|| enqueue_all(gpu, kernels[which - 1], ex, &case, &bufs, None).map_err(verdict))?
                    };
                    wait(gpu, timeout).map_err(verdict)?;
                    span.ms()?
                }
            };
            if which == 1 {
                let found = judge(&guarded_words(&bufs, gpu.download(&bufs.out)?), ex.elem, &expected);
                if found != Verdict::Pass {
                    return Err(SkippedWork {
                        run: round,
                        runs: TIMING_REPEATS + 1,
                        found: found.describe(shape.elements()),
                    }
                    .into());
                }
            }
            // Round 0 warms up: the module loaded, the clocks up.
            if round > 0 {
                list.push(ms);
            }
        }
    }
    enter(Phase::Verify);
    timing_of(gpu, shape, (input_bytes, output_bytes), l2, &times)
}

/// The timing of `shape`, moving `(input, output)` bytes, from the timed
/// runs: the copy's times, yours, then the chapter's when timed; judged.
fn timing_of(
    gpu: &Gpu,
    shape: Shape,
    (input_bytes, output_bytes): (u64, u64),
    l2: u64,
    times: &[Vec<f32>],
) -> Result<Timing> {
    let bytes = input_bytes + output_bytes;
    let sample = |t: &[f32]| Sample::of(t).ok_or_else(|| anyhow!("the events gave no usable time"));
    let (copy, mine) = (sample(&times[0])?, sample(&times[1])?);
    let chapter = times.get(2).map(|t| sample(t)).transpose()?;
    let peak = match (gpu.memory_clock_khz(), gpu.memory_bus_bits()) {
        (Ok(clock), Ok(bus)) if clock > 0 && bus > 0 => Some(peak_gbps(clock as u64, bus as u64)),
        _ => None,
    };
    let mut timing = Timing {
        rows: shape.rows,
        cols: shape.cols,
        repeats: TIMING_REPEATS,
        bytes,
        l2_bytes: l2,
        copy_ms: copy.median_ms,
        yours_ms: mine.median_ms,
        chapter_ms: chapter.map(|c| c.median_ms),
        copy,
        yours: mine,
        chapter,
        gbps: gbps(bytes, mine.median_ms),
        share_of_copy: (copy.median_ms / mine.median_ms) as f64,
        peak_gbps: peak,
        impossible: None,
        note: device_note(gpu),
    };
    timing.judge(input_bytes, output_bytes);
    Ok(timing)
}
