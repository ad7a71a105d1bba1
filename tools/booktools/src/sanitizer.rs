//! What a `compute-sanitizer` run reported, read from its log, so the book's
//! claim that the kernels are clean is rendered from the logs themselves.

/// One sanitizer log: the tool, what it ran, and its closing summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// `memcheck`, `racecheck`, `synccheck` or `initcheck`.
    pub tool: String,
    /// The command it ran, from the log's first line when the log starts
    /// with `$ `, else empty.
    pub command: String,
    /// Errors it counted and its `ERROR SUMMARY` or `RACECHECK SUMMARY`
    /// line, verbatim; `None` when the log has no summary: the run did not
    /// finish (it was stopped at its time limit).
    pub result: Option<(u64, String)>,
}

/// Reads a log whose name says the tool (`...-memcheck-...log`); `None`
/// for a file that is no sanitizer log.
pub fn parse(file_name: &str, log: &str) -> Option<Summary> {
    let tool = ["memcheck", "racecheck", "synccheck", "initcheck"].into_iter().find(|t| file_name.contains(t))?;
    let result = log
        .lines()
        .map(|l| l.trim_start_matches("========= ").trim())
        .rfind(|l| l.contains("ERROR SUMMARY:") || l.contains("RACECHECK SUMMARY:"))
        .and_then(|line| {
            let errors = line.split_once(':')?.1.split_whitespace().next()?.parse().ok()?;
            Some((errors, line.to_string()))
        });
    let command = log.lines().next().and_then(|l| l.strip_prefix("$ ")).unwrap_or("").trim().to_string();
    Some(Summary { tool: tool.to_string(), command, result })
}

/// The tools every chapter's whole GPU section is run under.
pub const SECTION_TOOLS: [&str; 3] = ["memcheck", "racecheck", "synccheck"];

/// Whether `file` is the log of `tool` over the GPU section of `chapter`
/// (`NAME-TOOL-CHAPTER.log`, as `scripts/measure` names them).
pub fn is_section_log(file: &str, tool: &str, chapter: &str) -> bool {
    file.ends_with(&format!("-{tool}-{chapter}.log"))
}

/// A markdown table of every summary, then a row for each of `chapters`
/// (the chapters with a GPU section) and [`SECTION_TOOLS`] that has no log,
/// saying so.
pub fn render(summaries: &[(String, Summary)], chapters: &[&str]) -> String {
    let mut md = String::from("| Tool | What it ran | Summary | Log |\n| --- | --- | --- | --- |\n");
    for (file, s) in summaries {
        let command = if s.command.is_empty() { "see the log".to_string() } else { format!("`{}`", s.command) };
        let summary = match &s.result {
            Some((_, line)) => line.clone(),
            None => "did not finish within its time limit: no verdict".to_string(),
        };
        md.push_str(&format!("| {} | {command} | {summary} | [{file}](measured/{file}) |\n", s.tool));
    }
    for tool in SECTION_TOOLS {
        for chapter in chapters {
            if !summaries.iter().any(|(file, _)| is_section_log(file, tool, chapter)) {
                md.push_str(&format!("| {tool} | {chapter}'s GPU section | not run yet: no log | — |\n"));
            }
        }
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
        assert_eq!(s.result.map(|r| r.0), Some(0));
        let bad = parse("x-memcheck.log", "========= ERROR SUMMARY: 3 errors\n").unwrap();
        assert_eq!(bad.result.as_ref().map(|r| r.0), Some(3));
        let killed = parse("x-memcheck.log", "no summary: it was killed\n").unwrap();
        assert!(killed.result.is_none());
        assert!(parse("notes.log", log).is_none());
        let md = render(&[("a.log".into(), bad), ("b.log".into(), killed)], &[]);
        assert!(md.contains("| memcheck | see the log | ERROR SUMMARY: 3 errors |"), "{md}");
        assert!(md.contains("did not finish"), "{md}");
    }

    #[test]
    fn a_chapter_without_a_log_is_said_to_have_none() {
        let log = "========= ERROR SUMMARY: 0 errors\n";
        let logs = vec![("h200-memcheck-k9_x.log".to_string(), parse("h200-memcheck-k9_x.log", log).unwrap())];
        let md = render(&logs, &["k9_x"]);
        assert!(!md.contains("| memcheck | k9_x's GPU section |"), "{md}");
        for tool in ["racecheck", "synccheck"] {
            assert!(md.contains(&format!("| {tool} | k9_x's GPU section | not run yet: no log | — |")), "{md}");
        }
    }
}
