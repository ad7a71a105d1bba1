//! Turns every Rust block of the book into a test (skeptic). Blocks marked
//! `rust,ignore` (those that `{{#include}}` code) are skipped; blocks that
//! call `ktrav_book::check_shown` assert that a shown output is what the
//! code prints. It also embeds the lab's starters for `appendix_k handout`:
//! every `.cu` file of `exercises/<chapter>/`, not those under `wrong/`.

fn main() {
    println!("cargo:rerun-if-changed=book");
    println!("cargo:rerun-if-changed=exercises");
    let pages = skeptic::markdown_files_of_directory("book/");
    skeptic::generate_doc_tests(&pages);
    embed_starters();
}

/// Writes `$OUT_DIR/starters.rs`: `[("chapter/file.cu", include_str!(...)), ...]`.
fn embed_starters() {
    let root = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let mut files = Vec::new();
    for chapter in std::fs::read_dir(root.join("exercises")).unwrap().flatten() {
        println!("cargo:rerun-if-changed={}", chapter.path().display());
        for f in std::fs::read_dir(chapter.path()).unwrap().flatten() {
            let p = f.path();
            if f.file_type().unwrap().is_file() && p.extension().is_some_and(|e| e == "cu") {
                let name = format!("{}/{}", chapter.file_name().to_string_lossy(), f.file_name().to_string_lossy());
                files.push((name, p));
            }
        }
    }
    files.sort();
    let entries: Vec<String> =
        files.iter().map(|(n, p)| format!("    ({n:?}, include_str!({:?})),\n", p.display().to_string())).collect();
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("starters.rs");
    std::fs::write(out, format!("&[\n{}]\n", entries.concat())).unwrap();
}
