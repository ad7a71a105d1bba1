//! The book's figures, kept in sync with the code the way shown outputs are:
//! every SVG under `book/figures/` is what the chapter's code draws now, is
//! shown by some page, and is shown with alt text.
//!
//! After a deliberate change, `scripts/refresh-outputs` rewrites them; read
//! the diff (or open the SVGs) before committing.

use std::collections::BTreeMap;
use std::path::PathBuf;

fn book() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("book")
}

fn committed() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(book().join("figures"))
        .expect("book/figures exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    names
}

/// Every `![alt](figures/NAME)` of every page: NAME -> [(page, alt)].
fn embeds() -> BTreeMap<String, Vec<(String, String)>> {
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for entry in std::fs::read_dir(book()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let page = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](figures/") {
            let before = &rest[..at];
            let open = before.rfind("![").unwrap_or_else(|| panic!("{page}: a link to figures/ that is not an image"));
            let alt = before[open + 2..].trim().to_string();
            let tail = &rest[at + "](figures/".len()..];
            let end = tail.find(')').unwrap_or_else(|| panic!("{page}: unclosed image link"));
            out.entry(tail[..end].to_string()).or_default().push((page.clone(), alt));
            rest = &tail[end..];
        }
    }
    out
}

#[test]
fn every_figure_is_what_the_code_draws() {
    let mut problems = Vec::new();
    let drawn = appendix_k::figures();
    for (part, name, svg) in &drawn {
        let path = book().join("figures").join(name);
        match std::fs::read_to_string(&path) {
            Err(_) => problems.push(format!("{part}: book/figures/{name} is missing (run scripts/refresh-outputs)")),
            Ok(committed) => {
                if let Some(diff) = ktrav_book::first_difference(&committed, svg) {
                    problems.push(format!("{part}: book/figures/{name} no longer matches what the code draws: {diff}"));
                }
            }
        }
    }
    for name in committed() {
        if !drawn.iter().any(|(_, n, _)| *n == name) {
            problems.push(format!("book/figures/{name} is drawn by no chapter: remove it"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn figures_are_drawn_the_same_every_time() {
    let (a, b) = (appendix_k::figures(), appendix_k::figures());
    for ((_, name, x), (_, _, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs between two drawings");
    }
}

#[test]
fn every_part_of_the_book_has_a_figure() {
    let drawn = appendix_k::figures();
    for part in std::iter::once("simulator").chain(appendix_k::CHAPTERS.iter().map(|c| c.section)) {
        assert!(drawn.iter().any(|(p, _, _)| *p == part), "{part} draws no figure");
    }
}

#[test]
fn every_figure_is_shown_with_alt_text() {
    let embeds = embeds();
    let mut problems = Vec::new();
    for name in committed() {
        match embeds.get(&name) {
            None => problems.push(format!("book/figures/{name} is shown by no page (![alt text](figures/{name}))")),
            Some(uses) => {
                for (page, alt) in uses {
                    if alt.len() < 20 {
                        problems.push(format!(
                            "{page}: figures/{name} needs alt text that says what it shows, found {alt:?}"
                        ));
                    }
                }
            }
        }
    }
    for (name, uses) in &embeds {
        if !book().join("figures").join(name).is_file() {
            problems.push(format!("{}: shows figures/{name}, which does not exist", uses[0].0));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn figures_stay_small_and_carry_a_title() {
    for (part, name, svg) in appendix_k::figures() {
        assert!(svg.len() < 64 * 1024, "{part}: {name} is {} bytes; keep figures under 64 KiB", svg.len());
        assert!(svg.contains("<title>"), "{part}: {name} has no <title>");
        assert!(
            !svg.contains("fill=\"#fff") && !svg.contains("fill=\"white\""),
            "{part}: {name} paints white, which glares in the dark themes"
        );
    }
}

/// K.7's page says the single launch comes out right under every block
/// order that runs each block after the blocks above it and to its left,
/// and wrong reversed: the figure's runs show both, and the orders drawn
/// right are exactly those that keep that property.
#[test]
fn the_single_launch_figure_bears_out_the_page() {
    use k7_diagonal::figures::{single_launch_runs, SINGLE_BLOCK, SINGLE_SHAPE};
    let across = SINGLE_SHAPE.cols.div_ceil(SINGLE_BLOCK.x as u64) as usize;
    let runs = single_launch_runs(SINGLE_SHAPE, SINGLE_BLOCK);
    let names: Vec<&str> = runs.iter().map(|r| r.0).collect();
    assert_eq!(names, ["forward", "column by column", "anti-diagonal", "reversed"]);
    for (name, position, wrong) in &runs {
        let after_neighbours = (0..position.len()).all(|b| {
            let (by, bx) = (b / across, b % across);
            (bx == 0 || position[b] > position[b - 1]) && (by == 0 || position[b] > position[b - across])
        });
        let wrong = wrong.iter().filter(|&&w| w).count();
        assert_eq!(wrong == 0, after_neighbours, "{name}: {wrong} cells wrong");
    }
    assert!(
        runs.iter().filter(|r| r.2.iter().all(|&w| !w)).count() == 3,
        "three of the four orders fill the table right"
    );
}
