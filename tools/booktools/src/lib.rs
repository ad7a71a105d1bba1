//! The book's own tooling, apart from the chapters it renders: the pages
//! and charts made from what was measured on real hardware (records, Nsight
//! Compute counters, sanitizer and suite logs, all under `book/measured/`),
//! and the rewriting of every shown output and figure from the code
//! (`booktools refresh`, which `scripts/refresh-outputs` runs).
//!
//! * [`records`]: a measurement record as markdown and bar charts;
//! * [`counters`]: Nsight Compute's CSV beside the simulator's predictions;
//! * [`rows_wrong`]: K.4's tallies of rows wrong per run, as histograms;
//! * [`goals`]: K.6's and K.7's ladders against their goals, with what the
//!   counters show limits them;
//! * [`sanitizer`]: compute-sanitizer's logs: a verdict per chapter and tool,
//!   and what the tools say about the kernels wrong on purpose;
//! * [`suite`]: the GPU suite's logs, verdict by verdict;
//! * [`values`]: `book/values.txt`, every value the prose quotes;
//! * [`numbers`]: the literal numbers left in each page's prose.

pub mod counters;
pub mod goals;
pub mod numbers;
pub mod records;
pub mod rows_wrong;
pub mod sanitizer;
pub mod suite;
pub mod values;

use anyhow::{Context, Result};
use appendix_k::CHAPTERS;
use ktrav::measured::{Prediction, Record, Section};
use ktrav::Chapter;
use std::path::{Path, PathBuf};

/// Where the measurements and the pages made from them live.
pub fn measured_dir() -> PathBuf {
    ktrav_book::outputs_dir().join("../measured")
}

/// The files of `dir` whose name ends in `.ext`, sorted.
fn files(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    names.sort();
    Ok(names)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

fn stem(path: &Path) -> String {
    path.file_stem().expect("a file name").to_string_lossy().to_string()
}

/// The name under `book/measured/` of a file `scripts/measure` wrote, for
/// the record called `name`: `record.json` is `NAME.json`, `ncu.csv`
/// `NAME-ncu.csv`, every `.log` and `.txt` `NAME-FILE`; `None` for any other
/// file.
pub fn measured_name(file: &str, name: &str) -> Option<String> {
    match file {
        "record.json" => Some(format!("{name}.json")),
        "ncu.csv" => Some(format!("{name}-ncu.csv")),
        _ if file.ends_with(".log") || file.ends_with(".txt") => Some(format!("{name}-{file}")),
        _ => None,
    }
}

/// Copies what `scripts/measure` wrote under `dir` into [`measured_dir`],
/// renamed by [`measured_name`]; returns each (from, to).
pub fn import(dir: &Path, name: &str) -> Result<Vec<(PathBuf, PathBuf)>> {
    let target = measured_dir();
    let mut copied = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for from in entries {
        let file = from.file_name().expect("a file name").to_string_lossy().to_string();
        if let Some(to) = measured_name(&file, name).map(|n| target.join(n)) {
            // Read and written rather than copied: the measured files may
            // come back read-only, and the book's copies must stay writable.
            let bytes = std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
            std::fs::write(&to, bytes).with_context(|| format!("writing {}", to.display()))?;
            copied.push((from, to));
        }
    }
    anyhow::ensure!(!copied.is_empty(), "{} holds nothing scripts/measure writes", dir.display());
    Ok(copied)
}

/// The chapter whose heading a record's section carries, joined by the
/// section label (`K.2`) alone: a record keeps the title its chapter had
/// when it ran, and renaming a chapter must not orphan it.
pub fn chapter_of(section: &Section) -> Option<&'static Chapter> {
    chapter_headed(&section.chapter)
}

/// The chapter a heading names by its section label: `K.2 ...` under any
/// title gives K.2's chapter.
pub fn chapter_headed(heading: &str) -> Option<&'static Chapter> {
    let label = heading.split_whitespace().next()?;
    CHAPTERS.iter().copied().find(|ch| ch.section == label)
}

/// How a page names a record's section: its chapter's heading as it is
/// now, or the record's own text for a section no chapter claims.
pub fn current_heading(recorded: &str) -> String {
    chapter_headed(recorded).map_or_else(|| recorded.to_string(), |ch| ch.heading())
}

/// The chapter's versions that no table of `section` times.
pub fn unmeasured(section: &Section) -> Vec<&'static str> {
    let versions = chapter_of(section).map_or(&[][..], |ch| ch.versions);
    records::unmeasured(section, versions.iter().map(|v| v.kernel))
}

/// The chart file of table `table` of a record's section: the record's
/// name, the chapter's key and the table's number within its section
/// (`h200-k2-1.svg`), so a new table renames no other chapter's chart.
pub fn chart_name(record: &str, section: &Section, index: usize, table: usize) -> String {
    let key = records::section_key(&section.chapter).unwrap_or_else(|| format!("section{}", index + 1));
    format!("{record}-{key}-{}.svg", table + 1)
}

/// The Nsight Compute counters kept beside record `stem`
/// (`book/measured/STEM-ncu.csv`), or `None` where there are none.
pub fn record_counters(stem: &str) -> Result<Option<Vec<counters::KernelCounters>>> {
    let csv = measured_dir().join(format!("{stem}-ncu.csv"));
    if !csv.exists() {
        return Ok(None);
    }
    Ok(Some(counters::parse_ncu_csv(&read(&csv)?).with_context(|| format!("{}", csv.display()))?))
}

/// The book's pages made from the measurements, as (path, text) pairs;
/// `booktools refresh` writes them and a test compares. For every
/// `book/measured/NAME.json`: the whole record `NAME.md` (the hardware
/// page's), each chapter's section alone as `NAME-kN.md` (the chapter page's
/// "How fast can it go"), `NAME-run.md` (where it ran), and a chart
/// `NAME-kN-T.svg` of every table of two or more rows, shared by both, and
/// `NAME-kN-rows-wrong.svg` where a section tallies rows wrong per run. For
/// every `book/measured/NAME-ncu.csv` (Nsight Compute's `--csv` output):
/// `NAME-ncu.md`, the counters beside the simulator's predictions (the
/// chapter section of a ladder with a goal ends with it, read from both);
/// and `NAME-goals.md`, every ladder with a goal ([`goals::of`]) against it,
/// in book order, read from the record and `NAME-ncu.csv`. Then the sanitizer logs: the verdict
/// table of the small-shape logs (`sanitizers.md`), what they say about the
/// kernels wrong on purpose (`sanitizers-wrong.md`) and every other log by
/// its closing line (`sanitizers-whole.md`); and each GPU suite log as a list.
pub fn measured_pages() -> Result<Vec<(PathBuf, String)>> {
    let dir = measured_dir();
    let mut inputs = files(&dir, "csv")?;
    inputs.extend(files(&dir, "json")?);
    inputs.sort();
    let mut pages = Vec::new();
    for path in inputs {
        let stem = stem(&path);
        let text = read(&path)?;
        if path.extension().is_some_and(|x| x == "csv") {
            let counters = counters::parse_ncu_csv(&text).with_context(|| format!("{}", path.display()))?;
            pages.push((dir.join(format!("{stem}.md")), counters::render_counters(&counters, &counter_predictions())));
            continue;
        }
        let record = Record::from_json(&text).with_context(|| format!("{}", path.display()))?;
        let counters = record_counters(&stem)?;
        pages.extend(record_pages(&dir, &stem, &record, counters.as_deref()));
        pages.push((dir.join(format!("{stem}-goals.md")), goals::render_all(&record, counters.as_deref())));
    }
    let mut small = Vec::new();
    let mut other = Vec::new();
    for path in files(&dir, "log")? {
        let name = path.file_name().expect("a file name").to_string_lossy().to_string();
        if let Some(summary) = sanitizer::parse(&name, &read(&path)?) {
            if name.contains("-small-") {
                small.push((name, summary))
            } else {
                other.push((name, summary))
            }
        }
    }
    let gpu_chapters: Vec<&str> = CHAPTERS.iter().filter(|ch| ch.gpu.is_some()).map(|ch| ch.id).collect();
    pages.push((dir.join("sanitizers.md"), sanitizer::render_small(&small, &gpu_chapters)));
    pages.push((dir.join("sanitizers-wrong.md"), sanitizer::render_wrong(&small, &gpu_chapters)));
    pages.push((dir.join("sanitizers-whole.md"), sanitizer::render(&other, &chapter_kernels())));
    for path in files(&dir, "log")?.into_iter().filter(|p| p.to_string_lossy().contains("gpu-suite")) {
        let stem = stem(&path);
        pages.push((dir.join(format!("{stem}.md")), suite::render_suite_log(&stem, &read(&path)?)));
    }
    Ok(pages)
}

/// Every `extern "C" __global__` entry point of the chapters' `.cu` files,
/// chapter by chapter, in the order each file declares them.
pub fn chapter_kernels() -> Vec<&'static str> {
    const ENTRY: &str = "extern \"C\" __global__ void ";
    let mut kernels = Vec::new();
    for source in CHAPTERS.iter().filter_map(|ch| ch.kernel_source) {
        for (at, _) in source.match_indices(ENTRY) {
            let rest = &source[at + ENTRY.len()..];
            // Past `__launch_bounds__(...)`, if the declaration states one.
            let rest = match rest.strip_prefix("__launch_bounds__(") {
                Some(bounds) => bounds.split_once(')').map_or("", |(_, after)| after.trim_start()),
                None => rest,
            };
            let name = &rest[..rest.find('(').unwrap_or(0)];
            if !name.is_empty() && !kernels.contains(&name) {
                kernels.push(name);
            }
        }
    }
    kernels
}

/// The pages of one record named `stem`; the section of a chapter whose
/// ladder has a goal ([`goals::of`]) ends with it, read from the record and
/// its `counters`.
fn record_pages(
    dir: &Path,
    stem: &str,
    record: &Record,
    counters: Option<&[counters::KernelCounters]>,
) -> Vec<(PathBuf, String)> {
    let mut pages = Vec::new();
    let charts: Vec<Vec<Option<String>>> = record
        .sections
        .iter()
        .enumerate()
        .map(|(i, section)| {
            let mut drawn = 0;
            section
                .tables
                .iter()
                .map(|t| {
                    (t.rows.len() >= 2).then(|| {
                        let name = chart_name(stem, section, i, drawn);
                        drawn += 1;
                        pages.push((dir.join(&name), records::render_chart(t)));
                        format!("measured/{name}")
                    })
                })
                .collect()
        })
        .collect();
    let index = |s: &Section| record.sections.iter().position(|x| std::ptr::eq(x, s)).expect("own section");
    let md = records::render_markdown(record, unmeasured, |section, table| charts[index(section)][table].clone());
    pages.push((dir.join(format!("{stem}.md")), md));
    let r = &record.run;
    let run = format!(
        "| Run | |\n| --- | --- |\n| Card | {}, compute capability {} |\n| Driver | {} (CUDA {}) |\n| Date (UTC) | {} |\n",
        r.card, r.compute_capability, r.driver, r.driver_cuda, r.date
    );
    pages.push((dir.join(format!("{stem}-run.md")), run));
    for section in &record.sections {
        if let (Some(key), Some(svg)) = (records::section_key(&section.chapter), rows_wrong::render(section, &r.card)) {
            pages.push((dir.join(format!("{stem}-{key}-rows-wrong.svg")), svg));
        }
    }
    for (i, section) in record.sections.iter().enumerate() {
        if let Some(key) = records::section_key(&section.chapter).filter(|_| !section.tables.is_empty()) {
            let mut md = records::render_section(section, &unmeasured(section), |table| charts[i][table].clone());
            if let Some(render) = chapter_of(section).and_then(goals::of) {
                md += &format!("\n{}", render(record, counters));
            }
            pages.push((dir.join(format!("{stem}-{key}.md")), md));
        }
    }
    pages
}

/// The kernels the hardware page profiles with Nsight Compute, each with
/// what the simulator predicts for it per warp request: K.2's shared-memory
/// wavefronts per load of the tile's column (the conflict degree: 32 for the
/// square tile, 1 for the padded one) and global sectors per load (4), and
/// K.3's sectors per warp load under each mapping with 32x8 blocks (4 and
/// 32). `scripts/measure` profiles exactly these (`booktools profiled`).
pub fn profiled() -> Vec<(&'static Chapter, Prediction)> {
    use k2_transpose::{bank_figures, TileLayout, TILE};
    use k3_grid_mapping::{traffic, Mapping};
    use ktrav::{Dim2, Shape};
    let shape = Shape::new(64, 64);
    let hidden = ktrav_term::progress::ProgressBar::hidden();
    let copy_sectors = |mapping: Mapping| {
        let cfg = mapping.launch(shape, Dim2::new(32, 8)).expect("a 64x64 launch");
        let t = traffic(mapping, shape, &cfg);
        t.sectors as f64 / t.warps as f64
    };
    let mut out = Vec::new();
    for layout in [TileLayout::Square, TileLayout::Padded] {
        let [_, load] = bank_figures(shape, TILE, layout, &hidden).expect("a 64x64 simulation");
        let prediction = Prediction {
            kernel: layout.kernel().to_string(),
            wavefronts_per_shared_load: Some(load.degree.1 as f64),
            // The tile's input rows are read as K.3's x-to-columns copy reads.
            sectors_per_global_request: Some(copy_sectors(Mapping::XToCol)),
        };
        out.push((&k2_transpose::CHAPTER, prediction));
    }
    for mapping in [Mapping::XToCol, Mapping::XToRow] {
        let prediction = Prediction {
            kernel: mapping.kernel().to_string(),
            wavefronts_per_shared_load: None,
            sectors_per_global_request: Some(copy_sectors(mapping)),
        };
        out.push((&k3_grid_mapping::CHAPTER, prediction));
    }
    out
}

/// Every kernel `scripts/measure` profiles with Nsight Compute, as
/// (chapter id, kernel, metrics): the teaching kernels of [`profiled`] for
/// bank conflicts and sectors per load; K.6's newest versions and K.2's
/// versions (the tiled permutation nearest a copy, its reference) for the
/// L2's and DRAM's throughput and sectors per store; K.7's versions that
/// keep the recurrence for elapsed against active cycles.
pub fn profile_list() -> Vec<(&'static str, &'static str, &'static [&'static str])> {
    use k2_transpose::TileLayout;
    use k3_grid_mapping::Mapping;
    let teaching = &counters::metric::TEACHING[..];
    let mut out: Vec<(&str, &str, &[&str])> = Vec::new();
    for layout in [TileLayout::Square, TileLayout::Padded] {
        out.push((k2_transpose::CHAPTER.id, layout.kernel(), teaching));
    }
    for mapping in [Mapping::XToCol, Mapping::XToRow] {
        out.push((k3_grid_mapping::CHAPTER.id, mapping.kernel(), teaching));
    }
    for v in k2_transpose::CHAPTER.versions {
        out.push((k2_transpose::CHAPTER.id, v.kernel, &counters::metric::THROUGHPUT[..]));
    }
    for v in goals::spiral_profiled() {
        out.push((k6_spiral::CHAPTER.id, v.kernel, &counters::metric::THROUGHPUT[..]));
    }
    for v in goals::wavefront_versions() {
        out.push((k7_diagonal::CHAPTER.id, v.kernel, &counters::metric::CYCLES[..]));
    }
    out
}

/// The predictions of [`profiled`], for the counters table.
pub fn counter_predictions() -> Vec<Prediction> {
    profiled().into_iter().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_joins_its_chapter_by_section_label_whatever_title_it_kept() {
        let old = Section {
            chapter: "K.5 a title the chapter no longer has".into(),
            checks: vec![],
            lines: vec![],
            tables: vec![],
        };
        assert_eq!(chapter_of(&old).map(|ch| ch.id), Some("k5_layout_interop"));
        let k5 = CHAPTERS.iter().find(|ch| ch.section == "K.5").unwrap();
        assert_eq!(current_heading(&old.chapter), k5.heading());
        // K.1 is not K.10, and a heading no chapter claims stays as it was.
        assert!(chapter_headed("K.10 Beyond").is_none());
        assert_eq!(current_heading("K.10 Beyond"), "K.10 Beyond");
    }

    /// Every chapter's versions and teaching kernels, with or without
    /// `__launch_bounds__`, and nothing that is not a name.
    #[test]
    fn the_chapters_kernels_are_read_from_their_sources() {
        let kernels = chapter_kernels();
        for ch in CHAPTERS {
            for v in ch.versions {
                assert!(kernels.contains(&v.kernel), "{} is missing", v.kernel);
            }
        }
        for k in ["transpose_tile32", "spiral_scatter", "lattice_single_launch", "fill_row_only_checked"] {
            assert!(kernels.contains(&k), "{k} is missing");
        }
        assert!(kernels.iter().all(|k| k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')), "{kernels:?}");
    }

    #[test]
    fn every_section_of_the_committed_records_joins_a_chapter() {
        for path in files(&measured_dir(), "json").unwrap() {
            let record = ktrav::measured::Record::from_json(&read(&path).unwrap()).unwrap();
            for s in &record.sections {
                assert!(chapter_of(s).is_some(), "{}: section {:?} joins no chapter", path.display(), s.chapter);
            }
        }
    }
}
