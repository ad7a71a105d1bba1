//! What a grading run is asked to do: the submissions, the exercise each is
//! graded against, the verdict a manifest expects of it, and the key its
//! result is stored under. Everything here is checked before any work.

use crate::exercise::{self, ExerciseRef};
use crate::gradebook::Outcome;
use crate::points::Points;
use crate::roster::Student;
use anyhow::anyhow;
use ktrav::lab::expect::Expect as ExpectLine;
use ktrav::lab::FailureKind;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A verdict a manifest's `expect` columns may name; what each means of a
/// gradebook row is [`crate::gradebook::Row::meets`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expectation {
    /// The outcome `pass`.
    Pass,
    /// Any failure of the file.
    Fail,
    /// The outcome `compile error`.
    CompileError,
    /// A failure before any shape ran that is no compile error.
    NoKernel,
    /// A failure showing this kind on some shape; `crashed` is met by the
    /// outcome `checker crashed` too.
    Kind(FailureKind),
    /// The outcome `timed out`.
    TimedOut,
    /// The outcome `could not check`.
    CouldNotCheck,
}

impl Expectation {
    /// Every expectation, in the order a reader is told them.
    pub fn all() -> Vec<Expectation> {
        use Expectation::*;
        [Pass, Fail, CompileError, NoKernel]
            .into_iter()
            .chain(FailureKind::ALL.iter().copied().map(Kind))
            .chain([TimedOut, CouldNotCheck])
            .collect()
    }

    /// Its name in a manifest: an outcome's or a kind's own, or `no kernel`.
    pub fn name(self) -> &'static str {
        match self {
            Expectation::Pass => Outcome::Pass.as_str(),
            Expectation::Fail => Outcome::Fail.as_str(),
            Expectation::CompileError => Outcome::CompileError.as_str(),
            Expectation::NoKernel => "no kernel",
            Expectation::Kind(k) => k.as_str(),
            Expectation::TimedOut => Outcome::TimedOut.as_str(),
            Expectation::CouldNotCheck => Outcome::CouldNotCheck.as_str(),
        }
    }
}

impl std::fmt::Display for Expectation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A word no [`Expectation`] is named: shown as one line naming every
/// expectation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a verdict (use one of: {names})", names = expectation_names())]
pub struct UnknownExpectation(pub String);

/// Every expectation's name, in [`Expectation::all`]'s order.
fn expectation_names() -> String {
    Expectation::all().iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")
}

impl std::str::FromStr for Expectation {
    type Err = UnknownExpectation;

    fn from_str(s: &str) -> Result<Expectation, UnknownExpectation> {
        Expectation::all().into_iter().find(|e| e.name() == s).ok_or_else(|| UnknownExpectation(s.to_string()))
    }
}

impl Serialize for Expectation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Expectation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Expectation, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// The checks a run makes beyond the file and the exercise.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// The hidden battery's seed. Never written to `plan.json`, which may
    /// sit on a shared file system: it is kept in `RESULTS/seed`, which
    /// only its owner may read (see [`crate::store::Results::write_plan`]).
    #[serde(skip)]
    pub seed: Option<u64>,
    /// Whether a seed was given: what `plan.json` says of it.
    #[serde(default)]
    pub seeded: bool,
    pub large: bool,
    /// Seconds one submission's check may take before it is stopped.
    pub timeout: u64,
}

impl Options {
    pub fn new(seed: Option<u64>, large: bool, timeout: u64) -> Options {
        Options { seed, seeded: seed.is_some(), large, timeout }
    }
}

/// One submission to check against one exercise.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// Its name in the gradebook and its folder under `gradescope/` and
    /// `prairielearn/`: the file's path under the submissions folder without
    /// `.cu`, with `@EXERCISE` added where one file is graded twice.
    pub submission: String,
    /// The file, as an absolute path (Slurm tasks read it from other nodes).
    pub file: PathBuf,
    pub exercise: ExerciseRef,
    /// The stored result's name: a SHA-256 of everything that can change
    /// its verdict (see [`key`]).
    pub key: String,
    /// The verdicts the manifest expects of it.
    pub expect: Expect,
    /// A SHA-256 of the file with its comments and white space removed:
    /// two submissions with the same one are flagged as identical.
    #[serde(default)]
    pub normalized: String,
    /// When the file was last changed, in seconds since 1970 (UTC), for a
    /// late policy (with a roster: when it was submitted, see
    /// [`crate::roster::submitted_at`]).
    #[serde(default)]
    pub modified: Option<i64>,
    /// Seconds added to the deadline for this submission's student.
    #[serde(default)]
    pub extension: i64,
}

/// The verdicts a manifest expects of a submission: with the public battery
/// (`expect`), with `--large` (`expect_large`), with a seeded hidden battery
/// (`expect_hidden`, under `--seed`) and with both (`expect_hidden_large`).
/// An empty column falls back to the one that asks less: hidden and large
/// to hidden, then to large; hidden to public; large to public.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expect {
    pub public: Option<Expectation>,
    pub large: Option<Expectation>,
    pub hidden: Option<Expectation>,
    pub hidden_large: Option<Expectation>,
}

impl Expect {
    /// What a manifest expects of an exercise file for its `// expect:`
    /// line (what `scripts/make-room` writes): a kind of failure is
    /// expected of the public battery; a kernel that passes without
    /// `--large` fails with it; one only the timing run rejects fails; one
    /// only the hidden battery rejects passes the public one and fails the
    /// hidden one (as the kind named, and with `--large` where the line
    /// says so); one only memcheck rejects passes the public battery and
    /// fails the hidden one, whose widest shapes read far past the input
    /// (on an H200 it failed 2 hidden shapes). `None` for a race: a lucky run may pass it, so its
    /// verdict is not fixed.
    pub fn of_line(line: &ExpectLine) -> Option<Expect> {
        use Expectation::{Fail, Pass};
        if line.race {
            return None;
        }
        let none = Expect::default();
        Some(if line.large_only {
            Expect { public: Some(Pass), large: Some(Fail), ..none }
        } else if line.sanitize_only {
            Expect { public: Some(Pass), hidden: Some(Fail), ..none }
        } else if line.timing_only {
            Expect { public: Some(Fail), ..none }
        } else if line.hidden_only && line.hidden_large {
            Expect { public: Some(Pass), hidden_large: Some(Fail), ..none }
        } else if line.hidden_only {
            Expect { public: Some(Pass), hidden: Some(line.hidden_kind.map_or(Fail, Expectation::Kind)), ..none }
        } else {
            Expect { public: Some(line.kind.map_or(Fail, Expectation::Kind)), ..none }
        })
    }

    /// The four columns, in a manifest's order (`expect`, `expect_large`,
    /// `expect_hidden`, `expect_hidden_large`).
    pub fn columns(&self) -> [Option<Expectation>; 4] {
        [self.public, self.large, self.hidden, self.hidden_large]
    }
}

impl Job {
    /// The verdict expected under `options`, if the manifest names one.
    pub fn expected(&self, options: &Options) -> Option<Expectation> {
        let e = &self.expect;
        let chain: &[Option<Expectation>] = match (options.seeded, options.large) {
            (false, false) => &[e.public],
            (false, true) => &[e.large, e.public],
            (true, false) => &[e.hidden, e.public],
            (true, true) => &[e.hidden_large, e.hidden, e.large, e.public],
        };
        chain.iter().find_map(|v| *v)
    }
}

/// A whole run: written to `RESULTS/plan.json` so that Slurm tasks and
/// `--collect` read exactly what the run was asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub submissions_dir: PathBuf,
    pub options: Options,
    /// Each chapter binary's identity (see [`crate::run::Checker::identity`]),
    /// part of every key: a rebuilt checker checks everything again.
    #[serde(default)]
    pub builds: BTreeMap<String, String>,
    /// The points of each exercise and the late policy.
    #[serde(default)]
    pub points: Points,
    /// Whether student-visible results name the hidden shapes and say how
    /// many there are (`--publish-hidden`).
    #[serde(default)]
    pub publish_hidden: bool,
    pub jobs: Vec<Job>,
    /// The `.cu` entries found but refused (see [`discover`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refused>,
    /// With `--roster`: every student, and the exercise graded.
    #[serde(default)]
    pub roster: Vec<Student>,
    /// With `--roster`: the students who submitted no file.
    #[serde(default)]
    pub missing: Vec<Student>,
}

/// The key a result is stored under: a SHA-256 of the file's content, the
/// exercise, the checker's build, the seed, `--large`, `--timeout`, and
/// that a seeded check reports its hidden shapes privately. Whatever can
/// change a verdict is in it, so that a result is reused only for the very
/// same check.
pub fn key(content: &[u8], exercise: &ExerciseRef, options: &Options, build: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"ktrav grade result 2\0");
    h.update(content);
    h.update(b"\0");
    h.update(exercise.to_string().as_bytes());
    h.update(b"\0build ");
    h.update(build.as_bytes());
    h.update(b"\0");
    h.update(options.seed.map_or("no seed".to_string(), |s| format!("seed {s}, private")).as_bytes());
    h.update(if options.large { b"\0large".as_slice() } else { b"\0default".as_slice() });
    h.update(format!("\0timeout {}", options.timeout).as_bytes());
    format!("{:x}", h.finalize())
}

/// A `.cu` entry found under the submissions folder that is not graded:
/// a symbolic link, a device, a pipe, a folder named `.cu`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    /// Its path under the submissions folder.
    pub file: String,
    /// Why, in a few words (`a symbolic link`).
    pub why: String,
}

/// What [`discover`] found: the files to grade, and the entries refused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    pub files: Vec<PathBuf>,
    pub refused: Vec<Refused>,
}

/// What an entry is, when it is not a regular file; judged on the entry
/// itself, never on what a link points to.
pub fn not_regular(kind: &std::fs::FileType) -> Option<&'static str> {
    ktrav::lab::what_else(kind)
}

/// CUDA source with its comments and white space removed (string and
/// character literals kept as they are), so that two copies that differ
/// only in those compare equal.
pub fn normalize(source: &str) -> String {
    let c: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '/' if c.get(i + 1) == Some(&'/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if c.get(i + 1) == Some(&'*') => {
                i += 2;
                while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
            }
            q @ ('"' | '\'') => {
                out.push(q);
                i += 1;
                while i < c.len() && c[i] != q {
                    if c[i] == '\\' && i + 1 < c.len() {
                        out.push(c[i]);
                        i += 1;
                    }
                    out.push(c[i]);
                    i += 1;
                }
                if i < c.len() {
                    out.push(q);
                }
                i += 1;
            }
            w if w.is_whitespace() => i += 1,
            other => {
                out.push(other);
                i += 1;
            }
        }
    }
    out
}

/// [`normalize`]d source's SHA-256; empty for a file of nothing but
/// comments and white space, which is no one's work to compare.
pub fn normalized_hash(content: &[u8]) -> String {
    let kept = normalize(&String::from_utf8_lossy(content));
    if kept.is_empty() {
        return String::new();
    }
    format!("{:x}", Sha256::digest(kept.as_bytes()))
}

/// Every `.cu` file under `dir`, sorted by path, skipping hidden entries
/// and `skip` (the results folder, when it lies inside). Only regular files
/// are graded: a `.cu` entry that is anything else (a link, a device, a
/// folder) is refused, not followed, and listed with why; links to folders
/// are not followed either.
pub fn discover(dir: &Path, skip: Option<&Path>) -> anyhow::Result<Found> {
    fn walk(root: &Path, dir: &Path, skip: Option<&Path>, out: &mut Found) -> anyhow::Result<()> {
        let entries = std::fs::read_dir(dir).map_err(|e| anyhow!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| anyhow!("cannot read {}: {e}", dir.display()))?;
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') || skip.is_some_and(|s| same_path(s, &path)) {
                continue;
            }
            // The entry's own type: a symbolic link is a link, not its target.
            let kind = std::fs::symlink_metadata(&path)
                .map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?
                .file_type();
            let cu = path.extension().is_some_and(|e| e == "cu");
            match not_regular(&kind) {
                None if cu => out.files.push(path),
                None => {}
                Some(why) if cu => {
                    let file = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
                    out.refused.push(Refused { file, why: format!("{why}: only a regular file is graded") });
                }
                Some(_) if kind.is_dir() => walk(root, &path, skip, out)?,
                Some(_) => {}
            }
        }
        Ok(())
    }
    let mut out = Found::default();
    walk(dir, dir, skip, &mut out)?;
    out.files.sort();
    out.refused.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(out)
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// A file to grade, its exercise, and the verdicts a manifest expects of it.
pub type Entry = (PathBuf, ExerciseRef, Expect);

/// One row of a manifest.
#[derive(Debug, Deserialize)]
struct ManifestRow {
    file: String,
    exercise: String,
    #[serde(default)]
    expect: Option<String>,
    #[serde(default)]
    expect_large: Option<String>,
    #[serde(default)]
    expect_hidden: Option<String>,
    #[serde(default)]
    expect_hidden_large: Option<String>,
}

/// A manifest's rows as (file under `dir`, exercise, expected verdicts).
/// The format is CSV with a header line naming the columns `file` and
/// `exercise`, and optionally `expect`, `expect_large`, `expect_hidden` and
/// `expect_hidden_large` (see [`Expect`]); lines starting with `#` are
/// comments.
pub fn read_manifest(path: &Path, dir: &Path, catalogue: &[ExerciseRef]) -> anyhow::Result<Vec<Entry>> {
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow!("cannot read the manifest {}: {e}", path.display()))?;
    let mut reader = csv::ReaderBuilder::new().comment(Some(b'#')).trim(csv::Trim::All).from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for (n, row) in reader.deserialize::<ManifestRow>().enumerate() {
        let at = |what: String| anyhow!("{} row {}: {what}", path.display(), n + 1);
        let row = row.map_err(|e| at(format!("{e}")))?;
        let file = dir.join(&row.file);
        match std::fs::symlink_metadata(&file) {
            Err(_) => return Err(at(format!("no file {} in {}", row.file, dir.display()))),
            Ok(m) => {
                if let Some(why) = not_regular(&m.file_type()) {
                    return Err(at(format!("{} is {why}: only a regular file is graded", row.file)));
                }
            }
        }
        let exercise = exercise::find(catalogue, &row.exercise).map_err(|e| at(e.to_string()))?;
        let expectation = |v: Option<String>| -> anyhow::Result<Option<Expectation>> {
            v.filter(|v| !v.is_empty())
                .map(|v| v.parse().map_err(|e: UnknownExpectation| at(e.to_string())))
                .transpose()
        };
        let expect = Expect {
            public: expectation(row.expect)?,
            large: expectation(row.expect_large)?,
            hidden: expectation(row.expect_hidden)?,
            hidden_large: expectation(row.expect_hidden_large)?,
        };
        rows.push((file, exercise, expect));
    }
    if rows.is_empty() {
        return Err(anyhow!("the manifest {} lists no submission", path.display()));
    }
    Ok(rows)
}

/// The plan for `rows` (file, exercise, expected verdicts): reads each
/// file for its key and names each submission. `builds` holds the
/// identity of every chapter's checker.
pub fn plan(dir: &Path, rows: Vec<Entry>, options: Options, builds: BTreeMap<String, String>) -> anyhow::Result<Plan> {
    let dir = absolute(dir)?;
    let mut jobs = Vec::new();
    for (file, exercise, expect) in &rows {
        let file = absolute(file)?;
        let content = std::fs::read(&file).map_err(|e| anyhow!("cannot read {}: {e}", file.display()))?;
        let shown = file.strip_prefix(&dir).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        let mut submission = shown.strip_suffix(".cu").unwrap_or(&shown).to_string();
        if rows.iter().filter(|(f, ..)| absolute(f).ok().as_ref() == Some(&file)).count() > 1 {
            submission = format!("{submission}@{}", exercise.id);
        }
        let build = builds.get(&exercise.chapter).map_or("", String::as_str);
        let key = key(&content, exercise, &options, build);
        let modified = std::fs::metadata(&file)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs() as i64);
        let normalized = normalized_hash(&content);
        jobs.push(Job {
            submission,
            file,
            exercise: exercise.clone(),
            key,
            expect: expect.clone(),
            normalized,
            modified,
            extension: 0,
        });
    }
    jobs.sort_by(|a, b| (&a.submission, &a.exercise).cmp(&(&b.submission, &b.exercise)));
    if let Some(w) = jobs.windows(2).find(|w| w[0].submission == w[1].submission) {
        return Err(anyhow!("the submission {} is listed twice for {}", w[0].submission, w[0].exercise));
    }
    Ok(Plan {
        submissions_dir: dir,
        options,
        builds,
        points: Points::default(),
        publish_hidden: false,
        jobs,
        roster: Vec::new(),
        missing: Vec::new(),
        refused: Vec::new(),
    })
}

/// `path` made absolute against the current folder, without resolving links.
pub fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(path).map_err(|e| anyhow!("cannot resolve {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercise::sample;

    fn options() -> Options {
        Options::new(None, false, 60)
    }

    #[test]
    fn keys_change_with_each_part() {
        let c = sample();
        let base = key(b"kernel", &c[0], &options(), "build 1");
        assert_eq!(base, key(b"kernel", &c[0], &options(), "build 1"));
        assert_eq!(base.len(), 64);
        assert_ne!(base, key(b"kernel2", &c[0], &options(), "build 1"));
        assert_ne!(base, key(b"kernel", &c[1], &options(), "build 1"));
        assert_ne!(base, key(b"kernel", &c[0], &Options::new(Some(1), false, 60), "build 1"));
        assert_ne!(
            key(b"kernel", &c[0], &Options::new(Some(1), false, 60), "build 1"),
            key(b"kernel", &c[0], &Options::new(Some(2), false, 60), "build 1")
        );
        assert_ne!(base, key(b"kernel", &c[0], &Options { large: true, ..options() }, "build 1"));
        assert_ne!(base, key(b"kernel", &c[0], &Options { timeout: 5, ..options() }, "build 1"));
        assert_ne!(base, key(b"kernel", &c[0], &options(), "build 2"), "a rebuilt checker checks again");
    }

    /// Every kind of failure a check reports is a verdict a manifest may
    /// expect, every expectation reads back from its name, and no two
    /// share one (`crashed`, a kind's name, stands for the outcome
    /// `checker crashed` too: one expectation).
    #[test]
    fn every_kind_of_the_lab_may_be_expected_and_every_name_reads_back() {
        let all = Expectation::all();
        for &kind in FailureKind::ALL {
            assert!(all.contains(&Expectation::Kind(kind)), "a manifest cannot expect '{kind}'");
        }
        for (i, e) in all.iter().enumerate() {
            assert_eq!(e.name().parse::<Expectation>(), Ok(*e));
            assert_eq!(serde_json::to_string(e).unwrap(), format!("\"{e}\""));
            assert_eq!(serde_json::from_str::<Expectation>(&format!("\"{e}\"")).unwrap(), *e);
            assert!(all[..i].iter().all(|f| f.name() != e.name()), "two expectations are named {e}");
        }
        let bad = "great".parse::<Expectation>().unwrap_err().to_string();
        assert!(bad.starts_with("'great' is not a verdict (use one of: pass, fail, compile error, no kernel, wrong,"));
        assert!(serde_json::from_str::<Expectation>("\"great\"").is_err());
    }

    /// Each form of `// expect:` line asks the manifest for the verdicts
    /// its checks give, and a race asks for none.
    #[test]
    fn an_expect_line_becomes_the_columns_a_manifest_holds() {
        let of = |verdict: &str| {
            let line = ktrav::lab::expect::parse(&format!("// expect: copy: {verdict}")).unwrap().remove(0);
            Expect::of_line(&line).map(|e| e.columns().map(|c| c.map_or(String::new(), |c| c.to_string())))
        };
        let cols = |a: &str, b: &str, c: &str, d: &str| Some([a, b, c, d].map(String::from));
        assert_eq!(of("out of bounds (only on matrices wider than a block)"), cols("out of bounds", "", "", ""));
        assert_eq!(of("unwritten (until the TODO is done)"), cols("unwritten", "", "", ""));
        assert_eq!(of("input changed"), cols("input changed", "", "", ""));
        assert_eq!(of("wrong (a race: it may pass one run, so it is repeated)"), None);
        assert_eq!(of("passes without --large; fails with --large"), cols("pass", "fail", "", ""));
        assert_eq!(of("passes without --sanitize; fails with --sanitize"), cols("pass", "", "fail", ""));
        assert_eq!(of("passes every shape; fails its timing"), cols("fail", "", "", ""));
        let hidden = ktrav::lab::expect::HIDDEN_ONLY;
        assert_eq!(of(hidden), cols("pass", "", "fail", ""));
        assert_eq!(of(&format!("{hidden} as unwritten")), cols("pass", "", "unwritten", ""));
        assert_eq!(of(&format!("{hidden} with --large")), cols("pass", "", "", "fail"));
    }

    #[test]
    fn comments_and_white_space_do_not_tell_copies_apart() {
        let a = "// mine\n__global__ void k(float* o) {\n  o[0] = 1.0f; /* set */\n}\n";
        let b = "/* my own\n work */ __global__   void k(float*o){o[0]=1.0f;}";
        assert_eq!(normalized_hash(a.as_bytes()), normalized_hash(b.as_bytes()));
        assert_eq!(normalize(a), "__global__voidk(float*o){o[0]=1.0f;}");
        // What a string says is kept, comment markers and spaces included.
        assert_ne!(normalize(r#"printf("a // b");"#), normalize(r#"printf("a");"#));
        assert_ne!(normalize(r#"printf("a b");"#), normalize(r#"printf("ab");"#));
        assert_ne!(normalized_hash(a.as_bytes()), normalized_hash(a.replace("1.0f", "2.0f").as_bytes()));
        assert_eq!(normalized_hash(b"// nothing\n  /* at all */\n"), "", "an empty file is compared with none");
    }

    #[test]
    fn a_folder_is_found_in_order_and_named_by_path() {
        let d = tempfile::tempdir().unwrap();
        for f in ["b.cu", "a/z.cu", "a/notes.txt", ".hidden/x.cu", "grading/old.cu"] {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, f).unwrap();
        }
        let found = discover(d.path(), Some(&d.path().join("grading"))).unwrap();
        assert!(found.refused.is_empty());
        let files = found.files;
        let c = sample();
        let rows = files.into_iter().map(|f| (f, c[2].clone(), Expect::default())).collect();
        let p = plan(d.path(), rows, options(), BTreeMap::new()).unwrap();
        let names: Vec<&str> = p.jobs.iter().map(|j| j.submission.as_str()).collect();
        assert_eq!(names, ["a/z", "b"]);
        assert!(p.jobs.iter().all(|j| j.file.is_absolute()));
        assert!(discover(&d.path().join("missing"), None).unwrap_err().to_string().starts_with("cannot read"));
    }

    /// A link, a folder named `.cu` and a device are refused with why, and
    /// nothing is followed: not a link to a file, nor one to a folder.
    #[test]
    fn only_regular_files_are_graded_and_the_rest_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let room = d.path().join("room");
        std::fs::create_dir_all(room.join("alice")).unwrap();
        std::fs::create_dir_all(room.join("carol.cu")).unwrap();
        std::fs::write(room.join("carol.cu/inner.cu"), "x").unwrap();
        std::fs::write(room.join("alice/a.cu"), "x").unwrap();
        let outside = d.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("token.txt"), "secret").unwrap();
        std::fs::write(outside.join("hidden.cu"), "x").unwrap();
        std::os::unix::fs::symlink(outside.join("token.txt"), room.join("bob.cu")).unwrap();
        std::os::unix::fs::symlink(&outside, room.join("linked")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", room.join("zero.cu")).unwrap();
        let found = discover(&room, None).unwrap();
        assert_eq!(found.files, [room.join("alice/a.cu")]);
        let refused: Vec<(&str, &str)> = found.refused.iter().map(|r| (r.file.as_str(), r.why.as_str())).collect();
        assert_eq!(
            refused,
            [
                ("bob.cu", "a symbolic link: only a regular file is graded"),
                ("carol.cu", "a folder: only a regular file is graded"),
                ("zero.cu", "a symbolic link: only a regular file is graded"),
            ]
        );
        if std::path::Path::new("/dev/null").exists() {
            assert_eq!(not_regular(&std::fs::symlink_metadata("/dev/null").unwrap().file_type()), Some("a device"));
        }
        let c = sample();
        let m = room.join("manifest.csv");
        std::fs::write(&m, "file,exercise\nbob.cu,K.2:transpose\n").unwrap();
        assert!(read_manifest(&m, &room, &c).unwrap_err().to_string().contains("bob.cu is a symbolic link"));
    }

    #[test]
    fn manifests_are_checked_row_by_row() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.cu"), "x").unwrap();
        let c = sample();
        let write = |text: &str| {
            let m = d.path().join("manifest.csv");
            std::fs::write(&m, text).unwrap();
            read_manifest(&m, d.path(), &c)
        };
        let rows =
            write("# a comment\nfile,exercise,expect\na.cu, K.2:transpose ,pass\na.cu,K.2:find-the-bug,\n").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].2.public, rows[1].2.public), (Some(Expectation::Pass), None));
        let hidden = write(
            "file,exercise,expect,expect_large,expect_hidden,expect_hidden_large\na.cu,K.2:transpose,pass,,fail,\n",
        )
        .unwrap();
        assert_eq!(
            hidden[0].2,
            Expect {
                public: Some(Expectation::Pass),
                large: None,
                hidden: Some(Expectation::Fail),
                hidden_large: None
            }
        );
        let every = write("file,exercise,expect,expect_large,expect_hidden,expect_hidden_large\na.cu,K.2:transpose,pass,wrong,unwritten,fail\n").unwrap();
        let v = |s: &str| Some(s.parse::<Expectation>().unwrap());
        assert_eq!(
            every[0].2,
            Expect { public: v("pass"), large: v("wrong"), hidden: v("unwritten"), hidden_large: v("fail") }
        );
        assert!(write("file,exercise,expect_hidden\na.cu,K.2:transpose,hmm\n")
            .unwrap_err()
            .to_string()
            .contains("'hmm' is not a verdict"));
        let p = plan(d.path(), rows, options(), BTreeMap::new()).unwrap();
        assert_eq!(p.jobs[0].submission, "a@find-the-bug");
        assert!(write("file,exercise\nb.cu,K.2:transpose\n").unwrap_err().to_string().contains("row 1: no file b.cu"));
        assert!(write("file,exercise\na.cu,K.9:x\n").unwrap_err().to_string().contains("no chapter 'K.9'"));
        assert!(write("file,exercise,expect\na.cu,K.2:transpose,great\n")
            .unwrap_err()
            .to_string()
            .contains("'great' is not a verdict"));
        assert!(write("file\na.cu\n").unwrap_err().to_string().contains("row 1"));
        assert!(write("file,exercise\n").unwrap_err().to_string().contains("lists no submission"));
        let twice = write("file,exercise\na.cu,K.2:transpose\na.cu,K.2:transpose\n").unwrap();
        assert!(plan(d.path(), twice, options(), BTreeMap::new()).unwrap_err().to_string().contains("listed twice"));
    }

    #[test]
    fn each_battery_reads_its_own_expectation_or_the_next_that_asks_less() {
        let v = |s: &str| Some(s.parse::<Expectation>().unwrap());
        let job = |expect: Expect| Job {
            submission: "a".into(),
            file: "/a.cu".into(),
            exercise: sample()[0].clone(),
            key: String::new(),
            expect,
            normalized: String::new(),
            modified: None,
            extension: 0,
        };
        let (public, large) = (options(), Options { large: true, ..options() });
        let (hidden, both) = (Options::new(Some(7), false, 60), Options::new(Some(7), true, 60));
        // A 32-bit index: wrong only past 2^31 elements, public or hidden.
        let int32 = job(Expect { public: v("pass"), large: v("fail"), ..Expect::default() });
        assert_eq!(
            [&public, &large, &hidden, &both].map(|o| int32.expected(o).map(Expectation::name)),
            [Some("pass"), Some("fail"), Some("pass"), Some("fail")]
        );
        // Wrong on a shape only the hidden battery has.
        let stale = job(Expect { public: v("pass"), hidden: v("wrong"), ..Expect::default() });
        assert_eq!(
            [&public, &large, &hidden, &both].map(|o| stale.expected(o).map(Expectation::name)),
            [Some("pass"), Some("pass"), Some("wrong"), Some("wrong")]
        );
        // Wrong only past 2^32 elements, which only the hidden large battery has.
        let uint32 = job(Expect { public: v("pass"), hidden_large: v("fail"), ..Expect::default() });
        assert_eq!(
            [&public, &large, &hidden, &both].map(|o| uint32.expected(o).map(Expectation::name)),
            [Some("pass"), Some("pass"), Some("pass"), Some("fail")]
        );
        assert_eq!(job(Expect::default()).expected(&both), None);
    }
}
