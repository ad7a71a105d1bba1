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

/// The book's pages made from the measurement records: for every
/// `book/measured/NAME.json`, the fragment `book/measured/NAME.md` that a
/// page includes and the charts `book/measured/NAME-N.svg` it shows, as
/// (path, text) pairs. `--refresh-outputs` writes them; a test compares.
pub fn measured_pages() -> anyhow::Result<Vec<(std::path::PathBuf, String)>> {
    use anyhow::Context;
    use ktrav::measured::{render_chart, render_markdown, Record};
    let dir = ktrav::book::outputs_dir().join("../measured");
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    let mut pages = Vec::new();
    for path in names {
        let stem = path.file_stem().expect("a file name").to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let record = Record::from_json(&text).with_context(|| format!("{}", path.display()))?;
        let mut charts = Vec::new();
        let md = render_markdown(&record, |section, table| {
            let t = &section.tables[table];
            (t.rows.len() >= 2).then(|| {
                let name = format!("{stem}-{}.svg", charts.len() + 1);
                charts.push((dir.join(&name), render_chart(t)));
                format!("measured/{name}")
            })
        });
        pages.push((dir.join(format!("{stem}.md")), md));
        pages.extend(charts);
    }
    Ok(pages)
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
