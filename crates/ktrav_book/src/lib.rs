//! `ktrav_book` is the link between the book and the code: where the book's
//! shown outputs and generated figures live, and the check that what a page
//! shows is what the code prints.
//!
//! Every output block the book shows lives in `book/outputs/NAME`, which the
//! page includes, and a hidden line in the page calls [`check_shown`] to
//! compare it with what the chapter's code prints now.

use ktrav_term::report::plain;
use std::path::PathBuf;

/// Where the book's shown outputs live.
pub fn outputs_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../book/outputs"))
}

/// Where the book's generated figures live.
pub fn figures_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../book/figures"))
}

/// Compares `printed` (colour removed) with the shown output `name`.
///
/// # Panics
/// Panics, naming the first line that differs, when they are not equal or
/// the file cannot be read: this is the assertion of a book test.
pub fn check_shown(name: &str, printed: &str) {
    let path = outputs_dir().join(name);
    let shown = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the shown output {}: {e}", path.display()));
    if let Some(diff) = first_difference(&shown, &plain(printed)) {
        panic!("book/outputs/{name} no longer matches what the code prints: {diff}");
    }
}

/// `None` when equal, else a description of the first differing line.
pub fn first_difference(shown: &str, printed: &str) -> Option<String> {
    if shown == printed {
        return None;
    }
    let (mut a, mut b) = (shown.lines(), printed.lines());
    for n in 1.. {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (x, y) => {
                return Some(format!(
                    "line {n}\n  book shows: {}\n  code prints: {}",
                    x.unwrap_or("<end of file>"),
                    y.unwrap_or("<end of output>")
                ))
            }
        }
    }
    unreachable!()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_located() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert!(first_difference("a\nb\n", "a\nc\n").unwrap().starts_with("line 2"));
        assert!(first_difference("a\n", "a\nb\n").unwrap().contains("<end of file>"));
        // A difference in the final newline alone is still a difference.
        assert!(first_difference("a\n", "a").is_some());
    }
}
