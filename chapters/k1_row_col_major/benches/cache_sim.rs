//! `cargo bench -p k1_row_col_major`: the chapter's cache simulator against
//! the source's, side by side in one run.
//!
//! Both simulate both traversals of a 4096 x 4096 row-major matrix of floats
//! through the source's cache (four 64-byte lines, fully associative). The
//! source's simulator is its own C++ program, cut out of the source text at
//! run time (`KTRAV_SOURCE` names the file; by default `shared/seed/` beside
//! the workspace, or beside one of its parent directories), compiled with
//! the system C++ compiler (`KTRAV_CXX`, else `c++`) at -O2 and driven by a small
//! driver of ours that calls its two simulate functions and times them.
//! Nothing of the source's code is kept in this repository.
//!
//! The two sides take turns, round by round, so a busy machine slows both
//! alike, and each round checks that they count the same hits and misses:
//! a difference stops the benchmark. The 512-line 8-way cache runs on our
//! side only (the source's simulator has no sets). Timings are printed,
//! never asserted.

use anyhow::anyhow;
use k1_row_col_major::{simulate, CacheConfig, CacheStats, Traversal, BENCH_SIDE, SOURCE_CACHE, TYPICAL_L1};
use ktrav::{Shape, StorageOrder};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use std::{env, fs};

const N: u64 = BENCH_SIDE;
const ROUNDS: usize = 7;
const ORDERS: [Traversal; 2] = [Traversal::RowOuter, Traversal::ColOuter];
const SEED: &str = "000_127435a8d1b64e64.txt";

/// Our driver: the source's file is included with its `main` renamed, and
/// this `main` times one call of each of its simulate functions.
const DRIVER: &str = r#"#define main source_main
#include "source.cpp"
#undef main
#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    int n = atoi(argv[1]), lines = atoi(argv[2]);
    for (int order = 0; order < 2; order++) {
        long long hits = 0, misses = 0;
        auto start = std::chrono::steady_clock::now();
        if (order == 0) simulate_row_outer(n, n, lines, hits, misses);
        else simulate_col_outer(n, n, lines, hits, misses);
        auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
        printf("%lld %lld %lld\n", hits, misses, (long long)ns.count());
    }
    return 0;
}
"#;

/// The source's simulator, built and ready to run.
struct SourceSim {
    exe: PathBuf,
    about: String,
}

impl SourceSim {
    /// Finds, extracts and compiles the source's program, or says why not.
    fn build() -> anyhow::Result<Self> {
        let seed = seed_path()?;
        let text = fs::read_to_string(&seed).map_err(|e| anyhow!("cannot read {}: {e}", seed.display()))?;
        let program = extract_program(&text).ok_or_else(|| {
            anyhow!("{} holds no K.1 program with simulate_row_outer and simulate_col_outer", seed.display())
        })?;
        let cxx = env::var("KTRAV_CXX").unwrap_or_else(|_| "c++".to_string());
        let version = Command::new(&cxx)
            .arg("--version")
            .output()
            .map_err(|e| anyhow!("no C++ compiler: `{cxx}` could not be run ({e}); set KTRAV_CXX to one"))?;
        let version = String::from_utf8_lossy(&version.stdout).lines().next().unwrap_or("").to_string();
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("k1-source-sim");
        fs::create_dir_all(&dir).map_err(|e| anyhow!("cannot create {}: {e}", dir.display()))?;
        let write =
            |name: &str, body: &str| fs::write(dir.join(name), body).map_err(|e| anyhow!("cannot write {name}: {e}"));
        write("source.cpp", program)?;
        write("driver.cpp", DRIVER)?;
        let exe = dir.join("driver");
        let flags = ["-std=c++17", "-O2"];
        let out = Command::new(&cxx)
            .args(flags)
            .arg(dir.join("driver.cpp"))
            .arg("-o")
            .arg(&exe)
            .output()
            .map_err(|e| anyhow!("`{cxx}` could not be run ({e})"))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            anyhow::bail!("`{cxx}` rejected the source's program: {}", err.lines().next().unwrap_or("(no message)"));
        }
        let about = format!("{} (`{cxx} {}`: {version})", seed.display(), flags.join(" "));
        Ok(SourceSim { exe, about })
    }

    /// One timed run of both traversals at `n x n`, row-outer first.
    fn run(&self, n: u64, lines: u64) -> [(CacheStats, Duration); 2] {
        let out = Command::new(&self.exe).args([n.to_string(), lines.to_string()]).output().expect("the driver runs");
        assert!(out.status.success(), "the source's simulator failed: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).expect("the driver prints text");
        let runs: Vec<(CacheStats, Duration)> = text
            .lines()
            .map(|line| {
                let v: Vec<u64> = line.split(' ').map(|x| x.parse().expect("the driver prints numbers")).collect();
                (CacheStats { hits: v[0], misses: v[1] }, Duration::from_nanos(v[2]))
            })
            .collect();
        runs.try_into().expect("the driver prints one line per traversal")
    }
}

/// `KTRAV_SOURCE` (relative to the workspace root), or else `shared/seed/`
/// in the nearest parent of the workspace root that has it
/// (`../shared/seed/` from the root first).
fn seed_path() -> anyhow::Result<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    if let Some(path) = env::var_os("KTRAV_SOURCE") {
        let path = root.join(path);
        return if path.is_file() { Ok(path) } else { Err(anyhow!("KTRAV_SOURCE={} is not a file", path.display())) };
    }
    let found = root.ancestors().skip(1).map(|dir| dir.join("shared/seed").join(SEED)).find(|p| p.is_file());
    found.ok_or_else(|| anyhow!("no shared/seed/{SEED} beside {} or any parent (set KTRAV_SOURCE)", root.display()))
}

/// The source's K.1 program: the lines between its file heading and its
/// worked example.
fn extract_program(text: &str) -> Option<&str> {
    let heading = text.find("File: 01_row_major_col_major_traversal.cpp")?;
    let start = heading + text[heading..].find('\n')? + 1;
    let end = start + text[start..].find("\nWorked Example K.1.1")?;
    let program = &text[start..end];
    let has = |f: &str| program.contains(&format!("void {f}("));
    (has("simulate_row_outer") && has("simulate_col_outer")).then_some(program)
}

fn timed(traversal: Traversal, cfg: CacheConfig) -> (CacheStats, Duration) {
    let start = Instant::now();
    let stats = simulate(black_box(Shape::new(N, N)), StorageOrder::RowMajor, traversal, cfg);
    (black_box(stats), start.elapsed())
}

fn median(times: &[Duration]) -> Duration {
    ktrav_term::report::median(times.to_vec()).expect("at least one round")
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

fn name(t: Traversal) -> &'static str {
    match t {
        Traversal::RowOuter => "row-outer",
        Traversal::ColOuter => "col-outer",
    }
}

fn main() {
    let source = SourceSim::build();
    let data: Vec<f32> = (0..N * N).map(|i| (i % 97) as f32).collect();
    // times[cache][order] for ours, source[order] for the source's.
    let mut ours = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
    let mut theirs = [Vec::new(), Vec::new()];
    let mut counts = [[CacheStats::default(); 2]; 2];
    let mut sums = Vec::new();
    for _ in 0..ROUNDS {
        for (c, cfg) in [SOURCE_CACHE, TYPICAL_L1].into_iter().enumerate() {
            for (o, t) in ORDERS.into_iter().enumerate() {
                let (stats, time) = timed(t, cfg);
                counts[c][o] = stats;
                ours[c][o].push(time);
            }
        }
        if let Ok(source) = &source {
            for (o, (stats, time)) in source.run(N, SOURCE_CACHE.lines).into_iter().enumerate() {
                assert_eq!(
                    stats,
                    counts[0][o],
                    "the source's simulator and ours disagree on {}: {stats:?} against ours {:?}",
                    name(ORDERS[o]),
                    counts[0][o]
                );
                theirs[o].push(time);
            }
        }
        let start = Instant::now();
        black_box(black_box(&data).iter().map(|&x| x as f64).sum::<f64>());
        sums.push(start.elapsed());
    }

    println!("K.1's cache simulator against the source's: {N}x{N} row-major floats, {} accesses per traversal,", N * N);
    println!("median of {ROUNDS} rounds, the two sides taking turns (timings vary from run to run; never asserted)");
    match &source {
        Ok(s) => println!("the source's simulator: {}", s.about),
        Err(why) => println!("the comparison with the source's simulator was skipped: {why}"),
    }
    println!();
    println!(
        "{:<26} {:<10} {:>10} {:>12} {:>14}  hits, misses",
        "cache", "order", "ours (ms)", "source (ms)", "source / ours"
    );
    for (c, label) in ["4-line fully associative", "512-line 8-way"].into_iter().enumerate() {
        for (o, t) in ORDERS.into_iter().enumerate() {
            let mine = median(&ours[c][o]);
            let (theirs_ms, ratio, same) = match (&source, c) {
                (Ok(_), 0) => {
                    let d = median(&theirs[o]);
                    (ms(d), format!("{:.1}x", d.as_secs_f64() / mine.as_secs_f64()), " (both sides)")
                }
                _ => ("-".to_string(), "-".to_string(), ""),
            };
            let s = counts[c][o];
            println!(
                "{label:<26} {:<10} {:>10} {theirs_ms:>12} {ratio:>14}  {}, {}{same}",
                name(t),
                ms(mine),
                s.hits,
                s.misses
            );
        }
    }
    println!("for scale, a plain sum of the same {} floats: {} ms", N * N, ms(median(&sums)));
}
