//! The GPU suite: every chapter's cross-checks on a real GPU, each kernel
//! against its simulator or host reference.
//!
//! It has its own harness (`harness = false`) so that what it did is always
//! printed, captured or not: on a machine without a GPU every check says
//! `skipped: no GPU` and the suite ends with `0 passed, 0 failed, N skipped`
//! rather than passing silently. Set `KTRAV_GPU_LARGE=1` to add the shapes
//! past 2^31 elements (the 46341 x 46341 transpose needs 17 GB of device
//! memory), and `KTRAV_RECORD=FILE` to write what it measured as a record
//! for `book/measured/` (see `ktrav::measured`).

use appendix_k::CHAPTERS;
use ktrav::gpu::{section_named, SectionOutcome};
use ktrav::measured::{Record, Run};

fn main() {
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut sections = Vec::new();
    for ch in CHAPTERS {
        let Some(checks) = ch.gpu_checks else { continue };
        let name = ch.heading();
        match section_named(&name, checks) {
            SectionOutcome::Skipped(reason) => {
                println!("{name}: skipped: no GPU ({reason})");
                skipped += 1;
            }
            SectionOutcome::Ran { text, failures: 0, record } => {
                println!("{name}: ok\n{}", ktrav::report::plain(&text));
                sections.push(record);
                passed += 1;
            }
            other => {
                println!("{name}: FAILED\n{}", ktrav::report::plain(&other.text()));
                failed += 1;
            }
        }
    }
    if let Some(path) = std::env::var_os("KTRAV_RECORD") {
        match ktrav::gpu::open() {
            Ok(gpu) if failed == 0 && !sections.is_empty() => {
                let large = if std::env::var_os(ktrav::gpu::LARGE_ENV).is_some() { "KTRAV_GPU_LARGE=1 " } else { "" };
                let run = Run::on(&gpu, &format!("{large}KTRAV_RECORD=... .device-bin/gpu"));
                let record = Record { run, sections };
                std::fs::write(&path, record.to_json()).expect("the record can be written");
                println!("record written to {}", std::path::Path::new(&path).display());
            }
            _ => println!("no record written: it needs a GPU and every check passing"),
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::exit(1);
    }
}
