//! `book/values.txt` is what the code computes now: a changed chapter
//! constant, kernel plan or record changes a value, and the committed file
//! must follow (`scripts/refresh-outputs`), just as the shown outputs must.

#[test]
fn the_values_file_is_what_the_code_computes() {
    let path = booktools::values::values_path();
    let on_disk = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} is missing ({e}); run scripts/refresh-outputs", path.display()));
    let now = booktools::values::values_file().expect("the values compute");
    if let Some(diff) = ktrav_book::first_difference(&on_disk, &now) {
        panic!("book/values.txt is stale ({diff}); run scripts/refresh-outputs and review the diff");
    }
}

#[test]
fn every_chapter_has_values_under_its_own_key() {
    let values = appendix_k::values::chapter_values();
    for ch in appendix_k::CHAPTERS {
        let key = format!("k{}.", ch.section.trim_start_matches("K."));
        assert!(values.iter().any(|(n, _)| n.starts_with(&key)), "{} has no value named {key}…", ch.id);
    }
    for (name, _) in &values {
        let owned = appendix_k::CHAPTERS
            .iter()
            .any(|ch| name.starts_with(&format!("k{}.", ch.section.trim_start_matches("K."))));
        assert!(owned, "{name} is not under any chapter's key");
    }
}

#[test]
fn a_measured_rate_is_the_records() {
    use ktrav::measured::{Record, Run, Section, Table, Timing};
    let run = Run::default();
    let table = Table {
        title: "t".into(),
        copy_bytes: 2_000_000_000,
        copy_ms: 1.0,
        repeats: 3,
        rows: vec![Timing { label: "kernel_a (32x8 blocks)".into(), bytes: 1_000_000_000, ms: 1.0 }],
        yardstick: None,
    };
    let section = Section { chapter: "K.7 Diagonal".into(), checks: vec![], lines: vec![], tables: vec![table] };
    let values = booktools::values::record_values("r", &Record { run, sections: vec![section] });
    let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    assert_eq!(get("r.k7.t1.copy.gb_s"), Some("2000"));
    assert_eq!(get("r.k7.t1.kernel_a.tb_s"), Some("1.00"));
    assert_eq!(get("r.k7.t1.kernel_a.share"), Some("50%"));
}

#[test]
fn a_table_against_a_named_yardstick_gives_its_time_and_the_speed_ups() {
    use ktrav::measured::{Record, Run, Section, Table, Timing};
    let table = Table {
        title: "t".into(),
        copy_bytes: 1_000,
        copy_ms: 12.5,
        repeats: 3,
        rows: vec![
            Timing { label: "slow, back to back".into(), bytes: 1_000, ms: 25.0 },
            Timing { label: "fast".into(), bytes: 1_000, ms: 1.25 },
        ],
        yardstick: Some("the graph".into()),
    };
    let section = Section { chapter: "K.7 Diagonal".into(), checks: vec![], lines: vec![], tables: vec![table] };
    let values = booktools::values::record_values("r", &Record { run: Run::default(), sections: vec![section] });
    let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    assert_eq!(get("r.k7.t1.yardstick.ms"), Some("12.500"));
    assert_eq!(get("r.k7.t1.fast.speedup"), Some("10.0"));
    assert_eq!(get("r.k7.t1.slow.speedup"), Some("0.5"));
    assert_eq!(get("r.k7.t1.copy.gb_s"), None, "a named yardstick is no copy");
}
