//! The two ladders with a goal the card has not yet been shown to meet, set
//! against it from a record and its Nsight Compute counters: K.6's spiral
//! reorder (a share of a copy's bandwidth) and K.7's single-launch
//! wavefront (a speed-up over the per-diagonal launches replayed from a
//! graph). Each says by how much the best version misses or meets its goal
//! and what the counters show of its bound and what they leave open; a figure the record or the
//! counters lack is said to be not measured yet, never guessed.

use crate::counters::{metric, KernelCounters};
use ktrav::ladder::Version;
use ktrav::measured::{Record, Section, Table};
use ktrav::{Chapter, Shape};
use std::fmt::Write as _;

/// K.6's goal: the best version's share of a copy of the same bytes, at
/// both of [`SPIRAL_SHAPES`], in percent.
pub const SPIRAL_GOAL_PERCENT: f64 = 85.0;
/// The shapes K.6's goal is set at.
pub const SPIRAL_SHAPES: [Shape; 2] = [Shape::new(4096, 4096), Shape::new(8192, 8192)];
/// K.7's goal and aim: the best version that keeps the recurrence, as a
/// speed-up over the per-diagonal launches replayed from a graph.
pub const WAVEFRONT_GOAL: f64 = 50.0;
pub const WAVEFRONT_AIM: f64 = 100.0;

const NOT_MEASURED: &str = "not measured yet";

/// What sets a chapter's ladder against its goal, from a record and its
/// counters.
pub type Render = fn(&Record, Option<&[KernelCounters]>) -> String;

/// The chapters whose ladder has a goal, each with what renders it.
const GOALS: [(&str, Render); 2] =
    [(k6_spiral::CHAPTER.id, render_spiral), (k7_diagonal::CHAPTER.id, render_wavefront)];

/// What renders `chapter`'s goal, if its ladder has one.
pub fn of(chapter: &Chapter) -> Option<Render> {
    GOALS.iter().find(|(id, _)| *id == chapter.id).map(|&(_, render)| render)
}

/// Every chapter's goal, in book order (the registry's): the record's
/// `NAME-goals.md` page.
pub fn render_all(record: &Record, counters: Option<&[KernelCounters]>) -> String {
    let goals: Vec<String> =
        appendix_k::CHAPTERS.iter().filter_map(|ch| of(ch)).map(|render| render(record, counters)).collect();
    goals.join("\n")
}

/// The K.6 versions profiled for what limits them: the two newest rungs.
pub fn spiral_profiled() -> Vec<&'static Version> {
    k6_spiral::CHAPTER.versions.iter().rev().take(2).rev().collect()
}

/// The L2 figures of every version profiled for throughput (K.2's and the
/// spiral's newest two) at the larger spiral shape, as values a page can
/// quote: `NAME.ncu.KERNEL.l2_bytes` and `NAME.ncu.KERNEL.l2_throughput` (percent
/// of peak, one place) and `NAME.ncu.KERNEL.l2_over_dram` (the L2's byte
/// share over DRAM's) and `NAME.ncu.KERNEL.store_sectors_per_request`, for
/// each figure the counters hold.
pub fn throughput_values(stem: &str, counters: &[KernelCounters]) -> Vec<(String, String)> {
    let shape = SPIRAL_SHAPES[1];
    let versions = k2_transpose::CHAPTER.versions.iter().chain(spiral_profiled());
    let mut out = Vec::new();
    for v in versions {
        let Some(k) = counters_at(counters, v, shape) else { continue };
        for (name, metric) in [("l2_bytes", metric::L2_BYTES), ("l2_throughput", metric::L2_THROUGHPUT)] {
            if let Some(x) = k.mean(metric) {
                out.push((format!("{stem}.ncu.{}.{name}", v.kernel), format!("{x:.1}%")));
            }
        }
        let shares = k.mean(metric::L2_BYTES).zip(k.mean(metric::DRAM_THROUGHPUT)).filter(|(_, d)| *d > 0.0);
        if let Some((l2, dram)) = shares {
            out.push((format!("{stem}.ncu.{}.l2_over_dram", v.kernel), format!("{:.2}", l2 / dram)));
        }
        let stores =
            k.mean(metric::GLOBAL_ST_SECTORS).zip(k.mean(metric::GLOBAL_ST_REQUESTS)).filter(|(_, r)| *r > 0.0);
        if let Some((sectors, requests)) = stores {
            out.push((
                format!("{stem}.ncu.{}.store_sectors_per_request", v.kernel),
                format!("{:.0}", sectors / requests),
            ));
        }
    }
    out
}

/// The K.7 versions that keep the recurrence (every one but the closed
/// forms).
pub fn wavefront_versions() -> Vec<&'static Version> {
    let closed = k7_diagonal::gpu::CLOSED_FORM_VERSIONS;
    k7_diagonal::CHAPTER.versions.iter().filter(|v| !closed.contains(&v.kernel)).collect()
}

fn section<'r>(record: &'r Record, chapter: &Chapter) -> Option<&'r Section> {
    record.sections.iter().find(|s| crate::chapter_headed(&s.chapter).is_some_and(|ch| ch.id == chapter.id))
}

/// The counters of `kernel`'s launches on `shape`: those whose grid is the
/// one the version's plan gives that shape (the versions profiled here
/// size their grid by the shape alone, never by the SM count).
fn counters_at<'c>(counters: &'c [KernelCounters], v: &Version, shape: Shape) -> Option<&'c KernelCounters> {
    let grid = (v.plan)(shape, 1).ok()?.cfg.grid;
    counters
        .iter()
        .find(|k| k.kernel == v.kernel && k.grid_dims().get(..2) == Some(&[grid.x as u64, grid.y as u64][..]))
}

fn pct(v: Option<f64>) -> String {
    v.map_or(NOT_MEASURED.to_string(), |v| format!("{v:.1}%"))
}

fn num(v: Option<f64>) -> String {
    v.map_or(NOT_MEASURED.to_string(), |v| format!("{v:.2}"))
}

/// The table of `section` timed on `shape` against a copy.
fn copy_table(section: Option<&Section>, shape: Shape) -> Option<&Table> {
    let title = format!("{shape} floats");
    section?
        .tables
        .iter()
        .find(|t| t.yardstick.is_none() && t.title.starts_with(&title) && t.title.contains("how fast"))
}

/// The version of `chapter` with the largest share of the copy in `table`.
fn best_share(table: &Table, chapter: &Chapter) -> Option<(&'static Version, f64)> {
    chapter
        .versions
        .iter()
        .filter_map(|v| table.rows.iter().find(|r| r.label == v.kernel).map(|r| (v, table.percent_of_copy(r))))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The global store sectors a launch on `shape` counted
/// (`l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum`) over the 32-byte
/// sectors its `f32` output fills: 1.00 when every store fills whole
/// sectors once; above when stores split over partial sectors (or, as in
/// a scalar path storing every other float, touch a sector twice).
fn store_sectors_over_output(k: &KernelCounters, shape: Shape) -> Option<f64> {
    let output_sectors = shape.checked_elements()? as f64 * 4.0 / 32.0;
    k.mean(metric::GLOBAL_ST_SECTORS).map(|s| s / output_sectors)
}

/// K.6 against its goal: per shape, the best version's share and the gap;
/// then the counters of the profiled versions beside K.2's best transpose
/// (a tiled permutation of the same bytes near the copy) at the larger shape.
pub fn render_spiral(record: &Record, counters: Option<&[KernelCounters]>) -> String {
    let spiral = &k6_spiral::CHAPTER;
    let sec = section(record, spiral);
    let mut md = spiral_shares(sec);
    let counters = counters.unwrap_or(&[]);
    let reference_shape = SPIRAL_SHAPES[1];
    let reference = copy_table(section(record, &k2_transpose::CHAPTER), reference_shape)
        .and_then(|t| best_share(t, &k2_transpose::CHAPTER));
    let mut rows: Vec<(&Version, Shape)> = Vec::new();
    for shape in SPIRAL_SHAPES {
        rows.extend(spiral_profiled().into_iter().map(|v| (v, shape)));
    }
    if let Some((v, _)) = reference {
        rows.push((v, reference_shape));
    }
    let figures: Vec<Throughput> = rows.into_iter().map(|(v, shape)| Throughput::of(counters, v, shape)).collect();
    md += &throughput_table(reference_shape, &figures);
    let reference_figures = figures.last().filter(|_| reference.is_some());
    let best_large = copy_table(sec, reference_shape).and_then(|t| best_share(t, spiral)).map(|(v, _)| v.kernel);
    let spiral_figures = figures.iter().find(|f| Some(f.kernel) == best_large && f.shape == reference_shape);
    md += &spiral_reading(reference_shape, spiral_figures, reference_figures, reference.map(|(_, share)| share));
    md
}

/// K.6's goal, and per shape the best version's share of the copy and how
/// far it is from the goal.
fn spiral_shares(sec: Option<&Section>) -> String {
    let spiral = &k6_spiral::CHAPTER;
    let mut md = String::new();
    let _ = writeln!(
        md,
        "**{}**: goal, at least {SPIRAL_GOAL_PERCENT:.0}% of a copy of the same bytes at {} and {}.\n",
        spiral.heading(),
        SPIRAL_SHAPES[0],
        SPIRAL_SHAPES[1]
    );
    let _ = writeln!(md, "| Shape | Best version | Share of the copy | Against the goal |");
    let _ = writeln!(md, "| --- | --- | ---: | --- |");
    for shape in SPIRAL_SHAPES {
        match copy_table(sec, shape).and_then(|t| best_share(t, spiral)) {
            Some((v, share)) => {
                let gap = if share >= SPIRAL_GOAL_PERCENT {
                    format!("meets it by {:.1} points", share - SPIRAL_GOAL_PERCENT)
                } else {
                    format!("misses it by {:.1} points", SPIRAL_GOAL_PERCENT - share)
                };
                let _ = writeln!(md, "| {shape} | `{}` | {share:.1}% | {gap} |", v.kernel);
            }
            None => {
                let _ = writeln!(md, "| {shape} | {NOT_MEASURED} | {NOT_MEASURED} | {NOT_MEASURED} |");
            }
        }
    }
    md
}

/// What Nsight Compute counted for one kernel at one shape: the L2's and
/// DRAM's bytes (percent of peak), the one over the other, the L2's
/// throughput as Nsight Compute reports it (percent of peak), the store
/// sectors over the output's and the output's bytes per store request;
/// each `None` where not counted.
struct Throughput {
    kernel: &'static str,
    shape: Shape,
    l2: Option<f64>,
    l2_throughput: Option<f64>,
    dram: Option<f64>,
    ratio: Option<f64>,
    stores: Option<f64>,
    bytes_per_request: Option<f64>,
}

impl Throughput {
    fn of(counters: &[KernelCounters], v: &'static Version, shape: Shape) -> Self {
        let k = counters_at(counters, v, shape);
        let (l2, dram) = (k.and_then(|k| k.mean(metric::L2_BYTES)), k.and_then(|k| k.mean(metric::DRAM_THROUGHPUT)));
        let ratio = l2.zip(dram).filter(|(_, d)| *d > 0.0).map(|(l, d)| l / d);
        let stores = k.and_then(|k| store_sectors_over_output(k, shape));
        let output_bytes = shape.checked_elements().map(|e| e as f64 * 4.0);
        let requests = k.and_then(|k| k.mean(metric::GLOBAL_ST_REQUESTS)).filter(|r| *r > 0.0);
        let bytes_per_request = output_bytes.zip(requests).map(|(b, r)| b / r);
        Throughput {
            kernel: v.kernel,
            shape,
            l2,
            l2_throughput: k.and_then(|k| k.mean(metric::L2_THROUGHPUT)),
            dram,
            ratio,
            stores,
            bytes_per_request,
        }
    }

    /// Store sectors per store request: the output's sectors per request
    /// times the sectors over the output's.
    fn sectors_per_request(&self) -> Option<f64> {
        self.stores.zip(self.bytes_per_request).map(|(s, b)| s * b / 32.0)
    }

    /// Every figure the reading needs, or `None` where one is missing: L2
    /// and DRAM throughput, their ratio, the store sectors over the
    /// output's, the sectors per store request and the bytes per request.
    fn figures(&self) -> Option<(f64, f64, f64, f64, f64, f64)> {
        Some((self.l2?, self.dram?, self.ratio?, self.stores?, self.sectors_per_request()?, self.bytes_per_request?))
    }
}

/// The table of what the counters show for each profiled kernel.
fn throughput_table(reference_shape: Shape, figures: &[Throughput]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "\nWhat Nsight Compute counted for the profiled versions (one launch each, at the card's own clocks), \
         beside K.2's best transpose at {reference_shape}:\n"
    );
    let _ = writeln!(
        md,
        "| Kernel | Shape | L2 bytes, % of peak | DRAM bytes, % of peak | L2 % of peak over DRAM % of peak | L2 throughput (Nsight Compute's), % of peak | Store sectors over the output's |"
    );
    let _ = writeln!(md, "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    for f in figures {
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {} | {} | {} |",
            f.kernel,
            f.shape,
            pct(f.l2),
            pct(f.dram),
            num(f.ratio),
            pct(f.l2_throughput),
            num(f.stores)
        );
    }
    md
}

/// What the counters show of the best spiral version against the
/// reference transpose (whose share of the copy is `r_share`) at
/// `reference_shape`, and what they leave open; not measured when a
/// figure is missing.
fn spiral_reading(
    reference_shape: Shape,
    spiral: Option<&Throughput>,
    reference: Option<&Throughput>,
    r_share: Option<f64>,
) -> String {
    let (Some(sp), Some(rf), Some(r_share)) = (spiral, reference, r_share) else {
        return format!("\nWhat the counters show: {NOT_MEASURED} (the record or its counters lack a figure above).\n");
    };
    let (
        Some((l2, dram, ratio, stores, per_request, bytes)),
        Some((r_l2, r_dram, r_ratio, r_stores, r_per_request, r_bytes)),
    ) = (sp.figures(), rf.figures())
    else {
        return format!("\nWhat the counters show: {NOT_MEASURED} (the record or its counters lack a figure above).\n");
    };
    let (kernel, r_kernel) = (sp.kernel, rf.kernel);
    let bytes_say = if l2 < r_l2 && dram < r_dram {
        "by bytes, both units run further below their peaks than in the transpose"
    } else {
        "by bytes, one of them runs at least as close to its peak as in the transpose"
    };
    let throughput_say = throughput_reading(sp, rf, l2, r_l2);
    let diff = 100.0 * (ratio / r_ratio - 1.0);
    let l2_say = format!(
        "The two shares' ratio is the L2's bytes over DRAM's times a constant of the card, so two kernels on the card can \
         be set side by side on it: {ratio:.2} against {r_ratio:.2}. {}",
        if diff.abs() < 10.0 {
            format!(
                "Per byte of DRAM traffic the spiral moves about as much through the L2 as the transpose ({:.0}% apart)",
                diff.abs()
            )
        } else {
            format!(
                "Per byte of DRAM traffic the spiral moves {:.0}% {} through the L2 than the transpose",
                diff.abs(),
                if diff > 0.0 { "more" } else { "less" }
            )
        }
    );
    let own = format!(
        "Its stores touch {stores:.2} sectors for every 32-byte sector of output (1.00 would fill each once), \
         {per_request:.2} for each store request, which carries {bytes:.0} bytes of output on average: its runs of \
         output start at any float, so a request can straddle more sectors than its bytes fill"
    );
    // What one lane writes per store instruction, as the counters have it:
    // a request is one warp's instruction, 32 lanes.
    let lane_bytes = |b: f64| ((b / 32.0).round() as u64).max(1);
    let (width, r_width) = (lane_bytes(bytes), lane_bytes(r_bytes));
    let against = if width != r_width {
        format!(
            "The transpose's {r_stores:.2} on the same count does not measure the same thing: its store instructions \
             write {} a lane where the spiral's write {} (a request's bytes over its 32 lanes), and for those the \
             counter tallies {r_per_request:.2} sectors for each request of {r_bytes:.0} bytes. The two figures cannot \
             be set against each other, so these counters show that the spiral's stores touch extra sectors, not what \
             those cost",
            access(r_width),
            access(width)
        )
    } else {
        let same = format!(
            "stores that, as compiled, write the same {width} bytes a lane (a request's bytes over its 32 lanes, \
             whatever width the source names)"
        );
        if stores <= r_stores {
            format!(
                "The transpose, at {r_share:.0}% of a copy, touches {r_stores:.2} on the same count with {same}, so \
                 extra sectors at that rate do not by themselves keep a kernel from a copy's pace"
            )
        } else {
            format!(
                "That is more than the transpose's {r_stores:.2}, with {same}: split sectors remain a candidate, \
                 though no counter here shows they are what costs the time"
            )
        }
    };
    format!(
        "\nWhat the counters show, and what they leave open: at {reference_shape}, `{kernel}` moves bytes through the L2 at \
         {l2:.1}% and DRAM at {dram:.1}% of their peaks, `{r_kernel}` at {r_l2:.1}% and {r_dram:.1}%: {bytes_say}. \
         {throughput_say}. {l2_say}. {own}. {against}. None of these counters names what does hold it.\n"
    )
}

/// What the L2's throughput says of the spiral (`sp`, moving bytes
/// through the L2 at `l2`% of peak) against the transpose (`rf`, at
/// `r_l2`%), or that the record lacks it.
fn throughput_reading(sp: &Throughput, rf: &Throughput, l2: f64, r_l2: f64) -> String {
    match (sp.l2_throughput, rf.l2_throughput) {
        (Some(b), Some(r_b)) => {
            let verdict = if b >= r_b && l2 < r_l2 {
                "the spiral keeps the L2 at least as busy as the transpose does while moving a smaller share of its \
                 bytes, so work in the L2 that moves no extra bytes (stores split over sectors, say) is a candidate for \
                 what holds it"
            } else if b >= r_b {
                "the spiral keeps the L2 at least as busy as the transpose does"
            } else {
                "by that measure too the spiral leaves the L2 less busy than the transpose does"
            };
            format!(
                "Bytes are not all the L2 does: Nsight Compute's \"L2 Cache Throughput\" (`lts__throughput`), which \
                 counts its work and not only its bytes, reads {b:.1}% of peak for the spiral and {r_b:.1}% for the \
                 transpose: {verdict}"
            )
        }
        _ => "Bytes are not all the L2 does, and Nsight Compute's \"L2 Cache Throughput\" (`lts__throughput`), which \
              counts its work and not only its bytes, is not in these counters: they do not rule the L2 out"
            .to_string(),
    }
}

/// What one thread stores at a time, in words.
fn access(bytes: u64) -> String {
    match bytes {
        4 => "4 bytes, a single float".to_string(),
        b => format!("{b} bytes"),
    }
}

/// The two baselines' times in a K.7 table: (graph, stream), each `None`
/// where the table lacks it.
fn baselines(t: &Table) -> (Option<f64>, Option<f64>) {
    use k7_diagonal::gpu::{GRAPH_BASELINE, PER_DIAGONAL_KERNEL, STREAM_BASELINE};
    let is = |label: &str, words: &str| label.starts_with(PER_DIAGONAL_KERNEL) && label.contains(words);
    let find = |words: &str| match &t.yardstick {
        Some(y) if is(y, words) => Some(t.copy_ms),
        _ => t.rows.iter().find(|r| is(&r.label, words)).map(|r| r.ms),
    };
    (find(GRAPH_BASELINE), find(STREAM_BASELINE))
}

/// K.7 against its goal: every single-launch version over both baselines,
/// The table of K.7's record that times the versions against the graph.
pub fn wavefront_table(record: &Record) -> Option<&Table> {
    let shape = k7_diagonal::gpu::LARGE_TABLES[0].0;
    section(record, &k7_diagonal::CHAPTER)
        .and_then(|s| s.tables.iter().find(|t| t.yardstick.is_some() && t.title.contains(&shape.to_string())))
}

/// The fastest of `table`'s versions that keep the recurrence: its kernel
/// and median in milliseconds.
pub fn best_wavefront(table: &Table) -> Option<(&'static str, f64)> {
    let keeps = wavefront_versions();
    keeps
        .iter()
        .filter_map(|v| table.rows.iter().find(|r| r.label == v.kernel).map(|r| (v.kernel, r.ms)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// the best that keeps the recurrence against the goal, and what bounds it:
/// from the counters, the hand-off between bands (elapsed cycles against
/// the bands' mean active cycles) times the number of hand-offs.
pub fn render_wavefront(record: &Record, counters: Option<&[KernelCounters]>) -> String {
    let ch = &k7_diagonal::CHAPTER;
    let shape = k7_diagonal::gpu::LARGE_TABLES[0].0;
    let table = wavefront_table(record);
    let mut md = String::new();
    let _ = writeln!(
        md,
        "**{}**: goal, one launch that keeps the recurrence at least {WAVEFRONT_GOAL:.0}x (aim {WAVEFRONT_AIM:.0}x) \
         faster than the per-diagonal launches replayed from one CUDA graph, on the {shape} table.\n",
        ch.heading()
    );
    let Some(t) = table else {
        let _ = writeln!(md, "The {shape} table: {NOT_MEASURED}.");
        return md;
    };
    let (graph, stream) = baselines(t);
    let over = |base: Option<f64>, ms: f64| base.map_or(NOT_MEASURED.to_string(), |b| format!("{:.1}x", b / ms));
    let ms = |v: Option<f64>| v.map_or(NOT_MEASURED.to_string(), |v| format!("{v:.3} ms"));
    let _ = writeln!(md, "| Version | Time | Over the graph | Over the stream |");
    let _ = writeln!(md, "| --- | ---: | ---: | ---: |");
    let _ = writeln!(
        md,
        "| per-diagonal launches, one CUDA graph | {} | 1.0x | {} |",
        ms(graph),
        graph.map_or(NOT_MEASURED.to_string(), |g| over(stream, g))
    );
    let _ = writeln!(
        md,
        "| per-diagonal launches, back to back on the stream | {} | {} | 1.0x |",
        ms(stream),
        stream.map_or(NOT_MEASURED.to_string(), |s| over(graph, s))
    );
    let wavefront = wavefront_versions();
    for v in ch.versions {
        let Some(row) = t.rows.iter().find(|r| r.label == v.kernel) else {
            let _ = writeln!(md, "| `{}` | {NOT_MEASURED} | | |", v.kernel);
            continue;
        };
        let keeps = wavefront.iter().any(|w| w.kernel == v.kernel);
        let note = if keeps { "" } else { " (closed form: no recurrence)" };
        let _ = writeln!(
            md,
            "| `{}`{note} | {:.3} ms | {} | {} |",
            v.kernel,
            row.ms,
            over(graph, row.ms),
            over(stream, row.ms)
        );
    }
    match (best_wavefront(t), graph) {
        (Some((kernel, best_ms)), Some(graph)) => {
            let x = graph / best_ms;
            let verdict = if x >= WAVEFRONT_GOAL {
                format!("meets the goal{}", if x >= WAVEFRONT_AIM { " and the aim" } else { "" })
            } else {
                format!("misses the goal by a factor of {:.1}", WAVEFRONT_GOAL / x)
            };
            let _ = writeln!(md, "\nThe best version that keeps the recurrence, `{kernel}`, runs {x:.1}x faster than the graph: it {verdict}.");
        }
        (Some((kernel, best_ms)), None) => {
            let _ = writeln!(
                md,
                "\nThe best version that keeps the recurrence, `{kernel}`, against the graph: {NOT_MEASURED} (this record times \
                 the launches on the stream only, {} faster than those).",
                over(stream, best_ms)
            );
        }
        (None, _) => {
            let _ = writeln!(md, "\nNo version that keeps the recurrence is timed in this record.");
        }
    }
    md += &render_bound(counters.unwrap_or(&[]), shape, graph);
    md
}

/// What bounds each profiled wavefront version on `shape`, from its
/// counters: with B bands of one warp each, all resident from the start and
/// band b waiting on band b-1, the launch lasts (B - 1) hand-offs plus one
/// band's sweep and a band lives (B - 1) / 2 hand-offs plus a sweep on
/// average; the two measured figures give the hand-off and the sweep.
fn render_bound(counters: &[KernelCounters], shape: Shape, graph_ms: Option<f64>) -> String {
    let mut md = format!(
        "\nWhat bounds it, from Nsight Compute on the {shape} table: the elapsed cycles against the bands' mean active cycles \
         (the multiprocessors' active cycles over the bands, one band of one warp on each) give the hand-off from one band to \
         the next and one band's sweep:\n\n"
    );
    let _ = writeln!(
        md,
        "| Version | Bands | Elapsed | Hand-off | Share of the launch | Sweep | Hand-off in columns | First chunk after | Ceiling |"
    );
    let _ = writeln!(md, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut in_columns: Vec<(&str, f64, u64)> = Vec::new();
    for v in wavefront_versions() {
        let bands = (v.plan)(shape, 1).ok().map(|p| p.cfg.grid.x as f64);
        match counters_at(counters, v, shape).and_then(|k| band_figures(k, bands)) {
            Some((b, elapsed, handoff, sweep, ns)) => {
                let handoffs_ms = (b - 1.0) * handoff * (ns / 1e6) / elapsed;
                let ceiling = graph_ms.map_or(NOT_MEASURED.to_string(), |g| format!("{:.0}x", g / handoffs_ms));
                let columns = handoff / (sweep / shape.cols as f64);
                let lag = first_chunk_lag(v.kernel);
                let lag_text = lag.map_or(NOT_MEASURED.to_string(), |l| l.to_string());
                if let Some(lag) = lag {
                    in_columns.push((v.kernel, columns, lag));
                }
                let _ = writeln!(
                    md,
                    "| `{}` | {b:.0} | {elapsed:.0} | {handoff:.0} | {:.0}% | {sweep:.0} | {columns:.0} | {lag_text} | {ceiling} |",
                    v.kernel,
                    100.0 * (b - 1.0) * handoff / elapsed
                );
            }
            None => {
                let _ = writeln!(
                    md,
                    "| `{}` | {} | {NOT_MEASURED} | | | | | | |",
                    v.kernel,
                    bands.map_or("—".into(), |b| format!("{b:.0}"))
                );
            }
        }
    }
    let _ = writeln!(
        md,
        "\nThe ceiling is the graph's time over the hand-offs' alone, each as long as measured: the speed-up the \
         version would reach if the sweep took no time and the hand-offs kept their length (a launch of B bands has \
         B - 1 of them, one after the other). Elapsed, hand-off and sweep are in cycles; the sweep is one band's. The \
         hand-offs need not keep their length, though, since part of each is sweep: a band can start only once the \
         band above has published the first chunk of {HANDOFF_CHUNK} columns of its last row, and that row trails the \
         band's first lane by one step or more per lane. So the band above must first sweep those {HANDOFF_CHUNK} \
         columns and the trail, the column \"first chunk after\"; that part of a hand-off shrinks only as the sweep \
         gets faster, and the rest is waiting. Both columns count columns of sweep: cycles over one band's sweep \
         time per column."
    );
    md += &handoff_reading(&in_columns);
    md
}

/// A band version's figures from its counters, with `bands` bands (more
/// than one): (bands, elapsed cycles, hand-off, sweep, duration in ns);
/// `None` where a counter or the bands are missing.
fn band_figures(k: &KernelCounters, bands: Option<f64>) -> Option<(f64, f64, f64, f64, f64)> {
    let (elapsed, active, ns) =
        (k.mean(metric::ELAPSED_CYCLES)?, k.mean(metric::SM_ACTIVE_CYCLES)?, k.mean(metric::DURATION)?);
    let b = bands.filter(|b| *b > 1.0)?;
    let mean_life = active / b;
    let handoff = (elapsed - mean_life) / ((b - 1.0) / 2.0);
    let sweep = elapsed - (b - 1.0) * handoff;
    Some((b, elapsed, handoff, sweep, ns))
}

/// Which versions' hand-offs are mostly the sweep of the first chunk and
/// which mostly waiting beyond it, from each one's hand-off in columns
/// against its first chunk's lag: `(kernel, columns, lag)`.
fn handoff_reading(in_columns: &[(&str, f64, u64)]) -> String {
    let mut md = String::new();
    let join = |v: Vec<String>| match v.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => v.join(""),
    };
    // The share of a hand-off that is the first chunk's sweep, at most all
    // of it; mostly sweep when the rest is less than that sweep itself. It
    // is worked out from the whole columns shown beside it.
    let sweep_share = |c: f64, lag: u64| (lag as f64 / c.round().max(1.0)).min(1.0);
    let (tied, waiting): (Vec<_>, Vec<_>) = in_columns.iter().partition(|c| c.1 < 2.0 * c.2 as f64);
    let say = |(k, c, lag): &&(&str, f64, u64), part: &str, share: f64| {
        format!("`{k}` ({c:.0} against {lag}: {:.0}% {part})", 100.0 * share)
    };
    if !tied.is_empty() {
        let _ = writeln!(
            md,
            "\nFor {}, most of each hand-off is the sweep that publishes the first chunk: their hand-offs shrink only \
             as the sweep gets faster, and their ceilings rise as the hand-offs shrink, while a shorter wait has little \
             to take away.",
            join(tied.iter().map(|c| say(c, "sweep", sweep_share(c.1, c.2))).collect())
        );
    }
    if !waiting.is_empty() {
        let _ = writeln!(
            md,
            "\nFor {}, most of each hand-off is waiting beyond that sweep: a shorter wait would shrink the hand-offs and \
             raise the ceiling.",
            join(waiting.iter().map(|c| say(c, "waiting", 1.0 - sweep_share(c.1, c.2))).collect())
        );
    }
    md
}

/// The columns the systolic versions publish to the band below at a time.
const HANDOFF_CHUNK: u64 = 32;

/// How many steps a band's last row trails its first lane's first row in
/// each version that keeps the recurrence (`kernels/k7_diagonal.cu`): lane
/// `t` works one step behind lane `t - 1`, so lane 31 trails by 31 steps in
/// v1, v2 (its two rows in the same step) and v4; in v5 lane `t`'s row `i`
/// is at column `s - i - 2t`, so lane 31's second row trails by 63.
const LAST_ROW_TRAIL: [(&str, u64); 4] = [
    ("lattice_v1_systolic", 31),
    ("lattice_v2_systolic_2rows", 31),
    ("lattice_v4_systolic_staged", 31),
    ("lattice_v5_skewed_staged", 63),
];

/// The steps of a band's sweep before its last row has published the first
/// chunk, in columns of sweep (a band takes about a step per column): the
/// chunk's columns and the last row's trail. `None` for a version whose
/// trail is not known here.
fn first_chunk_lag(kernel: &str) -> Option<u64> {
    LAST_ROW_TRAIL.iter().find(|(k, _)| *k == kernel).map(|(_, trail)| HANDOFF_CHUNK + trail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::measured::{Run, Timing};

    /// Each goal is that of a registered chapter with a ladder, found
    /// through its value, and the goals page renders them in book order.
    #[test]
    fn every_goal_is_a_registered_ladders() {
        let r = record(vec![]);
        for (id, render) in GOALS {
            let ch = appendix_k::CHAPTERS.iter().find(|ch| ch.id == id).unwrap_or_else(|| panic!("{id}"));
            assert!(!ch.versions.is_empty(), "{id} has a goal but no ladder");
            assert_eq!(of(ch).map(|of| of(&r, None)), Some(render(&r, None)), "{id}");
        }
        assert!(appendix_k::CHAPTERS.iter().any(|ch| of(ch).is_none()), "a chapter without a goal has none");
        assert_eq!(render_all(&r, None), format!("{}\n{}", render_spiral(&r, None), render_wavefront(&r, None)));
    }

    fn table(title: &str, yardstick: Option<&str>, base_ms: f64, rows: &[(&str, f64)]) -> Table {
        Table {
            title: title.into(),
            copy_bytes: 1 << 26,
            copy_ms: base_ms,
            repeats: 5,
            rows: rows.iter().map(|(l, ms)| Timing { label: l.to_string(), bytes: 1 << 26, ms: *ms }).collect(),
            yardstick: yardstick.map(String::from),
        }
    }

    fn record(sections: Vec<Section>) -> Record {
        Record { run: Run::default(), sections }
    }

    fn section_of(ch: &Chapter, tables: Vec<Table>) -> Section {
        Section { chapter: ch.heading(), checks: vec![], lines: vec![], tables }
    }

    #[test]
    fn the_spiral_says_by_how_much_it_misses_or_that_it_is_not_measured() {
        let t = table(
            "4096x4096 floats, how fast can it go",
            None,
            1.0,
            &[("spiral_v3_tile64", 1.25), ("spiral_v4_mixed_bases", 1.2)],
        );
        let r = record(vec![section_of(&k6_spiral::CHAPTER, vec![t])]);
        let md = render_spiral(&r, None);
        assert!(md.contains("| 4096x4096 | `spiral_v4_mixed_bases` | 83.3% | misses it by 1.7 points |"), "{md}");
        assert!(md.contains("| 8192x8192 | not measured yet |"), "{md}");
        assert!(md.contains("What the counters show: not measured yet"), "{md}");
    }

    /// Counters of `kernel` on `shape`, its grid the one its plan gives.
    fn throughput_counters(
        v: &Version,
        shape: Shape,
        l2: f64,
        dram: f64,
        sectors: f64,
        requests: f64,
        throughput: Option<f64>,
    ) -> KernelCounters {
        let grid = (v.plan)(shape, 1).unwrap().cfg.grid;
        let mut k = KernelCounters {
            kernel: v.kernel.into(),
            grid: format!("({}, {}, 1)", grid.x, grid.y),
            launches: 1,
            ..Default::default()
        };
        for (name, value) in [
            (metric::L2_BYTES, l2),
            (metric::DRAM_THROUGHPUT, dram),
            (metric::GLOBAL_ST_SECTORS, sectors),
            (metric::GLOBAL_ST_REQUESTS, requests),
        ] {
            k.metrics.insert(name.into(), value);
        }
        if let Some(b) = throughput {
            k.metrics.insert(metric::L2_THROUGHPUT.into(), b);
        }
        k
    }

    /// The spiral's counters are read beside the transpose's, and its
    /// store sectors are set against the transpose's only when both store
    /// the same width: the `float2` transpose's tally is no yardstick for
    /// the spiral's `float`s.
    #[test]
    fn the_spiral_is_set_against_the_transpose_only_where_the_counters_compare() {
        let shape = SPIRAL_SHAPES[1];
        let title = format!("{shape} floats, how fast can it go");
        let spiral = k6_spiral::CHAPTER.versions.iter().find(|v| v.kernel == "spiral_v4_mixed_bases").unwrap();
        let record_with = |transpose: &'static Version| {
            record(vec![
                section_of(&k2_transpose::CHAPTER, vec![table(&title, None, 1.0, &[(transpose.kernel, 1.04)])]),
                section_of(&k6_spiral::CHAPTER, vec![table(&title, None, 1.0, &[(spiral.kernel, 1.375)])]),
            ])
        };
        let k2 = |kernel: &str| k2_transpose::CHAPTER.versions.iter().find(|v| v.kernel == kernel).unwrap();
        let (float2, floats) = (k2("transpose_v2_64x64_float2"), k2("transpose_v1_32x8"));
        // The H200's counts: 8192 x 8192 floats fill 8 388 608 sectors.
        let spiral_counts = throughput_counters(spiral, shape, 32.8, 61.5, 10_235_648.0, 2_113_024.0, None);
        let read = |transpose: &'static Version, sectors: f64, requests: f64| {
            let counts =
                [spiral_counts.clone(), throughput_counters(transpose, shape, 42.2, 81.3, sectors, requests, None)];
            render_spiral(&record_with(transpose), Some(&counts))
        };
        let md = read(float2, 16_777_216.0, 2_097_152.0);
        assert!(
            md.contains("| L2 % of peak over DRAM % of peak | L2 throughput (Nsight Compute's), % of peak |"),
            "{md}"
        );
        assert!(
            md.contains("| `spiral_v4_mixed_bases` | 8192x8192 | 32.8% | 61.5% | 0.53 | not measured yet | 1.22 |"),
            "{md}"
        );
        assert!(
            md.contains("| `transpose_v2_64x64_float2` | 8192x8192 | 42.2% | 81.3% | 0.52 | not measured yet | 2.00 |"),
            "{md}"
        );
        // Without the L2's throughput the bytes alone do not clear the L2.
        assert!(md.contains("by bytes, both units run further below their peaks than in the transpose."), "{md}");
        assert!(md.contains("is not in these counters: they do not rule the L2 out."), "{md}");
        // With it, the reading follows the two kernels' figures.
        let busy = |spiral_throughput: f64| {
            let counts = [
                throughput_counters(spiral, shape, 32.8, 61.5, 10_235_648.0, 2_113_024.0, Some(spiral_throughput)),
                throughput_counters(float2, shape, 42.2, 81.3, 16_777_216.0, 2_097_152.0, Some(50.0)),
            ];
            render_spiral(&record_with(float2), Some(&counts))
        };
        let md = busy(79.0);
        assert!(md.contains("| 0.53 | 79.0% | 1.22 |"), "{md}");
        assert!(md.contains("reads 79.0% of peak for the spiral and 50.0% for the transpose: the spiral keeps the L2 at least as busy as the transpose does while moving a smaller share of its bytes"), "{md}");
        let md = busy(40.0);
        assert!(md.contains("by that measure too the spiral leaves the L2 less busy than the transpose does"), "{md}");
        assert!(md.contains("0.53 against 0.52. Per byte of DRAM traffic the spiral moves about as much"), "{md}");
        assert!(md.contains("1.22 sectors for every 32-byte sector of output"), "{md}");
        assert!(md.contains("4.84 for each store request, which carries 127 bytes of output on average"), "{md}");
        // 128 bytes a request is 4 a lane, as the spiral's: the same width, whatever the source wrote.
        assert!(
            md.contains("touches 2.00 on the same count with stores that, as compiled, write the same 4 bytes a lane"),
            "{md}"
        );
        // A transpose whose requests carry 256 bytes stores 8 a lane: not the same count.
        let md = read(float2, 16_777_216.0, 1_048_576.0);
        assert!(
            md.contains(
                "The transpose's 2.00 on the same count does not measure the same thing: its store instructions write \
                 8 bytes a lane where the spiral's write 4 bytes, a single float (a request's bytes over its 32 lanes), \
                 and for those the counter tallies 16.00 sectors for each request of 256 bytes."
            ),
            "{md}"
        );
        assert!(!md.contains("do not by themselves"), "{md}");
        // A transpose of single floats is a yardstick: fewer sectors than it touches, then more.
        let md = read(floats, 16_777_216.0, 2_097_152.0);
        assert!(md.contains("The transpose, at 96% of a copy, touches 2.00 on the same count with stores"), "{md}");
        let md = read(floats, 8_388_608.0, 2_097_152.0);
        assert!(
            md.contains(
                "That is more than the transpose's 1.00, with stores that, as compiled, write the same 4 bytes a lane"
            ),
            "{md}"
        );
        assert!(!md.contains("does not measure the same thing"), "{md}");
    }

    /// Every version that keeps the recurrence has its first chunk's lag,
    /// so a new one cannot be judged against a lag it does not have.
    #[test]
    fn every_version_that_keeps_the_recurrence_has_its_first_chunk_lag() {
        for v in wavefront_versions() {
            assert!(first_chunk_lag(v.kernel).is_some(), "{} has no trail in LAST_ROW_TRAIL", v.kernel);
        }
        assert_eq!(first_chunk_lag("lattice_v1_systolic"), Some(63));
        assert_eq!(first_chunk_lag("lattice_v5_skewed_staged"), Some(95));
        assert_eq!(first_chunk_lag("lattice_v3_binomial"), None);
    }

    #[test]
    fn the_wavefront_is_set_against_the_graph_and_its_bound_read_from_the_counters() {
        use k7_diagonal::gpu::{GRAPH_BASELINE, STREAM_BASELINE};
        let graph = format!("lattice_wavefront, 8191 {GRAPH_BASELINE}");
        let stream = format!("lattice_wavefront, 8191 {STREAM_BASELINE}");
        let t = table(
            "the 4096x4096 table, how fast can it go",
            Some(&graph),
            12.0,
            &[
                (&stream, 30.0),
                ("lattice_v2_systolic_2rows", 1.2),
                ("lattice_v3_binomial", 0.12),
                ("lattice_v5_skewed_staged", 1.0),
            ],
        );
        let r = record(vec![section_of(&k7_diagonal::CHAPTER, vec![t])]);
        // 64 bands: elapsed 63 h + S, mean life 31.5 h + S, with h = 30 000 and S = 400 000.
        let (h, s, b) = (30_000.0, 400_000.0, 64.0);
        let mut k = KernelCounters {
            kernel: "lattice_v5_skewed_staged".into(),
            grid: "(64, 1, 1)".into(),
            launches: 1,
            ..Default::default()
        };
        k.metrics.insert(metric::ELAPSED_CYCLES.into(), 63.0 * h + s);
        k.metrics.insert(metric::SM_ACTIVE_CYCLES.into(), b * (31.5 * h + s));
        k.metrics.insert(metric::DURATION.into(), 1.0e6);
        let md = render_wavefront(&r, Some(&[k.clone()]));
        assert!(md.contains("| `lattice_v5_skewed_staged` | 1.000 ms | 12.0x | 30.0x |"), "{md}");
        assert!(
            md.contains("| `lattice_v3_binomial` (closed form: no recurrence) | 0.120 ms | 100.0x | 250.0x |"),
            "{md}"
        );
        assert!(
            md.contains(
                "`lattice_v5_skewed_staged`, runs 12.0x faster than the graph: it misses the goal by a factor of 4.2"
            ),
            "{md}"
        );
        assert!(
            md.contains("| `lattice_v5_skewed_staged` | 64 | 2290000 | 30000 | 83% | 400000 | 307 | 95 | 15x |"),
            "{md}"
        );
        // 307 columns of sweep is more than twice the 95 that publish the first chunk: 1 - 95 / 307.2 of it waits.
        assert!(
            md.contains(
                "For `lattice_v5_skewed_staged` (307 against 95: 69% waiting), most of each hand-off is waiting beyond \
                 that sweep: a shorter wait would shrink the hand-offs and raise the ceiling."
            ),
            "{md}"
        );
        assert!(!md.contains("most of each hand-off is the sweep"), "{md}");
        // A hand-off of 150 columns of sweep (S / 4096 cycles each) is mostly that sweep, 95 / 150 of it.
        let handoff = |columns: f64| {
            let mut k = k.clone();
            let h = columns * s / 4096.0;
            k.metrics.insert(metric::ELAPSED_CYCLES.into(), 63.0 * h + s);
            k.metrics.insert(metric::SM_ACTIVE_CYCLES.into(), b * (31.5 * h + s));
            render_wavefront(&r, Some(&[k]))
        };
        let md = handoff(150.0);
        assert!(
            md.contains(
                "For `lattice_v5_skewed_staged` (150 against 95: 63% sweep), most of each hand-off is the sweep that \
                 publishes the first chunk: their hand-offs shrink only as the sweep gets faster"
            ),
            "{md}"
        );
        assert!(!md.contains("most of each hand-off is waiting"), "{md}");
        // Shorter than the first chunk's sweep: all of it is sweep, never more.
        let md = handoff(90.0);
        assert!(md.contains("For `lattice_v5_skewed_staged` (90 against 95: 100% sweep), most of each"), "{md}");
        assert!(md.contains("| `lattice_v1_systolic` | 128 | not measured yet |"), "{md}");
        // An older record: the stream is the yardstick, the graph is missing.
        let t = table(
            "the 4096x4096 table, how fast can it go",
            Some("lattice_wavefront, 8191 launches back to back"),
            30.0,
            &[("lattice_v2_systolic_2rows", 1.2)],
        );
        let md = render_wavefront(&record(vec![section_of(&k7_diagonal::CHAPTER, vec![t])]), None);
        assert!(md.contains("`lattice_v2_systolic_2rows`, against the graph: not measured yet (this record times the launches on the stream only, 25.0x faster"), "{md}");
    }
}
