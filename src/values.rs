//! The book's computed values: every chapter's own (`values()` in each
//! chapter crate, names prefixed with the chapter's key, `k6.…`), and the
//! public battery of every lab exercise as the prose states it
//! (`lab.<exercise>.battery`), rendered from [`ktrav::lab::battery`]
//! itself. `booktools refresh` adds the values read from the measured
//! records and writes them all to `book/values.txt`, which the book's
//! `{{value NAME}}` directives read.

use crate::CHAPTERS;
use ktrav::geometry::{ceil_div, MAX_GRID_Y};
use ktrav::lab::{battery, Exercise, Launch, Purpose};

/// Every chapter's values, in book order.
pub fn chapter_values() -> Vec<(&'static str, String)> {
    CHAPTERS.iter().flat_map(|ch| (ch.values)()).collect()
}

/// The chapter's values and every exercise's battery, as (name, value).
pub fn values() -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = chapter_values().into_iter().map(|(n, v)| (n.to_string(), v)).collect();
    let any = CHAPTERS.iter().flat_map(|ch| ch.exercises).next().expect("an exercise");
    let large = battery(any, true).into_iter().find(|c| c.purpose == Purpose::Large).expect("the large case");
    all.push(("lab.large".to_string(), large.label));
    for ch in CHAPTERS {
        for ex in ch.exercises {
            all.push((format!("lab.{}.battery", ex.id), battery_sentence(ex)));
            all.push((format!("lab.{}.tall", ex.id), tall_case(ex)));
        }
    }
    all.push(("lab.tall.by_chapter".to_string(), tall_by_chapter()));
    for ch in CHAPTERS.iter().filter(|ch| !ch.exercises.is_empty()) {
        let text = sim_battery_sentence(&ch.exercises[0]);
        assert!(
            ch.exercises.iter().all(|e| sim_battery_sentence(e) == text),
            "{}'s exercises differ in their simulator battery",
            ch.id
        );
        all.push((format!("lab.sim.battery.k{}", ch.section.trim_start_matches("K.")), text));
    }
    all.extend(lab_constants().into_iter().map(|(n, v)| (n.to_string(), v)));
    all.extend(simulator_values());
    all.push(("ladder.large_shape".to_string(), ladder_large_shape()));
    all
}

/// The shape `KTRAV_GPU_LARGE=1` adds to every ladder's validation shapes
/// ([`ktrav::ladder::shapes`]): `ladder.large_shape`.
pub fn ladder_large_shape() -> String {
    let (all, plain) = (ktrav::ladder::shapes(true), ktrav::ladder::shapes(false));
    let added: Vec<_> = all.iter().filter(|s| !plain.contains(s)).collect();
    assert_eq!(added.len(), 1, "the large flag adds one ladder shape");
    added[0].to_string()
}

/// The simulator page's small launch, the one its figure draws
/// ([`crate::simulator`]): `sim.example.*`.
pub fn simulator_values() -> Vec<(String, String)> {
    use crate::simulator::{BLOCK, COLS, ROWS};
    let shape = ktrav::Shape::new(ROWS, COLS);
    let cfg = ktrav::LaunchConfig::covering(shape, BLOCK).expect("the page's launch is valid");
    [
        ("rows", ROWS.to_string()),
        ("cols", COLS.to_string()),
        ("cells", shape.elements().to_string()),
        ("block", format!("{}×{}", BLOCK.x, BLOCK.y)),
        ("block_words", format!("{} by {}", BLOCK.x, BLOCK.y)),
        ("grid", format!("{} × {}", cfg.grid.x, cfg.grid.y)),
        ("grid_words", format!("{} by {}", cfg.grid.x, cfg.grid.y)),
        ("threads", cfg.total_threads().to_string()),
        ("outside", cfg.waste(shape).total.to_string()),
    ]
    .into_iter()
    .map(|(n, v)| (format!("sim.example.{n}"), v))
    .collect()
}

/// The least and the most of `bytes`, in whole GB rounded up (a memory
/// need stated low would mislead).
fn gb_range(bytes: impl Iterator<Item = u64>) -> [String; 2] {
    let bytes: Vec<u64> = bytes.collect();
    let gb = |b: u64| b.div_ceil(1_000_000_000).to_string();
    [gb(*bytes.iter().min().expect("a size")), gb(*bytes.iter().max().expect("a size"))]
}

/// The device memory the public `--large` shape past 2^31 elements needs, in
/// GB, for the exercise that needs least and the one that needs most
/// ([`ktrav::lab::device_bytes`]).
fn large_shape_gb() -> [String; 2] {
    gb_range(CHAPTERS.iter().flat_map(|ch| ch.exercises).flat_map(|ex| {
        battery(ex, true)
            .into_iter()
            .filter(|c| c.shape.elements() > 1 << 31)
            .map(move |c| ktrav::lab::device_bytes(ex, c.shape))
    }))
}

/// The device memory a grader sizes a task for when a round runs with a
/// seed and `--large` ([`ktrav::lab::largest_bytes`]: the hidden shapes
/// past 2^32 elements, bounded for every seed), in GB, least and most over
/// the exercises.
fn seeded_large_gb() -> [String; 2] {
    gb_range(CHAPTERS.iter().flat_map(|ch| ch.exercises).map(|ex| ktrav::lab::largest_bytes(ex, true, true)))
}

/// The checker's, the simulator track's and the grader's own figures, as
/// the lab pages state them: each read from the constant the code uses.
pub fn lab_constants() -> Vec<(&'static str, String)> {
    use ktrav::lab::simtrack::schedules;
    use ktrav::BlockOrder;
    let all = schedules();
    let mut orders: Vec<&BlockOrder> = Vec::new();
    for s in &all {
        if !orders.contains(&&s.blocks) {
            orders.push(&s.blocks);
        }
    }
    let shuffles = orders.iter().filter(|o| matches!(o, BlockOrder::Shuffled(_))).count();
    let [large_least, large_most] = large_shape_gb();
    let [seeded_least, seeded_most] = seeded_large_gb();
    let hidden = ktrav::lab::HIDDEN_MAX_ELEMENTS;
    assert!(hidden.is_power_of_two(), "the hidden shapes' bound is stated as a power of two");
    let hidden_most = format!("2^{}", hidden.trailing_zeros());
    vec![
        ("lab.sim.schedules", all.len().to_string()),
        ("lab.sim.block_orders", orders.len().to_string()),
        ("lab.sim.shuffles", shuffles.to_string()),
        ("lab.after_a_hang_s", ktrav_gpu::check::AFTER_A_HANG.as_secs().to_string()),
        ("lab.machine_limit_s", ktrav_gpu::check::worker::MACHINE_LIMIT.as_secs().to_string()),
        ("lab.queue_limit_s", ktrav_gpu::check::worker::QUEUE_LIMIT.as_secs().to_string()),
        ("lab.memory_turn_gib", (ktrav_gpu::check::lock::LARGE_BYTES >> 30).to_string()),
        ("lab.hidden.max_elements", hidden_most),
        ("lab.hidden.float_gib", ((hidden * size_of::<f32>() as u64) >> 30).to_string()),
        ("lab.hidden.u64_gib", ((hidden * size_of::<u64>() as u64) >> 30).to_string()),
        ("lab.large.least_gb", large_least),
        ("lab.large.most_gb", large_most),
        ("lab.large.seeded_least_gb", seeded_least),
        ("lab.large.seeded_most_gb", seeded_most),
        ("lab.sanitize.padding_mib", (ktrav_gpu::check::sanitize::PADDING_BYTES >> 20).to_string()),
        ("lab.printed.lines", ktrav::lab::printed::PRINTED_LINES.to_string()),
        ("lab.printed.chars", ktrav::lab::printed::PRINTED_LINE_CHARS.to_string()),
        ("lab.timing.repeats", ktrav::lab::TIMING_REPEATS.to_string()),
        ("lab.timing.flush_factor", ktrav::lab::timing::FLUSH_FACTOR.to_string()),
        ("lab.sanitize.max_elements", ktrav_gpu::check::sanitize::MAX_ELEMENTS.to_string()),
        ("lab.sanitize.attempts", ktrav_gpu::check::sanitize::ATTEMPTS.to_string()),
        ("lab.suite.ladder_agreement", format!("{:.0}%", 100.0 * ktrav_gpu::check::timing::LADDER_AGREEMENT)),
        ("lab.slurm.max_tasks", ktrav_grade::slurm::MAX_TASKS.to_string()),
        ("lab.slurm.base_mem_mb", ktrav_grade::slurm::BASE_MEM_MB.to_string()),
        ("lab.slurm.max_cpus", ktrav_grade::slurm::MAX_CPUS.to_string()),
    ]
}

/// Every exercise's tall case, the exercises with the same one grouped:
/// `K.2 (`transpose`, `find-the-bug`): …; K.3 (`copy`) and K.4 (…): …`.
pub fn tall_by_chapter() -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for ch in CHAPTERS {
        if ch.exercises.is_empty() {
            continue;
        }
        let ids: Vec<String> = ch.exercises.iter().map(|e| format!("`{}`", e.id)).collect();
        let who = format!("{} ({})", ch.section, ids.join(", "));
        let text = tall_case(&ch.exercises[0]);
        assert!(ch.exercises.iter().all(|e| tall_case(e) == text), "{}'s exercises differ in their tall case", ch.id);
        match groups.iter_mut().find(|(t, _)| *t == text) {
            Some((_, g)) => g.push(who),
            None => groups.push((text, vec![who])),
        }
    }
    let and = |v: &[String]| match v.len() {
        1 => v[0].clone(),
        _ => format!("{} and {}", v[..v.len() - 1].join(", "), v[v.len() - 1]),
    };
    groups.iter().map(|(text, who)| format!("{}: {text}", and(who))).collect::<Vec<_>>().join("; ")
}

/// The simulator track's shapes for `ex` after the source's own, in a
/// sentence: the chapter's own by their labels, the ragged edges, the thin
/// ones, and a grid-stride exercise's grid past the simulated `gridDim.y`
/// limit.
pub fn sim_battery_sentence(ex: &Exercise) -> String {
    use ktrav::lab::simtrack::{battery as sim_battery, SIM_MAX_GRID_Y};
    let (mut chapter, mut ragged, mut thin, mut tall) = (Vec::new(), Vec::new(), Vec::new(), None);
    for case in sim_battery(ex) {
        match case.purpose {
            Purpose::Source => {}
            Purpose::Chapter => chapter.push(format!("{}, ", case.label)),
            Purpose::Ragged => ragged.push(case.shape.to_string()),
            Purpose::Edge => thin.push(case.shape.to_string()),
            Purpose::PastGridY => tall = Some(case.shape),
            other => panic!("{}: the simulator battery has a shape there for {other:?}", ex.id),
        }
    }
    let mut text = format!("{}ragged edges {}, {}", chapter.concat(), ragged.join(" and "), thin.join(", "));
    if let Some(shape) = tall {
        text.push_str(&format!(
            ", and {shape}, there so that at least one grid needs more rows of blocks than a simulated gridDim.y limit of {SIM_MAX_GRID_Y} (other shapes' grids may too)"
        ));
    }
    text
}

/// The shapes of an exercise's public battery in a sentence: the source's
/// own, the chapter's own by their labels, then the rest, the tall case
/// last with what its grid is.
pub fn battery_sentence(ex: &Exercise) -> String {
    let (mut source, mut chapter, mut ragged, mut plain) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for case in battery(ex, false) {
        match case.purpose {
            Purpose::Source => source.push(case.shape.to_string()),
            Purpose::Chapter => chapter.push(format!("{}, ", case.label)),
            Purpose::Ragged => ragged.push(case.shape.to_string()),
            Purpose::Edge => plain.push(case.shape.to_string()),
            // The sentence ends with it, in the words of `tall_case`.
            Purpose::PastGridY => {}
            other => panic!("{}: the public battery has a shape there for {other:?}", ex.id),
        }
    }
    format!(
        "the source's own {} ({}), {}ragged edges ({}), {}, and {}",
        if source.len() == 1 { "shape" } else { "shapes" },
        source.join(", "),
        chapter.concat(),
        ragged.join(", "),
        plain.join(", "),
        tall_case(ex)
    )
}

/// The battery's shape sized against gridDim.y's limit, and what the
/// exercise's launch makes of it.
pub fn tall_case(ex: &Exercise) -> String {
    let case =
        battery(ex, false).into_iter().find(|c| c.purpose == Purpose::PastGridY).expect("a shape past gridDim.y");
    let shape = case.shape;
    match ex.launch {
        Launch::Covering { block, x_walks_rows, grid_stride_y } => {
            let walked = if x_walks_rows { shape.transposed() } else { shape };
            let (gx, gy) = (ceil_div(walked.cols, block.x as u64), ceil_div(walked.rows, block.y as u64));
            let side = if x_walks_rows { "columns" } else { "rows" };
            if grid_stride_y {
                format!(
                    "{shape}, whose {block} blocks would need a gridDim.y of {gy}, past its limit of {MAX_GRID_Y}, \
                     so the kernel must loop over rows of blocks"
                )
            } else {
                format!(
                    "{shape}, more {side} than gridDim.y's limit of {MAX_GRID_Y}, which {block} blocks cover \
                     with a grid of {gx}x{gy}, within that limit"
                )
            }
        }
        Launch::PerDiagonal { block } => format!(
            "{shape}, more rows than gridDim.y's limit of {MAX_GRID_Y}, which the launch of one 1D grid of \
             {block}-thread blocks per diagonal never puts on gridDim.y"
        ),
    }
}
