//! The GPU suite: every chapter's cross-checks on a real GPU, each kernel
//! against its simulator or host reference.
//!
//! It has its own harness (`harness = false`) so that what it did is always
//! printed, captured or not: on a machine without a GPU every check says
//! `skipped: no GPU` and the suite ends with `0 passed, 0 failed, N skipped`
//! rather than passing silently. Set `KTRAV_GPU_LARGE=1` to add the shapes
//! past 2^31 elements (the 46341 x 46341 transpose needs 17 GB of device
//! memory). The suite writes nothing: the record the book's measured pages
//! come from is `appendix_k record FILE`'s (see `scripts/measure`).
//!
//! Then the lab checker is itself checked, through its library API: every
//! exercise's solution (the chapter's own kernel) must pass, and every
//! starter and catalogued wrong kernel must get the verdict its file's
//! `// expect:` line names. A race is run [`RACE_RUNS`] times and must be
//! rejected at least once; the 32-bit-overflow kernels need
//! `KTRAV_GPU_LARGE=1` (they pass the default battery, by design). A kernel
//! that crashes leaves its CUDA context unusable for the rest of the
//! process, so those large checks each run in a child process of this one.
//!
//! The hidden battery ([`lab::hidden_battery`], drawn from `KTRAV_LAB_SEED`
//! or the suite's own seed) must pass every solution and reject every
//! kernel whose line says `passes the public battery; fails the hidden
//! battery`, while the public battery passes it.
//!
//! The lab's checks run [`LAB_JOBS`] at a time on the one GPU, as a class
//! shares a lab server (`KTRAV_LAB_JOBS=1` runs them one at a time): every
//! verdict must still be the one its file names. `KTRAV_GPU_CHAPTERS=k2_transpose,k7_diagonal`
//! runs the named chapters only.

use appendix_k::CHAPTERS;
use ktrav::lab;
use ktrav::SectionOutcome;
use ktrav_gpu::check;

/// The argument with which this suite runs one lab check as a child.
const LAB_ONE: &str = "--lab-one";

/// Lab checks run at once, unless `KTRAV_LAB_JOBS` says otherwise.
const LAB_JOBS: usize = 8;

/// Whether the suite runs `ch`: every chapter, or those `KTRAV_GPU_CHAPTERS` names.
fn selected(ch: &ktrav::Chapter) -> bool {
    match std::env::var("KTRAV_GPU_CHAPTERS") {
        Ok(list) if !list.trim().is_empty() => list.split(',').any(|id| id.trim() == ch.id),
        _ => true,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, job] = args.as_slice() {
        if flag == check::worker::WORKER_COMMAND {
            std::process::exit(ktrav_term::cli::finish(check::worker::serve(CHAPTERS, std::path::Path::new(job))));
        }
    }
    // The checks below run each shape in a worker: this binary again.
    if let Ok(me) = std::env::current_exe() {
        check::worker::isolate_with(me, &[check::worker::WORKER_COMMAND]);
    }
    if let [_, flag, chapter, path, index] = args.as_slice() {
        if flag == LAB_ONE {
            lab_one(chapter, std::path::Path::new(path), index.parse().expect("an expect line's index"));
            return;
        }
    }
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut sections = Vec::new();
    let mut ladders = Vec::new();
    for ch in CHAPTERS.iter().filter(|ch| selected(ch)) {
        let Some(gpu) = ch.gpu else { continue };
        let name = ch.heading();
        match gpu.section(ch) {
            SectionOutcome::Skipped(reason) => {
                println!("{name}: skipped: no GPU ({reason})");
                skipped += 1;
            }
            SectionOutcome::Ran { text, failures: 0, record } => {
                println!("{name}: ok\n{}", ktrav_term::report::plain(&text));
                ladders.push((ch.id, record.clone()));
                sections.push(record);
                passed += 1;
            }
            other => {
                println!("{name}: FAILED\n{}", ktrav_term::report::plain(&other.text()));
                failed += 1;
            }
        }
    }
    let (p, f, k) = lab_checks();
    (passed, failed, skipped) = (passed + p, failed + f, skipped + k);
    let (p, f, k) = timings_agree_with_the_ladders(&ladders);
    (passed, failed, skipped) = (passed + p, failed + f, skipped + k);
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::exit(1);
    }
}

/// The child's side: one expectation of one file, checked with the large
/// battery; prints `ok: ...` or `FAILED: ...`.
fn lab_one(chapter: &str, path: &std::path::Path, index: usize) {
    let source = std::fs::read_to_string(path).expect("the parent read this file");
    let e = lab::expect::parse(&source).expect("the parent parsed this file").swap_remove(index);
    let ch = chapter_named(chapter).expect("the parent found it");
    let ex = ch.exercises.iter().find(|x| x.id == e.exercise).expect("the parent found it");
    match judge_expectation(ch, ex, path, &source, &e, true) {
        Ok(what) => println!("ok: {what}"),
        Err(why) => println!("FAILED: {why}"),
    }
}

/// Runs [`lab_one`] in a child process, so a crash there cannot spoil this
/// process's CUDA context.
fn in_child(chapter: &str, path: &std::path::Path, index: usize) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this suite's binary: {e}"))?;
    let out = std::process::Command::new(exe)
        .args([LAB_ONE, chapter, &path.display().to_string(), &index.to_string()])
        .output()
        .map_err(|e| format!("cannot start a child: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    match text.strip_prefix("ok: ") {
        Some(what) if out.status.success() => Ok(what.trim_end().to_string()),
        _ => Err(format!("{}{}", text.strip_prefix("FAILED: ").unwrap_or(&text), String::from_utf8_lossy(&out.stderr))),
    }
}

/// How often a racy wrong kernel is checked: it must be rejected at least once.
const RACE_RUNS: usize = 5;

fn lab_args(file: &std::path::Path, large: bool) -> check::CheckArgs {
    check::CheckArgs {
        file: file.to_path_buf(),
        large,
        json: false,
        exercise: None,
        timeout: 120,
        sanitize: None,
        seed: None,
        seed_file: None,
        private: false,
        compile_only: false,
    }
}

/// The chapter whose id is `id` (an `exercises/` folder's name).
fn chapter_named(id: &str) -> Option<&'static ktrav::Chapter> {
    CHAPTERS.iter().copied().find(|ch| ch.id == id)
}

/// One verdict on one file: `Ok(what it got)` or `Err(why it is wrong)`.
fn judge_expectation(
    ch: &ktrav::Chapter,
    ex: &lab::Exercise,
    path: &std::path::Path,
    source: &str,
    e: &lab::expect::Expect,
    large: bool,
) -> Result<String, String> {
    if e.hidden_only {
        return judge_hidden(ch, ex, path, source, e, large);
    }
    if e.sanitize_only {
        return judge_sanitized(ch, ex, path, source);
    }
    if e.timing_only {
        let r = check::check(ch, ex, &lab_args(path, false), source);
        let all_pass = !r.shapes.is_empty() && r.shapes.iter().all(|s| s.verdict.passed());
        let timed_wrong = r.reason.as_deref().is_some_and(|w| w.starts_with("the timing found the output wrong"));
        return if r.exit_code == 1 && all_pass && timed_wrong {
            Ok(format!("passes all {} shapes; {}", r.shapes.len(), r.reason.unwrap_or_default()))
        } else {
            Err(format!("expected every shape to pass and the timing to fail it, got:\n{}", plain(&lab::render(&r))))
        };
    }
    let runs = if e.race { RACE_RUNS } else { 1 };
    let mut last = None;
    for run in 1..=runs {
        let r = check::check(ch, ex, &lab_args(path, large && e.large_only), source);
        if r.exit_code == lab::COULD_NOT_CHECK {
            return Err(format!("could not check: {}", r.reason.unwrap_or_default()));
        }
        let failing: Vec<&lab::ShapeResult> = r.shapes.iter().filter(|s| s.verdict.failed()).collect();
        let kinds: Vec<lab::FailureKind> = failing.iter().flat_map(|s| s.verdict.kinds()).collect();
        match e.kind {
            None if !(large && e.large_only) => {
                return if r.exit_code == 0 {
                    Ok("passes the default battery, as expected (run with KTRAV_GPU_LARGE=1 to see it fail)".into())
                } else {
                    Err(format!("expected to pass without --large, got:\n{}", plain(&lab::render(&r))))
                };
            }
            None => {
                return if r.exit_code == 1 && failing.iter().all(|s| s.rows * s.cols > 1 << 31) && !failing.is_empty() {
                    Ok(format!("rejected with --large ({}), only past 2^31 elements", joined(&kinds)))
                } else {
                    Err(format!(
                        "expected to fail only past 2^31 elements with --large, got:\n{}",
                        plain(&lab::render(&r))
                    ))
                };
            }
            Some(kind) => {
                let only_where_promised =
                    !e.only_past_grid_y || failing.iter().all(|s| s.purpose == lab::Purpose::PastGridY);
                if r.exit_code == 1 && kinds.contains(&kind) && only_where_promised {
                    let race = if e.race {
                        format!(" (a race: rejected on run {run} of at most {RACE_RUNS})")
                    } else {
                        String::new()
                    };
                    return Ok(format!("rejected as {kind}{race}"));
                }
                last = Some(r);
            }
        }
    }
    let r = last.expect("at least one run");
    let race = if e.race { format!(" in any of {RACE_RUNS} runs") } else { String::new() };
    let kind = e.kind.map_or("?", lab::FailureKind::as_str);
    Err(format!("expected '{kind}'{race}, got:\n{}", plain(&lab::render(&r))))
}

/// Kinds of failure as a report names them: `wrong, unwritten`.
fn joined(kinds: &[lab::FailureKind]) -> String {
    kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
}

/// The hidden battery's seed here: `KTRAV_LAB_SEED` if set, else a fixed one.
fn hidden_seed() -> u64 {
    lab::seed_from(None).expect("KTRAV_LAB_SEED is a seed").unwrap_or(HIDDEN_SEED)
}

/// The seed the suite draws the hidden battery with when none is set.
const HIDDEN_SEED: u64 = 2026;

/// A kernel only the hidden battery rejects: the public battery passes it
/// and the hidden one (with `--large` where its line says so) does not.
fn judge_hidden(
    ch: &ktrav::Chapter,
    ex: &lab::Exercise,
    path: &std::path::Path,
    source: &str,
    e: &lab::expect::Expect,
    large: bool,
) -> Result<String, String> {
    let public = check::check(ch, ex, &lab_args(path, false), source);
    if public.exit_code != 0 {
        return Err(format!("expected to pass the public battery, got:\n{}", plain(&lab::render(&public))));
    }
    if e.hidden_large && !large {
        return Ok(format!(
            "passes the public battery, as expected (its hidden failure needs {}=1)",
            ktrav::section::LARGE_ENV
        ));
    }
    let seed = hidden_seed();
    let cases = lab::hidden_battery(ex, seed, e.hidden_large);
    let r = check::check_on(ch, ex, &lab_args(path, false), source, cases);
    let failing: Vec<&lab::ShapeResult> = r.shapes.iter().filter(|s| s.verdict.failed()).collect();
    let kinds: Vec<lab::FailureKind> = failing.iter().flat_map(|s| s.verdict.kinds()).collect();
    let kind_ok = e.hidden_kind.is_none_or(|k| kinds.contains(&k));
    if r.exit_code == 1 && !failing.is_empty() && kind_ok {
        Ok(format!(
            "passes the public battery; the hidden battery (seed {seed}) rejects it ({}) on {} shape{}",
            joined(&kinds),
            failing.len(),
            if failing.len() == 1 { "" } else { "s" }
        ))
    } else {
        Err(format!(
            "expected the hidden battery (seed {seed}) to reject it{}, got:\n{}",
            e.hidden_kind.map_or(String::new(), |k| format!(" as {k}")),
            plain(&lab::render(&r))
        ))
    }
}

/// A kernel only memcheck rejects: it passes the battery, and `--sanitize=memcheck`
/// (every buffer its exact size) reports a memory error.
fn judge_sanitized(
    ch: &ktrav::Chapter,
    ex: &lab::Exercise,
    path: &std::path::Path,
    source: &str,
) -> Result<String, String> {
    let plain_run = check::check(ch, ex, &lab_args(path, false), source);
    if plain_run.exit_code != 0 {
        return Err(format!("expected to pass without --sanitize, got:\n{}", plain(&lab::render(&plain_run))));
    }
    if check::sanitize::locate().is_none() {
        return Err(check::sanitize::missing());
    }
    let args = check::CheckArgs {
        sanitize: Some(check::sanitize::Tools(vec![ktrav::lab::SanitizerTool::Memcheck])),
        ..lab_args(path, false)
    };
    let r = check::check(ch, ex, &args, source);
    let flagged: Vec<&lab::ShapeResult> =
        r.sanitize.iter().filter(|s| s.verdict.kinds().contains(&lab::FailureKind::MemoryError)).collect();
    if r.exit_code == 1 && !flagged.is_empty() {
        Ok(format!(
            "passes without --sanitize; memcheck reports it on {} of {} shapes",
            flagged.len(),
            r.sanitize.len()
        ))
    } else {
        Err(format!("expected memcheck to report a memory error, got:\n{}", plain(&lab::render(&r))))
    }
}

fn plain(s: &str) -> String {
    ktrav_term::report::plain(s)
}

/// One check of the lab's own catalogue: what it says when it passes, or why not.
type Judge = Box<dyn Fn() -> Result<String, String> + Send + Sync>;

/// The checker against its own catalogue: (passed, failed, skipped).
fn lab_checks() -> (usize, usize, usize) {
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    if let Err(why) = ktrav_gpu::open() {
        println!("lab checker: skipped: no GPU ({why})");
        return (0, 0, 1);
    }
    if let Err(why) = ktrav_gpu::nvrtc::locate() {
        println!("lab checker: FAILED: a GPU but no NVRTC, so no lab check can run: {why}");
        return (0, 1, 0);
    }
    let large = std::env::var_os(ktrav::section::LARGE_ENV).is_some();
    // The workspace this was built in, or (a copied binary) the current folder.
    let built_in = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let root_buf =
        if built_in.join("exercises").is_dir() { built_in } else { std::env::current_dir().unwrap_or(built_in) };
    let root = root_buf.as_path();
    // Every check to make, made below several at a time.
    let mut jobs = solution_jobs(root, large);
    let mut early: Vec<(String, Result<String, String>)> = Vec::new();
    let files = match lab::expect::files(root) {
        Ok(f) => f,
        Err(e) => {
            println!("lab checker: FAILED: cannot list exercises/: {e}");
            return (passed, failed + 1, skipped);
        }
    };
    for (chapter, path) in files {
        skipped += expectation_jobs(root, &chapter, &path, large, &mut jobs, &mut early);
    }
    let threads = std::env::var("KTRAV_LAB_JOBS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(LAB_JOBS);
    let started = std::time::Instant::now();
    for (name, outcome) in run_jobs(&jobs, early, threads) {
        match outcome {
            Ok(_) => passed += 1,
            Err(why) => {
                if !jobs.iter().any(|(n, _)| *n == name) {
                    println!("lab {name}: FAILED: {why}");
                }
                failed += 1;
            }
        }
    }
    println!("lab checker: {} checks, {threads} at a time, in {:.0} s", jobs.len(), started.elapsed().as_secs_f64());
    (passed, failed, skipped)
}

/// Each selected chapter's solution of each exercise, on the public
/// battery and on the hidden one.
fn solution_jobs(root: &std::path::Path, large: bool) -> Vec<(String, Judge)> {
    let mut jobs: Vec<(String, Judge)> = Vec::new();
    for ch in CHAPTERS.iter().copied().filter(|ch| selected(ch)) {
        for ex in ch.exercises {
            let solution = ktrav_gpu::kernels::find(ch.id).expect("every chapter's kernels are embedded");
            let path = root.join(format!("kernels/{}.cu", ch.id));
            let name = format!("{} {}: the solution, kernels/{}.cu", ch.section, ex.id, ch.id);
            let p = path.clone();
            jobs.push((
                name,
                Box::new(move || {
                    let r = check::check(ch, ex, &lab_args(&p, large), solution.source);
                    if r.exit_code == 0 {
                        Ok(format!("passes all {} shapes", r.shapes.len()))
                    } else {
                        Err(plain(&lab::render(&r)))
                    }
                }),
            ));
            let seed = hidden_seed();
            let name = format!("{} {}: the solution on the hidden battery (seed {seed})", ch.section, ex.id);
            jobs.push((
                name,
                Box::new(move || {
                    let r = check::check_on(
                        ch,
                        ex,
                        &lab_args(&path, large),
                        solution.source,
                        lab::hidden_battery(ex, seed, large),
                    );
                    if r.exit_code == 0 {
                        Ok(format!("passes all {} shapes", r.shapes.len()))
                    } else {
                        Err(plain(&lab::render(&r)))
                    }
                }),
            ));
        }
    }
    jobs
}

/// A job for every expectation of the exercise file at `path` (of
/// `chapter`) whose chapter is selected; a file that cannot be read or
/// parsed, or an expectation of no exercise, goes to `early` as failed.
/// Returns how many expectations are skipped without `large`.
fn expectation_jobs(
    root: &std::path::Path,
    chapter: &str,
    path: &std::path::Path,
    large: bool,
    jobs: &mut Vec<(String, Judge)>,
    early: &mut Vec<(String, Result<String, String>)>,
) -> usize {
    let mut skipped = 0;
    let shown = path.strip_prefix(root).unwrap_or(path).display().to_string();
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            early.push((shown, Err(format!("cannot read: {e}"))));
            return skipped;
        }
    };
    let expects = match lab::expect::parse(&source) {
        Ok(e) => e,
        Err(e) => {
            early.push((shown, Err(format!("{e:#}"))));
            return skipped;
        }
    };
    for (index, e) in expects.into_iter().enumerate() {
        let Some((ch, ex)) =
            chapter_named(chapter).and_then(|ch| Some((ch, ch.exercises.iter().find(|x| x.id == e.exercise)?)))
        else {
            early.push((shown.clone(), Err(format!("no exercise '{}' in {chapter}", e.exercise))));
            continue;
        };
        if !selected(ch) {
            continue;
        }
        let name = format!("{} {}: {shown}", ch.section, ex.id);
        if (e.large_only || e.hidden_large) && !large {
            skipped += 1;
            let why = match e.hidden_large {
                true => "fails only on the hidden battery's shapes past 2^32 elements",
                false => "fails only past 2^31 elements",
            };
            println!("lab {name}: its large-shape verdict skipped: {why}; set {}=1", ktrav::section::LARGE_ENV);
        }
        let (chapter, path, source) = (chapter.to_string(), path.to_path_buf(), source.clone());
        jobs.push((
            name,
            Box::new(move || {
                if large && e.large_only {
                    in_child(&chapter, &path, index)
                } else {
                    judge_expectation(ch, ex, &path, &source, &e, large)
                }
            }),
        ));
    }
    skipped
}

/// Runs `jobs` on `threads` threads, printing each outcome as it comes,
/// and returns every outcome after those of `early`.
fn run_jobs(
    jobs: &[(String, Judge)],
    early: Vec<(String, Result<String, String>)>,
    threads: usize,
) -> Vec<(String, Result<String, String>)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(early);
    std::thread::scope(|s| {
        for _ in 0..threads.min(jobs.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((name, judge)) = jobs.get(i) else { break };
                let began = std::time::Instant::now();
                let outcome = judge();
                let took = began.elapsed().as_secs_f64();
                let line = match &outcome {
                    Ok(what) => format!("lab {name}: ok [{took:.1} s]: {what}"),
                    Err(why) => format!("lab {name}: FAILED [{took:.1} s]: {why}"),
                };
                println!("{line}");
                results.lock().unwrap_or_else(|p| p.into_inner()).push((name.clone(), outcome));
            });
        }
    });
    results.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// The ladder's median for `kernel` on `shape`: a named yardstick (K.7's
/// launches replayed from a graph, as the check times them), else a row
/// naming it (`kernel`, `kernel (32x8 blocks)`, `kernel, N launches ...`).
fn ladder_ms(record: &ktrav::measured::Section, kernel: &str, shape: ktrav::Shape) -> Option<f64> {
    let names = |label: &str| {
        label == kernel || label.starts_with(&format!("{kernel} (")) || label.starts_with(&format!("{kernel}, "))
    };
    let on_shape =
        |title: &str| title.split(|c: char| !(c.is_ascii_digit() || c == 'x')).any(|w| w == shape.to_string());
    record.tables.iter().filter(|t| on_shape(&t.title)).find_map(|t| {
        t.yardstick
            .as_deref()
            .filter(|y| names(y))
            .map(|_| t.copy_ms)
            .or_else(|| t.rows.iter().find(|r| names(&r.label)).map(|r| r.ms))
    })
}

/// The check's timing of every solution against its chapter ladder's timing
/// of the same kernel on the same shape, both taken in this process: they
/// must agree within [`check::timing::LADDER_AGREEMENT`]. (passed, failed, skipped).
fn timings_agree_with_the_ladders(ladders: &[(&str, ktrav::measured::Section)]) -> (usize, usize, usize) {
    let gpu = match ktrav_gpu::open() {
        Ok(g) => g,
        Err(why) => {
            println!("check timings against the ladders: skipped: no GPU ({why})");
            return (0, 0, 1);
        }
    };
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for ch in CHAPTERS.iter().filter(|ch| selected(ch)) {
        for ex in ch.exercises {
            let name = format!("check timing of {} {} against its ladder", ch.section, ex.id);
            let ladder = ch.gpu.ok_or_else(|| format!("{} has no GPU section", ch.section));
            let shape = match ladder.and_then(|gpu| gpu.ladder_shape(ex).map_err(|e| e.to_string())) {
                Ok(s) => s,
                Err(why) => {
                    println!("{name}: skipped: {why}");
                    skipped += 1;
                    continue;
                }
            };
            let Some((_, record)) = ladders.iter().find(|(id, _)| *id == ch.id) else {
                println!("{name}: FAILED: the chapter's section did not run, so there is no ladder timing");
                failed += 1;
                continue;
            };
            let Some(ladder) = ladder_ms(record, ex.kernel, shape) else {
                println!("{name}: FAILED: no table on {shape} has a row for {}", ex.kernel);
                failed += 1;
                continue;
            };
            let timed = gpu.function(ch.id, ex.kernel).and_then(|f| check::time_on(&gpu, &f, ex, shape));
            match timed {
                Ok(t) => {
                    let off = (t.yours_ms as f64 - ladder).abs() / ladder;
                    let line = format!(
                        "{} on {shape}: the check {:.4} ms (copy {:.4} ms), the ladder {ladder:.4} ms, {:.1}% apart (at most {:.0}%)",
                        ex.kernel,
                        t.yours_ms,
                        t.copy_ms,
                        off * 100.0,
                        check::timing::LADDER_AGREEMENT * 100.0
                    );
                    if off <= check::timing::LADDER_AGREEMENT && t.impossible.is_none() {
                        println!("{name}: ok: {line}");
                        passed += 1;
                    } else {
                        println!("{name}: FAILED: {line}{}", t.impossible.map_or(String::new(), |w| format!("; {w}")));
                        failed += 1;
                    }
                }
                Err(e) => {
                    println!("{name}: FAILED: {e:#}");
                    failed += 1;
                }
            }
        }
    }
    (passed, failed, skipped)
}
