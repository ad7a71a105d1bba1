//! The GPU suite's own logs, as the lab guide shows them: each chapter's
//! verdict and the lab checker's verdict on every catalogued kernel.

/// A GPU suite log as a list: each chapter's verdict line, each lab line,
/// then the closing count, linked to the whole log.
pub fn render_suite_log(stem: &str, log: &str) -> String {
    let verdict =
        |l: &str| l.starts_with("K.") && (l.ends_with(": ok") || l.contains(": FAILED") || l.contains(": skipped"));
    let mut md = String::new();
    for line in log.lines().filter(|l| verdict(l) || l.starts_with("lab ")) {
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
        md.push_str(&format!("- {}\n", line.replace('<', "&lt;").replace('>', "&gt;")));
    }
    if let Some(total) = log.lines().rev().find(|l| l.contains(" passed, ") && l.contains(" failed, ")) {
        md.push_str(&format!("\nClosing line: `{total}` ([the whole log](measured/{stem}.log)).\n"));
    }
    md
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
                "- {k2}: ok\n- lab K.2 transpose: ok: passes &lt;all&gt;\n- K.9 Nothing: skipped: no GPU\n\n\
                 Closing line: `3 passed, 0 failed, 1 skipped` ([the whole log](measured/x-gpu-suite.log)).\n"
            )
        );
    }
}
