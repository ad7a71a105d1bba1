//! The command line every chapter binary shares, built on `clap`.
//!
//! clap was chosen because it is the best-kept Rust argument parser and its
//! derive API keeps each chapter's flags next to their documentation. Its
//! default error is several lines long; [`parse`] cuts it to one line, an
//! [`Exit::Usage`], which [`finish`] prints and turns into exit code 2, what
//! the book promises for bad input. A command returns its exit code, or the
//! [`Exit`] that ends it early, up to its binary's `main`, and only `main`
//! ends the process:
//!
//! ```no_run
//! fn main() {
//!     std::process::exit(ktrav_term::cli::finish(run()))
//! }
//!
//! fn run() -> Result<i32, ktrav_term::cli::Exit> {
//!     # #[derive(clap::Parser)] struct Args {}
//!     let _args: Args = ktrav_term::cli::parse()?;
//!     ktrav_term::cli::print("hello\n")?;
//!     Ok(0)
//! }
//! ```
//!
//! Everything a chapter prints goes through [`print()`], so a reader who pipes
//! a chapter into `head` gets a quiet stop instead of a panic.

use clap::error::ErrorKind;
use clap::Parser;
use std::io::Write;

/// Why a command ends before its work is done: what it has left to say and
/// the process's exit code ([`Exit::code`]), acted on by [`finish`] in the
/// binary's `main`.
#[derive(Debug, thiserror::Error)]
pub enum Exit {
    /// `--help` or `--version`: the text goes to stdout, exit code 0.
    #[error("{0}")]
    Help(String),
    /// Bad input, refused before any work: `error: ` and the message's
    /// first line on stderr, exit code 2.
    #[error("{0}")]
    Usage(String),
    /// The reader of stdout went away (`chapter | head -1`): a quiet stop,
    /// exit code 0, as any Unix tool.
    #[error("the reader of stdout went away")]
    ClosedPipe,
    /// Writing to stdout failed otherwise: exit code 1.
    #[error("writing to stdout failed ({0})")]
    Output(#[source] std::io::Error),
}

impl Exit {
    /// The exit code the process ends with.
    pub fn code(&self) -> i32 {
        match self {
            Exit::Help(_) | Exit::ClosedPipe => 0,
            Exit::Usage(_) => 2,
            Exit::Output(_) => 1,
        }
    }
}

/// A clap error is the reader's: help and version are [`Exit::Help`];
/// anything else is one line of [`Exit::Usage`].
impl From<clap::Error> for Exit {
    fn from(err: clap::Error) -> Exit {
        match err.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => Exit::Help(err.render().to_string()),
            _ => Exit::Usage(one_line(&err)),
        }
    }
}

/// What a binary's `main` does with its command's result: prints what an
/// [`Exit`] has to say (help on stdout, an error on one line of stderr) and
/// returns the code to end the process with.
pub fn finish(result: Result<i32, Exit>) -> i32 {
    let exit = match result {
        Ok(code) => return code,
        Err(exit) => exit,
    };
    match &exit {
        Exit::Help(text) => {
            if let Err(e) = print(text) {
                return finish(Err(e));
            }
        }
        Exit::Usage(message) => {
            let message = message.trim_start_matches("error: ");
            eprintln!("error: {}", message.lines().next().unwrap_or(""));
        }
        Exit::ClosedPipe => {}
        Exit::Output(_) => eprintln!("error: {exit}"),
    }
    exit.code()
}

/// Parses the process arguments; `Err` is [`Exit::Help`] for `--help` and
/// `--version`, one line of [`Exit::Usage`] otherwise.
pub fn parse<T: Parser>() -> Result<T, Exit> {
    parse_from(std::env::args_os())
}

/// [`parse`] over given arguments (the first is the program name).
pub fn parse_from<T: Parser, I, A>(args: I) -> Result<T, Exit>
where
    I: IntoIterator<Item = A>,
    A: Into<std::ffi::OsString> + Clone,
{
    Ok(T::try_parse_from(args)?)
}

/// [`parse`], and whether any of the flags `ids` (argument ids such as
/// `"rows"`) was typed on the command line rather than left at its
/// default: a chapter runs its own exploration only when one was, so its
/// `--help` can still show every default with `[default: N]`.
pub fn parse_typed<T: Parser>(ids: &[&str]) -> Result<(T, bool), Exit> {
    let matches = T::command().try_get_matches()?;
    let args = T::from_arg_matches(&matches)?;
    let typed = ids.iter().any(|id| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine));
    Ok((args, typed))
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

/// `result`'s value, or its error as bad input: [`Exit::Usage`], one line
/// (an `anyhow` error's whole chain of context on that line). For input a
/// command validates itself; a failure of the tool is no [`Exit::Usage`].
pub fn usage<T, E: std::fmt::Display>(result: Result<T, E>) -> Result<T, Exit> {
    result.map_err(|e| Exit::Usage(format!("{e:#}")))
}

/// [`Exit::Usage`] unless `needed` is at most `limit`; `what` names the
/// quantity, as in `check_limit("bytes of host memory", shape.checked_bytes(4), MAX)`.
/// Call it before allocating or starting any work.
pub fn check_limit(what: &str, needed: Option<u64>, limit: u64) -> Result<(), Exit> {
    match needed {
        Some(n) if n <= limit => Ok(()),
        Some(n) => Err(Exit::Usage(format!("this run needs {n} {what}, more than the limit of {limit}"))),
        None => Err(Exit::Usage(format!("this run needs more {what} than 64 bits can count (the limit is {limit})"))),
    }
}

/// Writes `text` to stdout. When the reader has gone away (a closed pipe,
/// as in `k7_diagonal | head -1`) it returns [`Exit::ClosedPipe`], so the
/// program stops quietly with code 0, like any Unix tool.
pub fn print(text: &str) -> Result<(), Exit> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| match e.kind() {
        std::io::ErrorKind::BrokenPipe => Exit::ClosedPipe,
        _ => Exit::Output(e),
    })
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
    fn every_exit_has_its_code_and_only_bad_input_is_the_readers_fault() {
        #[derive(clap::Parser, Debug)]
        struct A {
            #[arg(long)]
            rows: u64,
        }
        let help = Exit::from(<A as clap::Parser>::try_parse_from(["a", "--help"]).unwrap_err());
        assert!(matches!(&help, Exit::Help(text) if text.contains("--rows")), "{help:?}");
        let bad = Exit::from(<A as clap::Parser>::try_parse_from(["a", "--rows", "x"]).unwrap_err());
        assert!(matches!(&bad, Exit::Usage(line) if !line.contains('\n')), "{bad:?}");
        assert_eq!((bad.code(), Exit::ClosedPipe.code()), (2, 0));
        let broken = Exit::Output(std::io::Error::other("disk full"));
        assert_eq!((broken.code(), broken.to_string().as_str()), (1, "writing to stdout failed (disk full)"));
        assert_eq!(finish(Ok(3)), 3);
        assert_eq!(finish(Err(Exit::Usage("error: two\nlines".into()))), 2);
        assert_eq!(finish(Err(Exit::ClosedPipe)), 0);
    }

    #[test]
    fn limits_refuse_as_bad_input() {
        assert!(check_limit("cells", Some(10), 10).is_ok());
        let over = check_limit("cells", Some(11), 10).unwrap_err();
        assert!(
            matches!(&over, Exit::Usage(m) if m == "this run needs 11 cells, more than the limit of 10"),
            "{over:?}"
        );
        assert!(matches!(check_limit("cells", None, 10), Err(Exit::Usage(m)) if m.contains("64 bits")));
        let refused = usage::<(), _>(Err(anyhow::anyhow!("inner").context("outer"))).unwrap_err();
        assert!(matches!(&refused, Exit::Usage(m) if m == "outer: inner"), "{refused:?}");
    }

    #[test]
    fn seeds_are_checked() {
        assert_eq!(seed("42").unwrap(), 42);
        assert!(seed("-1").unwrap_err().to_string().contains("not a seed"));
        assert!(seed("x").is_err());
    }
}
