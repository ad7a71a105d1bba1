//! "How fast can it go", run once for every chapter: each of the chapter's
//! numbered versions (its [`ktrav::Chapter`]'s `versions`) is validated on
//! every ladder shape, its output poisoned first and compared element by
//! element, and only then timed beside a yardstick in one run, the
//! chapter's own kernels as the first rows. A chapter says only how one
//! version is passed its arguments ([`PushArgs`]), what it must produce,
//! and which shapes and rows it wants.

use crate::runner::{Args, DeviceBuffer, Gpu};
use crate::section::{median_ms, GpuSection, Role};
use anyhow::{Context, Result};
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use ktrav::compare::{compare_with, test_input};
use ktrav::ladder::{Plan, Version};
use ktrav::{Chapter, Shape};

/// The device buffers one launch of a version works on, and the shape as
/// the kernels take it.
pub struct Io<T> {
    /// The output, poisoned before every validated launch.
    pub out: DeviceBuffer<T>,
    /// Input `k` holds `test_input(n, k * n)`: every element of every input
    /// different.
    pub inputs: Vec<DeviceBuffer<f32>>,
    /// The version's work buffer ([`Plan::work_words`] words, zeroed when
    /// allocated; one word for a version that needs none).
    pub work: DeviceBuffer<u64>,
    pub shape: Shape,
    /// `rows` and `cols` as `size_t`.
    pub rows: u64,
    pub cols: u64,
    /// `rows` and `cols` as `long long`.
    pub rows_ll: i64,
    pub cols_ll: i64,
}

/// How a chapter's versions take their arguments: pushes them, in the
/// order the kernels declare them, from the launch's buffers.
pub type PushArgs<T> = for<'a, 'b> fn(&'b mut Args<'a>, &'a mut Io<T>);

/// The expected output of a shape, element by element.
pub type Expected<T> = Box<dyn Fn(usize) -> T + Sync>;

/// One timed launch (or series of launches) on a ladder's buffers: its time
/// in milliseconds.
pub type Timed<'f, T> = Box<dyn FnMut(&Gpu, &mut Io<T>) -> Result<f32> + 'f>;

/// A row of a timing table that is not a version: the chapter's own
/// kernels, timed in the same run.
pub struct Row<'f, T> {
    pub label: String,
    pub time: Timed<'f, T>,
}

impl<'f, T> Row<'f, T> {
    pub fn new(label: impl Into<String>, time: impl FnMut(&Gpu, &mut Io<T>) -> Result<f32> + 'f) -> Self {
        Row { label: label.into(), time: Box::new(time) }
    }
}

/// What a timing table's rows are set beside.
pub enum Yardstick<'f, T> {
    /// A device-to-device copy of the output's bytes: rows show as a share
    /// of its bandwidth.
    Copy,
    /// Another way of doing the same work, timed like a row: rows show as
    /// speed-ups over it.
    Named(Row<'f, T>),
}

/// A chapter's ladder, ready to run on a GPU. Every plan is checked against
/// its version's block rule before it is launched.
pub struct Ladder<'c, T> {
    /// The chapter: its versions, and its kernel file `kernels/<id>.cu`.
    pub chapter: &'c Chapter,
    pub push: PushArgs<T>,
    /// Input buffers the versions read.
    pub inputs: u8,
    /// The expected output of a shape.
    pub expected: &'c dyn Fn(Shape) -> Expected<T>,
    /// What the versions are checked against, for the section's line.
    pub against: &'c str,
    /// The shapes every version is validated on.
    pub shapes: Vec<Shape>,
    /// Each version runs once per entry on one work buffer, the label
    /// ending in it (`""`, `", again"`): a version whose work buffer must be
    /// left ready for the next launch shows it here.
    pub runs: &'c [&'c str],
    /// Timed launches per row; the median is printed.
    pub repeats: usize,
    /// When set, every timed table is compared with the expected output
    /// too, and one verdict says how many differ from this reference.
    pub check_timed: Option<&'c str>,
}

impl<T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync> Ladder<'_, T> {
    /// Bytes one launch moves on `shape`: each input read once and the
    /// output written once.
    pub fn bytes(&self, shape: Shape) -> u64 {
        shape.elements() * (std::mem::size_of::<T>() as u64 + 4 * self.inputs as u64)
    }

    fn io(&self, gpu: &Gpu, shape: Shape) -> Result<Io<T>> {
        let n = shape.elements();
        let inputs = (0..self.inputs as u64).map(|k| gpu.upload(&test_input(n, k * n))).collect::<Result<Vec<_>>>()?;
        Ok(Io {
            out: gpu.poisoned::<T>(n as usize)?,
            inputs,
            work: gpu.zeros::<u64>(1)?,
            shape,
            rows: shape.rows,
            cols: shape.cols,
            rows_ll: shape.rows as i64,
            cols_ll: shape.cols as i64,
        })
    }

    /// A zeroed work buffer for `plan`.
    fn work(gpu: &Gpu, plan: &Plan) -> Result<DeviceBuffer<u64>> {
        gpu.zeros::<u64>(plan.work_words.max(1) as usize)
    }

    /// Launches `v` as `plan` says on `io` and waits; returns its time. A
    /// plan whose block breaks the version's [`ktrav::ladder::BlockRule`] is
    /// refused before the launch. After a launch that fails, the work
    /// buffer is zeroed again: a kernel stopped part-way leaves its flags
    /// and counters set, and the next launch on that buffer would find its
    /// work already claimed and silently write nothing.
    pub fn launch(&self, gpu: &Gpu, v: &Version, plan: &Plan, io: &mut Io<T>) -> Result<f32> {
        let shape = io.shape;
        anyhow::ensure!(
            v.block.allows(plan.cfg.block),
            "{} on {shape}: {}",
            v.kernel,
            ktrav::ladder::PlanError::Block { kernel: v.kernel, block: plan.cfg.block, rule: v.block }
        );
        let f = gpu.function(self.chapter.id, v.kernel)?;
        let mut args = gpu.args(&f);
        (self.push)(&mut args, io);
        let launched =
            gpu.launch(args, &plan.cfg, plan.shared_bytes).with_context(|| format!("{} on {shape}", v.kernel));
        if launched.is_err() && plan.work_words > 0 {
            // Best effort: after a fault the context may refuse this too, and
            // the launch's own error is the one worth reporting.
            let _ = gpu.zero(&mut io.work);
        }
        launched
    }

    /// Device memory a run at `shape` takes at its peak: the output, the
    /// inputs and the largest work buffer of any version, plus the two
    /// buffers of the copy the table is set beside. `None` when a count
    /// overflows or a version has no plan there.
    pub fn device_bytes(&self, shape: Shape, sms: u32) -> Option<u64> {
        let n = shape.checked_elements()?;
        let out = n.checked_mul(std::mem::size_of::<T>() as u64)?;
        let inputs = n.checked_mul(4 * self.inputs as u64)?;
        let work = self
            .chapter
            .versions
            .iter()
            .map(|v| (v.plan)(shape, sms).ok().map(|p| p.work_words.max(1) * 8))
            .try_fold(8u64, |m, w| w.map(|w| m.max(w)))?;
        out.checked_mul(3)?.checked_add(inputs)?.checked_add(work)
    }

    /// The run at a reader's shape (`--gpu`): every version and every row
    /// (the chapter's own kernels) launched once on `shape` and compared
    /// with the expected output, then all of them timed beside the
    /// yardstick in one table, every timed output checked too.
    pub fn at_shape(
        &self,
        gpu: &Gpu,
        sec: &mut GpuSection,
        shape: Shape,
        yardstick: Yardstick<'_, T>,
        mut rows: Vec<Row<'_, T>>,
    ) -> Result<()> {
        let sms = gpu.multiprocessors()?;
        let expected = (self.expected)(shape);
        {
            let mut io = self.io(gpu, shape)?;
            sec.line(format!("the chapter's kernels at {shape}, {}:", self.against));
            for row in &mut rows {
                gpu.poison(&mut io.out)?;
                let ms = (row.time)(gpu, &mut io)?;
                sec.check(
                    &format!("  {shape} {}", row.label),
                    &compare_with(&gpu.download(&io.out)?, &expected),
                    Some(ms),
                );
            }
            for v in self.chapter.versions {
                let plan = v.checked_plan(shape, sms)?;
                io.work = Self::work(gpu, &plan)?;
                for run in self.runs {
                    gpu.poison(&mut io.out)?;
                    let ms = self.launch(gpu, v, &plan, &mut io)?;
                    let agreement = compare_with(&gpu.download(&io.out)?, &expected);
                    sec.check(&format!("  {shape} {}, grid {}{run}", v.kernel, plan.cfg.grid), &agreement, Some(ms));
                }
            }
        }
        drop(expected);
        let checked = Ladder {
            chapter: self.chapter,
            push: self.push,
            inputs: self.inputs,
            expected: self.expected,
            against: self.against,
            shapes: vec![shape],
            runs: self.runs,
            repeats: self.repeats,
            check_timed: Some(self.check_timed.unwrap_or("the reference")),
        };
        checked.time(gpu, sec, shape, &format!("{shape}, every kernel and version"), yardstick, rows)
    }

    /// Every version on every shape of [`Ladder::shapes`], the output
    /// poisoned before each launch and compared with the expected output.
    pub fn validate(&self, gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
        let sms = gpu.multiprocessors()?;
        sec.line(format!("how fast can it go: {}:", self.against));
        for &shape in &self.shapes {
            let needed = self.bytes(shape) + (1 << 30);
            if (gpu.free_memory()? as u64) < needed {
                sec.skipped(&format!("  {shape}"), "not enough free device memory");
                continue;
            }
            let mut io = self.io(gpu, shape)?;
            let expected = (self.expected)(shape);
            for v in self.chapter.versions {
                let plan = v.checked_plan(shape, sms)?;
                io.work = Self::work(gpu, &plan)?;
                for (i, run) in self.runs.iter().enumerate() {
                    gpu.poison(&mut io.out)?;
                    let ms = self.launch(gpu, v, &plan, &mut io)?;
                    let agreement = compare_with(&gpu.download(&io.out)?, &expected);
                    if sec.small() {
                        let pass = if self.runs.len() > 1 { format!(" run={}", i + 1) } else { String::new() };
                        sec.run_with(v.kernel, Role::Version, shape, &plan.cfg, &agreement, &pass);
                    } else {
                        sec.check(
                            &format!("  {shape} {}, grid {}{run}", v.kernel, plan.cfg.grid),
                            &agreement,
                            Some(ms),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// One table on `shape`, titled `title`: the yardstick, then `rows`, then
    /// every version, each the median of [`Ladder::repeats`] launches, all
    /// timed in one run. Times are printed and recorded, never asserted.
    pub fn time(
        &self,
        gpu: &Gpu,
        sec: &mut GpuSection,
        shape: Shape,
        title: &str,
        yardstick: Yardstick<'_, T>,
        rows: Vec<Row<'_, T>>,
    ) -> Result<()> {
        let sms = gpu.multiprocessors()?;
        let bytes = self.bytes(shape);
        let mut io = self.io(gpu, shape)?;
        let expected = self.check_timed.map(|_| (self.expected)(shape));
        let mut timed = 0;
        let mut differ = 0;
        let mut check = |gpu: &Gpu, io: &Io<T>| -> Result<()> {
            if let Some(expected) = &expected {
                timed += 1;
                differ += usize::from(!compare_with(&gpu.download(&io.out)?, expected).ok());
            }
            Ok(())
        };
        let table = match yardstick {
            Yardstick::Copy => {
                sec.bandwidth(gpu, title, (shape.elements() as usize) * std::mem::size_of::<T>(), self.repeats)?
            }
            Yardstick::Named(mut row) => {
                gpu.poison(&mut io.out)?;
                let ms = median_ms(self.repeats, || (row.time)(gpu, &mut io))?;
                check(gpu, &io)?;
                sec.timings(title, &row.label, ms, shape.elements() * std::mem::size_of::<T>() as u64, self.repeats)
            }
        };
        for mut row in rows {
            gpu.poison(&mut io.out)?;
            table.row(sec, &row.label, bytes, || (row.time)(gpu, &mut io))?;
            check(gpu, &io)?;
        }
        for v in self.chapter.versions {
            let plan = v.checked_plan(shape, sms)?;
            io.work = Self::work(gpu, &plan)?;
            gpu.poison(&mut io.out)?;
            table.row(sec, v.kernel, bytes, || self.launch(gpu, v, &plan, &mut io))?;
            check(gpu, &io)?;
        }
        if let Some(reference) = self.check_timed {
            let detail = format!("{differ} of {timed} timed tables differ from {reference}");
            sec.verdict("the tables of the timed runs", &detail, differ == 0, None);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::PushKernelArg;
    use crate::section::section_named;
    use ktrav::ladder::{plain, BlockRule};
    use ktrav::{Dim2, LaunchConfig, SectionOutcome};

    /// `fill_coords(int* out, long long rows, long long cols)` of the
    /// runner's own kernel file, as a one-version ladder.
    fn fill_args<'a>(args: &mut Args<'a>, io: &'a mut Io<i32>) {
        args.arg(&mut io.out).arg(&io.rows_ll).arg(&io.cols_ll);
    }

    const VERSIONS: [Version; 1] = [Version {
        kernel: "fill_coords",
        block: BlockRule::Exactly(Dim2::new(16, 16)),
        static_shared: 0,
        plan: |shape, _| LaunchConfig::covering(shape, Dim2::new(16, 16)).map(plain),
    }];

    const SELFTEST: Chapter = Chapter {
        id: "ktrav_selftest",
        section: "K.0",
        title: "the runner's own kernel",
        report: Vec::new,
        shown_outputs: Vec::new,
        figures: Vec::new,
        kernel_source: None,
        values: Vec::new,
        gpu: None,
        exercises: &[],
        sim_exercises: &[],
        versions: &VERSIONS,
    };

    fn ladder(expected: &dyn Fn(Shape) -> Expected<i32>) -> Ladder<'_, i32> {
        Ladder {
            chapter: &SELFTEST,
            push: fill_args,
            inputs: 0,
            expected,
            against: "the fill, against row * 1000 + col",
            shapes: vec![Shape::new(1, 1), Shape::new(37, 61)],
            runs: &["", ", again"],
            repeats: 3,
            check_timed: Some("the formula"),
        }
    }

    #[test]
    fn a_ladder_moves_the_bytes_of_its_inputs_and_output() {
        let fill = |_: Shape| -> Expected<i32> { Box::new(|_| 0) };
        let mut l = ladder(&fill);
        assert_eq!(l.bytes(Shape::new(2, 3)), 6 * 4);
        l.inputs = 2;
        assert_eq!(l.bytes(Shape::new(2, 3)), 6 * 12);
    }

    /// On a GPU: a launch that fails leaves its work buffer zeroed again,
    /// whatever it held, and a plan that breaks the version's block rule is
    /// refused before anything is launched. Without one, says it was skipped.
    #[test]
    fn a_failed_launch_leaves_its_work_buffer_zeroed() {
        let Ok(gpu) = crate::open() else {
            eprintln!("skipped: no GPU");
            return;
        };
        let fill = |_: Shape| -> Expected<i32> { Box::new(|_| 0) };
        let l = ladder(&fill);
        let shape = Shape::new(37, 61);
        let v = &VERSIONS[0];
        let mut plan = v.checked_plan(shape, 1).unwrap();
        plan.work_words = 4;
        // More dynamic shared memory than any block may have: the launch is
        // refused by the driver, and the context stays usable.
        plan.shared_bytes = 1 << 30;
        let mut io = l.io(&gpu, shape).unwrap();
        io.work = gpu.upload(&[7u64, 7, 7, 7]).unwrap();
        assert!(l.launch(&gpu, v, &plan, &mut io).is_err());
        assert_eq!(gpu.download(&io.work).unwrap(), [0; 4]);
        let mut wrong = plan;
        wrong.shared_bytes = 0;
        wrong.cfg.block = Dim2::new(32, 8);
        let e = l.launch(&gpu, v, &wrong, &mut io).unwrap_err().to_string();
        assert!(e.contains("32x8 blocks") && e.contains("exactly"), "{e}");
    }

    /// On a GPU: every version validated on every shape and run, then timed
    /// in one table with its timed output checked; a wrong expectation is
    /// caught in both. Without one, says it was skipped.
    #[test]
    fn a_ladder_validates_then_times_every_version() {
        if let Err(reason) = crate::open() {
            eprintln!("skipped: no GPU ({reason})");
            return;
        }
        let fill = |shape: Shape| -> Expected<i32> {
            Box::new(move |i| ((i as u64 / shape.cols) * 1000 + i as u64 % shape.cols) as i32)
        };
        let run = |expected: &dyn Fn(Shape) -> Expected<i32>| {
            section_named("K.0", |gpu, sec| {
                let l = ladder(expected);
                l.validate(gpu, sec)?;
                l.time(gpu, sec, Shape::new(64, 64), "64x64 ints", Yardstick::Copy, vec![])
            })
        };
        match run(&fill) {
            SectionOutcome::Ran { failures: 0, record, text } => {
                assert_eq!(record.checks.len(), 2 * 2 + 1, "{text}");
                assert_eq!(record.tables[0].rows[0].label, "fill_coords");
            }
            other => panic!("{}", other.text()),
        }
        let wrong = |_: Shape| -> Expected<i32> { Box::new(|_| 7) };
        match run(&wrong) {
            SectionOutcome::Ran { failures, .. } => assert_eq!(failures, 2 * 2 + 1),
            other => panic!("{}", other.text()),
        }
    }
}
