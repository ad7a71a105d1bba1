//! The root package: the book's list of chapters, read by the all-chapters
//! runner (`cargo run`), `scripts/refresh-outputs`, the GPU suite and the
//! book's tests.

use ktrav::Chapter;

/// Every chapter, in book order.
pub const CHAPTERS: [&Chapter; 7] = [
    &k1_row_col_major::CHAPTER,
    &k2_transpose::CHAPTER,
    &k3_grid_mapping::CHAPTER,
    &k4_boundary_check::CHAPTER,
    &k5_layout_interop::CHAPTER,
    &k6_spiral::CHAPTER,
    &k7_diagonal::CHAPTER,
];

/// The book's pages made from the measurement records, as (path, text)
/// pairs; `--refresh-outputs` writes them and a test compares. For every
/// `book/measured/NAME.json`: the whole record `NAME.md` (the hardware
/// page's), each chapter's section alone as `NAME-kN.md` (the chapter
/// page's "How fast can it go"), and a chart `NAME-N.svg` of every table of
/// two or more rows, shared by both. For every `book/measured/NAME-ncu.csv`
/// (Nsight Compute's `--csv` output): `NAME-ncu.md`, the counters beside the
/// simulator's predictions.
pub fn measured_pages() -> anyhow::Result<Vec<(std::path::PathBuf, String)>> {
    use anyhow::Context;
    use ktrav::measured::{parse_ncu_csv, render_chart, render_counters, render_markdown, render_section, section_key, Record};
    let dir = ktrav::book::outputs_dir().join("../measured");
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json" || x == "csv"))
        .collect();
    names.sort();
    let mut pages = Vec::new();
    for path in names {
        let stem = path.file_stem().expect("a file name").to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        if path.extension().is_some_and(|x| x == "csv") {
            let counters = parse_ncu_csv(&text).with_context(|| format!("{}", path.display()))?;
            pages.push((dir.join(format!("{stem}.md")), render_counters(&counters, &counter_predictions())));
            continue;
        }
        let record = Record::from_json(&text).with_context(|| format!("{}", path.display()))?;
        // Chart file of each (section, table), numbered in record order.
        let mut charts: Vec<Vec<Option<String>>> = Vec::new();
        let mut count = 0;
        for section in &record.sections {
            charts.push(
                section
                    .tables
                    .iter()
                    .map(|t| {
                        (t.rows.len() >= 2).then(|| {
                            count += 1;
                            let name = format!("{stem}-{count}.svg");
                            pages.push((dir.join(&name), render_chart(t)));
                            format!("measured/{name}")
                        })
                    })
                    .collect(),
            );
        }
        let index = |s: &ktrav::measured::Section| record.sections.iter().position(|x| std::ptr::eq(x, s)).expect("own section");
        let md = render_markdown(&record, |section, table| charts[index(section)][table].clone());
        pages.push((dir.join(format!("{stem}.md")), md));
        let r = &record.run;
        let run = format!(
            "| Run | |\n| --- | --- |\n| Card | {}, compute capability {} |\n| Driver | {} (CUDA {}) |\n| Date (UTC) | {} |\n",
            r.card, r.compute_capability, r.driver, r.driver_cuda, r.date
        );
        pages.push((dir.join(format!("{stem}-run.md")), run));
        for (i, section) in record.sections.iter().enumerate() {
            if let Some(key) = section_key(&section.chapter).filter(|_| !section.tables.is_empty()) {
                let md = render_section(section, |table| charts[i][table].clone());
                pages.push((dir.join(format!("{stem}-{key}.md")), md));
            }
        }
    }
    // The sanitizer logs, each summed up by its own closing line.
    let mut logs: Vec<(String, ktrav::sanitizer::Summary)> = Vec::new();
    let mut log_files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    log_files.sort();
    for path in log_files {
        let name = path.file_name().expect("a file name").to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        if let Some(summary) = ktrav::sanitizer::parse(&name, &text) {
            logs.push((name, summary));
        }
    }
    if !logs.is_empty() {
        pages.push((dir.join("sanitizers.md"), ktrav::sanitizer::render(&logs)));
    }
    // The GPU suite's own logs: each chapter's verdict and the lab checker's
    // verdict on every catalogued kernel, line by line as the suite printed them.
    let mut suites: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log") && p.to_string_lossy().contains("gpu-suite"))
        .collect();
    suites.sort();
    for path in suites {
        let stem = path.file_stem().expect("a file name").to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        pages.push((dir.join(format!("{stem}.md")), render_suite_log(&stem, &text)));
    }
    Ok(pages)
}

/// A GPU suite log as a list: each chapter's verdict line, each lab line,
/// then the closing count, linked to the whole log.
pub fn render_suite_log(stem: &str, log: &str) -> String {
    let verdict = |l: &str| l.starts_with("K.") && (l.ends_with(": ok") || l.contains(": FAILED") || l.contains(": skipped"));
    let mut md = String::new();
    for line in log.lines().filter(|l| verdict(l) || l.starts_with("lab ")) {
        md.push_str(&format!("- {}\n", line.replace('<', "&lt;").replace('>', "&gt;")));
    }
    if let Some(total) = log.lines().rev().find(|l| l.contains(" passed, ") && l.contains(" failed, ")) {
        md.push_str(&format!("\nClosing line: `{total}` ([the whole log](measured/{stem}.log)).\n"));
    }
    md
}

/// What the simulator predicts for the kernels the hardware page profiles,
/// per warp request: K.2's shared-memory wavefronts per load of the tile's
/// column (the conflict degree: 32 for the square tile, 1 for the padded
/// one) and global sectors per load (4), and K.3's sectors per warp load
/// under each mapping with 32x8 blocks (4 and 32).
pub fn counter_predictions() -> Vec<ktrav::measured::Prediction> {
    use k2_transpose::{bank_figures, TileLayout, TILE};
    use k3_grid_mapping::{traffic, Mapping};
    use ktrav::measured::Prediction;
    use ktrav::{Dim2, Shape};
    let shape = Shape::new(64, 64);
    let hidden = ktrav::progress::ProgressBar::hidden();
    let copy_sectors = |mapping: Mapping| {
        let cfg = mapping.launch(shape, Dim2::new(32, 8)).expect("a 64x64 launch");
        let t = traffic(mapping, shape, &cfg);
        t.sectors as f64 / t.warps as f64
    };
    let mut out = Vec::new();
    for layout in [TileLayout::Square, TileLayout::Padded] {
        let [_, load] = bank_figures(shape, TILE, layout, &hidden).expect("a 64x64 simulation");
        out.push(Prediction {
            kernel: layout.kernel().to_string(),
            wavefronts_per_shared_load: Some(load.degree.1 as f64),
            // The tile's input rows are read as K.3's x-to-columns copy reads.
            sectors_per_global_request: Some(copy_sectors(Mapping::XToCol)),
        });
    }
    for mapping in [Mapping::XToCol, Mapping::XToRow] {
        out.push(Prediction {
            kernel: mapping.kernel().to_string(),
            wavefronts_per_shared_load: None,
            sectors_per_global_request: Some(copy_sectors(mapping)),
        });
    }
    out
}

/// Every figure of the book, each with the page part that draws it: the
/// simulator page's (drawn by `ktrav`), then each chapter's, in book order.
pub fn figures() -> Vec<(&'static str, &'static str, String)> {
    let mut all: Vec<(&'static str, &'static str, String)> =
        ktrav::figures::figures().into_iter().map(|(name, svg)| ("simulator", name, svg)).collect();
    for ch in CHAPTERS {
        all.extend((ch.figures)().into_iter().map(|(name, svg)| (ch.section, name, svg)));
    }
    all
}
