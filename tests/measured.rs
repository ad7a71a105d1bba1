//! The measured pages are the records' rendering: every fragment and chart
//! under book/ made from `book/measured/*.json` is exactly what the renderer
//! makes from those records now, so no measured number is copied by hand.

#[test]
fn measured_pages_match_their_records() {
    let pages = appendix_k::measured_pages().expect("the records render");
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
    let pages = appendix_k::measured_pages().expect("the records render");
    let book: String = std::fs::read_dir(ktrav::book::outputs_dir().join(".."))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    for (path, _) in pages.iter().filter(|(p, _)| p.extension().is_some_and(|x| x == "md")) {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(book.contains(&format!("{{{{#include measured/{name}}}}}")), "no page includes measured/{name}");
    }
}
