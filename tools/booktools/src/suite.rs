//! The GPU suite's own logs, as the lab guide shows them: each chapter's
//! verdict and the lab checker's verdict on every catalogued kernel.

/// A GPU suite log as a list: each chapter's verdict line, each lab line,
/// then the closing count, linked to the whole log. The lab's checks run
/// several at a time and are logged as they end, each with its wall time:
/// the list gives them in order of their text, without the time, so that
/// two runs with the same verdicts read the same.
pub fn render_suite_log(stem: &str, log: &str) -> String {
    let verdict =
        |l: &str| l.starts_with("K.") && (l.ends_with(": ok") || l.contains(": FAILED") || l.contains(": skipped"));
    let chapters = log.lines().filter(|l| verdict(l)).map(str::to_string);
    let mut checks: Vec<String> =
        log.lines().filter(|l| l.starts_with("lab ") && !l.starts_with("lab checker:")).map(without_time).collect();
    checks.sort();
    let summary = log.lines().filter(|l| l.starts_with("lab checker:")).map(str::to_string);
    let mut md = String::new();
    for line in chapters.chain(checks).chain(summary) {
        let line = line.as_str();
        // A chapter's verdict names the chapter by its heading as it is
        // now: the log keeps the title the chapter had when it ran.
        let at = [": FAILED", ": skipped"]
            .iter()
            .find_map(|v| line.find(v))
            .or_else(|| line.strip_suffix(": ok").map(str::len));
        let line = match at.filter(|_| verdict(line)) {
            Some(at) => format!("{}{}", crate::current_heading(&line[..at]), &line[at..]),
            None => line.to_string(),
        };
        // A flag's `--` is written with an entity for its second dash, so
        // that the book's smart punctuation does not make it an en dash.
        md.push_str(&format!("- {}\n", line.replace('<', "&lt;").replace('>', "&gt;").replace("--", "-&#45;")));
    }
    if let Some(total) = log.lines().rev().find(|l| l.contains(" passed, ") && l.contains(" failed, ")) {
        md.push_str(&format!("\nClosing line: `{total}` ([the whole log](measured/{stem}.log)).\n"));
    }
    md
}

/// A lab line without the check's wall time (`ok [3.5 s]: ...` becomes
/// `ok: ...`).
fn without_time(line: &str) -> String {
    let Some(open) = line.find(" [") else { return line.to_string() };
    match line[open..].find(" s]") {
        Some(close) if line[open + 2..open + close].parse::<f64>().is_ok() => {
            format!("{}{}", &line[..open], &line[open + close + 3..])
        }
        _ => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_and_the_closing_count_are_kept_and_the_rest_left_out() {
        let log = "K.2 Transpose: old title: ok\n  a detail line\nlab K.2 transpose: ok: passes <all>\n\
                   K.9 Nothing: skipped: no GPU\n3 passed, 0 failed, 1 skipped\n";
        let md = render_suite_log("x-gpu-suite", log);
        let k2 = k2_transpose::CHAPTER.heading();
        assert_eq!(
            md,
            format!(
                "- {k2}: ok\n- K.9 Nothing: skipped: no GPU\n- lab K.2 transpose: ok: passes &lt;all&gt;\n\n\
                 Closing line: `3 passed, 0 failed, 1 skipped` ([the whole log](measured/x-gpu-suite.log)).\n"
            )
        );
    }

    #[test]
    fn lab_lines_are_sorted_and_lose_their_wall_time() {
        let log = "lab K.3 copy: b.cu: ok [3.5 s]: passes without --sanitize\n\
                   lab K.2 transpose: a.cu: ok [12.1 s]: rejected as wrong [sic]\n\
                   lab checker: 2 checks, 8 at a time, in 15 s\n1 passed, 0 failed, 0 skipped\n";
        let md = render_suite_log("x", log);
        assert_eq!(
            md,
            "- lab K.2 transpose: a.cu: ok: rejected as wrong [sic]\n\
             - lab K.3 copy: b.cu: ok: passes without -&#45;sanitize\n\
             - lab checker: 2 checks, 8 at a time, in 15 s\n\n\
             Closing line: `1 passed, 0 failed, 0 skipped` ([the whole log](measured/x.log)).\n"
        );
    }
}
