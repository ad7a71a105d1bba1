//! The measured pages are the records' rendering: every fragment and chart
//! under book/ made from `book/measured/*.json` is exactly what the renderer
//! makes from those records now, so no measured number is copied by hand.

#[test]
fn measured_pages_match_their_records() {
    let pages = booktools::measured_pages().expect("the records render");
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
    let pages = booktools::measured_pages().expect("the records render");
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
    let counters = booktools::counters::parse_ncu_csv(&csv).unwrap();
    let names: Vec<&str> = counters.iter().map(|k| k.kernel.as_str()).collect();
    let profiled: Vec<String> = booktools::profiled().into_iter().map(|(_, p)| p.kernel).collect();
    assert_eq!(names, profiled, "the fixture profiles exactly the kernels scripts/measure profiles");
    let md = booktools::counters::render_counters(&counters, &booktools::counter_predictions());
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
    let pages = booktools::measured_pages().expect("the records render");
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

/// Each chapter with an "On this GPU" section has its whole section run
/// under every tool the hardware page promises, or the table says which
/// log is missing.
#[test]
fn every_gpu_chapter_has_its_sanitizer_logs_or_the_page_says_not() {
    let pages = booktools::measured_pages().expect("the records render");
    let (_, table) = pages.iter().find(|(p, _)| p.ends_with("sanitizers.md")).expect("a sanitizer table");
    for ch in appendix_k::CHAPTERS.iter().filter(|ch| ch.gpu_section.is_some()) {
        for tool in booktools::sanitizer::SECTION_TOOLS {
            let logged = table.lines().any(|row| {
                row.split('|').nth(4).is_some_and(|log| booktools::sanitizer::is_section_log(log.split(']').next().unwrap_or(""), tool, ch.id))
            });
            let said_missing = table.contains(&format!("| {tool} | {}'s GPU section | not run yet: no log |", ch.id));
            assert!(logged != said_missing, "{}: {tool}: logged {logged}, said missing {said_missing}\n{table}", ch.id);
        }
    }
}

/// Every version of every chapter is timed in each record's section of
/// that chapter, or the chapter's measured fragment says it is not
/// measured yet; and a record's chart files carry their chapter's key.
#[test]
fn every_version_is_measured_or_said_not_to_be() {
    let pages = booktools::measured_pages().expect("the records render");
    let dir = booktools::measured_dir();
    let mut records = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        records += 1;
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let record = ktrav::measured::Record::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for section in &record.sections {
            let Some(ch) = booktools::chapter_of(section) else { panic!("{stem}: no chapter is headed {}", section.chapter) };
            let key = booktools::records::section_key(&section.chapter).unwrap();
            let fragment = pages.iter().find(|(p, _)| p.ends_with(format!("{stem}-{key}.md"))).map(|(_, t)| t.as_str());
            for v in ch.versions {
                let timed = section.tables.iter().any(|t| t.rows.iter().any(|r| r.label == v.kernel));
                let said = fragment.is_some_and(|f| f.lines().any(|l| l.starts_with("Not measured yet") && l.contains(&format!("`{}`", v.kernel))));
                assert!(timed != said, "{stem}, {}: {} timed {timed}, said not measured {said}", ch.id, v.kernel);
            }
        }
        for (p, _) in pages.iter().filter(|(p, _)| p.extension().is_some_and(|x| x == "svg")) {
            let name = p.file_name().unwrap().to_string_lossy();
            if let Some(rest) = name.strip_prefix(&format!("{stem}-")) {
                let key = rest.split('-').next().unwrap();
                assert!(appendix_k::CHAPTERS.iter().any(|ch| ch.section.replace('.', "").to_lowercase() == key), "{name}");
            }
        }
    }
    assert!(records > 0, "no record under book/measured/");
}

/// `scripts/measure` takes its chapters from `appendix_k --gpu-ids` and its
/// profiled kernels from `booktools profiled`, so it names no chapter or
/// kernel itself; and it runs each section under exactly the tools the
/// sanitizer table expects.
#[test]
fn the_measure_script_reads_its_lists_from_the_binaries() {
    let script = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/measure")).unwrap();
    let code: String = script.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n");
    assert!(code.contains("appendix_k\" --gpu-ids") && code.contains("booktools\" profiled"), "{code}");
    for ch in appendix_k::CHAPTERS {
        assert!(!code.contains(ch.id), "scripts/measure names {} itself", ch.id);
    }
    for (_, p) in booktools::profiled() {
        assert!(!code.contains(&p.kernel), "scripts/measure names {} itself", p.kernel);
    }
    let tools = format!("for tool in {}; do", booktools::sanitizer::SECTION_TOOLS.join(" "));
    assert!(code.contains(&tools), "scripts/measure does not run `{tools}`");
}

/// No chart under book/measured/ is left over from an older rendering: each
/// is one the records render to now.
#[test]
fn every_chart_on_disk_is_rendered_from_a_record() {
    let pages = booktools::measured_pages().expect("the records render");
    for e in std::fs::read_dir(booktools::measured_dir()).unwrap().flatten() {
        let path = e.path();
        if path.extension().is_some_and(|x| x == "svg") {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            assert!(pages.iter().any(|(p, _)| p.file_name().is_some_and(|n| n.to_string_lossy() == name)), "book/measured/{name} is rendered from no record; remove it");
        }
    }
}
