//! `--sanitize`: the battery's small shapes run again in workers started
//! under NVIDIA's compute-sanitizer, memcheck (reads and writes out of
//! bounds, misaligned accesses) and racecheck (shared-memory hazards, a
//! race the GPU happened to hide), each finding a verdict.

use ktrav::lab::{SanitizerTool, Verdict};
use std::path::{Path, PathBuf};

/// Shapes of at most this many elements are run under the sanitizer, which
/// slows a kernel down many times over.
pub const MAX_ELEMENTS: u64 = 1 << 18;

/// The program's name.
pub const PROGRAM: &str = "compute-sanitizer";

/// The tools to run, as `--sanitize[=memcheck,racecheck]` names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tools(pub Vec<SanitizerTool>);

impl Default for Tools {
    /// Every tool, what `--sanitize` without a list runs.
    fn default() -> Self {
        Tools(SanitizerTool::ALL.to_vec())
    }
}

/// `--sanitize`'s value when given no list: every tool, comma separated.
pub const ALL_TOOLS: &str = "memcheck,racecheck";

/// Every tool's name, for an error.
fn names() -> String {
    SanitizerTool::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
}

/// clap's parser for `--sanitize`'s value: tools of [`SanitizerTool`],
/// comma separated, each at most once.
pub fn parse_tools(s: &str) -> Result<Tools, String> {
    let mut tools = Vec::new();
    for t in s.split(',').map(str::trim) {
        let tool: SanitizerTool = t.parse().map_err(|e| format!("{e} (choose from {})", names()))?;
        if tools.contains(&tool) {
            return Err(format!("'{t}' is named twice"));
        }
        tools.push(tool);
    }
    Ok(Tools(tools))
}

/// Names the compute-sanitizer program to use, ahead of any other.
pub const PROGRAM_ENV: &str = "KTRAV_COMPUTE_SANITIZER";

/// The PyPI wheel that ships compute-sanitizer, of the pinned CUDA release.
pub const WHEEL: &str = "nvidia-cuda-sanitizer-api==13.0.85";

/// compute-sanitizer: the program [`PROGRAM_ENV`] names, else on the `PATH`,
/// else in a CUDA toolkit's `bin` folder (`$CUDA_HOME`, `$CUDA_PATH`,
/// `/usr/local/cuda*`), else from the [`WHEEL`] in the workspace's
/// `.cuda-venv` (the one this was built in, or one in the current folder).
pub fn locate() -> Option<PathBuf> {
    if let Some(named) = std::env::var_os(PROGRAM_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(named)).filter(|p| is_executable(p));
    }
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            let home = PathBuf::from(home);
            dirs.push(home.join("bin"));
            dirs.push(home.join("compute-sanitizer"));
        }
    }
    let mut installed: Vec<PathBuf> = std::fs::read_dir("/usr/local")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("cuda")))
        .collect();
    installed.sort();
    for home in installed {
        dirs.push(home.join("bin"));
        dirs.push(home.join("compute-sanitizer"));
    }
    let mut venvs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.cuda-venv/lib")];
    if let Ok(here) = std::env::current_dir() {
        venvs.push(here.join(".cuda-venv/lib"));
    }
    for venv in venvs {
        for py in std::fs::read_dir(venv).into_iter().flatten().flatten() {
            dirs.push(py.path().join("site-packages/nvidia/cu13/bin"));
        }
    }
    dirs.into_iter().map(|d| d.join(PROGRAM)).find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The line a check prints when `--sanitize` finds no compute-sanitizer.
pub fn missing() -> String {
    format!("--sanitize: {PROGRAM} was not found ({PROGRAM_ENV}, the PATH, CUDA folders, .cuda-venv; pip install {WHEEL} provides it), so no sanitizer ran")
}

/// compute-sanitizer's arguments for `tool`, before the program it runs.
/// The padding memcheck puts after each allocation: as far as the
/// farthest stray access of a shape of at most [`MAX_ELEMENTS`] elements
/// can reach (the exercises' blocks are at most 32 rows tall, so a stray
/// row lies fewer than 32 rows of at most that many 4-byte elements past
/// the end; a one-axis launch strays by less than a block).
pub const PADDING_BYTES: u64 = 32 * MAX_ELEMENTS * 4;

pub fn arguments(tool: SanitizerTool) -> Vec<String> {
    let mut args: Vec<String> = ["--tool", tool.as_str(), "--print-limit", "20", "--error-exitcode", "0"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if tool == SanitizerTool::Memcheck {
        // A padding buffer after every allocation: a read or write past the
        // end of one buffer lands in the padding, not in the next buffer,
        // where memcheck could not tell it from a right access.
        args.extend(["--padding".to_string(), PADDING_BYTES.to_string()]);
    }
    args
}

/// The verdict on compute-sanitizer's lines (those starting `=========`)
/// from running `tool`: a pass, the count of errors and the first, or
/// `None` when the tool gave no summary (it did not run the kernel).
pub fn verdict(tool: SanitizerTool, lines: &[String]) -> Option<Verdict> {
    let body = |l: &str| l.trim_start_matches('=').to_string();
    let summary = |prefix: &str| lines.iter().find_map(|l| body(l).trim().strip_prefix(prefix).map(str::to_string));
    // memcheck, synccheck and initcheck end with `ERROR SUMMARY: N errors`;
    // racecheck may end with `RACECHECK SUMMARY: H hazards displayed (E
    // errors, W warnings)` alone, whose errors are the hazards it is sure of.
    let errors = match summary("ERROR SUMMARY:") {
        Some(rest) => rest.split_whitespace().next()?.parse::<u64>().ok()?,
        None => {
            let rest = summary("RACECHECK SUMMARY:")?;
            rest.split_once('(')?.1.split_whitespace().next()?.parse::<u64>().ok()?
        }
    };
    if errors == 0 && !target_ended_cleanly(lines) {
        // The tool reports some hazards only when the process ends; one
        // that did not end cleanly leaves a clean summary meaning nothing.
        return Some(Verdict::Skipped {
            reason: format!("the worker under {tool} did not end cleanly ({PROGRAM}: {TARGET_FAILED}), so its clean summary is no verdict"),
        });
    }
    if errors == 0 {
        return Some(Verdict::Pass);
    }
    // A report's first line is indented by one space; its details, more.
    let first = lines
        .iter()
        .map(|l| body(l))
        .filter(|b| b.starts_with(' ') && !b.starts_with("  "))
        .map(|b| b.trim().to_string())
        .find(|b| !b.is_empty() && !b.starts_with("COMPUTE-SANITIZER") && !b.contains("SUMMARY:"))
        .unwrap_or_else(|| "(no details)".into());
    Some(Verdict::Sanitizer { tool, errors, first })
}

/// What compute-sanitizer prints when the process it ran crashed or was
/// killed before it ended.
pub const TARGET_FAILED: &str = "process didn't terminate successfully";

/// Whether compute-sanitizer's `lines` show the process it ran ending
/// normally (a nonzero exit status is normal: a failing check's).
pub fn target_ended_cleanly(lines: &[String]) -> bool {
    !lines.iter().any(|l| l.contains(TARGET_FAILED))
}

/// How many times a shape is run under a tool whose run did not end
/// cleanly, before it is reported with no verdict.
pub const ATTEMPTS: usize = 2;

/// `first` (a finding's first line) with the function it names put right:
/// racecheck 13.0 can print the launched kernel's name from a copy that was
/// freed after the module was loaded (cudarc hands `cuModuleGetFunction` a
/// temporary string), so its first bytes come out as garbage before the
/// rest of the name (`at }pUe_tile32_padded+0x360`). Looking the function up
/// once more with a name that is never freed did not change what it printed
/// (H200, 2026-12-02): it keeps the first. A name that ends with
/// at least half of `kernel`'s closing characters but is not `kernel`
/// becomes `kernel`; any other name is left as the tool wrote it.
pub fn name_the_kernel(first: &str, kernel: &str) -> String {
    let Some(at) = first.find(" at ") else { return first.to_string() };
    let start = at + 4;
    let Some(len) = first[start..].find("+0x") else { return first.to_string() };
    let name = &first[start..start + len];
    let common = name.chars().rev().zip(kernel.chars().rev()).take_while(|(a, b)| a == b).count();
    if name == kernel || common * 2 < kernel.chars().count() {
        return first.to_string();
    }
    format!("{}{kernel}{}", &first[..start], &first[start + len..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn tools_are_named_from_the_list_once_each() {
        use SanitizerTool::{Memcheck, Racecheck};
        assert_eq!(parse_tools("memcheck").unwrap(), Tools(vec![Memcheck]));
        assert_eq!(parse_tools("racecheck, memcheck").unwrap().0, vec![Racecheck, Memcheck]);
        assert!(parse_tools("initcheck")
            .unwrap_err()
            .contains("'initcheck' is no sanitizer tool (choose from memcheck, racecheck)"));
        assert!(parse_tools("memcheck,memcheck").unwrap_err().contains("named twice"));
        assert!(parse_tools("").is_err());
        // The value `--sanitize` takes without a list is every tool.
        assert_eq!(parse_tools(ALL_TOOLS).unwrap(), Tools::default());
        assert_eq!(Tools::default().0, SanitizerTool::ALL.to_vec());
    }

    #[test]
    fn racechecks_own_summary_is_a_verdict() {
        let clean = lines(
            "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)",
        );
        assert_eq!(verdict(SanitizerTool::Racecheck, &clean), Some(Verdict::Pass));
        let race = lines("========= Error: Race reported between Write access at k+0x10\n========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warnings)");
        match verdict(SanitizerTool::Racecheck, &race) {
            Some(Verdict::Sanitizer { errors, .. }) => assert_eq!(errors, 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn findings_become_verdicts_and_silence_is_no_verdict() {
        let clean = lines("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors");
        assert_eq!(verdict(SanitizerTool::Memcheck, &clean), Some(Verdict::Pass));
        let oob = lines(
            "========= COMPUTE-SANITIZER\n========= Invalid __global__ write of size 4 bytes\n=========     at copy+0x90\n=========     by thread (0,0,0)\n========= \n========= ERROR SUMMARY: 3 errors",
        );
        let v = verdict(SanitizerTool::Memcheck, &oob).unwrap();
        assert_eq!(
            v,
            Verdict::Sanitizer {
                tool: SanitizerTool::Memcheck,
                errors: 3,
                first: "Invalid __global__ write of size 4 bytes".into()
            }
        );
        assert_eq!(v.kinds(), vec![ktrav::lab::FailureKind::MemoryError]);
        let race = lines("========= Error: Race reported between Write access at k+0x10\n=========     and Read access\n========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n========= ERROR SUMMARY: 1 error");
        let r = verdict(SanitizerTool::Racecheck, &race).unwrap();
        assert_eq!(r.kinds(), vec![ktrav::lab::FailureKind::Race]);
        assert!(
            r.describe(1).starts_with("racecheck found 1 errors, the first: Error: Race reported"),
            "{}",
            r.describe(1)
        );
        assert_eq!(
            verdict(
                SanitizerTool::Memcheck,
                &lines("========= Error: Target application terminated before first instrumented API call")
            ),
            None
        );
    }

    /// As racecheck printed it on the H200 for a worker that did not end
    /// cleanly: no hazard reported, though the kernel races.
    #[test]
    fn a_clean_summary_from_a_run_that_did_not_end_is_no_pass() {
        let crashed = lines(
            "========= COMPUTE-SANITIZER\n========= Error: process didn't terminate successfully\n=========     The application may have hit an error when dereferencing Unified Memory from the host.\n========= Target application returned an error\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)",
        );
        assert!(!target_ended_cleanly(&crashed));
        match verdict(SanitizerTool::Racecheck, &crashed) {
            Some(Verdict::Skipped { reason }) => {
                assert!(reason.contains("did not end cleanly") && reason.contains(TARGET_FAILED), "{reason}")
            }
            other => panic!("{other:?}"),
        }
        // A finding before the end still counts.
        let found = lines("========= Error: Race reported between Write access at k+0x10\n========= Error: process didn't terminate successfully\n========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)");
        assert!(matches!(verdict(SanitizerTool::Racecheck, &found), Some(Verdict::Sanitizer { errors: 1, .. })));
        // A failing check's nonzero exit is a clean end.
        let failing = lines("========= COMPUTE-SANITIZER\n========= Target application returned an error\n========= ERROR SUMMARY: 0 errors");
        assert!(target_ended_cleanly(&failing));
        assert_eq!(verdict(SanitizerTool::Memcheck, &failing), Some(Verdict::Pass));
    }

    #[test]
    fn a_garbled_kernel_name_is_put_right_and_others_are_kept() {
        let k = "transpose_tile32_padded";
        let seen = "Error: Race reported between Write access at }pUe_tile32_padded+0x360";
        assert_eq!(
            name_the_kernel(seen, k),
            "Error: Race reported between Write access at transpose_tile32_padded+0x360"
        );
        let right = "Error: Race reported between Write access at transpose_tile32_padded+0x360";
        assert_eq!(name_the_kernel(right, k), right);
        let helper = "Error: Race reported between Write access at stage_tile+0x40";
        assert_eq!(name_the_kernel(helper, k), helper);
        assert_eq!(
            name_the_kernel("Invalid __global__ read of size 4 bytes", k),
            "Invalid __global__ read of size 4 bytes"
        );
        assert_eq!(name_the_kernel("Error: Race reported at x_padded+0x1", k), "Error: Race reported at x_padded+0x1");
        // Exactly half of the name's closing characters is enough.
        assert_eq!(name_the_kernel("Race at XYefgh+0x8", "abcdefgh"), "Race at abcdefgh+0x8");
        assert_eq!(name_the_kernel("Race at XYZfgh+0x8", "abcdefgh"), "Race at XYZfgh+0x8");
    }

    #[test]
    fn a_missing_sanitizer_is_one_line() {
        assert!(!missing().contains('\n') && missing().contains(PROGRAM) && missing().contains(WHEEL));
    }
}
