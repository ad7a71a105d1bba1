//! The book as a whole: every page listed, every include and anchor present,
//! every shown output asserted, and the whole book building with mdbook.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pages() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("book"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && !p.to_string_lossy().ends_with(".skt.md"))
        .collect();
    v.sort();
    v
}

/// Every `{{#include path[:anchor]}}` of a page, as (path, anchor).
fn includes(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("{{#") {
        let tail = &rest[at + 3..];
        let end = tail.find("}}").expect("unclosed {{# directive");
        let directive = tail[..end].trim();
        let (verb, arg) = directive.split_once(char::is_whitespace).unwrap_or((directive, ""));
        assert!(matches!(verb, "include" | "rustdoc_include"), "unknown mdbook directive {{{{#{verb}}}}}");
        let arg = arg.trim();
        match arg.split_once(':') {
            Some((p, a)) => out.push((p.to_string(), Some(a.to_string()))),
            None => out.push((arg.to_string(), None)),
        }
        rest = &tail[end..];
    }
    out
}

#[test]
fn every_include_and_anchor_exists() {
    let mut problems = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (path, anchor) in includes(&text) {
            let file = page.parent().unwrap().join(&path);
            let Ok(body) = std::fs::read_to_string(&file) else {
                problems.push(format!("{}: missing file {path}", page.display()));
                continue;
            };
            if let Some(anchor) = anchor {
                let is_lines = anchor.chars().all(|c| c.is_ascii_digit() || c == ':');
                let start = body.lines().any(|l| l.trim().ends_with(&format!("ANCHOR: {anchor}")));
                let end = body.lines().any(|l| l.trim().ends_with(&format!("ANCHOR_END: {anchor}")));
                if !(is_lines || start && end) {
                    problems.push(format!("{}: {path} has no anchor '{anchor}'", page.display()));
                }
            } else if body.trim().is_empty() {
                problems.push(format!("{}: {path} is empty", page.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn summary_lists_every_page() {
    let summary = std::fs::read_to_string(root().join("book/SUMMARY.md")).unwrap();
    let linked: BTreeSet<String> =
        summary.split("](").skip(1).map(|s| s.split(')').next().unwrap().to_string()).collect();
    for l in &linked {
        assert!(root().join("book").join(l).is_file(), "SUMMARY.md links to missing page {l}");
    }
    for p in pages() {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        // 404.md is mdbook's page for a missing address, never listed.
        if name != "SUMMARY.md" && name != "404.md" {
            assert!(linked.contains(&name), "page {name} is not listed in SUMMARY.md");
        }
    }
}

/// Every chapter's shown outputs, read through its `Chapter` value, are
/// the files under book/outputs, and no file there belongs to no chapter.
#[test]
fn every_chapter_output_is_its_file() {
    let mut owned = BTreeSet::new();
    for ch in appendix_k::CHAPTERS {
        for (name, text) in (ch.shown_outputs)() {
            ktrav_book::check_shown(name, &text);
            assert!(owned.insert(name.to_string()), "{name} is claimed by two chapters");
        }
    }
    for e in std::fs::read_dir(root().join("book/outputs")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        assert!(owned.contains(&name), "book/outputs/{name} belongs to no chapter");
    }
}

/// Each file under book/outputs is shown on some page and asserted by a
/// `check_shown` call on that same page, so no output block goes unchecked.
#[test]
fn every_shown_output_is_asserted() {
    let outputs = root().join("book/outputs");
    let mut names: Vec<String> =
        std::fs::read_dir(&outputs).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    names.sort();
    assert!(!names.is_empty());
    let texts: Vec<String> = pages().iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    for name in names {
        let shown = format!("{{{{#include outputs/{name}}}}}");
        let checked = format!("check_shown(\"{name}\"");
        assert!(
            texts.iter().any(|t| t.contains(&shown) && t.contains(&checked)),
            "book/outputs/{name} must be both included and checked by one page"
        );
    }
    // And no page shows a text block of output that is not one of those files:
    // every ```text block is an include.
    for (page, text) in pages().iter().zip(&texts) {
        let mut in_text = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                if in_text {
                    in_text = false;
                } else if line.trim_start() == "```text" {
                    in_text = true;
                }
                continue;
            }
            if in_text {
                assert!(
                    line.contains("{{#include outputs/"),
                    "{}: a ```text block must only include a checked output file, found: {line}",
                    page.display()
                );
            }
        }
    }
}

fn mdbook() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("MDBOOK").map(PathBuf::from),
        Some(PathBuf::from("mdbook")),
        std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo/bin/mdbook")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

#[test]
fn book_builds_without_warnings() {
    let Some(mdbook) = mdbook() else {
        assert!(std::env::var_os("CI").is_none(), "mdbook is required in CI (cargo install mdbook --locked)");
        eprintln!("skipped: mdbook is not installed (cargo install mdbook --locked)");
        return;
    };
    let dest = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("book-html");
    let _ = std::fs::remove_dir_all(&dest);
    let out = Command::new(mdbook).arg("build").arg("-d").arg(&dest).arg(root()).output().unwrap();
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "mdbook build failed:\n{log}");
    assert!(!log.contains("WARN") && !log.contains("ERROR"), "mdbook build complained:\n{log}");
    let k1 = std::fs::read_to_string(dest.join("k1-row-col-major.html")).unwrap();
    assert!(k1.contains("130816.0"), "K.1's page does not show its worked example");
    assert!(k1.contains("pub struct CacheConfig"), "K.1's page does not show the included code");
    assert!(!k1.contains("{{#include"), "an include directive survived into the HTML");
}

/// The students' edition (`KTRAV_STUDENT_EDITION=1 mdbook build`) holds
/// no solution: for every solution block of every page, its summary and a
/// telling line of each snippet it includes are on the full book's page and
/// on no page of the students' edition, which says the solution is left out.
#[test]
fn the_students_edition_leaves_every_solution_out() {
    let Some(mdbook) = mdbook() else {
        assert!(std::env::var_os("CI").is_none(), "mdbook is required in CI (cargo install mdbook --locked)");
        eprintln!("skipped: mdbook is not installed (cargo install mdbook --locked)");
        return;
    };
    let (full, students) = (build_book(&mdbook, "book-full", false), build_book(&mdbook, "book-students", true));
    let telling: Vec<(String, String)> = pages().iter().flat_map(|page| telling_lines(page)).collect();
    assert!(telling.len() >= 35, "the solution blocks' telling lines: {}", telling.len());
    for (html, text) in &telling {
        let shown = std::fs::read_to_string(full.join(html)).unwrap();
        assert!(shown.contains(text.as_str()), "the full book's {html} lacks {text:?}");
        let student = std::fs::read_to_string(students.join(html)).unwrap();
        assert!(!student.contains(text.as_str()), "the students' edition's {html} shows {text:?}");
        assert!(student.contains("This part is left out of the students"), "{html}");
    }
}

/// Builds the book into `dest` in the target's temporary folder: the
/// students' edition when `students`, else the full book.
fn build_book(mdbook: &Path, dest: &str, students: bool) -> PathBuf {
    let dest = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dest);
    let _ = std::fs::remove_dir_all(&dest);
    let mut cmd = Command::new(mdbook);
    cmd.arg("build").arg("-d").arg(&dest).arg(root()).env_remove(mdbook_values::STUDENT_EDITION);
    if students {
        cmd.env(mdbook_values::STUDENT_EDITION, "1");
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "mdbook build failed:\n{}", String::from_utf8_lossy(&out.stderr));
    dest
}

/// A page's solution blocks, each's text, and the page's text outside them.
fn solution_blocks(text: &str) -> (Vec<String>, String) {
    let mut blocks: Vec<String> = Vec::new();
    let mut outside = String::new();
    let mut inside = false;
    for line in text.lines() {
        match line.trim() {
            mdbook_values::SOLUTION_OPEN => {
                inside = true;
                blocks.push(String::new());
            }
            mdbook_values::SOLUTION_CLOSE => inside = false,
            _ if inside => blocks.last_mut().unwrap().push_str(&format!("{line}\n")),
            _ => outside.push_str(&format!("{line}\n")),
        }
    }
    (blocks, outside)
}

/// What `{{#include spec}}` on `page` includes: a file whole, or its anchor.
fn snippet(page: &Path, spec: &str) -> String {
    let (file, anchor) = spec.split_once(':').unwrap_or((spec, ""));
    let source = std::fs::read_to_string(page.parent().unwrap().join(file)).unwrap();
    match anchor {
        "" => source,
        a => source
            .split(&format!("ANCHOR: {a}"))
            .nth(1)
            .unwrap()
            .split(&format!("ANCHOR_END: {a}"))
            .next()
            .unwrap()
            .to_string(),
    }
}

/// What each solution block of `page` shows, each with the page's HTML
/// file: its summary, and from each included snippet its longest line of
/// plain code (no character HTML escapes) that the page shows nowhere else.
fn telling_lines(page: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(page).unwrap();
    let html = page.file_stem().unwrap().to_string_lossy().to_string() + ".html";
    let (blocks, mut outside) = solution_blocks(&text);
    // What the page shows besides its solutions, included files whole:
    // a line found there tells nothing about a solution.
    for include in outside.clone().split("{{#include ").skip(1) {
        outside.push_str(&snippet(page, include.split("}}").next().unwrap()));
    }
    let mut telling = Vec::new();
    for block in &blocks {
        let summary = block
            .split("<summary>")
            .nth(1)
            .and_then(|s| s.split("</summary>").next())
            .expect("a solution block has a summary");
        telling.push((html.clone(), summary.split('<').next().unwrap().trim().to_string()));
        for include in block.split("{{#include ").skip(1) {
            let inside = snippet(page, include.split("}}").next().unwrap());
            let plain = |l: &&str| {
                l.is_ascii() && !l.contains(['<', '>', '&', '"', '\'']) && !l.contains("ANCHOR") && l.len() > 12
            };
            let own =
                inside.lines().map(str::trim).filter(plain).filter(|l| !outside.contains(l)).max_by_key(|l| l.len());
            // A snippet every line of which the page shows elsewhere too
            // (a wrong twin differs from it by one line) is told by its summary.
            if let Some(line) = own {
                telling.push((html.clone(), line.to_string()));
            }
        }
    }
    telling
}

/// The minimum GPU the README and the introduction state is the lowest
/// architecture the build embeds code for: PTX is only JIT-compiled upwards.
#[test]
fn stated_gpu_minimum_is_the_lowest_embedded_architecture() {
    let build = std::fs::read_to_string(root().join("crates/ktrav_gpu/build.rs")).unwrap();
    let lowest = build
        .match_indices("arch=compute_")
        .map(|(at, m)| {
            let digits: String = build[at + m.len()..].chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().unwrap()
        })
        .min()
        .expect("build.rs names no -gencode arch=compute_NN");
    let stated = format!("compute capability {}.{} or newer", lowest / 10, lowest % 10);
    for doc in ["README.md", "book/introduction.md"] {
        let text = std::fs::read_to_string(root().join(doc)).unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(&stated), "{doc} must state the GPU minimum as \"{stated}\"");
    }
}

/// The README's layout table names every top-level folder of the tree and
/// every workspace member under `crates/` and `tools/`, and only paths that
/// exist.
#[test]
fn the_readme_layout_matches_the_tree() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let table: Vec<&str> =
        readme.split("## Layout").nth(1).expect("a Layout section").lines().filter(|l| l.starts_with("| `")).collect();
    let paths: Vec<String> = table
        .iter()
        .flat_map(|row| {
            row.split('|')
                .nth(1)
                .unwrap()
                .split(", ")
                .map(|p| p.trim().trim_matches('`').trim_end_matches('/').to_string())
        })
        .collect();
    let named = |p: &str| paths.iter().any(|x| x == p);
    let ignored = ["target", "book-out", ".git", ".cuda-venv", ".device-bin", "mutants.out", "mutants.out.old"];
    for e in std::fs::read_dir(root()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if !e.path().is_dir() || ignored.contains(&name.as_str()) {
            continue;
        }
        let listed = named(&name) || paths.iter().any(|p| p.starts_with(&format!("{name}/")));
        assert!(listed, "README's layout table has no row for {name}/");
    }
    for dir in ["crates", "tools"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap().flatten() {
            let member = format!("{dir}/{}", e.file_name().to_string_lossy());
            assert!(named(&member), "README's layout table has no row for {member}");
        }
    }
    for p in paths.iter().filter(|p| !p.contains('*')) {
        assert!(root().join(p).exists() || p == "book-out", "README's layout table names {p}, which does not exist");
    }
}

/// The values in `book/values.txt` as a map (see `tools/mdbook-values`).
fn values_file() -> mdbook_values::Values {
    let text =
        std::fs::read_to_string(root().join("book/values.txt")).expect("book/values.txt; run scripts/refresh-outputs");
    mdbook_values::Values::parse(&text).expect("book/values.txt parses")
}

/// Every `{{value NAME}}` of every page names a value the code computed:
/// an unknown name fails here as it fails `mdbook build`.
#[test]
fn every_value_a_page_quotes_is_computed() {
    let values = values_file();
    let mut unknown = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let names = mdbook_values::names_used(&text).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        for name in names.into_iter().filter(|n| values.get(n).is_none()) {
            unknown.push(format!("{}: unknown value `{name}`", page.display()));
        }
    }
    assert!(unknown.is_empty(), "{}", unknown.join("\n"));
    // And the check itself rejects a name nobody computed.
    assert!(mdbook_values::substitute("{{value k0.nothing}}", &values).is_err());
}

/// The chapters' values and the lab's batteries in book/values.txt are what
/// the code computes now (the measured values are checked by booktools'
/// tests): a changed constant makes the committed file stale and fails here.
#[test]
fn the_chapters_values_are_not_stale() {
    let file = values_file();
    let mut stale = Vec::new();
    for (name, value) in appendix_k::values::values() {
        match file.get(&name) {
            Some(v) if v == value => {}
            Some(v) => stale.push(format!("{name}: the file says `{v}`, the code computes `{value}`")),
            None => stale.push(format!("{name}: missing from the file; the code computes `{value}`")),
        }
    }
    assert!(stale.is_empty(), "book/values.txt is stale (run scripts/refresh-outputs):\n{}", stale.join("\n"));
}

/// The K.4 page quotes, for the 4x10 row-only fill, how often other GPU runs
/// came out clean, each beside the log it comes from: every quote must be
/// what that log's tally says.
#[test]
fn k4_quotes_other_runs_as_their_logs_tally_them() {
    let page = std::fs::read_to_string(root().join("book/k4-boundary-check.md")).unwrap();
    let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
    let cited = [
        "bench/results/run10_gpu_suite.log",
        "bench/results/run18a_gpu-suite.log",
        "bench/results/gpu-suite-nvrtc-2026-11-30.log",
        "bench/results/run19a_record.md",
        "bench/results/run25_gpu-suite.log",
        "bench/results/run26_gpu-suite.log",
    ]
    .into_iter()
    .map(|log| (log, root().join(log)))
    .chain([("measured/h200-gpu-suite-nvrtc.log", root().join("book/measured/h200-gpu-suite-nvrtc.log"))]);
    let mut last_end = page
        .find("Other runs on an H200 with a CUDA 13.0 driver mostly")
        .expect("the paragraph that quotes other runs");
    for (cited_as, path) in cited {
        let log = std::fs::read_to_string(&path).unwrap();
        // The first tally line after the 4x10 launch: "0 wrong: GPU  N of M (..".
        let launch = log.find("4x10 matrix").expect("the 4x10 launch");
        let line = log[launch..].lines().find(|l| l.trim_start().starts_with("0 wrong: GPU")).expect("its tally");
        let numbers: Vec<u64> =
            line.split_whitespace().filter_map(|w| w.parse().ok()).collect::<Vec<_>>()[1..3].to_vec();
        let (clean, runs) = (numbers[0], numbers[1]);
        let said = match clean {
            0 => format!("in none of {runs}"),
            c if c == runs => format!("in all {runs}"),
            c => format!("in {c} of {runs}"),
        };
        let at = page[last_end..].find(cited_as).map(|i| i + last_end).unwrap_or_else(|| panic!("{cited_as} cited"));
        let before = &page[last_end..at];
        assert!(before.contains(&said), "K.4 should say the run in {cited_as} came out clean {said}: {before}");
        last_end = at + cited_as.len();
    }
}

/// K.7 says that in the record's runs the H200 got every cell off the
/// first row and column of the single launch's tables wrong, run after run
/// (the simulator's lock-step count): every tally the record holds must be
/// (rows - 1) x (cols - 1).
#[test]
fn k7_says_what_the_records_single_launches_got_wrong() {
    let page = std::fs::read_to_string(root().join("book/k7-diagonal.md")).unwrap();
    let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(page.contains("the H200 got every cell off the first row and column wrong, run after run"), "{page}");
    let json = std::fs::read_to_string(root().join("book/measured/h200.json")).unwrap();
    let record = ktrav::measured::Record::from_json(&json).unwrap();
    let section = record.sections.iter().find(|s| s.chapter.starts_with("K.7")).expect("K.7's section");
    let mut tallies = 0;
    for line in &section.lines {
        // "16x16, 4x4 blocks: 225, 225, 225 of 256 cells wrong"
        let Some(counts) = line.trim().strip_suffix(" cells wrong") else { continue };
        let (head, counts) = counts.split_once(" blocks: ").expect("a shape and its blocks");
        let shape = head.split(',').next().unwrap();
        let (rows, cols) = shape.split_once('x').unwrap();
        let (rows, cols): (u64, u64) = (rows.parse().unwrap(), cols.parse().unwrap());
        let (wrong, total) = counts.split_once(" of ").unwrap();
        assert_eq!(total.parse::<u64>().unwrap(), rows * cols, "{line}");
        for w in wrong.split(", ") {
            assert_eq!(w.parse::<u64>().unwrap(), (rows - 1) * (cols - 1), "{line}");
            tallies += 1;
        }
    }
    assert!(tallies > 0, "the record holds no single-launch tally");
}

/// K.6 cites a development run's probe: a copy whose stores were shifted
/// by one float took "about half again as long" at 8192² as the same copy
/// unshifted. Every round of that size in the log must say so.
#[test]
fn k6_quotes_the_shifted_copy_as_its_log_times_it() {
    let page = std::fs::read_to_string(root().join("book/k6-spiral.md")).unwrap();
    let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        page.contains("(`bench/results/run3_k67.log`, described in `bench/NOTES.md`)")
            && page.contains("took about half again as long at 8192² as the same copy unshifted"),
        "K.6 no longer quotes the shifted copy as this test reads it"
    );
    let log = std::fs::read_to_string(root().join("bench/results/run3_k67.log")).unwrap();
    let time = |line: &str| -> f64 { line.split_whitespace().nth(1).unwrap().parse().unwrap() };
    let mut rounds = 0;
    for round in log.split("k6 ").filter(|r| r.starts_with("8192x8192 round")) {
        let find = |name: &str| round.lines().find(|l| l.trim_start().starts_with(name)).map(time);
        let (Some(aligned), Some(shifted)) = (find("probe_copy_shift0"), find("probe_copy_shift1")) else {
            panic!("a round at 8192x8192 without both probes: {round}")
        };
        let ratio = shifted / aligned;
        assert!((1.4..1.7).contains(&ratio), "the shifted copy took {ratio:.2} times as long: not about half again");
        rounds += 1;
    }
    assert!(rounds > 0, "the log holds no round at 8192x8192");
}
