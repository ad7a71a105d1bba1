//! The root package: the book's list of chapters, read by the all-chapters
//! runner (`cargo run`), the GPU suite, the book's tests and its tooling
//! (`tools/booktools`).

use ktrav::Chapter;

/// Every chapter, in book order: the book's one list of them. Everything
/// else that names the chapters reads it, and a chapter's values, GPU
/// section and exercises through its [`Chapter`]; `tests/registry.rs`
/// ties it to the chapter crates of the workspace and the book's table of
/// contents.
pub const CHAPTERS: &[&Chapter] = &[
    &k1_row_col_major::CHAPTER,
    &k2_transpose::CHAPTER,
    &k3_grid_mapping::CHAPTER,
    &k4_boundary_check::CHAPTER,
    &k5_layout_interop::CHAPTER,
    &k6_spiral::CHAPTER,
    &k7_diagonal::CHAPTER,
];

/// Every figure of the book, each with the page part that draws it: the
/// simulator page's ([`simulator`]), then each chapter's, in book order.
pub fn figures() -> Vec<(&'static str, &'static str, String)> {
    let mut all: Vec<(&'static str, &'static str, String)> =
        simulator::figures().into_iter().map(|(name, svg)| ("simulator", name, svg)).collect();
    for ch in CHAPTERS {
        all.extend((ch.figures)().into_iter().map(|(name, svg)| (ch.section, name, svg)));
    }
    all
}

pub mod handout;
pub mod room;
pub mod simulator;
pub mod values;
