//! The literal numbers left in the book's prose: every number a page states
//! outside code blocks, inline code, `{{…}}` directives, link targets and
//! HTML tags. What `{{value NAME}}` fills in is not counted (it comes from
//! the code), nor are section labels (`K.3`), version names (`v2`) or
//! architectures (`sm_80`). `booktools numbers` prints the count per page,
//! and with `--list` every number with its line, for review: what is left
//! should be definitional (a warp's 32 threads, 32 banks, grid limits, the
//! source's own shapes) or a pointer into an asserted output.

use anyhow::Result;
use std::path::{Path, PathBuf};

/// The book's pages, sorted.
pub fn pages() -> Result<Vec<PathBuf>> {
    let dir = crate::measured_dir().join("..");
    let mut v = crate::files(&dir, "md")?;
    v.retain(|p| !p.to_string_lossy().ends_with("SUMMARY.md"));
    Ok(v)
}

/// Drops every span from `open` to the next `close` (both included).
fn drop_spans(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        match rest[at + open.len()..].find(close) {
            Some(end) => rest = &rest[at + open.len() + end + close.len()..],
            None => {
                rest = "";
            }
        }
        out.push(' ');
    }
    out.push_str(rest);
    out
}

/// One line of prose with code, directives, link targets, tags and the
/// label of a numbered item (`1. `, `**7.**`) removed.
fn prose_of(line: &str) -> String {
    let trimmed = line.trim_start();
    let label = trimmed.trim_start_matches("**").chars().take_while(char::is_ascii_digit).count();
    let line = if label > 0 {
        let rest = trimmed.trim_start_matches("**")[label..].to_string();
        match rest.strip_prefix(".**").or_else(|| rest.strip_prefix(". ")) {
            Some(after) => after.to_string(),
            None => line.to_string(),
        }
    } else {
        line.to_string()
    };
    let line = drop_spans(&line, "{{", "}}");
    let line = drop_spans(&line, "`", "`");
    let line = drop_spans(&line, "](", ")");
    drop_spans(&line, "<", ">")
}

/// The numbers of one line of prose, as written (`4099x4097`, `93.75`,
/// `2^31`, `65 535`).
fn numbers_of(prose: &str) -> Vec<String> {
    let chars: Vec<char> = prose.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let superscript = |c: char| "⁰¹²³⁴⁵⁶⁷⁸⁹".contains(c);
    while i < chars.len() {
        let c = chars[i];
        let starts = c.is_ascii_digit() && (i == 0 || !(word(chars[i - 1]) || chars[i - 1] == '.'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() {
            let d = chars[j];
            let next_digit = chars.get(j + 1).is_some_and(|n| n.is_ascii_digit());
            if d.is_ascii_digit() || superscript(d) {
                j += 1;
            } else if matches!(d, '.' | ',' | 'x' | '×' | '^' | '\u{202f}' | '\u{2009}' | ' ') && next_digit {
                // A thousands space only inside a grouped number: "65 535".
                if d == ' ' && !chars[j + 1..].iter().take(4).take_while(|c| c.is_ascii_digit()).count().eq(&3) {
                    break;
                }
                j += 1;
            } else {
                break;
            }
        }
        let token: String = chars[i..j].iter().collect();
        // A word such as 2D or 3rd, or a label such as K.3 or v2, is no number.
        let glued = chars.get(j).is_some_and(|&d| d.is_alphabetic() && d != 'x' && d != '×');
        let labelled = i >= 2 && (chars[i - 1] == '.' && chars[i - 2] == 'K');
        let versioned = i >= 1 && chars[i - 1] == 'v';
        if !(glued || labelled || versioned) {
            out.push(token);
        }
        i = j.max(i + 1);
    }
    out
}

/// Every literal number of a page's prose, as (line number, number).
pub fn prose_numbers(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for number in numbers_of(&prose_of(line)) {
            out.push((n + 1, number));
        }
    }
    out
}

/// A page's name and the numbers of its prose, each with its line.
pub type PageNumbers = (String, Vec<(usize, String)>);

/// Every page's numbers.
pub fn count(pages: &[PathBuf]) -> Result<Vec<PageNumbers>> {
    pages
        .iter()
        .map(|p: &PathBuf| {
            let name = Path::new(p).file_name().expect("a page").to_string_lossy().to_string();
            Ok((name, prose_numbers(&crate::read(p)?)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_prose_are_found_and_code_is_not() {
        let page = "A 4099x4097 shape, 93.75 % and 65 535 blocks.\n\
                    `tile[32][33]` and {{value k6.avg}} and [K.3](k3.md) in v2, 2D.\n\
                    ```rust\nlet x = 5;\n```\npast 2^31 and 2³¹ elements, sm_80.\n\
                    **7.** A question\n2. **`v2`**: an item of 3 parts\n";
        let found: Vec<String> = prose_numbers(page).into_iter().map(|(_, n)| n).collect();
        assert_eq!(found, ["4099x4097", "93.75", "65 535", "2^31", "2³¹", "3"]);
    }
}
