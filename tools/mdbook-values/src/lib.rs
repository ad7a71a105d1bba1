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

#[cfg(test)]
mod tests {
    use super::*;

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
