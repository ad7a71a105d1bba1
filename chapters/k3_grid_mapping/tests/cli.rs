//! The binary: the worked example by default, custom launches on request,
//! and one line on stderr with exit code 2 for anything it cannot run.

use ktrav_testing::{assert_default_run, assert_quiet_on_closed_pipe, assert_usage_errors, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k3_grid_mapping");

#[test]
fn default_prints_the_worked_example() {
    assert_default_run(BIN, &(k3_grid_mapping::CHAPTER.report)());
}

#[test]
fn custom_launch_runs() {
    let text = stdout_of(BIN, &["--rows", "37", "--cols", "61", "--block-x", "16", "--block-y", "16"]);
    let row = |name: &str| -> Vec<String> {
        let line = text.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name}: {text}"));
        line[name.len()..].split("  ").map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect()
    };
    // grid, threads, launched, needed, idle, spare x, spare y, once, never, twice+
    let cells = ["(4, 3)", "(64, 48)", "3072", "2257", "815", "3", "11", "2257", "0", "0"];
    assert_eq!(row("x -> column "), cells, "{text}");
    let cells = ["(3, 4)", "(48, 64)", "3072", "2257", "815", "11", "3", "2257", "0", "0"];
    assert_eq!(row("x -> row "), cells, "{text}");
    // Any one flag is a custom run; the others keep their defaults.
    let text = stdout_of(BIN, &["--block-y", "4"]);
    assert!(text.starts_with("a 1000x1000 matrix, 32x4 blocks"), "{text}");
}

#[test]
fn a_closed_pipe_stops_quietly() {
    assert_quiet_on_closed_pipe(BIN, &[]);
}

#[test]
fn bad_values_fail_in_one_line() {
    assert_usage_errors(
        BIN,
        &[
            &["--rows", "0"][..],
            &["--cols", "-1"],
            &["--block-x", "x"],
            &["--block-x", "0"],
            &["--block-x", "2000"],
            &["--block-x", "64", "--block-y", "32"],
            &["--rows", "70000", "--cols", "1", "--block-y", "1"],
            &["--rows", "100000", "--cols", "100000"],
            &["--rows", "99999999999999999999", "--cols", "2"],
            &["--rows", "67108864", "--cols", "67108864"],
            &["--rows", "8192", "--cols", "8193"],
            &["--cols", "1e6"],
            &["--rows"],
            &["--nonsense"],
        ],
    );
}

#[test]
fn check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_check_usage_errors(BIN, &k3_grid_mapping::CHAPTER);
}

#[test]
fn check_without_a_gpu_says_it_could_not_check() {
    ktrav_testing::assert_check_could_not_check(BIN, &k3_grid_mapping::CHAPTER);
}

/// `--gpu` at a reader's shape: without a GPU, the one line; every shape or
/// flag it cannot run refused in one line before any GPU is probed.
#[test]
fn gpu_at_a_shape_refuses_what_it_cannot_run() {
    let refused: &[(&[&str], &str)] = &[
        (&["--gpu"], "needs --rows or --cols"),
        (&["--rows", "0", "--gpu"], "0 is not positive"),
        (&["--cols", "-3", "--gpu"], "-3 is not positive"),
        (&["--rows", "67108864", "--cols", "67108864", "--gpu"], "matrix elements on the GPU"),
        (&["--rows", "40000", "--cols", "30000", "--gpu"], "limit of 1073741824"),
        (&["--rows", "64", "--gpu", "--block-x", "16"], "cannot be used with"),
        (&["--rows", "64", "--gpu", "--block-y", "16"], "cannot be used with"),
    ];
    ktrav_testing::assert_gpu_at_shape(BIN, &["--rows", "5000", "--cols", "3000", "--gpu"], refused);
}

#[test]
fn sim_check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_sim_check_usage_errors(BIN, &k3_grid_mapping::CHAPTER);
}

/// `check --compile-only`, as the exercise pages give it for a machine
/// without a GPU: the untouched starter compiles (exit 0, no shape run), a
/// kernel with a 32-bit size parameter and a file that reaches for another
/// file's contents fail in one line each (exit 1). Run from the workspace
/// root, as the pages say; without NVRTC (outside CI) it is skipped.
#[test]
fn compile_only_checks_a_file_without_a_gpu() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = std::env::temp_dir().join(format!("ktrav-k3-compile-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let starter = std::fs::read_to_string(root.join("exercises/k3_grid_mapping/copy.cu")).unwrap();
    let narrow = dir.join("narrow.cu");
    std::fs::write(&narrow, starter.replace("size_t rows", "int rows")).unwrap();
    let reach = dir.join("reach.cu");
    std::fs::write(&reach, format!("#include \"../../kernels/k3_grid_mapping.cu\"\n{starter}")).unwrap();
    let run = |file: &str| {
        let out = std::process::Command::new(BIN)
            .current_dir(&root)
            .args(["check", file, "--compile-only"])
            .env("KTRAV_NO_GPU", "1")
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
    };
    let (code, text) = run("exercises/k3_grid_mapping/copy.cu");
    if code == Some(3) && std::env::var_os("CI").is_none() {
        eprintln!("skipped: no NVRTC here: {text}");
        return;
    }
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("result: compiles: the file compiles, and its kernel's name and parameters match"), "{text}");
    let (code, text) = run(narrow.to_str().unwrap());
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("is 32-bit in your kernel"), "{text}");
    let (code, text) = run(reach.to_str().unwrap());
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("refused before compiling"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The refusal "Try it" shows on the page is the one the binary prints.
#[test]
fn a_block_of_2048_threads_is_refused_as_the_page_shows() {
    let out = ktrav_testing::run_binary(BIN, &["--block-x", "64", "--block-y", "32"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: {}\n", k3_grid_mapping::values::block64x32_error())
    );
}
