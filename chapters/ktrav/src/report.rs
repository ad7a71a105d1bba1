//! Formatting shared by every chapter's printed report.
//!
//! Reports are built as strings that may carry ANSI colour on their
//! verdicts. Binaries print them through [`anstream`], which drops the colour
//! when stdout is not a terminal or `NO_COLOR` is set; tests and the book
//! compare the [`plain`] text.

use anstyle::{AnsiColor, Style};
use std::fmt::Write;

const PASS: Style = AnsiColor::Green.on_default().bold();
const FAIL: Style = AnsiColor::Red.on_default().bold();
const HEAD: Style = Style::new().bold();

/// `true` in green or `false` in red: the verdict of a check.
pub fn verdict(ok: bool) -> String {
    let style = if ok { PASS } else { FAIL };
    format!("{style}{ok}{style:#}")
}

/// A word styled as a pass (green) or a failure (red).
pub fn flag(ok: bool, word: &str) -> String {
    let style = if ok { PASS } else { FAIL };
    format!("{style}{word}{style:#}")
}

/// A section heading: `=== title ===`, bold on a terminal.
pub fn heading(title: &str) -> String {
    format!("{HEAD}=== {title} ==={HEAD:#}")
}

/// `part / whole` as a percentage with two decimals, as in `93.75`.
/// A zero `whole` gives `0.00` rather than NaN.
pub fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0.00".to_string();
    }
    format!("{:.2}", 100.0 * part as f64 / whole as f64)
}

/// The report with every ANSI escape sequence removed.
pub fn plain(text: &str) -> String {
    anstream::adapter::strip_str(text).to_string()
}

/// A growing report: lines of text, written with `writeln!`.
#[derive(Default, Debug, Clone)]
pub struct Report {
    text: String,
}

impl Report {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one line.
    pub fn line(&mut self, line: impl AsRef<str>) -> &mut Self {
        self.text.push_str(line.as_ref());
        self.text.push('\n');
        self
    }

    /// Appends an empty line.
    pub fn blank(&mut self) -> &mut Self {
        self.text.push('\n');
        self
    }

    /// Appends a heading line.
    pub fn heading(&mut self, title: &str) -> &mut Self {
        self.line(heading(title))
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn into_string(self) -> String {
        self.text
    }
}

impl Write for Report {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_strips_colour_only() {
        assert_eq!(plain(&format!("ok: {}", verdict(true))), "ok: true");
        assert_ne!(verdict(false), "false");
        assert_eq!(pct(480, 512), "93.75");
        assert_eq!(pct(0, 0), "0.00");
    }
}
