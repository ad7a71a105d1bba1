//! What happens on the GPU for one shape: the buffers, the launches, the
//! judging of the output, and the inputs checked unchanged.

use crate::graph::Capture;
use crate::runner::{Args, DeviceBuffer, Gpu, Kernel, PushKernelArg};
use anyhow::Result;
use ktrav::lab::{case_launches, input, input_value, judge, Arg, Case, Exercise, Verdict, GUARD_WORDS};
use ktrav::{LaunchConfig, Shape, POISON_WORD};
use std::time::Duration;

/// How the output buffer is allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Fit {
    /// With [`GUARD_WORDS`] poisoned words on each side, which the judge
    /// reads back: a stray write lands there and is counted.
    Guarded,
    /// Every buffer exactly its size, for compute-sanitizer: memcheck sees
    /// an access one element past any input or the output only when no
    /// guard words of ours lie there (its padding does, see
    /// [`super::sanitize::arguments`]).
    Exact,
}

impl Fit {
    /// Poisoned words before the output.
    fn guard(self) -> usize {
        match self {
            Fit::Guarded => GUARD_WORDS,
            Fit::Exact => 0,
        }
    }
}

/// Device buffers for one run of the kernel on `shape`.
pub(crate) struct Buffers {
    /// The output, with guard words on each side when [`Fit::Guarded`].
    pub out: DeviceBuffer<u32>,
    pub inputs: Vec<DeviceBuffer<f32>>,
    pub fit: Fit,
}

pub(crate) fn buffers(gpu: &Gpu, ex: &Exercise, shape: Shape, fit: Fit) -> Result<Buffers> {
    let n = shape.elements() as usize;
    let out = gpu.poisoned::<u32>(2 * fit.guard() + n * ex.elem.words())?;
    // A guarded input runs on past its end with more of the same values, so
    // a stray read lands in this buffer (and a stray write there is seen as
    // `input changed`); an exact one ends where the matrix does.
    let inputs = (0..ex.inputs()).map(|k| gpu.upload(&input(k, n + fit.guard()))).collect::<Result<Vec<_>>>()?;
    Ok(Buffers { out, inputs, fit })
}

/// The output as the judge reads it: with its guard words, which an exact
/// buffer has none of (so they read as still poisoned).
pub(crate) fn guarded_words(bufs: &Buffers, mut words: Vec<u32>) -> Vec<u32> {
    if bufs.fit == Fit::Exact {
        let mut all = vec![POISON_WORD; GUARD_WORDS];
        all.append(&mut words);
        all.extend(std::iter::repeat_n(POISON_WORD, GUARD_WORDS));
        return all;
    }
    words
}

/// Queues every launch of `shape`. With `wait_every`, waits (under the
/// watchdog `timeout`) after that many launches and after the last, so that
/// a stuck kernel cannot block a full launch queue; without, queues them all
/// and leaves the waiting to the caller (a timed run waits outside its
/// events).
pub(crate) fn enqueue_all(
    gpu: &Gpu,
    f: &Kernel,
    ex: &Exercise,
    case: &Case,
    bufs: &Buffers,
    wait_every: Option<(usize, Duration)>,
) -> std::result::Result<(), Verdict> {
    enqueue_on(gpu, gpu, f, ex, case, bufs, wait_every)
}

/// Where a check's launches go: the runner's stream, or a CUDA graph being
/// captured (launched only when it is replayed).
pub(crate) trait Queue {
    fn args<'a>(&'a self, f: &'a Kernel) -> Args<'a>;
    fn enqueue(&self, args: Args<'_>, cfg: &LaunchConfig) -> Result<()>;
}

impl Queue for Gpu {
    fn args<'a>(&'a self, f: &'a Kernel) -> Args<'a> {
        Gpu::args(self, f)
    }
    fn enqueue(&self, args: Args<'_>, cfg: &LaunchConfig) -> Result<()> {
        Gpu::enqueue(self, args, cfg, 0)
    }
}

impl Queue for Capture {
    fn args<'a>(&'a self, f: &'a Kernel) -> Args<'a> {
        Capture::args(self, f)
    }
    fn enqueue(&self, args: Args<'_>, cfg: &LaunchConfig) -> Result<()> {
        Capture::enqueue(self, args, cfg, 0)
    }
}

/// [`enqueue_all`] onto `queue`; buffers are passed by their device address,
/// so the same launches can be captured into a graph. `wait_every` only
/// makes sense on the runner's stream.
pub(crate) fn enqueue_on(
    queue: &impl Queue,
    gpu: &Gpu,
    f: &Kernel,
    ex: &Exercise,
    case: &Case,
    bufs: &Buffers,
    wait_every: Option<(usize, Duration)>,
) -> std::result::Result<(), Verdict> {
    let shape = case.shape;
    let out_at = gpu.address(&bufs.out) + 4 * bufs.fit.guard() as u64;
    let ins: Vec<u64> = bufs.inputs.iter().map(|b| gpu.address(b)).collect();
    let plan = case_launches(ex, case).map_err(|e| Verdict::LaunchFailed { error: format!("{e:#}") })?;
    let (rows, cols) = (shape.rows as i64, shape.cols as i64);
    let (rows32, cols32) = (shape.rows as i32, shape.cols as i32);
    for (n, (cfg, step)) in plan.iter().enumerate() {
        let mut args = queue.args(f);
        for a in ex.args {
            match a {
                Arg::Out => args.arg(&out_at),
                Arg::Input(k) => args.arg(&ins[*k as usize]),
                Arg::Rows64 => args.arg(&rows),
                Arg::Cols64 => args.arg(&cols),
                Arg::Rows32 => args.arg(&rows32),
                Arg::Cols32 => args.arg(&cols32),
                Arg::Step => args.arg(step),
            };
        }
        queue.enqueue(args, cfg).map_err(|e| Verdict::LaunchFailed { error: format!("{e:#}") })?;
        if let Some((every, timeout)) = wait_every {
            if (n + 1) % every == 0 || n + 1 == plan.len() {
                wait(gpu, timeout)?;
            }
        }
    }
    Ok(())
}

/// Waits for the queued work under the watchdog `timeout`.
pub(crate) fn wait(gpu: &Gpu, timeout: Duration) -> std::result::Result<(), Verdict> {
    match gpu.finish_within(timeout) {
        Ok(true) => Ok(()),
        Ok(false) => Err(Verdict::DidNotFinish { seconds: timeout.as_secs() }),
        Err(e) => Err(Verdict::Crashed { error: format!("{e:#}") }),
    }
}

/// Launches between waits on the watchdog.
const WAIT_EVERY: usize = 256;

/// Runs the kernel on one shape and judges what it left in memory, then
/// whether it left its inputs as they were uploaded.
pub(crate) fn run_case(gpu: &Gpu, f: &Kernel, ex: &Exercise, case: &Case, timeout: Duration, fit: Fit) -> Verdict {
    let shape = case.shape;
    let needed = ktrav::lab::device_bytes(ex, shape);
    match gpu.free_memory() {
        Ok(free) if (free as u64) < needed + (needed >> 4) => {
            return Verdict::Skipped {
                reason: format!("needs {} MB of device memory, {} MB free", needed >> 20, free >> 20),
            }
        }
        Err(e) => return Verdict::Crashed { error: format!("{e:#}") },
        Ok(_) => {}
    }
    let bufs = match buffers(gpu, ex, shape, fit) {
        Ok(b) => b,
        // Another process took the memory between the count above and the
        // allocation: the machine's doing, not the kernel's, which has not run.
        Err(e) if crate::runner::out_of_memory(&e) => return memory_taken(needed),
        Err(e) => return Verdict::Crashed { error: format!("{e:#}") },
    };
    // Everything before this was the machine's work; from here to the wait
    // after the last launch is the kernel's, on the watchdog's clock.
    super::worker::enter(super::worker::Phase::Kernel);
    let launched = enqueue_all(gpu, f, ex, case, &bufs, Some((WAIT_EVERY, timeout)));
    super::worker::enter(super::worker::Phase::Verify);
    if let Err(v) = launched {
        if let Verdict::LaunchFailed { error } = v {
            // A refused launch leaves the device usable unless an earlier
            // one faulted; find out which.
            if let Err(crash) = wait(gpu, timeout) {
                return crash;
            }
            // Which of the function's limits the launch passed, if any.
            let block = case_launches(ex, case).ok().and_then(|p| p.first().map(|(cfg, _)| cfg.block.count() as u32));
            let why = crate::hints::function_limits(gpu, f, None)
                .ok()
                .zip(block)
                .and_then(|(limits, threads)| crate::hints::explain_launch_failure(&limits, threads, 0));
            return Verdict::LaunchFailed { error: why.map_or(error.clone(), |w| format!("{error}: {w}")) };
        }
        return v;
    }
    let words = match gpu.download(&bufs.out) {
        Ok(w) => w,
        Err(e) => return Verdict::Crashed { error: format!("{e:#}") },
    };
    let verdict = judge(&guarded_words(&bufs, words), ex.elem, &(ex.expected)(shape));
    if verdict != Verdict::Pass {
        return verdict;
    }
    for (k, buf) in bufs.inputs.iter().enumerate() {
        let now = match gpu.download(buf) {
            Ok(v) => v,
            Err(e) => return Verdict::Crashed { error: format!("{e:#}") },
        };
        if let Some(v) = input_changes(k as u8, &now) {
            return v;
        }
    }
    Verdict::Pass
}

/// The verdict on a shape whose buffers, `needed` bytes, could not be
/// allocated although the device had reported them free.
pub(crate) fn memory_taken(needed: u64) -> Verdict {
    Verdict::Skipped {
        reason: format!(
            "needs {} MB of device memory, which other processes on this GPU took before it could be allocated",
            needed >> 20
        ),
    }
}

/// The verdict on input `k` as read back after the launches: `None` when
/// every element is still [`input_value`]`(k, i)`.
pub(crate) fn input_changes(k: u8, now: &[f32]) -> Option<Verdict> {
    let mut changed = 0u64;
    let mut first = None;
    for (i, x) in now.iter().enumerate() {
        if x.to_bits() != input_value(k, i as u64).to_bits() {
            changed += 1;
            first.get_or_insert(i as u64);
        }
    }
    (changed > 0).then_some(Verdict::InputChanged { input: k, changed, first_changed: first })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Memory another process took is no verdict on the kernel: a skip,
    /// never a crash or a pass.
    #[test]
    fn memory_taken_by_others_is_a_skip() {
        let v = memory_taken(16 << 30);
        assert!(matches!(&v, Verdict::Skipped { reason } if reason.starts_with("needs 16384 MB")), "{v:?}");
    }

    #[test]
    fn an_input_is_unchanged_only_when_every_bit_is() {
        let mut v = input(1, 100);
        assert_eq!(input_changes(1, &v), None);
        assert!(input_changes(0, &v).is_some(), "input 0's values are not input 1's");
        v[7] = -v[7];
        v[50] = f32::from_bits(v[50].to_bits() ^ 1);
        assert_eq!(input_changes(1, &v), Some(Verdict::InputChanged { input: 1, changed: 2, first_changed: Some(7) }));
        assert_eq!(
            Verdict::InputChanged { input: 1, changed: 2, first_changed: Some(7) }.kinds(),
            vec![ktrav::lab::FailureKind::InputChanged]
        );
    }
}
