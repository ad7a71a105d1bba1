//! The command line every chapter binary shares, built on `clap`.
//!
//! clap was chosen because it is the best-kept Rust argument parser and its
//! derive API keeps each chapter's flags next to their documentation. Its
//! default error is several lines long; [`parse_or_exit`] cuts it to one line
//! and exits with code 2, which is what the book promises for bad input.
//! Everything a chapter prints goes through [`print`], so a reader who pipes
//! a chapter into `head` gets a quiet stop instead of a panic.

use clap::error::ErrorKind;
use clap::Parser;
use std::io::Write;

/// Parses the process arguments, or prints one line to stderr and exits 2.
/// `--help` and `--version` print normally and exit 0.
pub fn parse_or_exit<T: Parser>() -> T {
    parse_from_or_exit(std::env::args_os())
}

/// [`parse_or_exit`] over given arguments (the first is the program name).
pub fn parse_from_or_exit<T: Parser, I, A>(args: I) -> T
where
    I: IntoIterator<Item = A>,
    A: Into<std::ffi::OsString> + Clone,
{
    match T::try_parse_from(args) {
        Ok(args) => args,
        Err(err) => exit_on_clap_error(err),
    }
}

/// [`parse_or_exit`], and whether any of the flags `ids` (argument ids such
/// as `"rows"`) was typed on the command line rather than left at its
/// default: a chapter runs its own exploration only when one was, so its
/// `--help` can still show every default with `[default: N]`.
pub fn parse_typed_or_exit<T: Parser>(ids: &[&str]) -> (T, bool) {
    let matches = T::command().try_get_matches().unwrap_or_else(|e| exit_on_clap_error(e));
    let args = T::from_arg_matches(&matches).unwrap_or_else(|e| exit_on_clap_error(e));
    let typed = ids.iter().any(|id| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine));
    (args, typed)
}

/// What every binary does with a clap error: help and version are printed
/// and exit 0; anything else is one line on stderr and exit 2.
pub fn exit_on_clap_error(err: clap::Error) -> ! {
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            print(&err.render().to_string());
            std::process::exit(0)
        }
        _ => fail(&one_line(&err)),
    }
}

/// clap's error as one line in the project's wording: the message, and for a
/// missing companion flag the flags it needs.
fn one_line(err: &clap::Error) -> String {
    let text = err.render().to_string();
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments").trim().to_string();
    if err.kind() == ErrorKind::MissingRequiredArgument {
        // clap names the missing flags on the following lines, with value
        // placeholders, a group as `<--a <A>|--b <B>>`.
        let specs: Vec<&str> =
            text.lines().skip(1).map(str::trim).take_while(|l| l.starts_with("--") || l.starts_with('<')).collect();
        // A missing positional argument, such as `check`'s `<FILE>`.
        if let Some(positional) = specs.iter().find(|l| !l.contains("--")) {
            return format!("missing the argument {positional} (see --help)");
        }
        let missing: Vec<String> = specs.into_iter().map(companion_names).collect();
        if !missing.is_empty() {
            return format!("a flag given needs {} as well", missing.join(" and "));
        }
    }
    first
}

/// `<--rows <ROWS>|--cols <COLS>>` as `--rows or --cols`.
fn companion_names(spec: &str) -> String {
    let names: Vec<&str> = spec
        .split(|c: char| c == '|' || c.is_whitespace() || c == '<' || c == '>')
        .filter(|w| w.starts_with("--"))
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// Prints `error: message` on one line to stderr and exits with code 2.
pub fn fail(message: &str) -> ! {
    let message = message.trim_start_matches("error: ");
    let message = message.lines().next().unwrap_or("");
    eprintln!("error: {message}");
    std::process::exit(2)
}

/// Unwraps a validated value or exits with code 2 and a one-line message
/// (an `anyhow` error prints its whole chain of context on that line).
pub fn or_exit<T, E: std::fmt::Display>(result: Result<T, E>) -> T {
    result.unwrap_or_else(|e| fail(&format!("{e:#}")))
}

/// Exits with code 2 unless `needed` is at most `limit`; `what` names the
/// quantity, as in `check_limit("bytes of host memory", shape.checked_bytes(4), MAX)`. Call it
/// before allocating or starting any work.
pub fn check_limit(what: &str, needed: Option<u64>, limit: u64) {
    match needed {
        Some(n) if n <= limit => {}
        Some(n) => fail(&format!("this run needs {n} {what}, more than the limit of {limit}")),
        None => fail(&format!("this run needs more {what} than 64 bits can count (the limit is {limit})")),
    }
}

/// What a chapter binary does with `--gpu` at a reader's shape: refuses in
/// one line (exit 2) a shape of more elements than the host can hold the
/// reference of, before anything is allocated or any GPU probed; otherwise
/// runs `section` and prints it, exiting as the default run does (1 if a
/// check disagreed, 0 otherwise or when there is no GPU, in one line).
pub fn run_on_gpu(shape: crate::Shape, section: impl FnOnce(crate::Shape) -> crate::SectionOutcome) -> ! {
    check_limit("matrix elements on the GPU", shape.checked_elements(), crate::section::MAX_GPU_ELEMENTS);
    let outcome = section(shape);
    print(&outcome.text());
    std::process::exit(outcome.exit_code())
}

/// Writes `text` to stdout. When the reader has gone away (a closed pipe,
/// as in `k7_diagonal | head -1`) the program stops quietly with code 0,
/// like any Unix tool.
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to stdout failed ({e})");
        std::process::exit(1);
    }
}

/// Prints a warning on stderr when this is a debug build: timings from one
/// are not what the code can do.
pub fn warn_if_debug(what: &str) {
    if cfg!(debug_assertions) {
        eprintln!("warning: {what} in a debug build are far slower than they should be; use cargo run --release");
    }
}

/// A clap value parser for a positive size no larger than `max`, so that
/// zero, negative and absurd values are refused with a clear message.
pub fn size_in(max: u64) -> impl Fn(&str) -> anyhow::Result<u64> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let v: i128 = s.trim().parse().map_err(|_| anyhow::anyhow!("'{s}' is not a whole number"))?;
        if v <= 0 {
            anyhow::bail!("{v} is not positive");
        }
        if v > max as i128 {
            anyhow::bail!("{v} is larger than the limit of {max}");
        }
        Ok(v as u64)
    }
}

/// A clap value parser for a seed: any whole number from 0 to 2^64 - 1.
pub fn seed(s: &str) -> anyhow::Result<u64> {
    s.trim().parse().map_err(|_| anyhow::anyhow!("'{s}' is not a seed: use a whole number from 0 to {}", u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        let p = size_in(100);
        assert_eq!(p("7").unwrap(), 7);
        assert!(p("0").unwrap_err().to_string().contains("not positive"));
        assert!(p("-3").unwrap_err().to_string().contains("not positive"));
        assert!(p("101").unwrap_err().to_string().contains("limit"));
        assert!(p("1e9").unwrap_err().to_string().contains("whole number"));
        assert!(p("99999999999999999999999999999999999999999").is_err());
    }

    #[test]
    fn companions_are_named_plainly() {
        assert_eq!(companion_names("--measure"), "--measure");
        assert_eq!(companion_names("<--rows <ROWS>|--cols <COLS>>"), "--rows or --cols");
        assert_eq!(companion_names("<--rows <ROWS>|--cols <COLS>|--tile <TILE>>"), "--rows, --cols or --tile");
        #[derive(clap::Parser, Debug)]
        struct A {
            #[arg(long)]
            measure: bool,
            #[arg(long, requires = "measure")]
            size: Option<u64>,
        }
        let err = <A as clap::Parser>::try_parse_from(["a", "--size", "3"]).unwrap_err();
        assert_eq!(one_line(&err), "a flag given needs --measure as well");
    }

    #[test]
    fn seeds_are_checked() {
        assert_eq!(seed("42").unwrap(), 42);
        assert!(seed("-1").unwrap_err().to_string().contains("not a seed"));
        assert!(seed("x").is_err());
    }
}
