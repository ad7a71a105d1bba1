//! What a `compute-sanitizer` run reported, read from its log, so the book's
//! claim that the kernels are clean is rendered from the logs themselves.
//!
//! Two kinds of log: a chapter's small-shape mode under one tool
//! (`NAME-small-TOOL-CHAPTER.log`, as `scripts/measure` writes them), which
//! gives the verdict table, chapter by tool; and any other run
//! (`NAME-TOOL-CHAPTER.log` over a whole GPU section, or a harness's log),
//! listed by its closing line. In a small-mode log every launch has its
//! `small-run` line (see `ktrav_gpu::section`), and the kernels with
//! `role=wrong` are wrong on purpose: their findings are expected, shown
//! apart, and left out of the chapter's verdict.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Every tool a chapter's small-shape mode is run under.
pub const SMALL_TOOLS: [&str; 4] = ["memcheck", "racecheck", "synccheck", "initcheck"];

/// One finding: the line that opens it, and the kernel it names, if any
/// (an error in a host API call names none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub what: String,
    pub kernel: Option<String>,
}

/// One sanitizer log: the tool, what it ran, and its closing summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// `memcheck`, `racecheck`, `synccheck` or `initcheck`.
    pub tool: String,
    /// The command it ran, from the log's first line when the log starts
    /// with `$ `, else empty.
    pub command: String,
    /// Errors (or racecheck's hazards) it counted and its `ERROR SUMMARY`
    /// or `RACECHECK SUMMARY` line, verbatim; `None` when the log has no
    /// summary: the run did not finish (it was stopped at its time limit).
    pub result: Option<(u64, String)>,
    /// Every finding the log prints, in order.
    pub findings: Vec<Finding>,
    /// The kernels the run's `small-run` lines mark `role=wrong`.
    pub wrong_on_purpose: Vec<String>,
    /// The kernels with a run the section could not make (`result=skipped`:
    /// an earlier launch under the tool lost the context).
    pub skipped: Vec<String>,
    /// The `small-summary` line's runs and disagreements, if the log has one.
    pub small_runs: Option<(u64, u64)>,
    /// A small-shape log (`...-small-...`): its section must reach its
    /// `small-summary` line for the verdict to cover every kernel.
    pub small: bool,
    /// The kernels a harness's log names in its validation lines
    /// (`  K.2  transpose_tile32  1x1  ok ...`), in order; empty for a
    /// chapter's own section, which prints no such lines.
    pub harness_kernels: Vec<String>,
}

/// A chapter's verdict under one tool, its wrong-on-purpose kernels set
/// apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No log at all.
    NotRun,
    /// A log without a summary: stopped at its time limit.
    Stopped,
    /// A small-shape log whose section ended before its `small-summary`
    /// line (a launch failed), so some kernels never ran under the tool.
    Unfinished,
    /// Findings outside the wrong-on-purpose kernels (0: clean), in the
    /// tool's unit.
    Found { count: u64, unit: &'static str },
}

impl Verdict {
    /// `clean`, `3 errors`, `1 hazard`, `no verdict: stopped at its time limit`.
    pub fn describe(&self) -> String {
        match self {
            Verdict::NotRun => "not run yet: no log".into(),
            Verdict::Stopped => "no verdict: stopped at its time limit".into(),
            Verdict::Unfinished => "no verdict: the section stopped before its last kernel".into(),
            Verdict::Found { count: 0, .. } => "clean".into(),
            Verdict::Found { count, unit } => {
                format!("**{count} {}**", if *count == 1 { unit.trim_end_matches('s') } else { unit })
            }
        }
    }
}

/// The value of `key=` in a `small-run` or `small-summary` line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split(' ').find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
}

/// The kernel an `at ...` frame names: `at fill_row+0x1b0 in f.cu:38`,
/// `at fill_row(float *, int)+0x1b0 in ...` or `at 0x1b0 in fill_row(...)`.
fn frame_kernel(frame: &str) -> Option<String> {
    let rest = frame.split_once("at ")?.1.trim();
    let name = if rest.starts_with("0x") { rest.split_once(" in ")?.1.trim() } else { rest };
    let end = name.find(['(', '+', ' ']).unwrap_or(name.len());
    let name = &name[..end];
    (!name.is_empty() && !name.starts_with("0x")).then(|| name.to_string())
}

/// Whether a sanitizer line (prefix removed, not indented) opens a finding.
fn opens_finding(line: &str) -> bool {
    const OPENINGS: [&str; 9] = [
        "Invalid ",
        "Misaligned ",
        "Out-of-range ",
        "Uninitialized ",
        "Race reported",
        "Barrier error",
        "Program hit ",
        "Malloc/Free error",
        "Illegal ",
    ];
    let line = line.strip_prefix("Error: ").or_else(|| line.strip_prefix("Warning: ")).unwrap_or(line);
    OPENINGS.iter().any(|o| line.starts_with(o))
}

/// Reads a log whose name says the tool (`...-memcheck-...log`); `None`
/// for a file that is no sanitizer log.
pub fn parse(file_name: &str, log: &str) -> Option<Summary> {
    let tool = SMALL_TOOLS.into_iter().find(|t| file_name.contains(t))?;
    let result = log
        .lines()
        .map(|l| l.trim_start_matches("========= ").trim())
        .rfind(|l| l.contains("ERROR SUMMARY:") || l.contains("RACECHECK SUMMARY:"))
        .and_then(|line| {
            let errors = line.split_once(':')?.1.split_whitespace().next()?.parse().ok()?;
            Some((errors, line.to_string()))
        });
    let command = log.lines().next().and_then(|l| l.strip_prefix("$ ")).unwrap_or("").trim().to_string();
    let mut findings: Vec<Finding> = Vec::new();
    let mut wrong_on_purpose: Vec<String> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    let mut small_runs = None;
    let mut harness_kernels: Vec<String> = Vec::new();
    for line in log.lines() {
        if let Some(kernel) = harness_kernel(line) {
            if !harness_kernels.iter().any(|k| k == kernel) {
                harness_kernels.push(kernel.to_string());
            }
            continue;
        }
        if line.starts_with("small-run ") {
            if let (Some("wrong"), Some(kernel)) = (field(line, "role"), field(line, "kernel")) {
                if !wrong_on_purpose.iter().any(|k| k == kernel) {
                    wrong_on_purpose.push(kernel.to_string());
                }
            }
            if let (Some("skipped"), Some(kernel)) = (field(line, "result"), field(line, "kernel")) {
                if !skipped.iter().any(|k| k == kernel) {
                    skipped.push(kernel.to_string());
                }
            }
            continue;
        }
        if line.starts_with("small-summary ") {
            let num = |key| field(line, key).and_then(|v| v.parse().ok());
            small_runs = num("runs").zip(num("disagree"));
            continue;
        }
        let Some(body) = line.strip_prefix("=========") else { continue };
        let indented = body.starts_with("  ");
        let body = body.trim();
        if !indented && opens_finding(body) {
            let kernel = body.contains(" at ").then(|| frame_kernel(body)).flatten();
            findings.push(Finding { what: body.to_string(), kernel });
        } else if indented && body.starts_with("at ") {
            if let Some(last) = findings.last_mut().filter(|f| f.kernel.is_none()) {
                last.kernel = frame_kernel(body);
            }
        }
    }
    // An error a kernel wrong on purpose left behind (the API call that
    // next meets the aborted launch) is that kernel's.
    let mut last: Option<String> = None;
    for f in &mut findings {
        match &f.kernel {
            Some(k) => last = Some(k.clone()),
            None if f.what.starts_with("Program hit ") => {
                f.kernel = last.clone().filter(|k| wrong_on_purpose.contains(k));
            }
            None => {}
        }
    }
    let small = file_name.contains("-small-");
    Some(Summary {
        tool: tool.to_string(),
        command,
        result,
        findings,
        wrong_on_purpose,
        skipped,
        small_runs,
        small,
        harness_kernels,
    })
}

/// The kernel a harness's validation line names: `  K.7  lattice_tiled(per
/// tile diag)  1x1  ok ...` gives `lattice_tiled`.
fn harness_kernel(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("  K.")?;
    let mut words = rest.split_whitespace();
    words.next().filter(|label| label.chars().all(|c| c.is_ascii_digit()))?;
    let word = words.next()?;
    let name = &word[..word.find('(').unwrap_or(word.len())];
    (!name.is_empty()).then_some(name)
}

impl Summary {
    /// The findings in kernels wrong on purpose, by kernel, in order.
    pub fn wrong_findings(&self) -> BTreeMap<&str, Vec<&Finding>> {
        let mut by_kernel: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
        for f in &self.findings {
            if let Some(k) = f.kernel.as_deref().filter(|k| self.wrong_on_purpose.iter().any(|w| w == k)) {
                by_kernel.entry(k).or_default().push(f);
            }
        }
        by_kernel
    }

    /// The verdict on everything but the kernels wrong on purpose: the
    /// summary's count less the findings printed for those kernels (a
    /// finding the tool counted but did not print stays in the verdict).
    pub fn verdict(&self) -> Verdict {
        let unit = if self.tool == "racecheck" { "hazards" } else { "errors" };
        match &self.result {
            None => Verdict::Stopped,
            Some(_) if self.small && self.small_runs.is_none() => Verdict::Unfinished,
            Some((count, _)) => {
                let wrong: usize = self.wrong_findings().values().map(Vec::len).sum();
                Verdict::Found { count: count.saturating_sub(wrong as u64), unit }
            }
        }
    }
}

/// Whether `file` is the small-shape log of `tool` over `chapter`
/// (`NAME-small-TOOL-CHAPTER.log`).
pub fn is_small_log(file: &str, tool: &str, chapter: &str) -> bool {
    file.ends_with(&format!("-small-{tool}-{chapter}.log"))
}

/// The verdict table, a row per chapter of `chapters` (the chapters with a
/// GPU section) and a column per tool of [`SMALL_TOOLS`], every cell read
/// from that chapter's small-shape log under that tool, linked to it.
pub fn render_small(summaries: &[(String, Summary)], chapters: &[&str]) -> String {
    let mut md = format!("| Chapter | {} |\n| --- |{}\n", SMALL_TOOLS.join(" | "), " --- |".repeat(SMALL_TOOLS.len()));
    for chapter in chapters {
        let _ = write!(md, "| {chapter} |");
        for tool in SMALL_TOOLS {
            match summaries.iter().find(|(file, _)| is_small_log(file, tool, chapter)) {
                Some((file, s)) => {
                    let _ = write!(md, " [{}](measured/{file}) |", s.verdict().describe());
                }
                None => {
                    let _ = write!(md, " {} |", Verdict::NotRun.describe());
                }
            }
        }
        md.push('\n');
    }
    md
}

/// What the tools say about the kernels wrong on purpose, from the small
/// logs: per chapter and tool, each such kernel's findings counted by the
/// kind of finding (the line that opens it, its address details dropped),
/// or that the tool found nothing in it.
pub fn render_wrong(summaries: &[(String, Summary)], chapters: &[&str]) -> String {
    let mut md = String::new();
    for chapter in chapters {
        for tool in SMALL_TOOLS {
            let Some((file, s)) = summaries.iter().find(|(file, _)| is_small_log(file, tool, chapter)) else {
                continue;
            };
            if s.wrong_on_purpose.is_empty() {
                continue;
            }
            let found = s.wrong_findings();
            for kernel in &s.wrong_on_purpose {
                let said = match found.get(kernel.as_str()) {
                    _ if s.result.is_none() => "no verdict: the run stopped at its time limit".to_string(),
                    None => "nothing".to_string(),
                    Some(findings) => {
                        let mut kinds: Vec<(String, usize)> = Vec::new();
                        for f in findings {
                            let kind = finding_kind(&f.what);
                            match kinds.iter_mut().find(|(k, _)| *k == kind) {
                                Some((_, n)) => *n += 1,
                                None => kinds.push((kind, 1)),
                            }
                        }
                        kinds.iter().map(|(k, n)| format!("{n} × `{k}`")).collect::<Vec<_>>().join("; ")
                    }
                };
                let said = if s.skipped.contains(kernel) {
                    format!("{said} (its run past the buffer's end was skipped: an earlier launch under the tool lost the context)")
                } else {
                    said
                };
                let _ = writeln!(md, "- {chapter}, `{kernel}`, {tool}: {said} ([log](measured/{file}))");
            }
        }
    }
    if md.is_empty() {
        md.push_str("- No small-shape log marks a kernel wrong on purpose yet.\n");
    }
    md
}

/// A finding's kind: its opening line up to any address, thread or block,
/// as the tool wrote it (the page shows it as code, so that `__global__`
/// is not read as markdown).
fn finding_kind(what: &str) -> String {
    let cut =
        [" at ", " by thread", " in block", " Address"].iter().filter_map(|m| what.find(m)).min().unwrap_or(what.len());
    what[..cut].trim_end_matches([' ', '.', ':']).replace('`', "'")
}

/// A markdown table of every other log's summary (whole sections,
/// harness runs). A harness's log names the kernels it ran; for it, the
/// command is shown without the note the log gives it in parentheses,
/// followed by the ones of `kernels` (every kernel the chapters have now)
/// the log never names.
pub fn render(summaries: &[(String, Summary)], kernels: &[&str]) -> String {
    let mut md = String::from("| Tool | What it ran | Summary | Log |\n| --- | --- | --- | --- |\n");
    for (file, s) in summaries {
        let command = match (s.command.as_str(), s.harness_kernels.is_empty()) {
            ("", _) => "see the log".to_string(),
            (command, true) => format!("`{command}`"),
            (command, false) => {
                let bare = command.find(" (").filter(|_| command.ends_with(')')).map_or(command, |at| &command[..at]);
                let never: Vec<String> = kernels
                    .iter()
                    .filter(|k| !s.harness_kernels.iter().any(|h| h == *k))
                    .map(|k| format!("`{k}`"))
                    .collect();
                if never.is_empty() {
                    format!("`{bare}`, every kernel the chapters have now")
                } else {
                    format!("`{bare}`, every kernel the chapters have now but {}", never.join(", "))
                }
            }
        };
        let summary = match &s.result {
            Some((_, line)) => line.clone(),
            None => "did not finish within its time limit: no verdict".to_string(),
        };
        md.push_str(&format!("| {} | {command} | {summary} | [{file}](measured/{file}) |\n", s.tool));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_read_from_the_log() {
        let log = "$ compute-sanitizer --tool racecheck ./k2\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n";
        let s = parse("h200-racecheck-k2.log", log).unwrap();
        assert_eq!((s.tool.as_str(), s.command.as_str()), ("racecheck", "compute-sanitizer --tool racecheck ./k2"));
        assert_eq!(s.result.as_ref().map(|r| r.0), Some(0));
        assert_eq!(s.verdict(), Verdict::Found { count: 0, unit: "hazards" });
        let bad = parse("x-memcheck.log", "========= ERROR SUMMARY: 3 errors\n").unwrap();
        assert_eq!(bad.result.as_ref().map(|r| r.0), Some(3));
        assert_eq!(bad.verdict().describe(), "**3 errors**");
        let killed = parse("x-memcheck.log", "no summary: it was killed\n").unwrap();
        assert!(killed.result.is_none());
        assert_eq!(killed.verdict().describe(), "no verdict: stopped at its time limit");
        assert!(parse("notes.log", log).is_none());
        let md = render(&[("a.log".into(), bad), ("b.log".into(), killed)], &["k"]);
        assert!(md.contains("| memcheck | see the log | ERROR SUMMARY: 3 errors |"), "{md}");
        assert!(md.contains("did not finish"), "{md}");
    }

    /// A harness's log names its kernels; the table says which of the
    /// chapters' kernels it never ran, in place of the note on its command.
    #[test]
    fn a_harness_log_is_shown_with_the_kernels_it_never_ran() {
        let log = "\
$ compute-sanitizer --tool memcheck ./ladder --small (every kernel, it said)
== validation ==
  K.2  transpose_tile32                     1x1         ok    vs CPU
  K.7  lattice_tiled(per tile diag)         1x1         ok    vs CPU, launched twice
  K.7  lattice_tiled(per tile diag)         7x1         ok    vs CPU, launched twice
========= ERROR SUMMARY: 0 errors
";
        let s = parse("ladder-memcheck-small.log", log).unwrap();
        assert_eq!(s.harness_kernels, ["transpose_tile32", "lattice_tiled"]);
        let quick =
            parse("h200-memcheck-k2.log", "$ compute-sanitizer k2 (QUICK)\n========= ERROR SUMMARY: 0 errors\n")
                .unwrap();
        assert!(quick.harness_kernels.is_empty());
        let kernels = ["transpose_tile32", "lattice_tiled", "lattice_v5_skewed_staged", "fill_checked"];
        let md = render(&[("l.log".into(), s.clone()), ("q.log".into(), quick)], &kernels);
        assert!(
            md.contains("| memcheck | `compute-sanitizer --tool memcheck ./ladder --small`, every kernel the chapters have now but `lattice_v5_skewed_staged`, `fill_checked` |"),
            "{md}"
        );
        assert!(md.contains("| `compute-sanitizer k2 (QUICK)` |"), "{md}");
        let md = render(&[("l.log".into(), s)], &kernels[..2]);
        assert!(md.contains("./ladder --small`, every kernel the chapters have now |"), "{md}");
    }

    #[test]
    fn frames_name_their_kernel_in_every_form() {
        assert_eq!(
            frame_kernel("at fill_row_only_checked+0x1b0 in /k4.cu:38").as_deref(),
            Some("fill_row_only_checked")
        );
        assert_eq!(frame_kernel("at fill(float *, int)+0x10 in f.cu:3").as_deref(), Some("fill"));
        assert_eq!(frame_kernel("at 0x1b0 in fill_row(float*, unsigned long)").as_deref(), Some("fill_row"));
        assert_eq!(frame_kernel("no frame"), None);
    }

    /// A small-mode log with a finding in a kernel wrong on purpose and one
    /// in a kernel that is not: only the second counts against the chapter,
    /// the first is shown apart by its kind.
    #[test]
    fn findings_in_kernels_wrong_on_purpose_are_set_apart() {
        let log = "\
$ KTRAV_GPU_SMALL=1 compute-sanitizer --tool memcheck k4_boundary_check
small-run chapter=k4_boundary_check kernel=fill_checked role=teaching shape=37x61 grid=2x8 block=32x8 result=agrees
small-run chapter=k4_boundary_check kernel=fill_row_only_checked role=wrong shape=37x61 grid=2x8 block=32x8 result=shown wrong=61/2257
========= Invalid __global__ write of size 4 bytes
=========     at fill_row_only_checked+0x1b0 in /k/kernels/k4_boundary_check.cu:38
=========     by thread (5,0,0) in block (1,0,0)
=========     Address 0x7f0000001000 is out of bounds
=========
========= Invalid __global__ write of size 4 bytes
=========     at fill_row_only_checked+0x1b0 in /k/kernels/k4_boundary_check.cu:38
=========     by thread (6,0,0) in block (1,0,0)
========= Invalid __global__ read of size 4 bytes
=========     at fill_checked+0x80 in /k/kernels/k4_boundary_check.cu:30
small-summary chapter=k4_boundary_check runs=2 disagree=0
========= ERROR SUMMARY: 3 errors
";
        let s = parse("h200-small-memcheck-k4_boundary_check.log", log).unwrap();
        assert_eq!(s.wrong_on_purpose, ["fill_row_only_checked"]);
        assert_eq!(s.small_runs, Some((2, 0)));
        assert_eq!(s.findings.len(), 3);
        assert_eq!(s.verdict().describe(), "**1 error**");
        let logs = vec![("h200-small-memcheck-k4_boundary_check.log".to_string(), s)];
        let table = render_small(&logs, &["k4_boundary_check"]);
        assert!(table.contains("| k4_boundary_check | [**1 error**](measured/h200-small-memcheck-k4_boundary_check.log) | not run yet: no log |"), "{table}");
        let wrong = render_wrong(&logs, &["k4_boundary_check"]);
        assert!(
            wrong.contains(
                "- k4_boundary_check, `fill_row_only_checked`, memcheck: 2 × `Invalid __global__ write of size 4 bytes`"
            ),
            "{wrong}"
        );
        let clean = log
            .replace("=========     at fill_checked+0x80 in /k/kernels/k4_boundary_check.cu:30\n", "")
            .replace("========= Invalid __global__ read of size 4 bytes\n", "")
            .replace("3 errors", "2 errors");
        let clean = parse("h200-small-memcheck-k4_boundary_check.log", &clean).unwrap();
        assert_eq!(clean.verdict().describe(), "clean");
        let cut = log.replace("small-summary chapter=k4_boundary_check runs=2 disagree=0\n", "");
        let cut = parse("h200-small-memcheck-k4_boundary_check.log", &cut).unwrap();
        assert_eq!(cut.verdict().describe(), "no verdict: the section stopped before its last kernel");
    }

    /// The strays of a kernel wrong on purpose past an allocation's end:
    /// memcheck stops the launch, the host's next call meets the error, the
    /// run line says `result=aborted` (after the findings, as it is printed
    /// once the launch has failed), and the section still reaches its
    /// summary: the chapter is clean, the findings shown apart.
    #[test]
    fn an_aborted_wrong_launch_is_shown_apart_and_leaves_a_verdict() {
        let log = "\
$ KTRAV_GPU_SMALL=1 compute-sanitizer --tool memcheck k4_boundary_check
small-run chapter=k4_boundary_check kernel=fill_checked role=teaching shape=1x1 grid=1x1 block=32x8 result=agrees
small-run chapter=k4_boundary_check kernel=fill_row_only_checked role=wrong shape=1x1 grid=1x1 block=32x8 result=shown wrong=0/1
========= Invalid __global__ write of size 4 bytes
=========     at fill_row_only_checked+0x1c0 in k4_boundary_check.cu:38
=========     by thread (1,0,0) in block (0,0,0)
=========
========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA API call to cuStreamSynchronize.
small-run chapter=k4_boundary_check kernel=fill_row_only_checked role=wrong shape=1x1 grid=1x1 block=32x8 result=aborted
the launch ended in an error, so the context is lost: nothing more runs on the GPU
small-run chapter=k4_boundary_check kernel=add_row_only_checked role=wrong shape=1x1 grid=1x1 block=32x8 result=skipped
small-summary chapter=k4_boundary_check runs=3 disagree=0
========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA API call to cuMemFree.
========= ERROR SUMMARY: 3 errors
";
        let s = parse("h200-small-memcheck-k4_boundary_check.log", log).unwrap();
        assert_eq!(s.wrong_on_purpose, ["fill_row_only_checked", "add_row_only_checked"]);
        assert_eq!(s.skipped, ["add_row_only_checked"]);
        assert_eq!(s.wrong_findings()["fill_row_only_checked"].len(), 3);
        assert_eq!(s.verdict().describe(), "clean");
        let logs = vec![("h200-small-memcheck-k4_boundary_check.log".to_string(), s)];
        let wrong = render_wrong(&logs, &["k4_boundary_check"]);
        assert!(wrong.contains("`fill_row_only_checked`, memcheck: 1 × `Invalid __global__ write of size 4 bytes`; 1 × `Program hit CUDA_ERROR_LAUNCH_FAILED"), "{wrong}");
        assert!(
            wrong.contains("`add_row_only_checked`, memcheck: nothing (its run past the buffer's end was skipped"),
            "{wrong}"
        );
        let teaching = log.replace(
            "role=wrong shape=1x1 grid=1x1 block=32x8 result=shown",
            "role=teaching shape=1x1 grid=1x1 block=32x8 result=agrees",
        );
        let teaching = teaching.replace(
            "role=wrong shape=1x1 grid=1x1 block=32x8 result=aborted",
            "role=teaching shape=1x1 grid=1x1 block=32x8 result=agrees",
        );
        assert_eq!(
            parse("h200-small-memcheck-k4_boundary_check.log", &teaching).unwrap().verdict().describe(),
            "**3 errors**"
        );
    }

    #[test]
    fn a_race_names_its_kernel_on_its_own_line() {
        let log = "========= Error: Race reported between Write access at tile+0x50 in t.cu:9\n=========     and Read access at tile+0x90 in t.cu:12 [16 hazards]\n========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
        let s = parse("x-racecheck-k2.log", log).unwrap();
        assert_eq!(
            s.findings,
            [Finding {
                what: "Error: Race reported between Write access at tile+0x50 in t.cu:9".into(),
                kernel: Some("tile".into())
            }]
        );
        assert_eq!(s.verdict().describe(), "**1 hazard**");
    }
}
