//! What a kernel printed with `printf`, capped: a debugging line per thread
//! is millions of lines on a large shape, so a check keeps the first
//! [`PRINTED_LINES`] (each cut at [`PRINTED_LINE_CHARS`] characters) and
//! counts the rest, in its report and in its record alike.

use ktrav_term::report::Report;
use serde::{Deserialize, Serialize};

/// Lines of a kernel's output a check keeps per shape.
pub const PRINTED_LINES: usize = 10;
/// Characters of each kept line.
pub const PRINTED_LINE_CHARS: usize = 200;

/// The kernel's output on one shape.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Printed {
    /// The shape's label, as its line in the report has it.
    pub label: String,
    /// The first lines, in order.
    pub first: Vec<String>,
    /// Lines printed after those.
    pub more: u64,
    /// The battery of the shape it was printed on, once the check has tied
    /// it to its case (not part of the record).
    #[serde(skip)]
    pub battery: Option<super::Battery>,
}

impl Printed {
    /// An empty output for the shape `label`; feed it with [`Printed::push`].
    pub fn new(label: &str) -> Printed {
        Printed { label: label.to_string(), ..Printed::default() }
    }

    /// One line of output: kept while there is room, counted after.
    pub fn push(&mut self, line: &str) {
        if self.first.len() < PRINTED_LINES {
            self.first.push(line.chars().take(PRINTED_LINE_CHARS).collect());
        } else {
            self.more += 1;
        }
    }

    /// Every line of `text`.
    pub fn of(label: &str, text: &str) -> Printed {
        let mut p = Printed::new(label);
        for l in text.lines() {
            p.push(l);
        }
        p
    }

    /// Whether nothing was printed.
    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// Lines printed in all.
    pub fn lines(&self) -> u64 {
        self.first.len() as u64 + self.more
    }

    /// The report's lines: a heading, the kept lines, and the count of the rest.
    pub fn render(&self, out: &mut Report) {
        out.line(format!("your kernel printed {} lines on {}:", self.lines(), self.label));
        for l in &self.first {
            out.line(format!("  | {l}"));
        }
        if self.more > 0 {
            out.line(format!("  ... and {} more lines, not shown", self.more));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_past_the_cap_is_counted_not_kept() {
        let text: String = (0..PRINTED_LINES + 25).map(|i| format!("thread {i}\n")).collect();
        let p = Printed::of("1x1", &text);
        assert_eq!((p.first.len(), p.more, p.lines()), (PRINTED_LINES, 25, PRINTED_LINES as u64 + 25));
        assert_eq!(p.first[0], "thread 0");
        let mut out = Report::new();
        p.render(&mut out);
        let shown = out.into_string();
        assert!(shown.contains("... and 25 more lines, not shown"), "{shown}");
        assert_eq!(shown.lines().count(), PRINTED_LINES + 2);
        let long = Printed::of("x", &"y".repeat(PRINTED_LINE_CHARS * 3));
        assert_eq!(long.first[0].chars().count(), PRINTED_LINE_CHARS);
        assert!(Printed::of("x", "").is_empty());
    }
}
