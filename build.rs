//! Turns every Rust block of the book into a test (skeptic). Blocks marked
//! `rust,ignore` (those that `{{#include}}` code) are skipped; blocks that
//! call `ktrav::book::check_shown` assert that a shown output is what the
//! code prints.

fn main() {
    println!("cargo:rerun-if-changed=book");
    let pages = skeptic::markdown_files_of_directory("book/");
    skeptic::generate_doc_tests(&pages);
}
