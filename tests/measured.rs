//! The measured pages are the records' rendering: every fragment and chart
//! under book/ made from `book/measured/*.json` is exactly what the renderer
//! makes from those records now, so no measured number is copied by hand.

#[test]
fn measured_pages_match_their_records() {
    let pages = appendix_k::measured_pages().expect("the records render");
    for (path, text) in &pages {
        let on_disk = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{} is missing ({e}); run scripts/refresh-outputs", path.display()));
        if let Some(diff) = ktrav::book::first_difference(&on_disk, text) {
            panic!("{} is not what its record renders to ({diff}); run scripts/refresh-outputs", path.display());
        }
    }
}

#[test]
fn every_record_is_shown_in_the_book() {
    let pages = appendix_k::measured_pages().expect("the records render");
    let book: String = std::fs::read_dir(ktrav::book::outputs_dir().join(".."))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    // The whole record (the hardware page), each chapter's section
    // (NAME-kN.md, on that chapter's page) and the counters (NAME-ncu.md).
    for (path, _) in pages.iter().filter(|(p, _)| p.extension().is_some_and(|x| x == "md")) {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(book.contains(&format!("{{{{#include measured/{name}}}}}")), "no page includes measured/{name}");
    }
}

/// Nsight Compute's counters, parsed from a CSV in ncu's `--csv` format (the
/// fixture is phase one's H200 profile of K.2's and K.3's kernels at
/// 4096x4096, written out in that format), land beside the simulator's
/// predictions: 32-way against 1-way bank conflicts, 4 against 32 sectors.
#[test]
fn counters_render_beside_the_simulators_predictions() {
    let csv = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ncu-k2-k3.csv")).unwrap();
    let counters = ktrav::measured::parse_ncu_csv(&csv).unwrap();
    let names: Vec<&str> = counters.iter().map(|k| k.kernel.as_str()).collect();
    assert_eq!(names, ["transpose_tile32", "transpose_tile32_padded", "copy_x_to_col", "copy_x_to_row"]);
    let md = ktrav::measured::render_counters(&counters, &appendix_k::counter_predictions());
    for row in [
        "| `transpose_tile32` | 128x128 | 1 | 32.30, 32.00 | 4.00, 4.00 |",
        "| `transpose_tile32_padded` | 128x128 | 1 | 1.03, 1.00 | 4.00, 4.00 |",
        "| `copy_x_to_col` | 128x512 | 1 | —, — | 4.00, 4.00 |",
        "| `copy_x_to_row` | 128x512 | 1 | —, — | 32.00, 32.00 |",
    ] {
        assert!(md.contains(row), "no row {row} in\n{md}");
    }
}

/// A chapter's measured section is shown on that chapter's own page.
#[test]
fn each_chapter_section_is_on_its_chapters_page() {
    let pages = appendix_k::measured_pages().expect("the records render");
    let book = ktrav::book::outputs_dir().join("..");
    for (path, _) in &pages {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(key) = name.strip_suffix(".md").and_then(|s| s.rsplit('-').next()) else { continue };
        if !(key.starts_with('k') && key.len() > 1 && key[1..].chars().all(|c| c.is_ascii_digit())) {
            continue;
        }
        let page = std::fs::read_dir(&book)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(&format!("{key}-")))
            .unwrap_or_else(|| panic!("no page book/{key}-*.md for measured/{name}"));
        let text = std::fs::read_to_string(&page).unwrap();
        assert!(text.contains(&format!("{{{{#include measured/{name}}}}}")), "{} does not include measured/{name}", page.display());
    }
}
