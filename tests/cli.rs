//! The all-chapters runner as a reader meets it: a real help, the chapter
//! list, one-line errors, and a quiet stop when its reader goes away.

use ktrav_testing::{assert_quiet_on_closed_pipe, assert_usage_errors, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_appendix_k");

#[test]
fn help_names_every_chapter() {
    let help = stdout_of(BIN, &["--help"]);
    for flag in ["--list", "--ids", "--gpu-ids", "--exercises"] {
        assert!(help.contains(flag), "--help does not name {flag}: {help}");
    }
    for ch in appendix_k::CHAPTERS {
        assert!(help.contains(&format!("cargo run -p {}", ch.id)), "--help does not name {}", ch.id);
    }
    assert_eq!(stdout_of(BIN, &["--list"]).lines().count(), appendix_k::CHAPTERS.len() + 1);
}

/// The machine-readable lists the scripts read: every chapter, the
/// chapters with an "On this GPU" section, and every lab exercise with its
/// chapter (`scripts/make-room`).
#[test]
fn ids_name_the_chapters_one_per_line() {
    let ids: Vec<&str> = appendix_k::CHAPTERS.iter().map(|ch| ch.id).collect();
    assert_eq!(stdout_of(BIN, &["--ids"]), ids.iter().map(|id| format!("{id}\n")).collect::<String>());
    let gpu: String =
        appendix_k::CHAPTERS.iter().filter(|ch| ch.gpu.is_some()).map(|ch| format!("{}\n", ch.id)).collect();
    assert!(!gpu.is_empty());
    assert_eq!(stdout_of(BIN, &["--gpu-ids"]), gpu);
    let exercises: String = appendix_k::CHAPTERS
        .iter()
        .flat_map(|ch| ch.exercises.iter().map(move |ex| format!("{} {}\n", ch.id, ex.id)))
        .collect();
    assert!(exercises.lines().count() > appendix_k::CHAPTERS.len(), "{exercises}");
    assert_eq!(stdout_of(BIN, &["--exercises"]), exercises);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    assert_usage_errors(
        BIN,
        &[
            &["--bogus"],
            &["k2_transpose"],
            &["--list", "--ids"],
            &["--ids", "--gpu-ids"],
            &["--ids", "--exercises"],
            &["--exercises", "--list"],
            &["--refresh-outputs"],
            &["doctor", "--list"],
            &["--list", "doctor"],
            &["doctor", "extra"],
            &["handout"],
            &["handout", "src"],
        ],
    );
}

/// `handout DIR` writes the starters into a new folder and refuses one
/// that holds anything (`src`, above, is refused with exit code 2).
#[test]
fn a_handout_holds_the_starters() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("handout");
    let said = stdout_of(BIN, &["handout", dir.to_str().unwrap()]);
    assert!(said.starts_with(&format!("wrote {} starters into ", appendix_k::handout::STARTERS.len())), "{said}");
    assert!(dir.join("k2_transpose/transpose.cu").is_file() && !dir.join("k2_transpose/wrong").exists());
}

#[test]
fn default_run_prints_every_chapter_in_order() {
    let texts: Vec<String> =
        appendix_k::CHAPTERS.iter().map(|ch| ktrav_term::report::plain(&ch.report_text())).collect();
    assert!(
        stdout_of(BIN, &[]) == texts.join("\n"),
        "the runner does not print exactly every chapter's report, in order"
    );
}

#[test]
fn closed_pipe_stops_quietly() {
    assert_quiet_on_closed_pipe(BIN, &[]);
}

#[test]
fn doctor_says_what_this_machine_can_run() {
    let help = stdout_of(BIN, &["--help"]);
    assert!(help.contains("doctor"), "--help does not name doctor: {help}");
    let text = stdout_of(BIN, &["doctor"]);
    for part in ["GPU: none (", "NVRTC: ", "lab compilations: ", "cuBLAS: ", "will run: "] {
        assert!(text.contains(part), "doctor printed no {part:?}: {text}");
    }
    assert!(text.contains("KTRAV_NO_GPU is set"), "doctor does not say why there is no GPU: {text}");
    assert!(text.contains("NVRTC"), "doctor does not say where NVRTC is: {text}");
}

/// `record FILE` refuses a file whose folder does not exist before any
/// work, and without a GPU writes nothing and says why (exit code 3).
#[test]
fn record_needs_a_folder_and_a_gpu() {
    assert_usage_errors(BIN, &[&["record"], &["record", "/no/such/folder/record.json"]]);
    let dir = std::env::temp_dir().join(format!("ktrav-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("record.json");
    let out = std::process::Command::new(BIN)
        .args(["record", file.to_str().unwrap()])
        .env("KTRAV_NO_GPU", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(ktrav::lab::COULD_NOT_CHECK), "{err}");
    assert!(err.trim().starts_with("error: nothing recorded: no GPU") && err.trim().lines().count() == 1, "{err}");
    assert!(!file.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
