//! Every exercise page's simulator-track instructions, run as a student
//! would run them. The `sim-check` commands are read from the pages (with
//! their values filled in), and must be exactly one per exercise of
//! `CHAPTERS`. Each is run in a copy of the workspace: first on the
//! untouched files, where it must fail as the page says; then with the
//! crate's solution copied over the student's file, where it must pass.
//! The real tree is never written: the copy lives in the target folder
//! (`target/exercise-pages/workspace`) and builds there, so only the
//! workspace's own crates are compiled again, and only the chapters after
//! the first run.

use appendix_k::CHAPTERS;
use ktrav::{Chapter, SimExercise};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The exercise page of `ch`: `book/k3-exercises.md` for K.3.
fn page_of(ch: &Chapter) -> PathBuf {
    root().join("book").join(format!("{}-exercises.md", ch.section.replace('.', "").to_lowercase()))
}

/// The page as a reader sees it: every `{{value NAME}}` filled in.
fn rendered(page: &Path) -> String {
    let text = std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    let values = std::fs::read_to_string(root().join("book/values.txt")).expect("book/values.txt");
    let values = mdbook_values::Values::parse(&values).expect("book/values.txt parses");
    mdbook_values::substitute(&text, &values).unwrap_or_else(|e| panic!("{}: {e}", page.display()))
}

/// The lines of the page's `console` blocks.
fn console_lines(text: &str) -> Vec<String> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            inside = !inside && line.trim() == "```console";
        } else if inside {
            out.push(line.trim().to_string());
        }
    }
    out
}

/// A page's `sim-check` command: (the line, package, exercise).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct PageCommand {
    line: String,
    package: String,
    exercise: String,
}

fn sim_commands(text: &str) -> Vec<PageCommand> {
    console_lines(text)
        .into_iter()
        .filter(|l| l.contains("sim-check"))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["cargo", "run", "-p", package, "--", "sim-check", exercise] => {
                    PageCommand { package: package.to_string(), exercise: exercise.to_string(), line: line.clone() }
                }
                _ => panic!(
                    "a sim-check command of another form than `cargo run -p CHAPTER -- sim-check EXERCISE`: {line}"
                ),
            }
        })
        .collect()
}

/// Every page's commands, with the chapter and exercise each names; each
/// exercise of `CHAPTERS` has its command on its chapter's page.
fn commands() -> Vec<(&'static Chapter, &'static SimExercise, PageCommand)> {
    let mut out = Vec::new();
    for ch in CHAPTERS.iter().filter(|ch| !ch.sim_exercises.is_empty()) {
        let page = page_of(ch);
        let found = sim_commands(&rendered(&page));
        for c in &found {
            assert_eq!(c.package, ch.id, "{}: {}", page.display(), c.line);
            assert!(
                ch.sim_exercises.iter().any(|s| s.id == c.exercise),
                "{}: {} is no exercise of {}",
                page.display(),
                c.line,
                ch.id
            );
        }
        for sim in ch.sim_exercises {
            let c = found
                .iter()
                .find(|c| c.exercise == sim.id)
                .unwrap_or_else(|| panic!("{} gives no sim-check command for {}", page.display(), sim.id));
            out.push((*ch, sim, c.clone()));
        }
    }
    out
}

#[test]
fn every_exercise_has_one_sim_check_command_on_its_page() {
    let all = commands();
    let ids: BTreeSet<&str> = all.iter().map(|(_, s, _)| s.id).collect();
    let expected: usize = CHAPTERS.iter().map(|ch| ch.sim_exercises.len()).sum();
    assert_eq!(ids.len(), expected);
    assert!(CHAPTERS.iter().all(|ch| !ch.sim_exercises.is_empty()), "every chapter has exercises");
    for ch in CHAPTERS.iter().filter(|ch| !ch.sim_exercises.is_empty()) {
        let text = std::fs::read_to_string(page_of(ch)).unwrap();
        assert!(text.contains("](twin.md)"), "{} does not link to the twin page", page_of(ch).display());
    }
}

/// Writes `bytes` to `path` unless it holds them already, so that an
/// unchanged file keeps its time and cargo does not build its crate again.
fn write_if_changed(path: &Path, bytes: &[u8]) {
    if std::fs::read(path).ok().as_deref() != Some(bytes) {
        std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// Brings the copy at `to` up to date with the workspace's sources,
/// leaving out what git ignores at the top (builds, the book's output, the
/// CUDA venv) and `.git`.
fn copy_workspace(from: &Path, to: &Path) {
    const LEFT_OUT: &[&str] = &[".git", "target", "book-out", ".cuda-venv", ".device-bin"];
    fn walk(from: &Path, to: &Path, top: bool) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if top && (LEFT_OUT.contains(&name.as_str()) || name.starts_with("mutants.out")) {
                continue;
            }
            let kind = e.file_type().unwrap();
            if kind.is_dir() {
                walk(&e.path(), &to.join(&name), false);
            } else if kind.is_file() {
                let mut bytes = std::fs::read(e.path()).unwrap();
                if name == "Cargo.toml" {
                    bytes = own_version(&String::from_utf8(bytes).unwrap()).into_bytes();
                }
                write_if_changed(&to.join(&name), &bytes);
            }
        }
    }
    walk(from, to, true);
}

/// A copied manifest with its package's version marked as the copy's
/// (`0.1.0+exercise-pages`). Cargo names a workspace crate's build by its
/// name, version and place in the workspace, not by the workspace's folder,
/// so without the mark the copy's crates would take the real ones' builds
/// in the shared target folder, and their record of which sources they
/// were built from: the real tree would then count as built from the copy.
fn own_version(manifest: &str) -> String {
    let mut out = String::with_capacity(manifest.len() + 16);
    for line in manifest.split_inclusive('\n') {
        match line.trim_end().strip_prefix("version = \"").and_then(|v| v.strip_suffix('"')) {
            Some(v) if !v.contains('+') => out.push_str(&format!("version = \"{v}+exercise-pages\"\n")),
            _ => out.push_str(line),
        }
    }
    out
}

/// The committed text of `file`, where this is a git checkout and the
/// working copy differs (a student's edits are not the starter); else
/// `None`.
fn committed(file: &str) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(root()).args(["show", &format!("HEAD:{file}")]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).to_string())
}

/// The folder the copy builds into: this workspace's target folder, found
/// from this test's own binary (`target/debug/deps/...`).
fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).map(Path::to_path_buf).unwrap_or_else(|| root().join("target"))
}

fn cargo(workspace: &Path) -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(workspace)
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_NET_OFFLINE", "true")
        .env("NO_COLOR", "1")
        // The copy's GPU crate embeds no kernels: sim-check needs none, and
        // nvcc would only spend the test's time.
        .env("NVCC", "/nonexistent/nvcc")
        .env_remove("RUST_BACKTRACE")
        .env_remove(ktrav::lab::SEED_ENV);
    c
}

/// Builds every chapter in the copy at once, so the commands then only run.
fn build(workspace: &Path, chapters: &[&str]) {
    let mut c = cargo(workspace);
    c.arg("build");
    for ch in chapters {
        c.args(["-p", ch]);
    }
    let out = c.output().expect("cargo runs");
    assert!(out.status.success(), "the copy does not build:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// Runs the page's command line, word for word, in the copy: (exit code,
/// stdout).
fn run(workspace: &Path, cmd: &PageCommand) -> (Option<i32>, String) {
    let words: Vec<&str> = cmd.line.split_whitespace().collect();
    assert_eq!(words[0], "cargo");
    let out = cargo(workspace).args(&words[1..]).output().expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{}: {stderr}", cmd.line);
    (out.status.code(), String::from_utf8(out.stdout).expect("UTF-8"))
}

fn shown(name: &str) -> Option<String> {
    std::fs::read_to_string(root().join("book/outputs").join(name)).ok()
}

/// What the untouched file must get, as its page says: K.1's starter the
/// report the page shows; a kernel starter `FAIL` on every shape, its
/// elements unwritten; a find-the-bug twin the report its answer shows,
/// or where the page shows none, a failure on some shapes only.
fn assert_fails_as_the_page_says(ch: &Chapter, sim: &SimExercise, page: &str, code: Option<i32>, out: &str) {
    let what = format!("{} on the untouched {}", sim.id, sim.file);
    assert_eq!(code, Some(1), "{what}:\n{out}");
    assert!(out.starts_with(&format!("checking {}\n", sim.file)), "{what}:\n{out}");
    let report = &out[out.find('\n').unwrap() + 1..];
    assert!(report.trim_end().ends_with("FAIL"), "{what}:\n{out}");
    let flat: String = page.split_whitespace().collect::<Vec<_>>().join(" ");
    if ch.exercises.is_empty() {
        assert_eq!(Some(report.to_string()), shown(&format!("{}-exercise.txt", ch.id)), "{what}");
    } else if sim.id.contains("find-the-bug") {
        match shown(&format!("{}-find-the-bug.txt", ch.id)) {
            Some(text) => assert_eq!(report, text, "{what}: not the report the answer shows"),
            None => {
                let lines: Vec<&str> = report.lines().filter(|l| l.starts_with("  ")).collect();
                assert!(
                    lines.iter().any(|l| l.ends_with("pass")),
                    "{what}: a find-the-bug kernel passes some shape:\n{out}"
                );
            }
        }
    } else {
        assert!(
            flat.contains("The untouched starter fails every shape, its elements *unwritten*"),
            "{}: the page no longer says what the starter gets",
            ch.id
        );
        let lines: Vec<&str> = report.lines().filter(|l| l.starts_with("  ")).collect();
        assert!(
            !lines.is_empty() && lines.iter().all(|l| l.contains("unwritten") && l.contains("FAIL")),
            "{what}:\n{out}"
        );
    }
}

/// The workspace's own chapter binaries (`target/debug/k3_grid_mapping`),
/// put back when dropped: the copy builds into the same target folder, and
/// cargo would leave the copy's binaries (built without kernels) where the
/// other tests, and the reader's `target/debug/...`, expect the workspace's.
struct KeepBinaries(Vec<(PathBuf, PathBuf)>);

impl KeepBinaries {
    fn of(chapters: &[&str]) -> KeepBinaries {
        let dir = target_dir().join("debug");
        let kept = dir.join("exercise-pages-kept");
        std::fs::create_dir_all(&kept).unwrap();
        let mut pairs = Vec::new();
        for ch in chapters {
            let (bin, copy) = (dir.join(ch), kept.join(ch));
            let _ = std::fs::remove_file(&copy);
            // A second name for the same file: cargo replaces the binary's
            // name with a new file, and this one keeps the old.
            let _ = std::fs::hard_link(&bin, &copy);
            pairs.push((copy, bin));
        }
        KeepBinaries(pairs)
    }
}

impl Drop for KeepBinaries {
    fn drop(&mut self) {
        for (copy, bin) in &self.0 {
            // Where there was none, the copy's goes: the next cargo build
            // of the workspace puts its own there.
            if std::fs::rename(copy, bin).is_err() {
                let _ = std::fs::remove_file(bin);
            }
        }
    }
}

#[test]
fn every_pages_sim_check_fails_the_starter_and_passes_the_solution() {
    let all = commands();
    // One copy at a fixed place in the target folder: its crates keep
    // their builds from one run to the next, and the target folder does
    // not fill with builds of copies that are gone.
    let ws = target_dir().join("exercise-pages").join("workspace");
    copy_workspace(&root(), &ws);
    for (_, sim, _) in &all {
        if let Some(text) = committed(sim.file) {
            if std::fs::read_to_string(root().join(sim.file)).ok().as_deref() != Some(&text) {
                println!("note: {} differs from its committed starter; the committed one is checked", sim.file);
            }
            write_if_changed(&ws.join(sim.file), text.as_bytes());
        }
    }
    let chapters: BTreeSet<&str> = all.iter().map(|(ch, _, _)| ch.id).collect();
    let chapters: Vec<&str> = chapters.into_iter().collect();
    let _kept = KeepBinaries::of(&chapters);

    build(&ws, &chapters);
    for (ch, sim, cmd) in &all {
        let page = std::fs::read_to_string(page_of(ch)).unwrap();
        let (code, out) = run(&ws, cmd);
        assert_fails_as_the_page_says(ch, sim, &page, code, &out);
    }

    // The student's way to a right answer: the solution's text in place of
    // the file's.
    for (_, sim, _) in &all {
        write_if_changed(&ws.join(sim.file), &std::fs::read(root().join(sim.solution)).unwrap());
    }
    build(&ws, &chapters);
    for (_, sim, cmd) in &all {
        let (code, out) = run(&ws, cmd);
        assert_eq!(code, Some(0), "{} with the solution in {}:\n{out}", cmd.line, sim.file);
        assert!(out.trim_end().ends_with("pass") && !out.contains("FAIL"), "{}:\n{out}", cmd.line);
    }
}

/// The command refuses an exercise its chapter does not have in one line,
/// exit code 2, as every bad input is refused.
#[test]
fn an_unknown_exercise_is_refused_in_one_line() {
    for ch in CHAPTERS.iter().filter(|ch| !ch.sim_exercises.is_empty()) {
        let err = ktrav::lab::simcheck::find(ch, Some("no-such-exercise")).unwrap_err().to_string();
        assert!(err.contains("no-such-exercise") && !err.contains('\n'), "{err}");
        for sim in ch.sim_exercises {
            assert_eq!(ktrav::lab::simcheck::find(ch, Some(sim.id)).unwrap().id, sim.id);
        }
    }
}
