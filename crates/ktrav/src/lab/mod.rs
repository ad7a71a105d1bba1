//! The lab's model: an exercise (the kernel a student writes, its
//! arguments, how it is launched and what it must produce), the fixed
//! public battery of shapes it is judged on, and the verdicts. The checker
//! that compiles and launches a student's file on a GPU is `ktrav_gpu::check`;
//! the same exercises run as Rust twins under the simulator in [`simtrack`],
//! and a student's own twin is checked by `sim-check` ([`simcheck`]).
//!
//! For every shape of the battery the output buffer is poisoned and
//! surrounded by poisoned guard words, so each line tells apart elements that
//! are *wrong*, *unwritten*, and writes *out of bounds*; a launch error, a
//! crash and a kernel that never finishes are verdicts too.
//!
//! Exit codes: 0 every shape passes, 1 one fails (or the file does not
//! compile), 2 bad input (one line on stderr, before any work), and
//! [`COULD_NOT_CHECK`] when there is no GPU or no NVRTC to check with.

pub mod expect;
pub mod includes;
pub mod outcome;
pub mod printed;
pub mod simcheck;
pub mod simtrack;
pub mod timing;
pub mod twin;

pub use outcome::{CheckOutcome, FailureKind, SanitizerTool};
pub use printed::Printed;
pub use timing::Timing;

pub use crate::compare::GUARD_WORDS;
use crate::compare::{compare_with, test_value, POISON_WORD};
use crate::geometry::{ceil_div, Dim2, LaunchConfig, Shape, MAX_GRID_Y};
use anyhow::{anyhow, Result};
use ktrav_term::report::{self, Report};
use serde::{Deserialize, Serialize};

/// The exit code of a check that could not be made (no GPU, no NVRTC).
pub const COULD_NOT_CHECK: i32 = 3;

/// Why a check failed when the file does not compile: the record's
/// `reason`, by which grading tells a compile error from other failures.
pub const DOES_NOT_COMPILE: &str = "the file does not compile (the compiler's log is above)";

/// Timed runs of each kernel; the median is printed.
pub const TIMING_REPEATS: usize = 11;

/// The expected bits of output element `i` (an `f32`'s bits, or a `u64`).
pub type Expected = Box<dyn Fn(u64) -> u64 + Sync>;

/// One kernel argument, in the order the kernel declares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// The output buffer (`float*` or `unsigned long long*`).
    Out,
    /// Input buffer `k` (`const float*`), element `i` being
    /// [`input_value`]`(k, i)`.
    Input(u8),
    /// `rows` / `cols` as a 64-bit integer (`size_t` or `long long`).
    Rows64,
    Cols64,
    /// `rows` / `cols` as an `int`.
    Rows32,
    Cols32,
    /// The diagonal a per-diagonal launch works on (`long long`).
    Step,
}

/// The type of the output's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F32,
    U64,
}

impl Elem {
    /// 32-bit words per element.
    pub fn words(self) -> usize {
        match self {
            Elem::F32 => 1,
            Elem::U64 => 2,
        }
    }
}

/// How the kernel is launched on a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launch {
    /// One launch of `block`-shaped blocks covering the matrix, x along
    /// columns (or along rows when `x_walks_rows`). With `grid_stride_y`
    /// gridDim.y is capped at 65535 and the kernel must loop.
    Covering { block: Dim2, x_walks_rows: bool, grid_stride_y: bool },
    /// One launch per anti-diagonal `d = 0 .. rows + cols - 2`, a 1D grid
    /// of `block`-thread blocks covering that diagonal.
    PerDiagonal { block: u32 },
}

impl Launch {
    /// The launch in the words a starter's header states it, such as
    /// `blockDim = (32, 8) and gridDim = (ceil(cols / 32), ceil(rows / 8))`.
    pub fn sentence(&self) -> String {
        match *self {
            Launch::Covering { block, x_walks_rows, grid_stride_y } => {
                let (x, y) = if x_walks_rows { ("rows", "cols") } else { ("cols", "rows") };
                let grid_y = format!("ceil({y} / {})", block.y);
                let grid_y = if grid_stride_y { format!("min({grid_y}, {MAX_GRID_Y})") } else { grid_y };
                format!("blockDim = ({}, {}) and gridDim = (ceil({x} / {}), {grid_y})", block.x, block.y, block.x)
            }
            Launch::PerDiagonal { block } => {
                format!("a 1D grid of ceil(cells on d / {block}) blocks of {block} threads")
            }
        }
    }
}

/// A lab exercise: a kernel for the student to write, how it is launched
/// and judged, and its twins on the simulator track. Each chapter defines
/// its own and lists them in its [`crate::Chapter`]; the solution is the
/// chapter's own kernel of the same name in `kernels/<chapter>.cu`, and the
/// starter and the catalogue of wrong kernels live in `exercises/<chapter>/`.
pub struct Exercise {
    /// Chosen with `--exercise` when a chapter has several; unique in the book.
    pub id: &'static str,
    pub title: &'static str,
    /// The `extern "C" __global__` function looked up in the student's file.
    pub kernel: &'static str,
    /// The file the student copies, in the chapter's `exercises/<chapter>/`.
    pub starter: &'static str,
    pub args: &'static [Arg],
    pub elem: Elem,
    pub launch: Launch,
    /// The chapter source's own shapes, from the chapter's own constants.
    pub source_shapes: fn() -> Vec<Shape>,
    /// Shapes of the chapter's own that are not the source's (a table's
    /// shape, say), checked right after the source's: each with the words
    /// its label puts before the shape (`"the warp table's"`).
    pub chapter_shapes: fn() -> Vec<(&'static str, Shape)>,
    /// The shape the timings use.
    pub timing_shape: Shape,
    /// The expected output of a shape, element by element, from the
    /// chapter's own closed forms.
    pub expected: fn(Shape) -> Expected,
    /// The exercise's twins on the simulator track.
    pub twins: twin::Twins,
}

impl Exercise {
    /// How many input buffers the kernel reads: its [`Arg::Input`]s.
    pub fn inputs(&self) -> u8 {
        self.args.iter().filter(|a| matches!(a, Arg::Input(_))).count() as u8
    }
}

/// The value of element `i` of input `k` (0, 1, ...): exact as an `f32`
/// and different for every index and input.
pub fn input_value(k: u8, i: u64) -> f32 {
    test_value(i.wrapping_add((k as u64) << 40))
}

/// Which battery a case belongs to (`"public"` or `"hidden"` in a record).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Battery {
    /// The fixed shapes the exercise pages describe.
    #[default]
    Public,
    /// Shapes drawn from an instructor's seed ([`hidden_battery`]).
    Hidden,
}

impl Battery {
    /// The name a record and a gradebook give it.
    pub fn name(self) -> &'static str {
        match self {
            Battery::Public => "public",
            Battery::Hidden => "hidden",
        }
    }
}

/// Why a shape is in a battery: what a kernel must get right on it. Code
/// that picks shapes out of a battery matches on this, never on the label,
/// which is only what the report prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// One of the chapter source's own shapes.
    Source,
    /// One of the chapter's own shapes that is not the source's
    /// ([`Exercise::chapter_shapes`]).
    Chapter,
    /// Ragged edges: a side that is no multiple of the block's, so the last
    /// blocks on that axis are part-filled.
    Ragged,
    /// A degenerate edge: one element, one row or one column.
    Edge,
    /// More rows or columns than gridDim.y's limit on the axis the launch
    /// maps to y (the simulator's smaller limit on its track): a
    /// grid-stride kernel must loop over rows of blocks, any other launch
    /// must keep that axis off gridDim.y.
    PastGridY,
    /// Past 2^31 elements, where a 32-bit index overflows.
    Large,
    /// Hidden: every residue of the block's sides (for a per-diagonal
    /// launch, diagonals of every length modulo the block).
    Residue,
    /// Hidden: one side past a power of two (2^16 and up), the other short.
    LongSide,
    /// Hidden: the largest grid in y the launch can make.
    LargestGridY,
    /// Hidden: launched with gridDim.y capped below the launch's own, so
    /// that every block loops over rows of blocks several times.
    CappedGridY,
    /// A shape given directly rather than drawn for a battery: a worker's
    /// task, a timing, a simulated run of one shape.
    Given,
}

/// One shape of a battery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub label: String,
    pub shape: Shape,
    pub battery: Battery,
    /// Why the shape is there.
    pub purpose: Purpose,
    /// A cap on gridDim.y below the launch's own, for a kernel that loops
    /// over rows of blocks: every block then loops several times (see
    /// [`case_launches`]).
    pub grid_y_cap: Option<u32>,
}

impl Case {
    /// A case of `battery` there for `purpose`, its launch uncapped.
    pub fn new(battery: Battery, purpose: Purpose, label: String, shape: Shape) -> Case {
        Case { label, shape, battery, purpose, grid_y_cap: None }
    }

    /// A public case of a shape given directly ([`Purpose::Given`]), its
    /// launch uncapped.
    pub fn public(label: String, shape: Shape) -> Case {
        Case::new(Battery::Public, Purpose::Given, label, shape)
    }
}

/// The public battery: the source's shapes, the chapter's own, ragged
/// edges, 1x1, 1xN, Nx1, a shape past gridDim.y's limit, and with `large`
/// one past 2^31 elements.
pub fn battery(ex: &Exercise, large: bool) -> Vec<Case> {
    use Purpose::*;
    let case = |purpose, label: String, rows, cols| Case::new(Battery::Public, purpose, label, Shape::new(rows, cols));
    let mut cases: Vec<Case> =
        (ex.source_shapes)().into_iter().map(|s| case(Source, format!("the source's {s}"), s.rows, s.cols)).collect();
    for (what, s) in (ex.chapter_shapes)() {
        cases.push(case(Chapter, format!("{what} {s}"), s.rows, s.cols));
    }
    cases.push(case(Ragged, "ragged edges 97x131".into(), 97, 131));
    cases.push(case(Ragged, "ragged edges 1000x33".into(), 1000, 33));
    // Big enough that a race (a missing barrier) has many chances to show.
    cases.push(case(Ragged, "ragged edges 4099x4097".into(), 4099, 4097));
    cases.push(case(Edge, "1x1".into(), 1, 1));
    cases.push(case(Edge, "1xN 1x1000".into(), 1, 1000));
    cases.push(case(Edge, "Nx1 1000x1".into(), 1000, 1));
    match ex.launch {
        Launch::Covering { block, grid_stride_y: true, .. } => {
            // One block row more than gridDim.y can hold: the kernel must loop.
            let rows = (MAX_GRID_Y + 1) * block.y as u64 + 1;
            cases.push(case(PastGridY, format!("{rows}x5, its grid past gridDim.y's limit of {MAX_GRID_Y}"), rows, 5));
        }
        Launch::Covering { x_walks_rows: true, .. } => {
            let cols = MAX_GRID_Y + 8;
            let label = format!("3x{cols}, more columns than gridDim.y's limit of {MAX_GRID_Y}");
            cases.push(case(PastGridY, label, 3, cols));
        }
        _ => {
            let rows = MAX_GRID_Y + 8;
            let label = format!("{rows}x3, more rows than gridDim.y's limit of {MAX_GRID_Y}");
            cases.push(case(PastGridY, label, rows, 3));
        }
    }
    if large {
        cases.push(case(Large, "46341x46341, past 2^31 elements".into(), 46341, 46341));
    }
    cases
}

/// The launches of one case: [`launches`] of its shape, with gridDim.y
/// lowered to the case's cap where it has one.
pub fn case_launches(ex: &Exercise, case: &Case) -> Result<Vec<(LaunchConfig, i64)>> {
    let mut plan = launches(ex, case.shape)?;
    if let Some(cap) = case.grid_y_cap {
        for (cfg, _) in &mut plan {
            cfg.grid.y = cfg.grid.y.min(cap.max(1));
        }
    }
    Ok(plan)
}

/// The device memory a check of `shape` needs: the guarded output and the
/// inputs, in bytes.
pub fn device_bytes(ex: &Exercise, shape: Shape) -> u64 {
    let n = shape.elements();
    (2 * GUARD_WORDS as u64 + n * ex.elem.words() as u64 + (n + GUARD_WORDS as u64) * ex.inputs() as u64) * 4
}

/// The variable an instructor sets to the hidden battery's seed, when no
/// `--seed` is given.
pub const SEED_ENV: &str = "KTRAV_LAB_SEED";

/// The hidden battery's seed: `flag` (from `--seed`, parsed by
/// [`ktrav_term::cli::seed`]) if given, else [`SEED_ENV`] if set, else `None`.
/// `Err` is one line naming the variable and its malformed value; a
/// command refuses it as bad input, exit code 2 ([`ktrav_term::cli::usage`]).
pub fn seed_from(flag: Option<u64>) -> Result<Option<u64>> {
    if flag.is_some() {
        return Ok(flag);
    }
    match std::env::var(SEED_ENV) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => ktrav_term::cli::seed(&v).map(Some).map_err(|e| anyhow!("{SEED_ENV}: {e:#}")),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(anyhow!("{SEED_ENV} is not UTF-8 text, so it is no seed")),
    }
}

/// The hidden battery's seed, read from `path`: one whole number, white
/// space around it allowed. The file must be a regular file that only its
/// owner may read or write (mode 600 or 400), so that a grader can hand
/// the seed to a check without writing it on a command line, where anyone
/// on the machine could read it (`ps`). `Err` is one line.
pub fn seed_from_file(path: &std::path::Path) -> Result<u64> {
    use std::os::unix::fs::PermissionsExt;
    let meta =
        std::fs::symlink_metadata(path).map_err(|e| anyhow!("cannot read the seed file {}: {e}", path.display()))?;
    if !meta.file_type().is_file() {
        return Err(anyhow!("the seed file {} is not a regular file", path.display()));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(anyhow!(
            "the seed file {} may be read by others (mode {mode:o}): make it mode 600",
            path.display()
        ));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow!("cannot read the seed file {}: {e}", path.display()))?;
    ktrav_term::cli::seed(text.trim()).map_err(|e| anyhow!("the seed file {}: {e:#}", path.display()))
}

/// The most elements a hidden shape has without `large`: small enough for
/// any lab GPU (1 GiB per buffer of floats).
pub const HIDDEN_MAX_ELEMENTS: u64 = 1 << 28;

/// gridDim.y caps the hidden battery launches a grid-stride kernel with.
pub const HIDDEN_GRID_Y_CAPS: [u32; 4] = [1, 2, 3, 5];

/// The hidden battery of `ex` for `seed`: shapes no student has seen,
/// drawn from the seed (the same seed, the same shapes), chosen so that
/// a kernel correct on the public battery by luck is not:
///
/// * every residue of the block shape on both axes (rows mod blockDim.y
///   and cols mod blockDim.x, in the launch's own axes);
/// * tall and wide extremes: rows past 2^16, 2^17 and 2^20 (where the
///   launch allows; without a y loop gridDim.y stops rows at 65535 rows of
///   blocks), columns past 65535 on whichever axis the launch maps to y,
///   and the largest grids the launch can make;
/// * for a kernel that loops over rows of blocks, shapes launched with
///   gridDim.y capped at each of [`HIDDEN_GRID_Y_CAPS`], so that every
///   block loops several times;
/// * with `large`, one shape past 2^31 elements and one past 2^32, each
///   labelled with the device memory it needs.
///
/// Each exercise draws its own shapes (its id is mixed into the seed).
pub fn hidden_battery(ex: &Exercise, seed: u64, large: bool) -> Vec<Case> {
    use rand::SeedableRng;
    let mix = ex.id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    let mut draw = HiddenDraw { rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ mix), cases: Vec::new() };
    match ex.launch {
        Launch::Covering { block, x_walks_rows, grid_stride_y } => {
            let axes = CoveringAxes { bx: block.x as u64, by: block.y as u64, x_walks_rows, grid_stride_y };
            draw.residues(&axes);
            draw.long_sides(&axes);
            draw.largest_grids(&axes);
            if large {
                draw.covering_large(ex, &axes);
            }
        }
        Launch::PerDiagonal { block } => draw.per_diagonal(ex, block as u64, large),
    }
    draw.cases
}

/// The hidden battery as it is drawn: the seeded generator, and the cases
/// so far, each labelled `hidden: ...`. The order of the draws is the
/// battery's: the same seed, the same shapes.
struct HiddenDraw {
    rng: rand_chacha::ChaCha8Rng,
    cases: Vec<Case>,
}

/// A covering launch's block, in its own axes: y over the rows and x over
/// the columns of the matrix it walks (turned back into the real matrix
/// when x walks rows).
struct CoveringAxes {
    bx: u64,
    by: u64,
    x_walks_rows: bool,
    grid_stride_y: bool,
}

impl CoveringAxes {
    /// The names of the launch's y and x axes in the real matrix.
    fn names(&self) -> (&'static str, &'static str) {
        if self.x_walks_rows {
            ("cols", "rows")
        } else {
            ("rows", "cols")
        }
    }

    /// The real shape of a walked matrix of `walked_rows x walked_cols`.
    fn real(&self, walked_rows: u64, walked_cols: u64) -> Shape {
        let s = Shape::new(walked_rows, walked_cols);
        if self.x_walks_rows {
            s.transposed()
        } else {
            s
        }
    }

    /// Rows of the walked matrix a launch can reach without a y loop.
    fn max_y(&self) -> u64 {
        if self.grid_stride_y {
            u64::MAX
        } else {
            MAX_GRID_Y * self.by
        }
    }
}

impl HiddenDraw {
    fn push(&mut self, purpose: Purpose, label: String, shape: Shape, cap: Option<u32>) {
        let label = format!("hidden: {label}");
        self.cases.push(Case { grid_y_cap: cap, ..Case::new(Battery::Hidden, purpose, label, shape) });
    }

    /// Every residue of the block on both axes.
    fn residues(&mut self, a: &CoveringAxes) {
        use rand::Rng;
        let (ya, xa) = a.names();
        let (bx, by) = (a.bx, a.by);
        for i in 0..bx.max(by) {
            let (ry, rx) = (i % by, i % bx);
            let y = by * self.rng.gen_range(1..=4) + ry;
            let x = bx * self.rng.gen_range(1..=4) + rx;
            let label = format!("{ya} mod {by} = {ry}, {xa} mod {bx} = {rx}: {}", a.real(y, x));
            self.push(Purpose::Residue, label, a.real(y, x), None);
        }
    }

    /// Tall and wide extremes, each axis past 2^16, 2^17, 2^20 and 2^22
    /// (y only where the launch reaches it).
    fn long_sides(&mut self, a: &CoveringAxes) {
        use rand::Rng;
        let (ya, xa) = a.names();
        let (bx, by) = (a.bx, a.by);
        for (what, base) in [("2^16", 1u64 << 16), ("2^17", 1 << 17), ("2^20", 1 << 20), ("2^22", 1 << 22)] {
            let y = base + self.rng.gen_range(1..by.max(2) * 4);
            if y <= a.max_y() {
                let x = self.rng.gen_range(1..=3);
                self.push(Purpose::LongSide, format!("{ya} past {what}: {}", a.real(y, x)), a.real(y, x), None);
            }
            let x = base + self.rng.gen_range(1..bx * 4);
            let y = self.rng.gen_range(1..=3);
            self.push(Purpose::LongSide, format!("{xa} past {what}: {}", a.real(y, x)), a.real(y, x), None);
        }
    }

    /// The largest grids: gridDim.y at its limit of 65535, and (with a y
    /// loop) twice as many rows of blocks as it can hold; then, with a y
    /// loop, shapes launched with gridDim.y capped at each of
    /// [`HIDDEN_GRID_Y_CAPS`].
    fn largest_grids(&mut self, a: &CoveringAxes) {
        use rand::Rng;
        let (bx, by) = (a.bx, a.by);
        let y = if a.grid_stride_y {
            2 * MAX_GRID_Y * by + self.rng.gen_range(1..by.max(2))
        } else {
            a.max_y() - self.rng.gen_range(0..by)
        };
        let x = bx + self.rng.gen_range(1..bx.max(2));
        let tall = a.real(y, x);
        if tall.elements() <= HIDDEN_MAX_ELEMENTS {
            self.push(Purpose::LargestGridY, format!("the largest grid in y: {tall}"), tall, None);
        }
        if !a.grid_stride_y {
            return;
        }
        for cap in HIDDEN_GRID_Y_CAPS {
            // At least three rounds for every block.
            let tiles = cap as u64 * self.rng.gen_range(3..=8) + self.rng.gen_range(0..cap as u64);
            // Ragged in y, so the last row of tiles is a partial one.
            let y = by * (tiles - 1) + self.rng.gen_range(1..by.max(2));
            let x = bx * self.rng.gen_range(1..=6) + self.rng.gen_range(0..bx);
            let shape = a.real(y, x);
            let rounds = tiles / cap as u64;
            self.push(
                Purpose::CappedGridY,
                format!("{shape} with gridDim.y capped at {cap} (every block loops {rounds} times or more)"),
                shape,
                Some(cap),
            );
        }
    }

    /// Past 2^31 and past 2^32 elements, both axes launchable.
    fn covering_large(&mut self, ex: &Exercise, a: &CoveringAxes) {
        use rand::Rng;
        for (what, side) in [("2^31", 46_341u64), ("2^32", 65_536)] {
            let y = side + self.rng.gen_range(1..=64);
            let x = side + self.rng.gen_range(1..=64);
            let shape = a.real(y.min(a.max_y()), x);
            self.push_large(ex, what, shape);
        }
    }

    /// A shape past `what` elements, labelled with the device memory it needs.
    fn push_large(&mut self, ex: &Exercise, what: &str, shape: Shape) {
        let gb = device_bytes(ex, shape) as f64 / 1e9;
        let label = format!("{shape}, past {what} elements (needs {gb:.1} GB of device memory)");
        self.push(Purpose::Large, label, shape, None);
    }

    /// The battery of a launch per diagonal of `block`-thread blocks.
    fn per_diagonal(&mut self, ex: &Exercise, b: u64, large: bool) {
        use rand::Rng;
        // A shape whose shorter side is past one block has diagonals of
        // every length up to it, so every residue of the block.
        for _ in 0..3 {
            let shape = Shape::new(
                b * self.rng.gen_range(1..=3) + self.rng.gen_range(0..b),
                b * self.rng.gen_range(1..=3) + self.rng.gen_range(0..b),
            );
            self.push(Purpose::Residue, format!("diagonals of every length mod {b}: {shape}"), shape, None);
        }
        for (what, base) in [("2^16", 1u64 << 16), ("2^20", 1 << 20)] {
            let tall = Shape::new(base + self.rng.gen_range(1..b), self.rng.gen_range(1..=3));
            self.push(Purpose::LongSide, format!("rows past {what}: {tall}"), tall, None);
            let wide = Shape::new(self.rng.gen_range(1..=3), base + self.rng.gen_range(1..b));
            self.push(Purpose::LongSide, format!("cols past {what}: {wide}"), wide, None);
        }
        if large {
            for (what, side) in [("2^31", 46_341u64), ("2^32", 65_536)] {
                let shape = Shape::new(side + self.rng.gen_range(1..=64), side + self.rng.gen_range(1..=64));
                self.push_large(ex, what, shape);
            }
        }
    }
}

/// The largest side a hidden shape with `large` has: 2^16 and 64 more
/// (the shape past 2^32 elements draws each side up to that).
pub const HIDDEN_LARGE_MAX_SIDE: u64 = 65_536 + 64;

/// The device bytes (see [`device_bytes`]) of the largest shape a check of
/// `ex` runs: the public battery's exactly, and with a seed a bound that
/// holds for every seed: at most [`HIDDEN_MAX_ELEMENTS`] elements, or with
/// `large` [`HIDDEN_LARGE_MAX_SIDE`] on each side. A grader sizes the
/// memory of a Slurm task from it.
pub fn largest_bytes(ex: &Exercise, seeded: bool, large: bool) -> u64 {
    let public = battery(ex, large).iter().map(|c| device_bytes(ex, c.shape)).max().unwrap_or(0);
    let hidden = match (seeded, large) {
        (false, _) => 0,
        (true, false) => device_bytes(ex, Shape::new(1, HIDDEN_MAX_ELEMENTS)),
        (true, true) => device_bytes(ex, Shape::new(HIDDEN_LARGE_MAX_SIDE, HIDDEN_LARGE_MAX_SIDE)),
    };
    public.max(hidden)
}

/// The launches a shape takes: (config, the value of [`Arg::Step`]).
pub fn launches(ex: &Exercise, shape: Shape) -> Result<Vec<(LaunchConfig, i64)>> {
    match ex.launch {
        Launch::Covering { block, x_walks_rows, grid_stride_y } => {
            let walked = if x_walks_rows { shape.transposed() } else { shape };
            let cfg = if grid_stride_y {
                LaunchConfig::covering_strided(walked, block)
            } else {
                LaunchConfig::covering(walked, block)
            };
            Ok(vec![(cfg.map_err(|e| anyhow!("{shape} cannot be launched: {e}"))?, 0)])
        }
        Launch::PerDiagonal { block } => {
            let (rows, cols) = (shape.rows, shape.cols);
            Ok((0..rows + cols - 1)
                .map(|d| {
                    let len = d.min(rows - 1) - d.saturating_sub(cols - 1) + 1;
                    let grid = Dim2::new(ceil_div(len, block as u64) as u32, 1);
                    (LaunchConfig { grid, block: Dim2::new(block, 1) }, d as i64)
                })
                .collect())
        }
    }
}

/// Why a shape of a check was not run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotRunCause {
    /// An earlier shape hung twice, and the rest of the check shares a
    /// short time: this shape's limit no longer fitted in what was left.
    #[default]
    NoTimeLeft,
    /// In a check that runs its shapes in its own process, an earlier
    /// shape crashed or did not finish and left the device unusable.
    DeviceUnusable,
}

/// What became of one shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    Pass,
    /// Ran to the end, but some element is wrong, unwritten, or some guard
    /// word was overwritten.
    Fail {
        wrong: u64,
        unwritten: u64,
        first_bad: Option<u64>,
        out_of_bounds_before: u64,
        out_of_bounds_after: u64,
    },
    /// A launch was refused.
    LaunchFailed {
        error: String,
    },
    /// The kernel faulted; the device is unusable for the rest of the run.
    Crashed {
        error: String,
    },
    /// The kernel did not finish within the watchdog's limit.
    DidNotFinish {
        seconds: u64,
    },
    /// Not run, and why ([`NotRunCause`]).
    NotRun {
        #[serde(default)]
        cause: NotRunCause,
    },
    /// Not run here, and why (not a failure: the shape needs more memory).
    Skipped {
        reason: String,
    },
    /// The output is right, but the kernel wrote into input `input`:
    /// `changed` elements differ from what was uploaded.
    InputChanged {
        input: u8,
        changed: u64,
        first_changed: Option<u64>,
    },
    /// compute-sanitizer's `tool` reported `errors` errors running the
    /// kernel; `first` is its first report.
    Sanitizer {
        tool: SanitizerTool,
        errors: u64,
        first: String,
    },
}

impl Verdict {
    /// Whether the shape ran and every element matched: what a score may
    /// count as earned. A skipped shape was not checked, so it is not.
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Pass)
    }

    /// Whether the shape shows a fault of the kernel: anything but a pass
    /// and a shape skipped for want of device memory. The check's exit
    /// code and outcome follow this, so a skipped shape fails no check.
    pub fn failed(&self) -> bool {
        !matches!(self, Verdict::Pass | Verdict::Skipped { .. })
    }

    /// The kinds of failure this verdict shows ([`FailureKind`]), in the
    /// order of its declaration. Empty for a pass, a skipped shape and one
    /// not run.
    pub fn kinds(&self) -> Vec<FailureKind> {
        match self {
            Verdict::Pass | Verdict::Skipped { .. } | Verdict::NotRun { .. } => Vec::new(),
            Verdict::Fail { wrong, unwritten, out_of_bounds_before, out_of_bounds_after, .. } => {
                let mut k = Vec::new();
                if *wrong > 0 {
                    k.push(FailureKind::Wrong);
                }
                if *unwritten > 0 {
                    k.push(FailureKind::Unwritten);
                }
                if out_of_bounds_before + out_of_bounds_after > 0 {
                    k.push(FailureKind::OutOfBounds);
                }
                k
            }
            Verdict::LaunchFailed { .. } => vec![FailureKind::LaunchError],
            Verdict::Crashed { .. } => vec![FailureKind::Crashed],
            Verdict::DidNotFinish { .. } => vec![FailureKind::DidNotFinish],
            Verdict::InputChanged { .. } => vec![FailureKind::InputChanged],
            Verdict::Sanitizer { tool, .. } => vec![tool.finds()],
        }
    }

    /// Whether the device can still be used after this.
    pub fn device_usable(&self) -> bool {
        !matches!(self, Verdict::Crashed { .. } | Verdict::DidNotFinish { .. } | Verdict::NotRun { .. })
    }

    /// The line's detail, after the label.
    pub fn describe(&self, elements: u64) -> String {
        match self {
            Verdict::Pass => format!("{elements} elements, all match"),
            Verdict::Fail { wrong, unwritten, first_bad, out_of_bounds_before, out_of_bounds_after } => {
                let mut parts = Vec::new();
                if *wrong > 0 {
                    parts.push(format!("{wrong} wrong"));
                }
                if *unwritten > 0 {
                    parts.push(format!("{unwritten} unwritten"));
                }
                if let Some(i) = first_bad {
                    parts.push(format!("first at index {i}"));
                }
                if out_of_bounds_before + out_of_bounds_after > 0 {
                    parts.push(format!(
                        "written out of bounds: {out_of_bounds_before} words before the output, {out_of_bounds_after} after"
                    ));
                }
                format!("{elements} elements: {}", parts.join(", "))
            }
            Verdict::LaunchFailed { error } => format!("launch failed: {error}"),
            Verdict::Crashed { error } => format!("the kernel crashed: {error}"),
            Verdict::DidNotFinish { seconds } => format!("did not finish within {seconds} s (the watchdog stopped it)"),
            Verdict::NotRun { cause: NotRunCause::NoTimeLeft } => {
                "not run: after a shape hung twice, the time the rest of the check shares left too little for it".into()
            }
            Verdict::NotRun { cause: NotRunCause::DeviceUnusable } => {
                "not run: an earlier shape crashed or did not finish, and the device is unusable".into()
            }
            Verdict::Skipped { reason } => format!("skipped: {reason}"),
            Verdict::InputChanged { input, changed, first_changed } => {
                let first = first_changed.map_or(String::new(), |i| format!(", first at index {i}"));
                format!(
                    "{elements} elements, all match, but input {input} was written: {changed} elements changed{first}"
                )
            }
            Verdict::Sanitizer { tool, errors, first } => format!("{tool} found {errors} errors, the first: {first}"),
        }
    }
}

/// The reason a private check gives for a hidden shape it skipped.
pub const PRIVATE_SKIP: &str = "not run on this device";

/// One line of a check.
#[derive(Clone, Debug, Serialize)]
pub struct ShapeResult {
    pub label: String,
    pub rows: u64,
    pub cols: u64,
    /// The battery the shape belongs to (`public` or `hidden`).
    pub battery: Battery,
    /// Why the shape is in its battery (not part of the record: a
    /// hidden shape's purpose would tell what it is).
    #[serde(skip)]
    pub purpose: Purpose,
    #[serde(flatten)]
    pub verdict: Verdict,
}

impl ShapeResult {
    pub fn line(&self) -> String {
        let elements = self.rows * self.cols;
        let word = match &self.verdict {
            Verdict::Skipped { .. } => "skipped".to_string(),
            v => report::flag(v.passed(), if v.passed() { "pass" } else { "FAIL" }),
        };
        if self.rows == 0 && self.cols == 0 {
            // A private hidden shape: its size is not told.
            return format!("  {}: {word}", self.label);
        }
        format!("  {}: {}: {word}", self.label, self.verdict.describe(elements))
    }

    /// The line of a run under compute-sanitizer, whose output is not
    /// judged: a pass says the tool found no errors, not that the
    /// elements match.
    pub fn sanitizer_line(&self) -> String {
        match self.verdict {
            Verdict::Pass => format!("  {}: no errors: {}", self.label, report::flag(true, "pass")),
            _ => self.line(),
        }
    }

    /// The line as a private check reports a hidden shape: its number,
    /// and pass, fail or skipped, nothing that would tell the shape (a
    /// skipped shape's reason names the memory it needs, so it is dropped).
    pub fn private(self, n: usize) -> ShapeResult {
        let verdict = match self.verdict {
            Verdict::Pass => Verdict::Pass,
            Verdict::Skipped { .. } => Verdict::Skipped { reason: PRIVATE_SKIP.into() },
            _ => Verdict::Fail {
                wrong: 0,
                unwritten: 0,
                first_bad: None,
                out_of_bounds_before: 0,
                out_of_bounds_after: 0,
            },
        };
        ShapeResult { label: format!("hidden shape {n}"), rows: 0, cols: 0, verdict, ..self }
    }
}

/// Everything a check found: what `--json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    pub exercise: String,
    pub section: String,
    pub kernel: String,
    pub file: String,
    /// `pass`, `fail` or `could not check` (`compiles` with `--compile-only`).
    pub outcome: CheckOutcome,
    pub exit_code: i32,
    pub device: Option<String>,
    pub compiler: Option<String>,
    /// Why the check could not be made, or why the file failed to compile.
    pub reason: Option<String>,
    pub compile_log: Option<String>,
    /// What the loaded kernel uses: registers, shared memory, threads per block.
    pub resources: Option<String>,
    pub shapes: Vec<ShapeResult>,
    pub timing: Option<Timing>,
    /// What the kernel printed (`printf`) on each shape where it printed
    /// anything, capped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub printed: Vec<Printed>,
    /// The hidden battery's seed, when it ran: a failure is replayed with
    /// `--seed` and this number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Whether hidden shapes are reported as pass or fail only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
    /// Lines about the run as a whole: a MIG instance, a missing tool.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// compute-sanitizer's verdicts (`--sanitize`), one per tool and shape.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sanitize: Vec<ShapeResult>,
}

/// The student's file as text, or a one-line reason it is not a source.
/// Only a regular file is read: a symbolic link, a device, a pipe or a
/// folder named `.cu` is refused, not followed or opened (see
/// [`regular_file`]).
pub fn read_source(path: &std::path::Path) -> Result<String> {
    use std::io::Read;
    let mut file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|_| anyhow!("{} is not UTF-8 text", path.display()))?;
    if text.contains('\0') {
        return Err(anyhow!("{} holds a NUL byte: it is not CUDA source", path.display()));
    }
    Ok(text)
}

/// Why `path` is not a regular file to read as a submission, if it is not:
/// judged on the entry itself, without following a link.
pub fn regular_file(path: &std::path::Path) -> Result<()> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?;
    not_regular(path, &meta.file_type())
}

fn not_regular(path: &std::path::Path, kind: &std::fs::FileType) -> Result<()> {
    match what_else(kind) {
        None => Ok(()),
        Some(what) => Err(anyhow!("{} is {what}: only a regular file is read as a submission", path.display())),
    }
}

/// What an entry is when it is not a regular file (`a symbolic link`, `a
/// folder`, ...), judged on the entry itself, never on what a link points
/// to; `None` for a regular file.
pub fn what_else(kind: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    Some(if kind.is_file() {
        return None;
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else if kind.is_fifo() {
        "a named pipe"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    })
}

/// Opens `path` for reading only if it is a regular file: the entry is
/// judged first, opened without following a link (`O_NOFOLLOW`) and without
/// waiting on a pipe (`O_NONBLOCK`), and what was opened is judged again.
fn open_regular(path: &std::path::Path) -> Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    regular_file(path)?;
    let file =
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path).map_err(
            |e| match e.raw_os_error() {
                Some(libc::ELOOP) => {
                    anyhow!("{} is a symbolic link: only a regular file is read as a submission", path.display())
                }
                _ => anyhow!("cannot read {}: {e}", path.display()),
            },
        )?;
    let meta = file.metadata().map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?;
    not_regular(path, &meta.file_type())?;
    Ok(file)
}

/// The human report of a record.
pub fn render(r: &Record) -> String {
    let mut out = Report::new();
    out.heading(&format!("check of {} against {} exercise '{}' ({})", r.file, r.section, r.exercise, r.kernel));
    if let Some(device) = &r.device {
        out.line(format!("on {device}"));
    }
    if let Some(compiler) = &r.compiler {
        out.line(format!("compiled by {compiler}"));
    }
    if let Some(log) = r.compile_log.as_deref().filter(|l| !l.trim().is_empty()) {
        out.line("the compiler's log:");
        for l in log.lines() {
            out.line(format!("  {l}"));
        }
    }
    if let Some(resources) = &r.resources {
        out.line(format!("your kernel uses {resources}"));
    }
    if let Some(seed) = r.seed {
        let how = if r.private { ", reported as pass or fail only" } else { "" };
        out.line(format!("hidden battery: seed {seed}{how} (replay with --seed {seed})"));
    }
    for s in &r.shapes {
        out.line(s.line());
    }
    let passed = r.shapes.iter().filter(|s| s.verdict.passed()).count();
    let skipped = r.shapes.iter().filter(|s| matches!(s.verdict, Verdict::Skipped { .. })).count();
    let skipped = if skipped > 0 { format!(" ({skipped} skipped)") } else { String::new() };
    match (r.outcome, &r.reason) {
        (CheckOutcome::CouldNotCheck, Some(why)) => out.line(format!("{}: {why}", r.outcome)),
        (CheckOutcome::Compiles, _) => out.line(format!(
            "result: {}: the file compiles, and its kernel's name and parameters match (no shape was run)",
            report::flag(true, CheckOutcome::Compiles.as_str())
        )),
        (_, Some(why)) => out.line(format!("result: {}: {why}", report::flag(false, "FAIL"))),
        _ => out.line(format!(
            "result: {} of {} shapes pass{skipped}: {}",
            passed,
            r.shapes.len(),
            report::flag(r.exit_code == 0, if r.exit_code == 0 { "pass" } else { "FAIL" })
        )),
    };
    for p in &r.printed {
        p.render(&mut out);
    }
    for s in &r.sanitize {
        out.line(s.sanitizer_line());
    }
    for n in &r.notes {
        out.line(format!("note: {n}"));
    }
    if let Some(t) = &r.timing {
        t.render(&mut out);
    }
    out.into_string()
}

impl Record {
    /// A record of a check of `file` against `ex` of the chapter `section`
    /// that has not started: it says "could not check" until the check gets
    /// further.
    pub fn new(section: &str, ex: &Exercise, file: String) -> Record {
        Record {
            exercise: ex.id.into(),
            section: section.into(),
            kernel: ex.kernel.into(),
            file,
            outcome: CheckOutcome::CouldNotCheck,
            exit_code: CheckOutcome::CouldNotCheck.exit_code(),
            device: None,
            compiler: None,
            reason: None,
            compile_log: None,
            resources: None,
            shapes: Vec::new(),
            timing: None,
            printed: Vec::new(),
            seed: None,
            private: false,
            notes: Vec::new(),
            sanitize: Vec::new(),
        }
    }

    /// The outcome, and the exit code that goes with it.
    fn set(&mut self, outcome: CheckOutcome) {
        self.outcome = outcome;
        self.exit_code = outcome.exit_code();
    }

    /// The check failed before any shape ran, because of `why`.
    pub fn fail(mut self, why: &str) -> Record {
        self.reason = Some(why.to_string());
        self.set(CheckOutcome::Fail);
        self
    }

    /// `--compile-only`: the file compiled and its kernel's name and
    /// parameters match; no shape ran.
    pub fn compiled_only(&mut self) {
        self.set(CheckOutcome::Compiles);
        self.reason = None;
    }

    /// The check could not be finished, through no fault of the file: the
    /// shapes judged so far are kept, the outcome is "could not check".
    pub fn could_not_check(&mut self, why: &str) {
        self.set(CheckOutcome::CouldNotCheck);
        self.reason = Some(why.to_string());
    }

    /// The outcome and exit code of the shapes checked so far.
    pub fn finish(&mut self) {
        let ok = !self.shapes.iter().chain(&self.sanitize).any(|s| s.verdict.failed());
        self.set(if ok { CheckOutcome::Pass } else { CheckOutcome::Fail });
    }
}

/// Input `k` of `n` elements, element `i` being [`input_value`]`(k, i)`,
/// generated on every core.
pub fn input(k: u8, n: usize) -> Vec<f32> {
    let mut v = vec![0f32; n];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let chunk = n.div_ceil(threads).max(1 << 16);
    std::thread::scope(|s| {
        for (j, part) in v.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                for (i, x) in part.iter_mut().enumerate() {
                    *x = input_value(k, (j * chunk + i) as u64);
                }
            });
        }
    });
    v
}

/// Judges a downloaded output with its guards: every guard word must still
/// be poison, and every element must match `expected`.
pub fn judge(words: &[u32], elem: Elem, expected: &Expected) -> Verdict {
    let (before, rest) = words.split_at(GUARD_WORDS);
    let (body, after) = rest.split_at(rest.len() - GUARD_WORDS);
    let touched = |g: &[u32]| g.iter().filter(|&&w| w != POISON_WORD).count() as u64;
    let a = match elem {
        Elem::F32 => compare_with(body, |i| expected(i as u64) as u32),
        Elem::U64 => {
            let pairs: Vec<u64> = body.chunks_exact(2).map(|p| p[0] as u64 | (p[1] as u64) << 32).collect();
            compare_with(&pairs, |i| expected(i as u64))
        }
    };
    let (oob_before, oob_after) = (touched(before), touched(after));
    if a.ok() && oob_before + oob_after == 0 {
        return Verdict::Pass;
    }
    Verdict::Fail {
        wrong: a.mismatched as u64,
        unwritten: a.unwritten as u64,
        first_bad: a.first_bad.map(|i| i as u64),
        out_of_bounds_before: oob_before,
        out_of_bounds_after: oob_after,
    }
}

#[cfg(test)]
mod tests;
