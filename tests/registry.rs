//! The registry, `appendix_k::CHAPTERS`, against the two lists of chapters
//! that cannot read it: the workspace's chapter crates (each in its
//! `chapters/<id>` folder, a workspace member by the `chapters/*` glob and a
//! dependency of the root package) and the book's table of contents.

use appendix_k::CHAPTERS;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's packages as `cargo metadata` reads them, no dependency
/// resolved.
fn packages() -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--offline", "--format-version", "1", "--manifest-path"])
        .arg(root().join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    meta["packages"].as_array().unwrap().clone()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Every crate under `chapters/` is in CHAPTERS and the root package
/// depends on it, each chapter once, numbered by its place in the book.
#[test]
fn every_chapter_crate_is_registered_once_in_book_order() {
    let chapters = root().join("chapters");
    let packages = packages();
    let crates: Vec<String> = packages
        .iter()
        .filter_map(|p| {
            let manifest = Path::new(p["manifest_path"].as_str().unwrap());
            let name = p["name"].as_str().unwrap();
            manifest.starts_with(&chapters).then(|| {
                assert_eq!(manifest.parent(), Some(chapters.join(name).as_path()), "{name} is not in chapters/{name}");
                name.to_string()
            })
        })
        .collect();
    let book = packages.iter().find(|p| p["name"] == "appendix_k").expect("the root package");
    let depended: Vec<String> = book["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["path"].as_str().is_some_and(|p| Path::new(p).starts_with(&chapters)))
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    let registered: Vec<String> = CHAPTERS.iter().map(|ch| ch.id.to_string()).collect();
    let registered = sorted(registered);
    assert_eq!(sorted(crates), registered, "the crates under chapters/ are not the chapters of CHAPTERS (src/lib.rs)");
    assert_eq!(sorted(depended), registered, "the root package's chapter dependencies are not CHAPTERS");
    for (i, ch) in CHAPTERS.iter().enumerate() {
        let n = i + 1;
        assert_eq!(ch.section, format!("K.{n}"), "{} is the book's chapter {n}", ch.id);
        assert!(ch.id.starts_with(&format!("k{n}_")), "{}: the crate of K.{n} is named k{n}_...", ch.id);
    }
}

/// The table of contents lists every chapter's page, `kN-name.md` from its
/// id, under its heading, in the order of CHAPTERS, and no other chapter.
#[test]
fn the_table_of_contents_lists_every_chapter_in_book_order() {
    let summary = std::fs::read_to_string(root().join("book/SUMMARY.md")).unwrap();
    let listed: Vec<&str> = summary.lines().filter(|l| l.starts_with("- [K.")).collect();
    let wanted: Vec<String> =
        CHAPTERS.iter().map(|ch| format!("- [{}]({}.md)", ch.heading(), ch.id.replace('_', "-"))).collect();
    assert_eq!(listed, wanted, "book/SUMMARY.md's chapters are not those of CHAPTERS");
}
