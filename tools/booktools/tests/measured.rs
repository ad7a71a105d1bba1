//! The measured pages are the records' rendering: every fragment and chart
//! under book/ made from `book/measured/*.json` is exactly what the renderer
//! makes from those records now, so no measured number is copied by hand.

#[test]
fn measured_pages_match_their_records() {
    let pages = booktools::measured_pages().expect("the records render");
    for (path, text) in &pages {
        let on_disk = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{} is missing ({e}); run scripts/refresh-outputs", path.display()));
        if let Some(diff) = ktrav_book::first_difference(&on_disk, text) {
            panic!("{} is not what its record renders to ({diff}); run scripts/refresh-outputs", path.display());
        }
    }
}

#[test]
fn every_record_is_shown_in_the_book() {
    let pages = booktools::measured_pages().expect("the records render");
    let book: String = std::fs::read_dir(ktrav_book::outputs_dir().join(".."))
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
    let book = ktrav_book::outputs_dir().join("..");
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
        assert!(
            text.contains(&format!("{{{{#include measured/{name}}}}}")),
            "{} does not include measured/{name}",
            page.display()
        );
    }
}

/// Each chapter with an "On this GPU" section has a cell under every tool
/// of its small-shape mode, a verdict linked to that chapter's log under
/// that tool, or the words that no log exists.
#[test]
fn every_gpu_chapter_has_a_verdict_or_says_it_has_no_log_under_every_tool() {
    let pages = booktools::measured_pages().expect("the records render");
    let (_, table) = pages.iter().find(|(p, _)| p.ends_with("sanitizers.md")).expect("a sanitizer table");
    let tools = booktools::sanitizer::SMALL_TOOLS;
    assert!(table.starts_with(&format!("| Chapter | {} |", tools.join(" | "))), "{table}");
    for ch in appendix_k::CHAPTERS.iter().filter(|ch| ch.gpu.is_some()) {
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| {} |", ch.id)))
            .unwrap_or_else(|| panic!("no row for {}\n{table}", ch.id));
        let cells: Vec<&str> = row.split(" | ").skip(1).map(|c| c.trim_end_matches(" |")).collect();
        assert_eq!(cells.len(), tools.len(), "{row}");
        for (cell, tool) in cells.iter().zip(tools) {
            let linked = cell.split("](measured/").nth(1).map(|rest| rest.trim_end_matches(')'));
            match linked {
                Some(file) => {
                    assert!(booktools::sanitizer::is_small_log(file, tool, ch.id), "{}: {tool}: {cell}", ch.id)
                }
                None => assert_eq!(*cell, "not run yet: no log", "{}: {tool}", ch.id),
            }
        }
    }
}

/// Made-up small-mode logs in compute-sanitizer's format render to their
/// verdicts: a clean run, one with an error in a kernel that is not wrong
/// on purpose (the error verdict), one whose only findings are in a kernel
/// wrong on purpose (clean, the findings listed apart), and one stopped at
/// its time limit (no verdict).
#[test]
fn made_up_logs_render_to_their_verdicts() {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sanitizer");
    let mut logs = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(fixtures).unwrap().flatten().map(|e| e.path()).collect();
    names.sort();
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        logs.push((
            name.clone(),
            booktools::sanitizer::parse(&name, &std::fs::read_to_string(&path).unwrap()).unwrap(),
        ));
    }
    let table = booktools::sanitizer::render_small(&logs, &["k4_boundary_check", "k7_diagonal"]);
    assert!(table.contains("| k4_boundary_check | [clean](measured/x-small-memcheck-k4_boundary_check.log) | [clean](measured/x-small-racecheck-k4_boundary_check.log) | [**2 errors**](measured/x-small-synccheck-k4_boundary_check.log) | not run yet: no log |"), "{table}");
    assert!(
        table.contains(
            "| k7_diagonal | [no verdict: stopped at its time limit](measured/x-small-memcheck-k7_diagonal.log) |"
        ),
        "{table}"
    );
    let wrong = booktools::sanitizer::render_wrong(&logs, &["k4_boundary_check", "k7_diagonal"]);
    assert!(wrong.contains("- k4_boundary_check, `fill_row_only_checked`, memcheck: 3 × `Invalid __global__ write of size 4 bytes`; 1 × `Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA API call to cuStreamSynchronize`"), "{wrong}");
    assert!(wrong.contains("- k4_boundary_check, `fill_row_only_checked`, racecheck: nothing"), "{wrong}");
    assert!(wrong.contains("- k7_diagonal, `lattice_single_launch`, memcheck: no verdict"), "{wrong}");
}

/// The counters the goals are rendered from are exactly the ones
/// `scripts/measure` collects (`booktools profiled`), and a CSV in ncu's
/// format with them (made up, base units) renders K.6's L2-against-DRAM
/// reading and K.7's hand-off bound; the committed record without them
/// says "not measured yet".
#[test]
fn the_goals_read_exactly_what_the_ncu_part_collects() {
    use booktools::counters::metric;
    let list = booktools::profile_list();
    let metrics_of = |kernel: &str| {
        list.iter()
            .find(|(_, k, _)| *k == kernel)
            .map(|(_, _, m)| *m)
            .unwrap_or_else(|| panic!("{kernel} is not profiled"))
    };
    for v in booktools::goals::spiral_profiled() {
        assert_eq!(metrics_of(v.kernel), &metric::THROUGHPUT[..]);
    }
    for v in k2_transpose::CHAPTER.versions {
        assert_eq!(metrics_of(v.kernel), &metric::THROUGHPUT[..]);
    }
    for v in booktools::goals::wavefront_versions() {
        assert_eq!(metrics_of(v.kernel), &metric::CYCLES[..]);
    }
    assert!(!list.iter().any(|(_, k, _)| k7_diagonal::gpu::CLOSED_FORM_VERSIONS.contains(k)));
    let csv = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ncu-goals.csv")).unwrap();
    let counters = booktools::counters::parse_ncu_csv(&csv).unwrap();
    let record = ktrav::measured::Record::from_json(
        &std::fs::read_to_string(booktools::measured_dir().join("h200.json")).unwrap(),
    )
    .unwrap();
    let spiral = booktools::goals::render_spiral(&record, Some(&counters));
    assert!(spiral.contains("| `spiral_v3_tile64` | 8192x8192 | 80.0% | 62.0% | 1.29 | 81.0% | 1.16 |"), "{spiral}");
    assert!(
        spiral.contains("| `transpose_v2_64x64_float2` | 8192x8192 | 85.0% | 80.0% | 1.06 | 88.0% | 1.00 |"),
        "{spiral}"
    );
    assert!(
        spiral.contains("| L2 % of peak over DRAM % of peak | L2 throughput (Nsight Compute's), % of peak |"),
        "{spiral}"
    );
    assert!(
        spiral.contains(
            "reads 92.0% of peak for the spiral and 88.0% for the transpose: the spiral keeps the L2 at least as busy as the \
             transpose does while moving a smaller share of its bytes"
        ),
        "{spiral}"
    );
    assert!(
        spiral.contains(
            "1.29 against 1.06. Per byte of DRAM traffic the spiral moves 21% more through the L2 than the transpose."
        ),
        "{spiral}"
    );
    assert!(spiral.contains("moves bytes through the L2 at 80.0% and DRAM at 62.0% of their peaks, `transpose_v2_64x64_float2` at 85.0% and 80.0%: by bytes, both units run further below"), "{spiral}");
    assert!(
        spiral.contains("Its stores touch 1.16 sectors for every 32-byte sector of output (1.00 would fill each once)"),
        "{spiral}"
    );
    // The fixture's transpose stores 128 bytes a request, 4 a lane, as the spiral: the tallies compare.
    assert!(
        spiral.contains(
            "That is more than the transpose's 1.00, with stores that, as compiled, write the same 4 bytes a lane"
        ),
        "{spiral}"
    );
    let wave = booktools::goals::render_wavefront(&record, Some(&counters));
    // The ceiling is the record's graph time over the fixture's 63 hand-offs
    // of 30000 cycles, at 2290000 cycles in 1 ms.
    let graph_ms: f64 = wave
        .lines()
        .find_map(|l| l.strip_prefix("| per-diagonal launches, one CUDA graph | "))
        .and_then(|rest| rest.split(" ms").next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no graph time in {wave}"));
    let ceiling = graph_ms / (63.0 * 30000.0 * 1.0 / 2290000.0);
    let row =
        format!("| `lattice_v2_systolic_2rows` | 64 | 2290000 | 30000 | 83% | 400000 | 307 | 63 | {ceiling:.0}x |");
    assert!(wave.contains(&row), "{row} not in {wave}");
    let none = booktools::goals::render_wavefront(&record, None);
    assert!(none.contains("| `lattice_v2_systolic_2rows` | 64 | not measured yet |"), "{none}");
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
            let Some(ch) = booktools::chapter_of(section) else {
                panic!("{stem}: no chapter is headed {}", section.chapter)
            };
            let key = booktools::records::section_key(&section.chapter).unwrap();
            let fragment = pages.iter().find(|(p, _)| p.ends_with(format!("{stem}-{key}.md"))).map(|(_, t)| t.as_str());
            for v in ch.versions {
                let timed = section.tables.iter().any(|t| t.rows.iter().any(|r| r.label == v.kernel));
                let said = fragment.is_some_and(|f| {
                    f.lines().any(|l| l.starts_with("Not measured yet") && l.contains(&format!("`{}`", v.kernel)))
                });
                assert!(timed != said, "{stem}, {}: {} timed {timed}, said not measured {said}", ch.id, v.kernel);
            }
        }
        for (p, _) in pages.iter().filter(|(p, _)| p.extension().is_some_and(|x| x == "svg")) {
            let name = p.file_name().unwrap().to_string_lossy();
            if let Some(rest) = name.strip_prefix(&format!("{stem}-")) {
                let key = rest.split('-').next().unwrap();
                assert!(
                    appendix_k::CHAPTERS.iter().any(|ch| ch.section.replace('.', "").to_lowercase() == key),
                    "{name}"
                );
            }
        }
    }
    assert!(records > 0, "no record under book/measured/");
}

/// `scripts/measure` takes its chapters from `appendix_k --gpu-ids` and its
/// profiled kernels from `booktools profiled`, so it names no chapter or
/// kernel itself; it runs each chapter's small-shape mode under exactly the
/// tools the sanitizer table expects; and `booktools import` names every
/// file it writes.
#[test]
fn the_measure_script_reads_its_lists_from_the_binaries() {
    let script = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/measure")).unwrap();
    let code: String = script.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n");
    assert!(code.contains("appendix_k\" --gpu-ids") && code.contains("booktools\" profiled"), "{code}");
    for ch in appendix_k::CHAPTERS {
        assert!(!code.contains(ch.id), "scripts/measure names {} itself", ch.id);
    }
    for (_, kernel, _) in booktools::profile_list() {
        assert!(!code.contains(kernel), "scripts/measure names {kernel} itself");
    }
    let tools = format!("for tool in {}; do", booktools::sanitizer::SMALL_TOOLS.join(" "));
    assert!(code.contains(&tools), "scripts/measure does not run `{tools}`");
    assert!(
        code.contains("KTRAV_GPU_SMALL=1 timeout"),
        "the sanitizers run the small-shape mode, each with a time limit"
    );
    // Every file the script writes is one `booktools import` brings in.
    for file in [
        "record.json",
        "ncu.csv",
        "gpu-suite.log",
        "gpu-suite-nvrtc.log",
        "gpu-suite-large.log",
        "doctor.txt",
        "doctor-nvrtc.txt",
    ] {
        // Written directly, or through a variable that names it (the large
        // suite's log, renamed when LARGE_CHAPTERS splits it).
        let written = code.contains(&format!("$out/{file}"))
            || (code.contains(&format!("log={file}")) && code.contains("\"$out/$log\""));
        assert!(written, "scripts/measure does not write {file}");
        assert!(booktools::measured_name(file, "h200").is_some(), "{file}");
    }
    assert_eq!(
        booktools::measured_name("small-memcheck-k2_transpose.log", "h200").as_deref(),
        Some("h200-small-memcheck-k2_transpose.log")
    );
    assert!(booktools::sanitizer::is_small_log("h200-small-memcheck-k2_transpose.log", "memcheck", "k2_transpose"));
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
            assert!(
                pages.iter().any(|(p, _)| p.file_name().is_some_and(|n| n.to_string_lossy() == name)),
                "book/measured/{name} is rendered from no record; remove it"
            );
        }
    }
}

/// The L2 and store figures a page quotes of the throughput versions come
/// from the counters of their launch at 8192x8192.
#[test]
fn throughput_versions_give_their_counters_as_values() {
    let csv = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ncu-goals.csv")).unwrap();
    let counters = booktools::counters::parse_ncu_csv(&csv).unwrap();
    let values = booktools::goals::throughput_values("h200", &counters);
    for (name, value) in [
        ("h200.ncu.spiral_v4_mixed_bases.l2_throughput", "92.0%"),
        ("h200.ncu.transpose_v2_64x64_float2.l2_throughput", "88.0%"),
        ("h200.ncu.transpose_v2_64x64_float2.l2_bytes", "85.0%"),
        ("h200.ncu.transpose_v2_64x64_float2.l2_over_dram", "1.06"),
        ("h200.ncu.transpose_v2_64x64_float2.store_sectors_per_request", "4"),
    ] {
        assert!(values.contains(&(name.to_string(), value.to_string())), "{name}: {values:?}");
    }
}
