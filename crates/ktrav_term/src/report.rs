//! Formatting shared by every chapter's printed report.
//!
//! Reports are built as strings whose verdicts and headings are styled with
//! [`console`]. console emits colour only when stdout is a terminal, and
//! honours `NO_COLOR` and `CLICOLOR_FORCE`; tests and the book compare the
//! [`plain`] text, with every escape removed.

use console::Style;
use std::fmt::Write;

fn pass() -> Style {
    Style::new().green().bold()
}

fn fail() -> Style {
    Style::new().red().bold()
}

/// `true` in green or `false` in red: the verdict of a check.
pub fn verdict(ok: bool) -> String {
    flag(ok, if ok { "true" } else { "false" })
}

/// A word styled as a pass (green) or a failure (red).
pub fn flag(ok: bool, word: &str) -> String {
    let style = if ok { pass() } else { fail() };
    style.apply_to(word).to_string()
}

/// A section heading: `=== title ===`, bold on a terminal.
pub fn heading(title: &str) -> String {
    Style::new().bold().apply_to(format!("=== {title} ===")).to_string()
}

/// `part / whole` as a percentage with two decimals, as in `93.75`.
/// A zero `whole` gives `0.00` rather than NaN.
pub fn pct(part: u64, whole: u64) -> String {
    pct_places(part, whole, 2)
}

/// `part / whole` as a percentage with `places` decimals.
pub fn pct_places(part: u64, whole: u64, places: usize) -> String {
    if whole == 0 {
        return format!("{:.places$}", 0.0);
    }
    format!("{:.places$}", 100.0 * part as f64 / whole as f64)
}

/// The items' `Display` forms joined by `sep`.
pub fn join<T: std::fmt::Display>(items: impl IntoIterator<Item = T>, sep: &str) -> String {
    let mut out = String::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        write!(out, "{item}").expect("writing to a String cannot fail");
    }
    out
}

/// The median of `values` (the upper one of the middle two for an even
/// count), or `None` when there are none. NaNs sort last.
pub fn median<T: Copy + PartialOrd>(mut values: Vec<T>) -> Option<T> {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Greater));
    values.get(values.len() / 2).copied()
}

/// The report with every ANSI escape sequence removed.
pub fn plain(text: &str) -> String {
    console::strip_ansi_codes(text).into_owned()
}

/// A growing report: lines of text, written with `line` or `writeln!`.
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

    /// Appends `rows` as a table: the cells of each column left-aligned
    /// to the widest of them (escape sequences take no width), two spaces
    /// between columns, no trailing blanks. The first row is the header.
    pub fn table<R: AsRef<[String]>>(&mut self, rows: &[R]) -> &mut Self {
        let columns = rows.iter().map(|r| r.as_ref().len()).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|i| {
                rows.iter().filter_map(|r| r.as_ref().get(i)).map(|c| console::measure_text_width(c)).max().unwrap_or(0)
            })
            .collect();
        for row in rows {
            let mut line = String::new();
            for (i, cell) in row.as_ref().iter().enumerate() {
                if i > 0 {
                    line.push_str("  ");
                }
                line.push_str(cell);
                line.push_str(&" ".repeat(widths[i] - console::measure_text_width(cell)));
            }
            self.line(line.trim_end());
        }
        self
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
        console::set_colors_enabled(true);
        assert_eq!(plain(&format!("ok: {}", verdict(true))), "ok: true");
        assert_ne!(verdict(false), "false");
        assert_eq!(pct(480, 512), "93.75");
        assert_eq!(pct(0, 0), "0.00");
        assert_eq!(pct_places(1, 3, 1), "33.3");
    }

    #[test]
    fn tables_align_on_the_visible_width() {
        console::set_colors_enabled(true);
        let rows = [
            vec!["name".to_string(), "ok".to_string(), "n".to_string()],
            vec!["a".to_string(), verdict(true), "10".to_string()],
            vec!["longer".to_string(), verdict(false), "2".to_string()],
        ];
        let mut out = Report::new();
        out.table(&rows);
        assert_eq!(plain(&out.into_string()), "name    ok     n\na       true   10\nlonger  false  2\n");
    }

    #[test]
    fn helpers_join_and_take_medians() {
        assert_eq!(join([1, 2, 3], ", "), "1, 2, 3");
        assert_eq!(join(Vec::<u8>::new(), ", "), "");
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4, 1, 3, 2]), Some(3));
        assert_eq!(median(Vec::<f32>::new()), None);
    }
}
