//! The chapter's own check of what the book shows of it: every output of
//! K.1 under `book/outputs/` is what the chapter prints now, and every such
//! file is one the chapter produces.

use k1_row_col_major::shown_outputs;

#[test]
fn the_book_shows_what_the_chapter_prints() {
    let shown = shown_outputs();
    for (name, text) in &shown {
        ktrav_book::check_shown(name, text);
    }
    let mut in_book: Vec<String> = std::fs::read_dir(ktrav_book::outputs_dir())
        .expect("book/outputs is readable")
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("k1_row_col_major"))
        .collect();
    in_book.sort();
    let mut names: Vec<String> = shown.iter().map(|(n, _)| n.to_string()).collect();
    names.sort();
    assert_eq!(names, in_book);
}
