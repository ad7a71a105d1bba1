//! The simulator track: the lab exercises as Rust twins, run by
//! [`crate::sim::launch_stepped`] on any laptop and judged like a GPU check.
//!
//! A twin is a kernel written as numbered steps (statements), with the
//! `__syncthreads()` the student placed between them. [`check_twin`] runs
//! it on a small battery (the source's shapes, the chapter's own, ragged
//! edges, 1x1, 1xN, Nx1 and a shape whose grid is past a simulated
//! gridDim.y limit of [`SIM_MAX_GRID_Y`]) under every schedule: block
//! orders forward, reversed and shuffled, times thread orders forward,
//! reversed and lock-step. Output sits between poisoned guard words, exactly as on the
//! GPU, so the verdicts are the GPU checker's: wrong, unwritten, written
//! out of bounds. A race or a missing barrier shows as a schedule that fails.
//!
//! [`check_twin_hidden`] runs a twin on the hidden battery's shapes
//! ([`super::hidden_battery`]) that are small enough to simulate, so a bug
//! only those shapes reach (a row index that wraps at 65536 rows) shows
//! here too.
//!
//! What it cannot show: a 32-bit index overflowing past 2^31 elements
//! (that takes `check --large` on a GPU).

pub use super::twin::{Body, Ctx, Mem, Twin, Twins};
use super::{case_launches, input_value, judge, Battery, Case, Exercise, FailureKind, Launch, Purpose, Verdict};
use crate::geometry::{ceil_div, LaunchConfig, Shape};
use crate::sim::{launch_stepped, BlockOrder, ThreadOrder};
use ktrav_term::report::{self, Report};

/// The simulated gridDim.y limit: small, so a grid-stride loop over y is
/// needed on a shape of a few hundred rows, not 2 million.
pub const SIM_MAX_GRID_Y: u32 = 3;

/// What a shared-memory word holds before a thread writes it: neither the
/// output's poison nor any input value, so a read before the write is
/// *wrong*, not *unwritten*.
pub const SHARED_GARBAGE: f32 = -12345.5;

/// One schedule: an order of blocks and an order of threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub blocks: BlockOrder,
    pub threads: ThreadOrder,
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let blocks = match &self.blocks {
            BlockOrder::Forward => "blocks forward".to_string(),
            BlockOrder::Reverse => "blocks reversed".to_string(),
            BlockOrder::Shuffled(seed) => format!("blocks shuffled (seed {seed})"),
            BlockOrder::Explicit(_) => "blocks in an explicit order".to_string(),
        };
        let threads = match self.threads {
            ThreadOrder::Forward => "threads forward",
            ThreadOrder::Reverse => "threads reversed",
            ThreadOrder::LockStep => "threads in lock-step",
        };
        write!(f, "{blocks}, {threads}")
    }
}

/// Every schedule a twin is run under: 5 block orders times 3 thread orders.
pub fn schedules() -> Vec<Schedule> {
    let blocks = [
        BlockOrder::Forward,
        BlockOrder::Reverse,
        BlockOrder::Shuffled(1),
        BlockOrder::Shuffled(2),
        BlockOrder::Shuffled(3),
    ];
    blocks
        .iter()
        .flat_map(|b| ThreadOrder::ALL.iter().map(move |&threads| Schedule { blocks: b.clone(), threads }))
        .collect()
}

/// The simulator battery: the source's shapes, the chapter's own, ragged
/// edges, 1x1, 1xN, Nx1, and (for a grid-stride exercise) a grid past
/// [`SIM_MAX_GRID_Y`].
pub fn battery(ex: &Exercise) -> Vec<Case> {
    let case = |purpose, label: String, shape| Case::new(Battery::Public, purpose, label, shape);
    let mut cases: Vec<Case> =
        (ex.source_shapes)().into_iter().map(|s| case(Purpose::Source, format!("the source's {s}"), s)).collect();
    for (what, s) in (ex.chapter_shapes)() {
        cases.push(case(Purpose::Chapter, format!("{what} {s}"), s));
    }
    for (purpose, label, r, c) in [
        (Purpose::Ragged, "ragged edges 97x131", 97, 131),
        (Purpose::Ragged, "ragged edges 70x33", 70, 33),
        (Purpose::Edge, "1x1", 1, 1),
        (Purpose::Edge, "1xN 1x100", 1, 100),
        (Purpose::Edge, "Nx1 100x1", 100, 1),
    ] {
        cases.push(case(purpose, label.to_string(), Shape::new(r, c)));
    }
    if let Launch::Covering { grid_stride_y: true, block, .. } = ex.launch {
        let rows = (SIM_MAX_GRID_Y as u64 + 2) * block.y as u64 + 3;
        let label = format!("{rows}x5, its grid past a gridDim.y limit of {SIM_MAX_GRID_Y}");
        cases.push(case(Purpose::PastGridY, label, Shape::new(rows, 5)));
    }
    cases
}

/// The launches of a case: (config, diagonal, rounds of the y loop). The
/// checker's own launches ([`case_launches`]), with a grid-stride
/// exercise's `gridDim.y` capped at [`SIM_MAX_GRID_Y`] (or the case's own
/// cap, if lower) so that its loop over rows of blocks runs here.
fn plan(ex: &Exercise, case: &Case) -> Vec<(LaunchConfig, i64, u64)> {
    let strided = matches!(ex.launch, Launch::Covering { grid_stride_y: true, .. });
    let uncapped = super::launches(ex, case.shape).expect("battery shapes launch");
    case_launches(ex, case)
        .expect("battery shapes launch")
        .into_iter()
        .zip(uncapped)
        .map(|((mut cfg, step), (full, _))| {
            let block_rows = full.grid.y as u64;
            if strided {
                cfg.grid.y = cfg.grid.y.min(SIM_MAX_GRID_Y);
            }
            (cfg, step, ceil_div(block_rows, cfg.grid.y as u64))
        })
        .collect()
}

/// Runs `twin` on one shape under one schedule and judges the output.
pub fn run(ex: &Exercise, twin: &Twin, shape: Shape, schedule: &Schedule) -> Verdict {
    run_case(ex, twin, &Case::public(String::new(), shape), schedule)
}

/// Runs `twin` on one case (its shape, and its gridDim.y cap if any)
/// under one schedule and judges the output.
pub fn run_case(ex: &Exercise, twin: &Twin, case: &Case, schedule: &Schedule) -> Verdict {
    let shape = case.shape;
    let n = shape.elements() as usize;
    let inputs = (0..ex.inputs()).map(|k| (0..n as u64).map(|i| input_value(k, i)).collect()).collect();
    let mut mem = Mem::new(n, ex.elem.words(), inputs);
    for (cfg, diagonal, rounds) in plan(ex, case) {
        let steps = twin.steps * rounds as usize;
        launch_stepped(
            &cfg,
            &schedule.blocks,
            schedule.threads,
            steps,
            |s| twin.barriers_after.contains(&(s % twin.steps)),
            || vec![SHARED_GARBAGE; twin.shared_words],
            |t, s, shared: &mut Vec<f32>| {
                let ctx = Ctx { t, rows: shape.rows, cols: shape.cols, diagonal, round: (s / twin.steps) as u64 };
                (twin.body)(&ctx, s % twin.steps, shared, &mut mem)
            },
        );
    }
    let mut verdict = judge(mem.words(), ex.elem, &(ex.expected)(shape));
    if mem.far_before + mem.far_after > 0 {
        verdict = match verdict {
            Verdict::Fail { wrong, unwritten, first_bad, out_of_bounds_before, out_of_bounds_after } => Verdict::Fail {
                wrong,
                unwritten,
                first_bad,
                out_of_bounds_before: out_of_bounds_before + mem.far_before,
                out_of_bounds_after: out_of_bounds_after + mem.far_after,
            },
            _ => Verdict::Fail {
                wrong: 0,
                unwritten: 0,
                first_bad: None,
                out_of_bounds_before: mem.far_before,
                out_of_bounds_after: mem.far_after,
            },
        };
    }
    verdict
}

/// The most elements a hidden shape may have to be simulated.
pub const SIM_HIDDEN_MAX_ELEMENTS: u64 = 1 << 18;

/// Hidden shapes up to this many elements run under every schedule; larger
/// ones under two (forward, and shuffled blocks with reversed threads).
pub const SIM_HIDDEN_EVERY_SCHEDULE: u64 = 1 << 12;

/// The shapes of the hidden battery for `seed` (without `--large`) that
/// the simulator track runs: those of at most [`SIM_HIDDEN_MAX_ELEMENTS`]
/// elements (and, one launch per diagonal, at most 2048 diagonals).
pub fn hidden_battery(ex: &Exercise, seed: u64) -> Vec<Case> {
    super::hidden_battery(ex, seed, false)
        .into_iter()
        .filter(|c| c.shape.elements() <= SIM_HIDDEN_MAX_ELEMENTS)
        .filter(|c| !matches!(ex.launch, Launch::PerDiagonal { .. }) || c.shape.rows + c.shape.cols <= 2048)
        .collect()
}

/// What became of one shape: the first schedule that failed, if any.
#[derive(Clone, Debug)]
pub struct SimLine {
    pub label: String,
    pub shape: Shape,
    /// Why the shape is in its battery.
    pub purpose: Purpose,
    /// (schedule, verdict) of the first failing schedule.
    pub failure: Option<(Schedule, Verdict)>,
    /// How many schedules failed, of how many.
    pub failed: usize,
    pub schedules: usize,
}

/// The whole simulated check of one twin.
#[derive(Clone, Debug)]
pub struct SimCheck {
    pub exercise: &'static str,
    pub twin: &'static str,
    pub lines: Vec<SimLine>,
}

impl SimCheck {
    pub fn passed(&self) -> bool {
        self.lines.iter().all(|l| l.failure.is_none())
    }

    /// Every kind of failure any shape showed, once each, in the order of
    /// [`FailureKind`]'s declaration.
    pub fn kinds(&self) -> Vec<FailureKind> {
        let mut k: Vec<FailureKind> =
            self.lines.iter().filter_map(|l| l.failure.as_ref()).flat_map(|(_, v)| v.kinds()).collect();
        k.sort();
        k.dedup();
        k
    }

    /// The report, one line per shape, like `check` on a GPU.
    pub fn render(&self) -> String {
        let mut out = Report::new();
        out.heading(&format!("simulated check of '{}' against exercise '{}'", self.twin, self.exercise));
        let n = self.lines.first().map_or(0, |l| l.schedules);
        if self.lines.iter().all(|l| l.schedules == n) {
            out.line(format!("every shape under {n} schedules: 5 block orders x 3 thread orders"));
        } else {
            out.line(format!(
                "shapes of up to {SIM_HIDDEN_EVERY_SCHEDULE} elements under {} schedules, larger ones under 2",
                schedules().len()
            ));
        }
        for l in &self.lines {
            match &l.failure {
                None => out.line(format!(
                    "  {}: {} elements, all match: {}",
                    l.label,
                    l.shape.elements(),
                    report::flag(true, "pass")
                )),
                Some((schedule, verdict)) => out.line(format!(
                    "  {}: {}: {} (fails under {} of {} schedules, first: {schedule})",
                    l.label,
                    verdict.describe(l.shape.elements()),
                    report::flag(false, "FAIL"),
                    l.failed,
                    l.schedules
                )),
            };
        }
        let passed = self.lines.iter().filter(|l| l.failure.is_none()).count();
        out.line(format!(
            "result: {passed} of {} shapes pass: {}",
            self.lines.len(),
            report::flag(self.passed(), if self.passed() { "pass" } else { "FAIL" })
        ));
        out.into_string()
    }
}

/// Runs `twin` on the simulator battery under every schedule.
pub fn check_twin(ex: &Exercise, twin: &Twin) -> SimCheck {
    check_twin_on(ex, twin, battery(ex), u64::MAX)
}

/// Runs `twin` on the simulable shapes of the hidden battery for `seed`
/// ([`hidden_battery`]).
pub fn check_twin_hidden(ex: &Exercise, twin: &Twin, seed: u64) -> SimCheck {
    check_twin_on(ex, twin, hidden_battery(ex, seed), SIM_HIDDEN_EVERY_SCHEDULE)
}

/// Runs `twin` on `cases`: under every schedule where a case has at most
/// `every_schedule` elements, under two otherwise.
fn check_twin_on(ex: &Exercise, twin: &Twin, cases: Vec<Case>, every_schedule: u64) -> SimCheck {
    let all = schedules();
    let few = [
        Schedule { blocks: BlockOrder::Forward, threads: ThreadOrder::Forward },
        Schedule { blocks: BlockOrder::Shuffled(1), threads: ThreadOrder::Reverse },
    ];
    let lines = cases
        .into_iter()
        .map(|case| {
            let these: &[Schedule] = if case.shape.elements() <= every_schedule { &all } else { &few };
            let results: Vec<(Schedule, Verdict)> = these
                .iter()
                .map(|s| (s.clone(), run_case_caught(ex, twin, &case, s)))
                .filter(|(_, v)| !v.passed())
                .collect();
            SimLine {
                label: case.label,
                shape: case.shape,
                purpose: case.purpose,
                failed: results.len(),
                failure: results.into_iter().next(),
                schedules: these.len(),
            }
        })
        .collect();
    SimCheck { exercise: ex.id, twin: twin.name, lines }
}

/// [`run_case`], with a panic in the twin (an index past a slice, an
/// arithmetic overflow) caught and judged as a crash of that run, so one
/// shape's panic is reported on its line and the other shapes still run.
fn run_case_caught(ex: &Exercise, twin: &Twin, case: &Case, schedule: &Schedule) -> Verdict {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(ex, twin, case, schedule))) {
        Ok(v) => v,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic without a message".to_string());
            let at = LAST_PANIC.with(|l| l.borrow_mut().take()).map(|at| format!(" at {at}")).unwrap_or_default();
            Verdict::Crashed { error: format!("the twin panicked{at}: {}", message.lines().next().unwrap_or("")) }
        }
    }
}

thread_local! {
    /// Where the last panic on this thread happened, as [`quiet_panics`]'s
    /// hook saw it.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the panic hook with one that prints nothing (no message, no
/// backtrace) and keeps the panic's file and line for the report: a twin
/// that panics is judged on its shape's line, as a crash.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| format!("{}:{}:{}", lexical(l.file()), l.line(), l.column()));
        LAST_PANIC.with(|l| *l.borrow_mut() = at);
    }));
}

/// `path` with each `dir/..` taken out, so that a student's file compiled
/// in through `#[path = "../../../exercises/..."]` is named as the student
/// knows it: `exercises/k3_grid_mapping/copy.rs`.
fn lexical(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            _ => parts.push(p),
        }
    }
    parts.join("/")
}

/// The seed the simulator track's own tests draw the hidden battery with.
pub const TEST_SEED: u64 = 2026;

/// For tests: asserts the exercise's solution twin passes under every
/// schedule, on the public battery and the hidden one's simulable shapes,
/// and each wrong twin fails with its expected kind of verdict on at least
/// one shape and schedule (of the public battery, or where it passes that,
/// of the hidden one). The student's own twin is never judged here: only
/// `sim-check` runs it.
pub fn assert_track(ex: &Exercise) {
    let Twins { solution, wrong } = ex.twins;
    let ok = check_twin(ex, &solution);
    assert!(ok.passed(), "{}: the solution fails:\n{}", ex.id, report::plain(&ok.render()));
    let hidden = check_twin_hidden(ex, &solution, TEST_SEED);
    assert!(hidden.passed(), "{}: the solution fails the hidden battery:\n{}", ex.id, report::plain(&hidden.render()));
    for (twin, expect) in wrong {
        // A bug only the hidden battery's shapes reach passes the public
        // ones: it must fail there instead.
        let mut c = check_twin(ex, twin);
        if c.passed() {
            c = check_twin_hidden(ex, twin, TEST_SEED);
        }
        assert!(
            !c.passed(),
            "{}: the simulator track accepts the wrong twin '{}':\n{}",
            ex.id,
            twin.name,
            report::plain(&c.render())
        );
        assert!(
            c.kinds().contains(expect),
            "{}: '{}' fails, but not as '{expect}': {:?}\n{}",
            ex.id,
            twin.name,
            c.kinds(),
            report::plain(&c.render())
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dim2;

    fn copy_ok(ctx: &Ctx, _: usize, _: &mut [f32], mem: &mut Mem) {
        let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
        if row < ctx.rows && col < ctx.cols {
            let i = (row * ctx.cols + col) as i64;
            mem.write_f32(i, mem.input(0, i));
        }
    }

    fn far_writes(ctx: &Ctx, s: usize, sh: &mut [f32], mem: &mut Mem) {
        copy_ok(ctx, s, sh, mem);
        if ctx.t.global_x() == 0 && ctx.t.global_y() == 0 {
            mem.write_f32(-(1 << 40), 1.0); // far before the guard
            mem.write_f32(1 << 40, 1.0); // far after it
        }
    }

    const OK: Twin = Twin { name: "copy", steps: 1, barriers_after: &[], shared_words: 0, body: copy_ok };

    /// A copy with x over the columns, the test's own exercise.
    fn copy(launch: Launch) -> Exercise {
        super::super::tests::copy_exercise(launch, Twins { solution: OK, wrong: &[] })
    }

    fn covering(block: Dim2, grid_stride_y: bool) -> Launch {
        Launch::Covering { block, x_walks_rows: false, grid_stride_y }
    }

    #[test]
    fn verdicts_tell_unwritten_and_far_out_of_bounds_apart() {
        let ex = &copy(covering(Dim2::new(32, 8), false));
        assert!(check_twin(ex, &OK).passed());
        assert_track(ex);
        let nothing = Twin { name: "nothing", body: |_, _, _, _| {}, ..OK };
        assert_eq!(check_twin(ex, &nothing).kinds(), [FailureKind::Unwritten]);
        let far = check_twin(ex, &Twin { name: "far", body: far_writes, ..OK });
        assert_eq!(far.kinds(), [FailureKind::OutOfBounds]);
        let line = &far.lines[0];
        assert_eq!(line.failed, line.schedules, "a far write fails under every schedule");
        match &line.failure {
            Some((
                _,
                Verdict::Fail { out_of_bounds_before: 1, out_of_bounds_after: 1, wrong: 0, unwritten: 0, .. },
            )) => {}
            other => panic!("{other:?}"),
        }
    }

    /// A twin that panics (here: an index past its shared memory) is a
    /// crash on every shape's line, with where it panicked, not a panic of
    /// the check.
    #[test]
    fn a_panicking_twin_is_judged_a_crash_on_each_shape() {
        fn past_shared(ctx: &Ctx, s: usize, sh: &mut [f32], mem: &mut Mem) {
            sh[ctx.t.thread_idx.x as usize] = 1.0;
            copy_ok(ctx, s, sh, mem);
        }
        let ex = &copy(covering(Dim2::new(32, 8), false));
        let c = check_twin(ex, &Twin { name: "past shared", body: past_shared, ..OK });
        assert!(!c.passed());
        assert_eq!(c.kinds(), [FailureKind::Crashed]);
        assert!(c.lines.iter().all(|l| l.failed == l.schedules), "{}", c.render());
        let first = report::plain(&c.render());
        assert!(first.contains("the twin panicked") && first.contains("index out of bounds"), "{first}");
    }

    #[test]
    fn a_students_file_is_named_without_the_climb_out_of_the_crate() {
        assert_eq!(lexical("chapters/k3/src/../../../exercises/k3/copy.rs"), "exercises/k3/copy.rs");
        assert_eq!(lexical("../x/y.rs"), "../x/y.rs");
        assert_eq!(lexical("a/b.rs"), "a/b.rs");
    }

    #[test]
    fn fifteen_schedules_and_a_grid_past_the_simulated_limit() {
        assert_eq!(schedules().len(), 15);
        let strided = battery(&copy(covering(Dim2::new(32, 32), true)));
        let tall: Vec<&Case> = strided.iter().filter(|c| c.purpose == Purpose::PastGridY).collect();
        assert_eq!(tall.len(), 1, "{strided:?}");
        assert!(tall[0].shape.rows.div_ceil(32) > SIM_MAX_GRID_Y as u64, "{tall:?}");
        assert!(tall[0].label.contains("gridDim.y limit"), "{tall:?}");
        let plain = battery(&copy(covering(Dim2::new(32, 8), false)));
        assert!(!plain.iter().any(|c| c.purpose == Purpose::PastGridY), "{plain:?}");
        // The exercise's own shapes come first.
        assert_eq!((plain[0].label.as_str(), plain[0].shape), ("the source's 5x7", Shape::new(5, 7)));
        assert_eq!(plain[0].purpose, Purpose::Source);
    }
}
