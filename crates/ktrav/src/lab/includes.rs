//! What a student's file may include, checked before it is compiled.
//!
//! The compiler would open any file a `#include` names: an absolute path,
//! one relative to the grader's working folder (the reference solution
//! under `kernels/`), a `..` path, and it quotes what it read in its log.
//! So a submission may include only the headers in [`ALLOWED`], named
//! literally (`#include <cstdio>` or `#include "cstdio"`), and every other
//! way a file can be pulled in is refused: `#include_next`, `#import`,
//! `#embed`, `__has_include_next`, `__has_embed`, an include whose name is
//! built by a macro, a pragma that names a file, and token pasting (`##`),
//! which can assemble `__has_include` from pieces no scanner can judge
//! before the macros are expanded.
//!
//! The scanner reads the file as the preprocessor does, in its order: line
//! splices (`\` at the end of a line, also with trailing blanks, and the
//! trigraph `??/`) are joined first, then comments, string and character
//! literals (raw strings too) and numbers with digit separators are told
//! apart, so that `#/**/include`, `# \` + newline + `include` and the
//! digraph `%:include` are seen, and a `#include` inside a string is not.
//! Where it is unsure it refuses: a `#` followed by an include directive
//! is checked wherever it stands on a line, and a physical line that starts
//! like an include directive is checked even inside a comment.

/// The headers a submission may include: the ones the checker hands to the
/// compiler in memory (`ktrav_gpu`'s stand-ins; a test there ties the two
/// lists). Nothing else is reachable.
pub const ALLOWED: &[&str] = &[
    "algorithm",
    "assert.h",
    "cassert",
    "cfloat",
    "climits",
    "cmath",
    "cstddef",
    "cstdint",
    "cstdio",
    "cstdlib",
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "device_launch_parameters.h",
    "float.h",
    "limits.h",
    "math.h",
    "stddef.h",
    "stdint.h",
    "stdio.h",
    "stdlib.h",
];

/// Directives that read a file; only `include` may, and only an allowed name.
const READING_DIRECTIVES: &[&str] = &["include", "include_next", "import", "embed"];

/// Operators that look a file up; only `__has_include` may, with an allowed name.
const READING_OPERATORS: &[&str] = &["__has_include", "__has_include_next", "__has_embed"];

/// Words that make a pragma name a file (`#pragma GCC dependency "f"`, ...).
const READING_PRAGMA_WORDS: &[&str] = &["include", "include_next", "include_alias", "import", "embed", "dependency"];

/// One way the file reaches for another file, refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The line of the file it starts on (1-based).
    pub line: usize,
    /// What was written, as the file has it (shortened when long).
    pub text: String,
    /// Why it is refused, in a few words.
    pub why: &'static str,
}

impl Refused {
    /// `line 3: `#include "/etc/hostname"` is refused: ...; a submission may
    /// include only <algorithm>, ..., named literally`.
    pub fn reason(&self) -> String {
        format!("line {}: `{}` is refused ({}); {}", self.line, self.text, self.why, allowed_sentence())
    }
}

/// `a submission may include only <algorithm>, <assert.h>, ... named literally`.
pub fn allowed_sentence() -> String {
    let names: Vec<String> = ALLOWED.iter().map(|n| format!("<{n}>")).collect();
    format!("a submission may include only {}, each named literally", names.join(", "))
}

/// The verdict on a file that reaches for files it may not: its refused
/// lines, in the order of the file (never none). Shown as one line: the
/// first refusal, and how many more there are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", one_line(.0))]
pub struct RefusedIncludes(pub Vec<Refused>);

fn one_line(refused: &[Refused]) -> String {
    let first = refused.first().map_or(String::new(), Refused::reason);
    match refused.len() {
        0 | 1 => first,
        n => format!("{first} (and {} more refused line{})", n - 1, if n == 2 { "" } else { "s" }),
    }
}

/// `Ok` when `source` reaches for no file it may not.
pub fn check(source: &str) -> Result<(), RefusedIncludes> {
    let refused = scan(source);
    match refused.is_empty() {
        true => Ok(()),
        false => Err(RefusedIncludes(refused)),
    }
}

/// Every refused include of `source`, in the order of the file, one per line.
pub fn scan(source: &str) -> Vec<Refused> {
    let chars = splice(source);
    let toks = lex(&chars);
    let mut refused = Vec::new();
    judge(&toks, &mut refused);
    physical_lines(source, &mut refused);
    refused.sort_by_key(|r| r.line);
    refused.dedup_by_key(|r| r.line);
    refused
}

/// The source after the preprocessor's first phases: `\r\n` read as `\n`,
/// line splices removed (a backslash, or `??/`, then blanks, then the end
/// of the line) and the trigraph `??=` read as `#`. Each character keeps
/// the line it stood on.
fn splice(source: &str) -> Vec<(char, usize)> {
    let raw: Vec<char> = source.chars().filter(|&c| c != '\r').collect();
    let mut out = Vec::with_capacity(raw.len());
    let (mut i, mut line) = (0, 1);
    while i < raw.len() {
        let c = raw[i];
        let slash = if c == '\\' {
            Some(1)
        } else if c == '?' && raw.get(i + 1) == Some(&'?') && raw.get(i + 2) == Some(&'/') {
            Some(3)
        } else {
            None
        };
        if let Some(len) = slash {
            let mut j = i + len;
            while j < raw.len() && (raw[j] == ' ' || raw[j] == '\t') {
                j += 1;
            }
            if raw.get(j) == Some(&'\n') {
                line += 1;
                i = j + 1;
                continue;
            }
        }
        if c == '?' && raw.get(i + 1) == Some(&'?') && raw.get(i + 2) == Some(&'=') {
            out.push(('#', line));
            i += 3;
            continue;
        }
        out.push((c, line));
        if c == '\n' {
            line += 1;
        }
        i += 1;
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Newline,
    /// `#`, `%:` or `??=`.
    Hash,
    Ident,
    /// A string literal, with its prefix and quotes.
    Str,
    Char,
    Number,
    /// `<name>` or `"name"` after an include directive or `__has_include(`.
    Header,
    Punct,
}

#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    text: String,
    line: usize,
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '\\' || !c.is_ascii()
}

/// The character at `i`, if any.
fn char_at(s: &[(char, usize)], i: usize) -> Option<char> {
    s.get(i).map(|&(c, _)| c)
}

/// The tokens of the spliced source, comments left out (a comment
/// separates tokens, and a newline inside a block comment ends no line).
fn lex(s: &[(char, usize)]) -> Vec<Tok> {
    let text = |a: usize, b: usize| s[a..b.min(s.len())].iter().map(|&(c, _)| c).collect::<String>();
    let mut toks: Vec<Tok> = Vec::new();
    let mut i = 0;
    // Set after an include directive's name or `__has_include (`: the next
    // `<...>` or `"..."` is a header name, lexed as the compiler does.
    let mut header_next = false;
    while i < s.len() {
        let (c, line) = s[i];
        if c == '\n' {
            toks.push(Tok { kind: Kind::Newline, text: "\n".into(), line });
            header_next = false;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if let Some(end) = comment_end(s, i) {
            i = end;
            continue;
        }
        let (kind, end) =
            if header_next && (c == '<' || c == '"') { (Kind::Header, header_name_end(s, i)) } else { token_at(s, i) };
        toks.push(Tok { kind, text: text(i, end), line });
        header_next = opens_header_name(&toks);
        i = end;
    }
    toks
}

/// Where a comment starting at `i` ends (after `*/`, or before the
/// newline), or `None` when no comment starts there.
fn comment_end(s: &[(char, usize)], i: usize) -> Option<usize> {
    let at = |j: usize| char_at(s, j);
    match (at(i), at(i + 1)) {
        (Some('/'), Some('*')) => {
            let mut j = i + 2;
            while j < s.len() && !(at(j) == Some('*') && at(j + 1) == Some('/')) {
                j += 1;
            }
            Some((j + 2).min(s.len()))
        }
        (Some('/'), Some('/')) => {
            let mut j = i;
            while j < s.len() && at(j) != Some('\n') {
                j += 1;
            }
            Some(j)
        }
        _ => None,
    }
}

/// Where a header name opening at `open` (`<` or `"`) ends: after its
/// closing `>` or `"`, or at the end of the line when it has none.
fn header_name_end(s: &[(char, usize)], open: usize) -> usize {
    let at = |j: usize| char_at(s, j);
    let close = if s[open].0 == '<' { '>' } else { '"' };
    let mut j = open + 1;
    while j < s.len() && at(j) != Some(close) && at(j) != Some('\n') {
        j += 1;
    }
    if at(j) == Some(close) {
        j + 1
    } else {
        j
    }
}

/// Whether the last token makes the next `<...>` or `"..."` a header name:
/// it is the name of an include directive (and kin) after `#`, or the `(`
/// after `__has_include` (and kin).
fn opens_header_name(toks: &[Tok]) -> bool {
    let [.., before, last] = toks else { return false };
    match last.kind {
        Kind::Ident => before.kind == Kind::Hash && READING_DIRECTIVES.contains(&last.text.as_str()),
        Kind::Punct => {
            last.text == "(" && before.kind == Kind::Ident && READING_OPERATORS.contains(&before.text.as_str())
        }
        _ => false,
    }
}

/// The token starting at `i` (no newline, blank, comment or header name
/// starts there): its kind and where it ends.
fn token_at(s: &[(char, usize)], i: usize) -> (Kind, usize) {
    let at = |j: usize| char_at(s, j);
    let c = s[i].0;
    if c == '#' || (c == '%' && at(i + 1) == Some(':')) {
        return hash_token(s, i);
    }
    if c.is_ascii_digit() || (c == '.' && at(i + 1).is_some_and(|d| d.is_ascii_digit())) {
        return (Kind::Number, number_end(s, i));
    }
    if ident_char(c) {
        return word_token(s, i);
    }
    if c == '"' || c == '\'' {
        return (if c == '"' { Kind::Str } else { Kind::Char }, literal_end(s, i));
    }
    (Kind::Punct, i + 1)
}

/// `#` or `%:` at `i`: a hash, or with a second one a paste (`##`,
/// `%:%:`), which is not a directive.
fn hash_token(s: &[(char, usize)], i: usize) -> (Kind, usize) {
    let at = |j: usize| char_at(s, j);
    let len = if s[i].0 == '#' { 1 } else { 2 };
    let pasted = at(i + len) == Some('#') || (at(i + len) == Some('%') && at(i + len + 1) == Some(':'));
    if pasted {
        let len2 = if at(i + len) == Some('#') { 1 } else { 2 };
        (Kind::Punct, i + len + len2)
    } else {
        (Kind::Hash, i + len)
    }
}

/// Where a preprocessing number starting at `i` ends: digits, letters,
/// `.`, `'` before a digit or letter (a digit separator), and a sign after
/// an exponent.
fn number_end(s: &[(char, usize)], i: usize) -> usize {
    let at = |j: usize| char_at(s, j);
    let mut j = i + 1;
    while let Some(d) = at(j) {
        let signed_exponent = matches!(d, 'e' | 'E' | 'p' | 'P') && matches!(at(j + 1), Some('+') | Some('-'));
        let separator = d == '\'' && at(j + 1).is_some_and(|n| n.is_ascii_alphanumeric() || n == '_');
        if signed_exponent || separator {
            j += 2;
        } else if d.is_ascii_alphanumeric() || d == '_' || d == '.' {
            j += 1;
        } else {
            break;
        }
    }
    j
}

/// The word starting at `i`: an identifier, or the prefix of a string or
/// character literal (raw strings too), then the whole literal.
fn word_token(s: &[(char, usize)], i: usize) -> (Kind, usize) {
    let at = |j: usize| char_at(s, j);
    let mut j = i + 1;
    while at(j).is_some_and(ident_char) {
        j += 1;
    }
    let word: String = s[i..j].iter().map(|&(c, _)| c).collect();
    let raw_prefix = matches!(word.as_str(), "R" | "u8R" | "uR" | "UR" | "LR");
    if raw_prefix && at(j) == Some('"') {
        if let Some(end) = raw_string_end(s, j) {
            return (Kind::Str, end);
        }
    }
    let prefix = matches!(word.as_str(), "u8" | "u" | "U" | "L");
    if prefix && matches!(at(j), Some('"') | Some('\'')) {
        return (if at(j) == Some('"') { Kind::Str } else { Kind::Char }, literal_end(s, j));
    }
    (Kind::Ident, j)
}

/// Where a string or character literal opening at `open` ends: after its
/// closing quote, or at the end of the line when it has none.
fn literal_end(s: &[(char, usize)], open: usize) -> usize {
    let quote = s[open].0;
    let mut j = open + 1;
    while j < s.len() {
        match s[j].0 {
            '\\' => j += 2,
            '\n' => return j,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    s.len()
}

/// Where a raw string `R"delim( ... )delim"` whose quote is at `quote` ends,
/// or `None` when it is not a well-formed, closed raw string (then it is
/// read as an ordinary string, which ends at the latest with its line and
/// so hides less from the scanner).
fn raw_string_end(s: &[(char, usize)], quote: usize) -> Option<usize> {
    let mut delim = String::new();
    let mut j = quote + 1;
    loop {
        let c = s.get(j)?.0;
        if c == '(' {
            break;
        }
        if c == ')' || c == '\\' || c.is_whitespace() || delim.len() >= 16 {
            return None;
        }
        delim.push(c);
        j += 1;
    }
    let close: Vec<char> = format!("){delim}\"").chars().collect();
    let mut k = j + 1;
    while k + close.len() <= s.len() {
        if s[k..k + close.len()].iter().map(|&(c, _)| c).eq(close.iter().copied()) {
            return Some(k + close.len());
        }
        k += 1;
    }
    None
}

/// Whether `header` (`<name>` or `"name"`, as written) names an allowed header.
fn allowed_header(header: &str) -> bool {
    let name = header
        .strip_prefix('<')
        .and_then(|h| h.strip_suffix('>'))
        .or_else(|| header.strip_prefix('"').and_then(|h| h.strip_suffix('"')));
    name.is_some_and(|n| ALLOWED.contains(&n))
}

/// A token sequence as it reads, shortened and without control characters.
fn shown(toks: &[Tok]) -> String {
    let mut text = String::new();
    for (n, t) in toks.iter().enumerate() {
        let glue = n > 0
            && !(toks[n - 1].kind == Kind::Hash || t.kind == Kind::Punct && t.text != "<" || toks[n - 1].text == "(");
        if glue {
            text.push(' ');
        }
        text.push_str(&t.text);
    }
    short(&text)
}

fn short(text: &str) -> String {
    let clean: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let clean = clean.trim();
    if clean.chars().count() > 80 {
        format!("{}...", clean.chars().take(77).collect::<String>())
    } else {
        clean.to_string()
    }
}

/// The tokens of the logical line from `from` on, up to its end.
fn rest_of_line(toks: &[Tok], from: usize) -> &[Tok] {
    let end = toks[from..].iter().position(|t| t.kind == Kind::Newline).map_or(toks.len(), |p| from + p);
    &toks[from..end]
}

fn judge(toks: &[Tok], refused: &mut Vec<Refused>) {
    let mut refuse = |line: usize, text: String, why: &'static str| refused.push(Refused { line, text, why });
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            Kind::Hash => {
                let Some(name) = toks.get(i + 1).filter(|n| n.kind == Kind::Ident) else { continue };
                let line = rest_of_line(toks, i);
                let word = name.text.as_str();
                if word.contains('\\') || !word.is_ascii() {
                    refuse(t.line, shown(line), "a directive spelled with escapes or non-ASCII letters");
                } else if word == "include" {
                    match &line[2..] {
                        [h] if h.kind == Kind::Header && allowed_header(&h.text) => {}
                        [h] if h.kind == Kind::Header => refuse(t.line, shown(line), "not an allowed header"),
                        _ => refuse(t.line, shown(line), "the header is not named literally"),
                    }
                } else if READING_DIRECTIVES.contains(&word) {
                    refuse(t.line, shown(line), "only #include may name a header");
                } else if word == "pragma" && names_a_file(&line[2..]) {
                    refuse(t.line, shown(line), "a pragma that names a file");
                }
            }
            Kind::Ident if READING_OPERATORS.contains(&t.text.as_str()) => {
                let call: Vec<Tok> =
                    toks[i..].iter().take(4).take_while(|t| t.kind != Kind::Newline).cloned().collect();
                let literal = t.text == "__has_include"
                    && call.len() == 4
                    && call[1].text == "("
                    && call[2].kind == Kind::Header
                    && allowed_header(&call[2].text)
                    && call[3].text == ")";
                if !literal {
                    let why = if t.text == "__has_include" {
                        "__has_include needs an allowed header, named literally"
                    } else {
                        "only __has_include may name a header"
                    };
                    refuse(t.line, shown(&call), why);
                }
            }
            Kind::Punct if t.text == "##" || t.text == "%:%:" => {
                let start = toks[..i].iter().rposition(|t| t.kind == Kind::Newline).map_or(0, |p| p + 1);
                refuse(
                    t.line,
                    shown(rest_of_line(toks, start)),
                    "token pasting (##) can build a name that looks up a file",
                );
            }
            Kind::Ident if t.text == "_Pragma" => {
                let call: Vec<Tok> =
                    toks[i..].iter().take(4).take_while(|t| t.kind != Kind::Newline).cloned().collect();
                let plain = call.len() == 4 && call[1].text == "(" && call[2].kind == Kind::Str && call[3].text == ")";
                if !plain {
                    refuse(t.line, shown(&call), "_Pragma needs a plain string");
                } else {
                    let inner = &call[2].text;
                    let body = inner.trim_start_matches(|c: char| c != '"');
                    let words = body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
                    if body.contains('\\')
                        || body[1..].contains('<')
                        || words.into_iter().any(|w| READING_PRAGMA_WORDS.contains(&w))
                    {
                        refuse(t.line, shown(&call), "a pragma that names a file");
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether a pragma's tokens name a file or a way of reading one.
fn names_a_file(pragma: &[Tok]) -> bool {
    pragma.iter().any(|t| {
        matches!(t.kind, Kind::Str | Kind::Header)
            || t.text == "<"
            || (t.kind == Kind::Ident && READING_PRAGMA_WORDS.contains(&t.text.as_str()))
    })
}

/// The belt to the lexer's braces: every physical line that starts like a
/// reading directive (`#`, `%:` or `??=`, blanks, then `include`, ...) must
/// be an allowed literal include, even where the lexer saw a comment or a
/// string around it.
fn physical_lines(source: &str, refused: &mut Vec<Refused>) {
    for (n, line) in source.lines().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#').or_else(|| t.strip_prefix("%:")).or_else(|| t.strip_prefix("??=")) else {
            continue;
        };
        let rest = rest.trim_start();
        let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !READING_DIRECTIVES.contains(&word.as_str()) {
            continue;
        }
        let arg = rest[word.len()..].trim();
        let arg = arg.split("//").next().unwrap_or("").split("/*").next().unwrap_or("").trim();
        let ok = word == "include" && allowed_header(arg);
        if !ok {
            let why = if word == "include" {
                "not an allowed header, named literally"
            } else {
                "only #include may name a header"
            };
            refused.push(Refused { line: n + 1, text: short(t), why });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The usual first lines, and files that mention includes harmlessly.
    const ALLOWED_FILES: &[&str] = &[
        "#include <cuda_runtime.h>\n#include <cstdio>\nextern \"C\" __global__ void k() {}\n",
        "#include \"cuda_runtime.h\"\n#  include <stdint.h>   // sizes\n#include<cmath>\n",
        "#include <algorithm> /* min */\n#include <cassert>\r\n#include <device_launch_parameters.h>\n",
        "const char* s = \"#include </etc/passwd>\";\n",
        "// #include \"/etc/passwd\" was tried and refused\n",
        "int x = 1'000'000; /* #include \"x\" */ int y = 0x1'f;\n",
        "#pragma unroll 4\n#pragma once\n_Pragma(\"unroll\")\n#define STR(x) #x\n",
        "#if __has_include(<cstdio>)\n#include <cstdio>\n#endif\n",
        "const char* r = R\"x(#include \"/etc/passwd\")x\";\n",
        "char c = '\"'; char d = '\\''; const char* e = \"\\\"\";\n#include <cstdint>\n",
    ];

    /// Every way of reaching for a file the checker knows of, and the line
    /// the refusal must name.
    const HOSTILE: &[(&str, usize)] = &[
        ("#include \"/etc/hostname\"\n", 1),
        ("#include </etc/hostname>\n", 1),
        ("\n#include \"kernels/k3_grid_mapping.cu\"\n", 2),
        ("#include \"../../secret.txt\"\n", 1),
        ("#include \"./cstdio\"\n", 1),
        ("#include <cstdio/../../etc/hostname>\n", 1),
        ("#include <CSTDIO>\n", 1),
        ("#include < cstdio>\n", 1),
        ("#include_next <cstdio>\n", 1),
        ("#import \"/etc/hostname\"\n", 1),
        ("#embed \"/etc/hostname\"\n", 1),
        ("#embed <cstdio>\n", 1),
        ("#if __has_include(\"/etc/hostname\")\n#endif\n", 1),
        ("#if __has_include_next(<cstdio>)\n#endif\n", 1),
        ("#if __has_embed(\"/etc/hostname\")\n#endif\n", 1),
        ("#define H __has_include\n#if H(\"/etc/x\")\n#endif\n", 1),
        ("#define CAT(a, b) a ## b\n#if CAT(__has_, include)(\"/etc/x\")\n#endif\n", 1),
        ("#define CAT(a, b) a %:%: b\n", 1),
        ("#define CAT(a, b) a##b\n", 1),
        ("%:include \"/etc/hostname\"\n", 1),
        ("%:  include \"/etc/hostname\"\n", 1),
        ("??=include \"/etc/hostname\"\n", 1),
        ("#\\\ninclude \"/etc/hostname\"\n", 1),
        ("#inc\\\nlude \"/etc/hostname\"\n", 1),
        ("#inc\\  \nlude \"/etc/hostname\"\n", 1),
        ("#inc??/\nlude \"/etc/hostname\"\n", 1),
        ("#/* a comment */include \"/etc/hostname\"\n", 1),
        ("# /* a comment\n spanning lines */ include \"/etc/hostname\"\n", 1),
        ("/*\n*/ #include \"/etc/hostname\"\n", 2),
        ("#   include \"/etc/hostname\"\n", 1),
        ("\t#\tinclude\t\"/etc/hostname\"\n", 1),
        ("#include \"/etc/\\\nhostname\"\n", 1),
        ("#define F \"/etc/hostname\"\n#include F\n", 2),
        ("#define STR(x) #x\n#include STR(/etc/hostname)\n", 2),
        ("#define A <cstd\n#define B io>\n#include A B\n", 3),
        ("#include <cstdio> <cstdint>\n", 1),
        ("#include <cstdio\n", 1),
        ("#include\n", 1),
        ("#i\\u006eclude \"/etc/hostname\"\n", 1),
        ("#pragma GCC dependency \"/etc/hostname\"\n", 1),
        ("#pragma include_alias(<a>, \"/etc/hostname\")\n", 1),
        ("_Pragma(\"GCC dependency \\\"/etc/hostname\\\"\")\n", 1),
        ("#define P(x) _Pragma(#x)\nP(GCC dependency \"/etc/hostname\")\n", 1),
        // A raw string that ends before the include: the include is code.
        ("const char* s = R\"(a\"/*)\";\n#include \"/etc/hostname\"\n// */\n", 2),
        // An unterminated raw string is read as a string to the end of its line.
        ("const char* s = R\"(\n#include \"/etc/hostname\"\n", 2),
        // A digit separator is no character literal: the include after it is code.
        ("int x = 1'0, y = '/*'; #include \"/etc/hostname\" // */\n", 1),
        // A raw string that ends before the include, on one line.
        ("const char* s = R\"(a\"/*)\"; #include \"/etc/hostname\" // */\n", 1),
        // In a block comment, but the line starts like an include: refused anyway.
        ("/*\n#include \"/etc/hostname\"\n*/\n", 2),
        ("int x; #include \"/etc/hostname\"\n", 1),
        ("#include <cstdio>\n#include \"/etc/a\"\n#include \"/etc/b\"\n", 2),
    ];

    #[test]
    fn the_usual_first_lines_and_harmless_mentions_pass() {
        for file in ALLOWED_FILES {
            assert_eq!(scan(file), vec![], "refused: {file:?}");
            assert!(check(file).is_ok());
        }
        for name in ALLOWED {
            assert_eq!(scan(&format!("#include <{name}>\n#include \"{name}\"\n")), vec![], "{name}");
        }
    }

    #[test]
    fn every_hostile_include_is_refused_on_its_line() {
        for (file, line) in HOSTILE {
            let refused = scan(file);
            let first = refused.first().unwrap_or_else(|| panic!("not refused: {file:?}"));
            assert_eq!(first.line, *line, "{file:?}: {refused:?}");
            let reason = check(file).unwrap_err().to_string();
            assert!(!reason.contains('\n'), "one line: {reason:?}");
            assert!(reason.starts_with(&format!("line {line}: `")), "{reason}");
            assert!(reason.contains("a submission may include only <algorithm>, <assert.h>"), "{reason}");
        }
    }

    #[test]
    fn a_refusal_names_the_include_and_counts_the_rest() {
        let refused = check("#include <cstdio>\n#include \"/etc/a\"\n#include \"/etc/b\"\n").unwrap_err();
        assert_eq!(refused.0.iter().map(|r| r.line).collect::<Vec<_>>(), [2, 3]);
        let reason = refused.to_string();
        assert!(reason.starts_with("line 2: `#include \"/etc/a\"` is refused (not an allowed header)"), "{reason}");
        assert!(reason.contains("(and 1 more refused line)"), "{reason}");
        let built = check("#define F \"/etc/hostname\"\n#include F\n").unwrap_err().to_string();
        assert!(built.contains("`#include F`") && built.contains("not named literally"), "{built}");
        let pasted = check("#define CAT(a, b) a ## b\n").unwrap_err().to_string();
        assert!(
            pasted.starts_with("line 1: `#define CAT(a, b) a") && pasted.contains("is refused (token pasting"),
            "{pasted}"
        );
        let long = check(&format!("#include \"/{}\"\n", "a".repeat(200))).unwrap_err().to_string();
        assert!(long.contains("...`"), "a long name is shortened: {long}");
    }

    #[test]
    fn splices_keep_their_lines() {
        let s = splice("a\\\nb\nc??/\n\nd??=e\r\n");
        let text: String = s.iter().map(|&(c, _)| c).collect();
        assert_eq!(text, "ab\nc\nd#e\n");
        assert_eq!(s.iter().find(|&&(c, _)| c == 'd').unwrap().1, 5);
    }
}
