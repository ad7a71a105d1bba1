//! `{{value NAME}}` in a page of the book becomes the value `NAME` has in
//! `book/values.txt`, the file `booktools refresh` writes from what the
//! chapters' code computes (each chapter's `values()`) and from the
//! measured records. The preprocessor itself computes nothing, so
//! `mdbook serve` needs no GPU and no chapter build; the book's tests fail
//! when the committed file no longer matches what the code computes.
//!
//! The file holds one `NAME = VALUE` line per value; blank lines and lines
//! starting with `#` are skipped. A name is letters, digits, `.`, `_` and
//! `-`; a value is the rest of its line, trimmed. A page that must show the
//! directive itself writes it with a backslash first, `\{{value NAME}}`.

use anyhow::{bail, Result};
use std::collections::BTreeMap;

/// The directive's opening, up to the name.
pub const OPEN: &str = "{{value ";
/// The directive's closing.
pub const CLOSE: &str = "}}";

/// The values of `book/values.txt`, by name.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Values(BTreeMap<String, String>);

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

impl Values {
    /// Reads the text of a values file: one `NAME = VALUE` a line. A
    /// malformed line or a name given twice is an error naming its line.
    pub fn parse(text: &str) -> Result<Values> {
        let mut map = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((name, value)) = line.split_once(" = ") else {
                bail!("line {}: expected `NAME = VALUE`, found `{line}`", n + 1);
            };
            let name = name.trim();
            if !valid_name(name) {
                bail!("line {}: `{name}` is not a value name (letters, digits, '.', '_', '-')", n + 1);
            }
            if map.insert(name.to_string(), value.trim().to_string()).is_some() {
                bail!("line {}: `{name}` is given twice", n + 1);
            }
        }
        Ok(Values(map))
    }

    /// The file's text for `pairs`, in their order, under a header line.
    pub fn render<'a>(header: &str, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out.push_str(&format!("# {line}\n"));
        }
        for (name, value) in pairs {
            assert!(valid_name(name), "`{name}` is not a value name");
            assert!(!value.contains('\n'), "the value of {name} spans lines");
            out.push_str(&format!("{name} = {value}\n"));
        }
        out
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}

/// Every name a page's `{{value NAME}}` directives use, in order.
///
/// # Errors
/// An unclosed directive or a malformed name.
pub fn names_used(text: &str) -> Result<Vec<String>> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let tail = &rest[at + OPEN.len()..];
        if rest[..at].ends_with('\\') {
            rest = tail;
            continue;
        }
        let Some(end) = tail.find(CLOSE) else {
            bail!("an unclosed `{OPEN}` directive");
        };
        let name = tail[..end].trim();
        if !valid_name(name) {
            bail!("`{OPEN}{}{CLOSE}` does not name a value", &tail[..end]);
        }
        names.push(name.to_string());
        rest = &tail[end + CLOSE.len()..];
    }
    Ok(names)
}

/// `text` with every `{{value NAME}}` replaced by `NAME`'s value.
///
/// # Errors
/// A name `values` does not hold, or a malformed directive: the book must
/// not be built with a number nobody computed.
pub fn substitute(text: &str, values: &Values) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        if rest[..at].ends_with('\\') {
            out.push_str(&rest[..at - 1]);
            out.push_str(OPEN);
            rest = &rest[at + OPEN.len()..];
            continue;
        }
        out.push_str(&rest[..at]);
        let tail = &rest[at + OPEN.len()..];
        let Some(end) = tail.find(CLOSE) else {
            bail!("an unclosed `{OPEN}` directive");
        };
        let name = tail[..end].trim();
        match values.get(name) {
            Some(v) => out.push_str(v),
            None if valid_name(name) => bail!(
                "unknown value `{name}`: book/values.txt has no such name (a chapter's values() computes them; \
                 `scripts/refresh-outputs` rewrites the file)"
            ),
            None => bail!("`{OPEN}{}{CLOSE}` does not name a value", &tail[..end]),
        }
        rest = &tail[end + CLOSE.len()..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The environment variable that builds the students' edition: set to
/// anything but empty or `0`, every solution block is left out.
pub const STUDENT_EDITION: &str = "KTRAV_STUDENT_EDITION";

/// The line that opens a solution block on a page, before its `<details>`.
pub const SOLUTION_OPEN: &str = "<!-- solution -->";
/// The line that closes it, after its `</details>`.
pub const SOLUTION_CLOSE: &str = "<!-- end solution -->";

/// What a solution block becomes in the students' edition.
pub const LEFT_OUT: &str = "*This part is left out of the students' edition.*";

/// Whether `value` (of [`STUDENT_EDITION`]) asks for the students' edition.
pub fn student_edition(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.trim().is_empty() && v.trim() != "0")
}

/// `text` without its solution blocks: each run of lines from a
/// [`SOLUTION_OPEN`] line to the next [`SOLUTION_CLOSE`] line becomes
/// [`LEFT_OUT`]. It runs before the includes are expanded, so a solution's
/// included code never reaches the page.
///
/// # Errors
/// A block opened and not closed, closed and not opened, or opened twice:
/// a solution must not leak through a typo.
pub fn drop_solutions(text: &str) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut open_at = None;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        match (line.trim(), open_at) {
            (SOLUTION_OPEN, None) => open_at = Some(n + 1),
            (SOLUTION_OPEN, Some(at)) => {
                bail!("line {}: a solution block opens inside the one opened on line {at}", n + 1)
            }
            (SOLUTION_CLOSE, Some(_)) => {
                open_at = None;
                out.push_str(LEFT_OUT);
                out.push('\n');
            }
            (SOLUTION_CLOSE, None) => bail!("line {}: `{SOLUTION_CLOSE}` closes no solution block", n + 1),
            (_, Some(_)) => {}
            (_, None) => out.push_str(line),
        }
    }
    if let Some(at) = open_at {
        bail!("line {at}: a solution block is never closed (`{SOLUTION_CLOSE}`)");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solution_blocks_are_dropped_and_typos_refused() {
        let page = "intro\n<!-- solution -->\n<details>\nsecret\n</details>\n<!-- end solution -->\nafter\n";
        assert_eq!(drop_solutions(page).unwrap(), format!("intro\n{LEFT_OUT}\nafter\n"));
        assert_eq!(drop_solutions("no blocks\n").unwrap(), "no blocks\n");
        assert!(drop_solutions("<!-- solution -->\nsecret\n").unwrap_err().to_string().contains("never closed"));
        assert!(drop_solutions("<!-- end solution -->\n").unwrap_err().to_string().contains("closes no"));
        assert!(drop_solutions("<!-- solution -->\n<!-- solution -->\n")
            .unwrap_err()
            .to_string()
            .contains("opens inside"));
        assert!(
            student_edition(Some("1"))
                && !student_edition(Some("0"))
                && !student_edition(Some(""))
                && !student_edition(None)
        );
    }

    fn values() -> Values {
        Values::parse("# a header\n\nk6.avg = 18.3\nk7.wrong = 216\n").unwrap()
    }

    #[test]
    fn a_known_name_is_replaced() {
        let out = substitute("about {{value k6.avg}} threads, {{value k7.wrong}} wrong", &values()).unwrap();
        assert_eq!(out, "about 18.3 threads, 216 wrong");
    }

    #[test]
    fn an_unknown_name_is_an_error_naming_it() {
        let err = substitute("about {{value k6.avgg}} threads", &values()).unwrap_err().to_string();
        assert!(err.contains("unknown value `k6.avgg`"), "{err}");
    }

    #[test]
    fn malformed_directives_are_errors() {
        assert!(substitute("{{value k6.avg", &values()).is_err());
        assert!(substitute("{{value two words}}", &values()).is_err());
        assert!(names_used("{{value }}").is_err());
    }

    #[test]
    fn text_without_directives_is_untouched() {
        let text = "{{#include outputs/x.txt}} and {{ value }} prose";
        assert_eq!(substitute(text, &values()).unwrap(), text);
    }

    #[test]
    fn the_file_round_trips_and_refuses_bad_lines() {
        let text = Values::render("made by a test", [("a.b", "1"), ("c", "65543x3, more rows")]);
        let v = Values::parse(&text).unwrap();
        assert_eq!(v.get("c"), Some("65543x3, more rows"));
        assert_eq!(v.names().collect::<Vec<_>>(), ["a.b", "c"]);
        assert!(Values::parse("a = 1\na = 2\n").unwrap_err().to_string().contains("given twice"));
        assert!(Values::parse("no equals sign\n").is_err());
        assert!(Values::parse("bad name! = 1\n").is_err());
    }

    #[test]
    fn an_escaped_directive_is_shown_as_written() {
        let text = r"write \{{value NAME}} for {{value k7.wrong}}";
        assert_eq!(substitute(text, &values()).unwrap(), "write {{value NAME}} for 216");
        assert_eq!(names_used(text).unwrap(), ["k7.wrong"]);
    }

    #[test]
    fn names_used_lists_every_directive() {
        assert_eq!(names_used("{{value a}} x {{value b.c}}").unwrap(), ["a", "b.c"]);
    }
}
