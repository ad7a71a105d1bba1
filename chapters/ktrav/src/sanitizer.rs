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
    /// Errors (or, for racecheck, hazards) it counted.
    pub errors: u64,
    /// Its `ERROR SUMMARY` or `RACECHECK SUMMARY` line, verbatim.
    pub line: String,
}

/// Reads a log whose name says the tool (`...-memcheck-...log`); `None`
/// when it holds no summary line (the run did not finish).
pub fn parse(file_name: &str, log: &str) -> Option<Summary> {
    let tool = ["memcheck", "racecheck", "synccheck", "initcheck"].into_iter().find(|t| file_name.contains(t))?;
    let line = log
        .lines()
        .map(|l| l.trim_start_matches("========= ").trim())
        .filter(|l| l.contains("ERROR SUMMARY:") || l.contains("RACECHECK SUMMARY:"))
        .last()?
        .to_string();
    let after = line.split_once(':')?.1;
    let errors = after.split_whitespace().next()?.parse().ok()?;
    let command = log.lines().next().and_then(|l| l.strip_prefix("$ ")).unwrap_or("").trim().to_string();
    Some(Summary { tool: tool.to_string(), command, errors, line })
}

/// A markdown table of every summary.
pub fn render(summaries: &[(String, Summary)]) -> String {
    let mut md = String::from("| Tool | What it ran | Summary | Log |\n| --- | --- | --- | --- |\n");
    for (file, s) in summaries {
        let command = if s.command.is_empty() { "see the log".to_string() } else { format!("`{}`", s.command) };
        md.push_str(&format!("| {} | {command} | {} | [{file}](measured/{file}) |\n", s.tool, s.line));
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
        assert_eq!((s.tool.as_str(), s.errors, s.command.as_str()), ("racecheck", 0, "compute-sanitizer --tool racecheck ./k2"));
        let bad = parse("x-memcheck.log", "========= ERROR SUMMARY: 3 errors\n").unwrap();
        assert_eq!(bad.errors, 3);
        assert!(parse("x-memcheck.log", "no summary: it was killed\n").is_none());
        assert!(parse("notes.log", log).is_none());
        assert!(render(&[("a.log".into(), bad)]).contains("| memcheck | see the log | ERROR SUMMARY: 3 errors |"));
    }
}
