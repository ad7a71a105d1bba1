//! The lab as the chapters define it, read through `CHAPTERS`, the one
//! registry: every exercise, its files under `exercises/`, its `// expect:`
//! lines, its starter's launch sentence and its twins on the simulator track
//! agree with one another, and every file compiles with NVRTC.

use appendix_k::CHAPTERS;
use ktrav::lab::expect::{self, Expect};
use ktrav::lab::simtrack::{check_twin, check_twin_hidden, TEST_SEED};
use ktrav::{Chapter, Exercise};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn exercises() -> impl Iterator<Item = (&'static Chapter, &'static Exercise)> {
    CHAPTERS.iter().flat_map(|ch| ch.exercises.iter().map(move |ex| (*ch, ex)))
}

fn folder(ch: &Chapter) -> PathBuf {
    root().join("exercises").join(ch.id)
}

fn expects_of(path: &Path) -> Vec<Expect> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    expect::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The comment lines at the top of a `.cu` file, its `expect:` lines left
/// out, joined into one text.
fn header(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .take_while(|l| l.starts_with("//"))
        .filter(|l| !l.starts_with("// expect: "))
        .map(|l| l.trim_start_matches('/').trim())
        .collect();
    lines.join(" ")
}

#[test]
fn every_gpu_chapter_has_exercises_with_ids_unique_in_the_book() {
    let mut ids = BTreeSet::new();
    for ch in CHAPTERS.iter().filter(|ch| ch.gpu.is_some()) {
        assert!(!ch.exercises.is_empty(), "{} has a GPU section but no exercise", ch.id);
    }
    for (ch, ex) in exercises() {
        assert!(ids.insert(ex.id), "exercise id '{}' twice in the book ({} among them)", ex.id, ch.id);
        assert!(folder(ch).join(ex.starter).is_file(), "{}: exercises/{}/{} is missing", ex.id, ch.id, ex.starter);
        assert_eq!(ex.args.iter().filter(|a| **a == ktrav::lab::Arg::Out).count(), 1, "{}", ex.id);
        let kernels = ktrav_gpu::kernels::find(ch.id)
            .unwrap_or_else(|| panic!("{} has exercises but no kernels/{}.cu", ch.id, ch.id));
        assert!(
            ktrav_gpu::kernels::declares(kernels.source, ex.kernel),
            "{}: kernels/{}.cu has no solution {}",
            ex.id,
            ch.id,
            ex.kernel
        );
    }
}

/// Every `// expect:` line of every file under `exercises/` is understood
/// and names an exercise of that folder's chapter; the catalogue still holds
/// its race.
#[test]
fn every_exercise_file_states_verdicts_of_its_chapters_exercises() {
    let files = expect::files(&root()).unwrap();
    let mut races = 0;
    for (chapter, path) in &files {
        let ch = CHAPTERS
            .iter()
            .find(|ch| ch.id == chapter)
            .unwrap_or_else(|| panic!("exercises/{chapter} is no chapter's folder"));
        let expects = expects_of(path);
        assert!(!expects.is_empty(), "{} has no expect line", path.display());
        for e in &expects {
            assert!(
                ch.exercises.iter().any(|x| x.id == e.exercise),
                "{}: '{}' is no exercise of {}",
                path.display(),
                e.exercise,
                ch.id
            );
            races += e.race as usize;
        }
    }
    assert!(races >= 1, "the missing-barrier kernel is no longer marked as a race");
}

/// The exercises whose starter keeps the launch to itself: K.2's
/// find-the-bug, whose bug is in how many blocks the checker launches.
const LAUNCH_LEFT_TO_THE_STUDENT: &[&str] = &["find-the-bug"];

/// A starter says how the checker launches its kernel; that sentence is the
/// exercise's `Launch`, word for word. Only a starter whose puzzle is the
/// launch itself says nothing about it.
#[test]
fn every_starter_states_its_exercises_launch() {
    for (ch, ex) in exercises() {
        let text = header(&folder(ch).join(ex.starter));
        let sentence = ex.launch.sentence();
        if LAUNCH_LEFT_TO_THE_STUDENT.contains(&ex.id) {
            for word in ["blockDim", "gridDim", "checker launches"] {
                assert!(!text.contains(word), "{}: {} says '{word}', which is the puzzle:\n{text}", ex.id, ex.starter);
            }
        } else {
            assert!(text.contains(&sentence), "{}: {} does not say \"{sentence}\":\n{text}", ex.id, ex.starter);
        }
    }
    for id in LAUNCH_LEFT_TO_THE_STUDENT {
        assert!(exercises().any(|(_, ex)| ex.id == *id), "no exercise {id}");
    }
}

/// The simulator track agrees with the catalogue: each wrong twin is named
/// after a file of `wrong/` whose `expect:` line for the exercise names the
/// twin's kind of verdict; every catalogued wrong kernel that fails on the
/// default battery has a twin; and every starter names its verdict. (The
/// student's own twin is judged by `sim-check` alone: the exercise pages'
/// test runs it on the untouched files.)
#[test]
fn every_twin_is_its_files_and_every_file_has_its_twin() {
    for (ch, ex) in exercises() {
        for (twin, kind) in ex.twins.wrong {
            let file = folder(ch).join("wrong").join(format!("{}.cu", twin.name));
            let named: Vec<Expect> = expects_of(&file).into_iter().filter(|e| e.exercise == ex.id).collect();
            let agrees =
                |e: &Expect| e.kind == Some(*kind) || (e.hidden_only && e.hidden_kind.is_none_or(|k| k == *kind));
            assert!(named.iter().any(agrees), "{}: {} expects {named:?}, its twin '{kind}'", ex.id, file.display());
        }
        let mut wrong: Vec<PathBuf> =
            std::fs::read_dir(folder(ch).join("wrong")).into_iter().flatten().flatten().map(|e| e.path()).collect();
        wrong.sort();
        for file in wrong {
            let stem = file.file_stem().unwrap().to_string_lossy().to_string();
            for e in expects_of(&file).into_iter().filter(|e| {
                e.exercise == ex.id && !e.large_only && !e.hidden_large && !e.sanitize_only && !e.timing_only
            }) {
                assert!(
                    ex.twins.wrong.iter().any(|(t, _)| t.name == stem),
                    "{}: {} ({e:?}) has no twin",
                    ex.id,
                    file.display()
                );
            }
        }
        let starter: Vec<Expect> =
            expects_of(&folder(ch).join(ex.starter)).into_iter().filter(|e| e.exercise == ex.id).collect();
        assert!(!starter.is_empty(), "{}: {} names no verdict for its own exercise", ex.id, ex.starter);
    }
}

/// CI's check of the lab: every starter, wrong kernel and solution
/// compiles with NVRTC, for the oldest architecture the embedded code
/// serves and for a T4 (the run-time path), and defines the kernel its
/// exercise looks up.
#[test]
fn every_starter_wrong_kernel_and_solution_compiles_with_nvrtc() {
    use ktrav_gpu::nvrtc;
    let Some(nvrtc) = nvrtc::for_tests() else { return };
    let compile = |name: &str, source: &str, kernels: &[&str]| {
        for arch in [nvrtc::DEFAULT_ARCH, nvrtc::Arch::of((7, 5))] {
            let ptx = match nvrtc.compile(source, name, arch) {
                Ok(c) => c.ptx,
                Err(nvrtc::CompileFailure::Rejected { log }) => panic!("{name} does not compile for {arch:?}:\n{log}"),
                Err(e) => panic!("{name}: {e}"),
            };
            for k in kernels {
                assert!(ktrav_gpu::check::has_entry(&ptx, k), "{name} defines no kernel {k}");
            }
        }
    };
    for (chapter, path) in expect::files(&root()).unwrap() {
        let ch = CHAPTERS.iter().find(|ch| ch.id == chapter).unwrap();
        let kernels: Vec<&str> = expects_of(&path)
            .iter()
            .map(|e| ch.exercises.iter().find(|x| x.id == e.exercise).unwrap().kernel)
            .collect();
        compile(&path.display().to_string(), &std::fs::read_to_string(&path).unwrap(), &kernels);
    }
    for ch in CHAPTERS.iter().filter(|ch| !ch.exercises.is_empty()) {
        let solutions: Vec<&str> = ch.exercises.iter().map(|e| e.kernel).collect();
        compile(&format!("kernels/{}.cu", ch.id), ktrav_gpu::kernels::find(ch.id).unwrap().source, &solutions);
    }
}

/// The lab page states the checker's own constants: how much of a kernel's
/// output is kept, how many timed runs, the scratch buffer's size against
/// the L2 cache, the sanitizer's largest shape, and how closely the check's
/// timings must agree with the ladders'.
#[test]
fn the_lab_page_states_the_checkers_constants() {
    use ktrav::lab::{printed, timing, TIMING_REPEATS};
    use ktrav_gpu::check;
    // The page as a reader sees it: its {{value}} directives filled in.
    let values =
        mdbook_values::Values::parse(&std::fs::read_to_string(root().join("book/values.txt")).unwrap()).unwrap();
    let page =
        mdbook_values::substitute(&std::fs::read_to_string(root().join("book/lab.md")).unwrap(), &values).unwrap();
    let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
    let times = format!("{} times", timing::FLUSH_FACTOR);
    for said in [
        format!("the first {} lines, each cut at {} characters", printed::PRINTED_LINES, printed::PRINTED_LINE_CHARS),
        format!("{TIMING_REPEATS} timed runs of each"),
        format!("a scratch buffer {times} the size of the device's L2 cache"),
        format!("at most {} elements", check::sanitize::MAX_ELEMENTS),
        format!("within {:.0}%", check::timing::LADDER_AGREEMENT * 100.0),
        format!(
            "with its {} tools",
            ktrav::lab::SanitizerTool::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(" and ")
        ),
        format!("pip install --target /opt/sanitizer {}", check::sanitize::WHEEL),
        format!("`{}` names", check::sanitize::PROGRAM_ENV),
        format!("shapes (the hidden battery's too) share {} seconds", check::AFTER_A_HANG.as_secs()),
        format!("a limit of their own, {} seconds each", check::worker::MACHINE_LIMIT.as_secs()),
        format!("waits up to {} seconds for its turn", check::worker::QUEUE_LIMIT.as_secs()),
        format!("memcheck puts {} MiB of padding", check::sanitize::PADDING_BYTES >> 20),
    ] {
        assert!(page.contains(&said), "book/lab.md does not say \"{said}\"");
    }
}

/// The first lines a student's file usually starts with, each of which
/// nvcc accepts.
const USUAL_FIRST_LINES: &[&str] = &[
    "#include <cuda_runtime.h>",
    "#include <cstdio>",
    "#include <stdio.h>",
    "#include <cstdint>",
    "#include <stdint.h>",
    "#include <math.h>",
    "#include <cmath>",
];

/// What nvcc compiles, the checker compiles: each chapter's solution with
/// each usual first line put in front compiles with NVRTC and still
/// defines its exercises' kernels. (`<cuda_fp16.h>` is not among them: the
/// checker hands NVRTC its headers in memory and no include folder, and
/// none of the exercises needs half precision.)
#[test]
fn every_solution_compiles_after_each_usual_first_line() {
    use ktrav_gpu::nvrtc;
    let Some(nvrtc) = nvrtc::for_tests() else { return };
    for ch in CHAPTERS.iter().filter(|ch| !ch.exercises.is_empty()) {
        let solution = ktrav_gpu::kernels::find(ch.id).unwrap().source;
        for line in USUAL_FIRST_LINES {
            let source = format!("{line}\n{solution}");
            let name = format!("kernels/{}.cu after {line}", ch.id);
            let compiled = match nvrtc.compile(&source, &name, nvrtc::DEFAULT_ARCH) {
                Ok(c) => c,
                Err(e) => panic!("{name} does not compile: {e:?}"),
            };
            for ex in ch.exercises {
                assert!(ktrav_gpu::check::has_entry(&compiled.ptx, ex.kernel), "{name} lost {}", ex.kernel);
            }
        }
    }
}

/// The catalogue holds bugs only the hidden battery catches, and the
/// simulator track shows each one that has a twin: rejected on the hidden
/// battery's shapes, with the kind its file names, and passed on the public
/// ones (except where the exercise loops over rows of blocks: the simulator's
/// public battery already caps gridDim.y, which is how the hidden one catches
/// such bugs on a GPU).
#[test]
fn the_simulator_track_rejects_the_hidden_only_bugs_on_the_hidden_battery() {
    let (mut hidden, mut twins, mut large) = (0, 0, 0);
    for (ch, ex) in exercises() {
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(folder(ch).join("wrong")).into_iter().flatten().flatten().map(|e| e.path()).collect();
        files.sort();
        for file in files {
            for e in expects_of(&file).into_iter().filter(|e| e.exercise == ex.id && e.hidden_only) {
                hidden += 1;
                if e.hidden_large {
                    large += 1;
                    continue;
                }
                let stem = file.file_stem().unwrap().to_string_lossy().to_string();
                let Some((twin, _)) = ex.twins.wrong.iter().find(|(t, _)| t.name == stem) else {
                    panic!("{}: {} fails the hidden battery without --large but has no twin", ex.id, file.display())
                };
                twins += 1;
                let h = check_twin_hidden(ex, twin, TEST_SEED);
                assert!(
                    !h.passed(),
                    "{}: the hidden battery accepts {}:\n{}",
                    ex.id,
                    file.display(),
                    ktrav_term::report::plain(&h.render())
                );
                if let Some(kind) = e.hidden_kind {
                    assert!(
                        h.kinds().contains(&kind),
                        "{}: {} fails as {:?}, not {kind}",
                        ex.id,
                        file.display(),
                        h.kinds()
                    );
                }
                let loops_y = matches!(ex.launch, ktrav::lab::Launch::Covering { grid_stride_y: true, .. });
                if !loops_y {
                    let p = check_twin(ex, twin);
                    assert!(
                        p.passed(),
                        "{}: {} is said to pass the public battery:\n{}",
                        ex.id,
                        file.display(),
                        ktrav_term::report::plain(&p.render())
                    );
                }
            }
        }
    }
    assert!(
        hidden >= 3 && twins >= 2 && large >= 1,
        "{hidden} hidden-only kernels, {twins} with twins, {large} needing --large"
    );
}

/// Nothing the lab hands out or grades against trips the include scanner:
/// every starter and wrong kernel, and every chapter's own kernel (which a
/// room may submit as a copied solution, behind the usual first lines).
#[test]
fn every_kernel_of_the_lab_passes_the_include_scanner() {
    let mut files: Vec<PathBuf> = expect::files(&root()).unwrap().into_iter().map(|(_, p)| p).collect();
    for e in std::fs::read_dir(root().join("kernels")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "cu") {
            files.push(p);
        }
    }
    assert!(files.len() > 20, "{} files", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(ktrav::lab::includes::check(&text), Ok(()), "{}", path.display());
    }
}

/// Every exercise is on the simulator track under its own id, with the
/// student's file beside its `.cu` starter (the same name, `.rs`) and the
/// crate's solution in a file of the same form; K.1's prediction, which has
/// no kernel, is there too. No file the student edits holds a solution.
#[test]
fn every_exercise_has_a_students_file_beside_its_starter_and_a_solution_apart() {
    let mut ids = BTreeSet::new();
    for ch in CHAPTERS.iter() {
        for sim in ch.sim_exercises {
            assert!(ids.insert(sim.id), "sim exercise id '{}' twice in the book", sim.id);
            assert!(sim.file.starts_with(&format!("exercises/{}/", ch.id)), "{}: {}", sim.id, sim.file);
            assert!(sim.solution.starts_with(&format!("chapters/{}/src/", ch.id)), "{}: {}", sim.id, sim.solution);
            for f in [sim.file, sim.solution] {
                assert!(root().join(f).is_file(), "{}: {f} is missing", sim.id);
            }
        }
        for ex in ch.exercises {
            let sim =
                ch.sim_exercises.iter().find(|s| s.id == ex.id).unwrap_or_else(|| panic!("{}: no sim exercise", ex.id));
            let beside = format!("exercises/{}/{}", ch.id, ex.starter.replace(".cu", ".rs"));
            assert_eq!(sim.file, beside, "{}", ex.id);
        }
        assert!(
            ch.sim_exercises.len() >= ch.exercises.len().max(1),
            "{} has no exercise on the simulator track",
            ch.id
        );
    }
    assert!(ids.contains("predict-misses"));
}

/// The verdict list every exercise page includes names each kind of
/// failure as the gradebook and `// expect:` lines do, and each verdict in
/// the words its check line uses (N and K stand for the line's numbers).
#[test]
fn the_exercise_pages_name_every_verdict_as_the_check_and_the_gradebook_do() {
    use ktrav::lab::{FailureKind, NotRunCause, SanitizerTool, Verdict};
    let part = std::fs::read_to_string(root().join("book/parts/check-verdicts.md")).unwrap();
    let flat = part.split_whitespace().collect::<Vec<_>>().join(" ");
    let bold: Vec<&str> = flat.split("**").skip(1).step_by(2).collect();
    let fail = |wrong, unwritten, oob| Verdict::Fail {
        wrong,
        unwritten,
        first_bad: Some(0),
        out_of_bounds_before: oob,
        out_of_bounds_after: 0,
    };
    let samples = [
        fail(7, 0, 0),
        fail(0, 7, 0),
        fail(0, 0, 7),
        Verdict::InputChanged { input: 1, changed: 7, first_changed: None },
        Verdict::LaunchFailed { error: "e".into() },
        Verdict::Crashed { error: "e".into() },
        Verdict::DidNotFinish { seconds: 7 },
        Verdict::Sanitizer { tool: SanitizerTool::Memcheck, errors: 7, first: "e".into() },
        Verdict::Sanitizer { tool: SanitizerTool::Racecheck, errors: 7, first: "e".into() },
        Verdict::NotRun { cause: NotRunCause::NoTimeLeft },
    ];
    let mut named = BTreeSet::new();
    for v in &samples {
        let line = v.describe(10);
        assert!(
            bold.iter().any(|b| line.contains(&b.replace('N', "7").replace('K', "1"))),
            "book/parts/check-verdicts.md has no bold words of the line \"{line}\""
        );
        for kind in v.kinds() {
            assert!(
                flat.contains(&format!("`{kind}`")),
                "book/parts/check-verdicts.md does not name the kind `{kind}`"
            );
            named.insert(kind);
        }
    }
    assert_eq!(named.len(), FailureKind::ALL.len(), "a kind of failure has no sample verdict here");
    // The lab page lists the JSON record's name of every verdict.
    let lab = std::fs::read_to_string(root().join("book/lab.md")).unwrap();
    let lab = lab.split_whitespace().collect::<Vec<_>>().join(" ");
    let more = [Verdict::Pass, Verdict::Skipped { reason: "r".into() }];
    for v in samples.iter().chain(&more) {
        let json = serde_json::to_value(v).unwrap();
        let tag = json["verdict"].as_str().unwrap();
        assert!(lab.contains(&format!("`{tag}`")), "book/lab.md does not name the JSON verdict `{tag}`");
    }
    for ch in CHAPTERS.iter().filter(|ch| !ch.exercises.is_empty() && ch.gpu.is_some()) {
        let page = root().join(format!("book/{}-exercises.md", ch.section.replace('.', "").to_lowercase()));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(text.contains("{{#include parts/check-verdicts.md}}"), "{} lists no verdicts", page.display());
    }
}
