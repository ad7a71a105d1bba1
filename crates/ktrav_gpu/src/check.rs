//! `check FILE.cu`: a student's own kernel, compiled at run time with NVRTC,
//! launched on the battery of its exercise (`ktrav::lab`) and judged there.
//!
//! A chapter binary offers `check FILE.cu [--large] [--json]` by embedding
//! [`LabCommand`] as a clap subcommand. For every shape the output buffer is
//! poisoned and surrounded by poisoned guard words; a launch error, a crash
//! and a kernel that never finishes (a watchdog polls an event) are verdicts
//! too. Only when every shape passes is the kernel timed beside a device copy
//! and the chapter's own kernel (never asserted).

use crate::nvrtc;
use crate::runner::{self as gpu, DeviceBuffer, Gpu, Kernel, PushKernelArg};
use crate::section::median_ms;
use anyhow::{anyhow, Result};
use ktrav::lab::{
    battery, case_launches, input, judge, read_source, Case, render, Arg, Exercise, Record, ShapeResult, Timing, Verdict,
    COULD_NOT_CHECK, GUARD_WORDS, TIMING_REPEATS,
};
use ktrav::{Chapter, Shape};
use std::path::PathBuf;
use std::time::Duration;

/// `check FILE.cu [--large] [--json]`, for a chapter's command line.
#[derive(clap::Args, Clone, Debug)]
pub struct CheckArgs {
    /// The .cu file holding your kernel.
    pub file: PathBuf,
    /// Add a shape past 2^31 elements (needs tens of gigabytes of device memory).
    #[arg(long)]
    pub large: bool,
    /// Print one JSON record instead of the report.
    #[arg(long)]
    pub json: bool,
    /// Which exercise of the chapter, when it has several.
    #[arg(long)]
    pub exercise: Option<String>,
    /// Seconds a shape may run before the watchdog calls it stuck.
    #[arg(long, default_value_t = 60, value_parser = ktrav::cli::size_in(3600))]
    pub timeout: u64,
}

/// The subcommand every chapter binary from K.2 on offers.
#[derive(clap::Subcommand, Clone, Debug)]
pub enum LabCommand {
    /// Check your own kernel (a .cu file) against this chapter's exercise on the GPU
    Check(CheckArgs),
}

impl LabCommand {
    /// Runs the subcommand for `chapter` and exits with its code.
    pub fn run(&self, chapter: &Chapter) -> ! {
        match self {
            LabCommand::Check(args) => run_check(chapter, args),
        }
    }
}

/// Checks the file named in `args` against `chapter`'s exercise, prints
/// the report (or the JSON record) and exits with the check's code.
pub fn run_check(chapter: &Chapter, args: &CheckArgs) -> ! {
    let all = chapter.exercises;
    let ex = match &args.exercise {
        Some(id) => all.iter().find(|e| e.id == id).unwrap_or_else(|| {
            let ids: Vec<&str> = all.iter().map(|e| e.id).collect();
            ktrav::cli::fail(&format!("{} has no exercise '{id}' (it has: {})", chapter.id, ids.join(", ")))
        }),
        None => all.first().unwrap_or_else(|| ktrav::cli::fail(&format!("{} has no lab exercise", chapter.id))),
    };
    let source = ktrav::cli::or_exit(read_source(&args.file));
    let record = check(chapter, ex, args, &source);
    if args.json {
        ktrav::cli::print(&format!("{}\n", serde_json::to_string(&record).expect("a record serialises")));
    } else {
        ktrav::cli::print(&render(&record));
    }
    if record.exit_code == COULD_NOT_CHECK {
        eprintln!("error: could not check: {}", record.reason.as_deref().unwrap_or("unknown reason"));
    }
    std::process::exit(record.exit_code)
}

/// Compiles `source` and judges it on the battery of `ex`, one of
/// `chapter`'s exercises. Never panics and never exits, except after a
/// kernel that did not finish: then the device is stuck, so the record is
/// printed and the process exits at once.
pub fn check(chapter: &Chapter, ex: &Exercise, args: &CheckArgs, source: &str) -> Record {
    check_on(chapter, ex, args, source, battery(ex, args.large))
}

/// [`check`] on the given cases (the public battery, the hidden one, or both).
pub fn check_on(chapter: &Chapter, ex: &Exercise, args: &CheckArgs, source: &str, cases: Vec<Case>) -> Record {
    let mut record = Record::new(chapter.section, ex, args.file.display().to_string());
    let nvrtc = match nvrtc::locate() {
        Ok(n) => n,
        Err(why) => {
            record.reason = Some(why.0);
            return record;
        }
    };
    record.compiler = Some(nvrtc.describe());
    let name = args.file.file_name().map_or("kernel.cu".into(), |n| n.to_string_lossy().into_owned());
    let gpu = gpu::open();
    // Without a GPU the file is still compiled, for the oldest architecture
    // the embedded kernels serve, so a compile error is reported anyway.
    let compiled = match &gpu {
        Ok(g) => g.compile(source, &name),
        Err(_) => nvrtc.compile(source, &name, nvrtc::DEFAULT_ARCH),
    };
    let compiled = match compiled {
        Ok(c) => c,
        Err(nvrtc::CompileFailure::Rejected { log }) => {
            record.compile_log = Some(log);
            return record.fail("the file does not compile (the compiler's log is above)");
        }
        Err(nvrtc::CompileFailure::Failed(why)) => {
            record.reason = Some(why);
            return record;
        }
    };
    record.compile_log = Some(compiled.log.clone());
    record.compiler = Some(format!("{} for {}; {}", nvrtc.describe(), compiled.code(), nvrtc.includes.describe()));
    if let Err(why) = crate::hints::check_entry(&compiled.ptx, ex) {
        return record.fail(&why);
    }
    let gpu = match gpu {
        Ok(g) => g,
        Err(why) => {
            record.reason = Some(format!("no GPU ({why}); the file compiles"));
            return record;
        }
    };
    record.device = Some(format!("{}; {}", gpu.info.describe(), gpu.kernel_path().describe()));
    let function = match gpu.load_compiled(&compiled).and_then(|m| Ok(m.load_function(ex.kernel)?)) {
        Ok(f) => f,
        Err(e) => return record.fail(&format!("the compiled kernel did not load ({e:#})")),
    };
    let entry = crate::hints::find_entry(&compiled.ptx, ex.kernel).ok();
    record.resources = crate::hints::function_limits(&gpu, &function, entry.as_ref()).ok().map(|l| l.describe());
    let timeout = Duration::from_secs(args.timeout);
    let mut usable = true;
    for case in cases {
        let verdict = if usable { run_case(&gpu, &function, ex, &case, timeout) } else { Verdict::NotRun };
        usable &= verdict.device_usable();
        let stuck = matches!(verdict, Verdict::DidNotFinish { .. });
        record.shapes.push(ShapeResult { label: case.label, rows: case.shape.rows, cols: case.shape.cols, battery: case.battery, verdict });
        if stuck {
            // The kernel still runs: nothing on this context can be freed
            // or waited for. Report what is known and leave.
            record.finish();
            if args.json {
                ktrav::cli::print(&format!("{}\n", serde_json::to_string(&record).expect("a record serialises")));
            } else {
                ktrav::cli::print(&render(&record));
            }
            std::process::exit(record.exit_code);
        }
    }
    record.finish();
    if record.exit_code == 0 {
        record.timing = time(&gpu, &function, chapter, ex).ok();
    }
    record
}

/// Whether PTX defines the entry point `kernel` (unmangled: `extern "C"`).
pub fn has_entry(ptx: &str, kernel: &str) -> bool {
    ptx.lines().any(|l| l.trim_start().starts_with(".visible .entry") && l.contains(&format!(".entry {kernel}(")))
}

/// Device buffers for one run of the kernel on `shape`.
struct Buffers {
    /// The output with [`GUARD_WORDS`] poisoned words on each side.
    out: DeviceBuffer<u32>,
    inputs: Vec<DeviceBuffer<f32>>,
}

fn buffers(gpu: &Gpu, ex: &Exercise, shape: Shape) -> Result<Buffers> {
    let n = shape.elements() as usize;
    let out = gpu.poisoned::<u32>(2 * GUARD_WORDS + n * ex.elem.words())?;
    let inputs = (0..ex.inputs()).map(|k| gpu.upload(&input(k, n))).collect::<Result<Vec<_>>>()?;
    Ok(Buffers { out, inputs })
}

/// Queues every launch of `shape`, waiting (under the watchdog) every so
/// often so that a stuck kernel cannot block a full launch queue.
fn enqueue_all(
    gpu: &Gpu,
    f: &Kernel,
    ex: &Exercise,
    case: &Case,
    bufs: &Buffers,
    timeout: Duration,
) -> std::result::Result<(), Verdict> {
    let shape = case.shape;
    let out_at = gpu.address(&bufs.out) + 4 * GUARD_WORDS as u64;
    let ins: Vec<u64> = bufs.inputs.iter().map(|b| gpu.address(b)).collect();
    let plan = case_launches(ex, case).map_err(|e| Verdict::LaunchFailed { error: format!("{e:#}") })?;
    let (rows, cols) = (shape.rows as i64, shape.cols as i64);
    let (rows32, cols32) = (shape.rows as i32, shape.cols as i32);
    for (n, (cfg, step)) in plan.iter().enumerate() {
        let mut args = gpu.args(f);
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
        gpu.enqueue(args, cfg, 0).map_err(|e| Verdict::LaunchFailed { error: format!("{e:#}") })?;
        if (n + 1) % 256 == 0 || n + 1 == plan.len() {
            wait(gpu, timeout)?;
        }
    }
    Ok(())
}

fn wait(gpu: &Gpu, timeout: Duration) -> std::result::Result<(), Verdict> {
    match gpu.finish_within(timeout) {
        Ok(true) => Ok(()),
        Ok(false) => Err(Verdict::DidNotFinish { seconds: timeout.as_secs() }),
        Err(e) => Err(Verdict::Crashed { error: format!("{e:#}") }),
    }
}

/// Runs the kernel on one shape and judges what it left in memory.
fn run_case(gpu: &Gpu, f: &Kernel, ex: &Exercise, case: &Case, timeout: Duration) -> Verdict {
    let shape = case.shape;
    let n = shape.elements();
    let needed = (2 * GUARD_WORDS as u64 + n * ex.elem.words() as u64 + n * ex.inputs() as u64) * 4;
    match gpu.free_memory() {
        Ok(free) if (free as u64) < needed + (needed >> 4) => {
            return Verdict::Skipped {
                reason: format!("needs {} MB of device memory, {} MB free", needed >> 20, free >> 20),
            }
        }
        Err(e) => return Verdict::Crashed { error: format!("{e:#}") },
        Ok(_) => {}
    }
    let bufs = match buffers(gpu, ex, shape) {
        Ok(b) => b,
        Err(e) => return Verdict::Crashed { error: format!("{e:#}") },
    };
    if let Err(v) = enqueue_all(gpu, f, ex, case, &bufs, timeout) {
        if let Verdict::LaunchFailed { error } = v {
            // A refused launch leaves the device usable unless an earlier
            // one faulted; find out which.
            if let Err(crash) = wait(gpu, timeout) {
                return crash;
            }
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
    judge(&words, ex.elem, &(ex.expected)(shape))
}

/// Times the student's kernel, the chapter's and a device copy on the
/// exercise's timing shape, in the same run.
fn time(gpu: &Gpu, yours: &Kernel, chapter: &Chapter, ex: &Exercise) -> Result<Timing> {
    ktrav::cli::warn_if_debug("timings");
    let shape = ex.timing_shape;
    let bufs = buffers(gpu, ex, shape)?;
    let no_limit = Duration::from_secs(600);
    let run = |f: &Kernel| -> Result<f32> {
        let case = Case::public(String::new(), shape);
        gpu.timed(|| enqueue_all(gpu, f, ex, &case, &bufs, no_limit).map_err(|v| anyhow!("{}", v.describe(0))))
    };
    let words = shape.elements() as usize * ex.elem.words();
    let src = gpu.poisoned::<u32>(words)?;
    let mut dst = gpu.poisoned::<u32>(words)?;
    let copy_ms = median_ms(TIMING_REPEATS, || gpu.copy_ms(&src, &mut dst))?;
    let yours_ms = median_ms(TIMING_REPEATS, || run(yours))?;
    let chapter_ms = match gpu.function(chapter.id, ex.kernel) {
        Ok(f) => Some(median_ms(TIMING_REPEATS, || run(&f))?),
        Err(_) => None,
    };
    Ok(Timing { rows: shape.rows, cols: shape.cols, repeats: TIMING_REPEATS, copy_ms, yours_ms, chapter_ms })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::lab::simtrack::{Twin, Twins};
    use ktrav::lab::{input_value, Elem, Launch};
    use ktrav::Dim2;

    fn args(file: &str) -> CheckArgs {
        CheckArgs { file: PathBuf::from(file), large: false, json: false, exercise: None, timeout: 60 }
    }

    const NOTHING: Twin = Twin { name: "nothing", steps: 1, barriers_after: &[], shared_words: 0, body: |_, _, _, _| {} };

    /// The test's own exercise, a 2D copy, and a chapter to hold it.
    const COPY: Exercise = Exercise {
        id: "test-copy",
        title: "a copy",
        kernel: "test_copy",
        starter: "copy.cu",
        args: &[Arg::Out, Arg::Input(0), Arg::Rows64, Arg::Cols64],
        elem: Elem::F32,
        launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: false, grid_stride_y: false },
        source_shapes: || vec![Shape::new(5, 7)],
        timing_shape: Shape::new(256, 256),
        expected: |_| Box::new(|i| input_value(0, i).to_bits() as u64),
        twins: Twins { starter: NOTHING, solution: NOTHING, wrong: &[] },
    };

    const CHAPTER: Chapter = Chapter {
        id: "k9_test",
        section: "K.9",
        title: "a test chapter",
        report: Vec::new,
        shown_outputs: Vec::new,
        figures: Vec::new,
        kernel_source: None,
        gpu_section: None,
        exercises: &[COPY],
        versions: &[],
    };

    const SOLUTION: &str = "extern \"C\" __global__ void test_copy(float* out, const float* in, size_t rows, size_t cols) {
        const size_t r = (size_t)blockIdx.y * blockDim.y + threadIdx.y, c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (r < rows && c < cols) out[r * cols + c] = in[r * cols + c];
    }";

    #[test]
    fn entries_are_found_only_when_defined() {
        let ptx = ".visible .entry copy_x_to_col(\n.visible .entry copy_x_to_colour(\n.func helper(";
        assert!(has_entry(ptx, "copy_x_to_col") && has_entry(ptx, "copy_x_to_colour"));
        assert!(!has_entry(ptx, "copy_x") && !has_entry(ptx, "helper"));
    }

    /// The check itself, end to end: on this machine without a GPU it compiles
    /// and stops with "could not check"; with a GPU the solution passes.
    #[test]
    fn a_check_compiles_first_and_says_why_it_could_not_check() {
        let Some(_) = nvrtc::for_tests() else { return };
        let r = check(&CHAPTER, &COPY, &args("solution.cu"), SOLUTION);
        assert_eq!((r.exercise.as_str(), r.section.as_str(), r.kernel.as_str()), ("test-copy", "K.9", "test_copy"));
        match gpu::open() {
            Ok(_) => assert_eq!((r.outcome.as_str(), r.exit_code), ("pass", 0), "{}", render(&r)),
            Err(_) => {
                assert_eq!((r.outcome.as_str(), r.exit_code), ("could not check", COULD_NOT_CHECK));
                assert!(r.reason.as_deref().unwrap().contains("the file compiles"), "{:?}", r.reason);
                assert!(r.shapes.is_empty() && r.compiler.as_deref().unwrap().contains("for sm_80 machine code"));
            }
        }
        let broken = check(&CHAPTER, &COPY, &args("broken.cu"), "extern \"C\" __global__ void test_copy() { nope; }");
        assert_eq!((broken.outcome.as_str(), broken.exit_code), ("fail", 1));
        assert!(broken.compile_log.as_deref().unwrap().contains("broken.cu"));
        assert!(render(&broken).contains("the file does not compile"));
        let other = check(&CHAPTER, &COPY, &args("other.cu"), "extern \"C\" __global__ void copy(float* o) { }");
        assert_eq!(other.exit_code, 1);
        assert!(other.reason.as_deref().unwrap().contains("no kernel `extern \"C\" __global__ void test_copy"));
        let mangled = check(&CHAPTER, &COPY, &args("mangled.cu"), &SOLUTION.replace("extern \"C\" ", ""));
        assert!(mangled.reason.as_deref().unwrap().starts_with("`extern \"C\"` is missing"), "{:?}", mangled.reason);
        let wide = check(&CHAPTER, &COPY, &args("wide.cu"), &SOLUTION.replace("size_t rows", "int rows"));
        let why = wide.reason.as_deref().unwrap();
        assert!(why.starts_with("parameter 3 (rows) is 32-bit in your kernel; the exercise passes a 64-bit integer"), "{why}");
        let json: serde_json::Value = serde_json::from_str(&serde_json::to_string(&other).unwrap()).unwrap();
        assert_eq!((json["outcome"].as_str(), json["exit_code"].as_i64()), (Some("fail"), Some(1)));
    }
}
