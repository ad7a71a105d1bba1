//! A hostile room, graded as an instructor grades one: submissions that
//! include the grader's files (absolute, relative, `..`, angle-bracket,
//! macro-built, spliced, `__has_include`), the reference solution by a
//! relative include, and a `.cu` symbolic link to a file holding a token.
//! Every hostile file is refused with a reason that names its include, the
//! link is refused as a link, the token appears in no output and no file
//! grade wrote, and the usual first lines still compile. No GPU is needed:
//! the leaks this guards against happen at compile time.

use std::path::{Component, Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_appendix_k");

/// A token no file of the repository holds: the clock and the process.
fn token() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("KTRAV_SECRET_{:x}_{:x}", nanos, std::process::id())
}

/// `to` as a path relative to the folder `from`, both absolute: `..` up to
/// the root, then down.
fn up_to(from: &Path, to: &Path) -> PathBuf {
    let mut rel = PathBuf::new();
    for c in from.components() {
        if matches!(c, Component::Normal(_)) {
            rel.push("..");
        }
    }
    rel.join(to.strip_prefix("/").unwrap())
}

/// Every file under `dir`, with its text.
fn every_file(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            every_file(&p, out);
        } else {
            out.push((p.clone(), String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned()));
        }
    }
}

#[test]
fn a_hostile_room_is_refused_and_leaks_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).canonicalize().unwrap();
    let bin_dir = Path::new(BIN).parent().unwrap();
    assert!(
        bin_dir.join("k3_grid_mapping").is_file(),
        "k3_grid_mapping is not built: run cargo test at the workspace root"
    );
    let d = tempfile::tempdir().unwrap();
    let base = d.path().canonicalize().unwrap();
    let secret = token();
    let token_file = base.join("planted-token.txt");
    std::fs::write(&token_file, format!("{secret}\n")).unwrap();
    let room = base.join("room");
    std::fs::create_dir_all(&room).unwrap();
    let must = hostile_room(&root, &room, &token_file);
    assert!(must.len() >= 8, "the catalogue: {must:?}");
    std::os::unix::fs::symlink(&token_file, room.join("link.cu")).unwrap();
    // The `..` path does reach the token from where grade runs.
    assert_eq!(std::fs::read_to_string(root.join(up_to(&root, &token_file))).unwrap().trim(), secret);

    let results = base.join("results");
    let out = Command::new(BIN)
        .current_dir(&root)
        .args(["grade", room.to_str().unwrap(), "--exercise", "K.3:copy", "--results", results.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .env("KTRAV_NO_GPU", "1")
        .env_remove("CUDA_VISIBLE_DEVICES")
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "the usual file could not be checked without a GPU:\n{said}");
    assert!(!said.contains(&secret), "the token reached grade's output:\n{said}");
    assert!(said.contains("refused: link.cu: a symbolic link: only a regular file is graded"), "{said}");

    let mut written = Vec::new();
    every_file(&results, &mut written);
    assert!(written.len() > must.len(), "grade wrote its files: {}", written.len());
    for (path, text) in &written {
        assert!(!text.contains(&secret), "the token is in {}", path.display());
    }
    let summary = std::fs::read_to_string(results.join("summary.md")).unwrap();
    assert!(
        summary.contains("## Refused, not graded") && summary.contains("- `link.cu`: a symbolic link"),
        "{summary}"
    );
    gradebook_as_catalogued(&results, &must);
}

/// Writes every file of `tests/hostile` into `room`, its placeholders
/// pointing at `token_file`, and returns each one's name with what its
/// first line says it must get, sorted.
fn hostile_room(root: &Path, room: &Path, token_file: &Path) -> Vec<(String, String)> {
    let mut must = Vec::new();
    for e in std::fs::read_dir(root.join("tests/hostile")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "cu") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let what = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// must get: "))
            .unwrap_or_else(|| panic!("{} says not what it must get", p.display()));
        let text = text
            .replace("@UP_TOKEN@", up_to(root, token_file).to_str().unwrap())
            .replace("@TOKEN@", token_file.to_str().unwrap());
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        std::fs::write(room.join(format!("{name}.cu")), text).unwrap();
        must.push((name, what.to_string()));
    }
    must.sort();
    must
}

/// The gradebook in `results` holds no row for the link, and a row for
/// every file of `must` as it must get: refused before compiling, naming
/// its include, or compiled.
fn gradebook_as_catalogued(results: &Path, must: &[(String, String)]) {
    let mut reader = csv::Reader::from_path(results.join("grades.csv")).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let rows: Vec<Vec<String>> = reader.records().map(|r| r.unwrap().iter().map(String::from).collect()).collect();
    assert!(!rows.iter().any(|r| r[0] == "link"), "the link was graded");
    for (name, what) in must {
        let row = rows.iter().find(|r| &r[0] == name).unwrap_or_else(|| panic!("no row for {name}"));
        let note = &row[col("note")];
        match what.as_str() {
            "refused" => {
                assert_eq!(row[col("outcome")], "fail", "{name}: {row:?}");
                assert!(note.starts_with("refused before compiling: line "), "{name}: {note}");
                assert!(note.contains("a submission may include only <algorithm>"), "{name}: {note}");
                assert!(row[col("compile_error")].is_empty(), "{name} reached the compiler: {row:?}");
            }
            "compiles" => {
                assert_eq!(row[col("outcome")], "could not check", "{name}: {row:?}");
                if ktrav_gpu::nvrtc::locate().is_ok() {
                    assert!(note.contains("the file compiles"), "{name}: {note}");
                } else {
                    assert!(std::env::var_os("CI").is_none(), "CI compiles with NVRTC: {note}");
                    eprintln!("note: no NVRTC here, so {name} could not be compiled");
                }
            }
            other => panic!("{name}: unknown expectation {other:?}"),
        }
    }
    // Each refusal names its own include.
    let note_of = |n: &str| rows.iter().find(|r| r[0] == n).unwrap()[col("note")].clone();
    assert!(note_of("solution").contains("`#include \"kernels/k3_grid_mapping.cu\"`"), "{}", note_of("solution"));
    assert!(note_of("macro").contains("not named literally"), "{}", note_of("macro"));
    assert!(note_of("has_include").contains("__has_include"), "{}", note_of("has_include"));
    assert!(note_of("pasted").contains("token pasting"), "{}", note_of("pasted"));
}
