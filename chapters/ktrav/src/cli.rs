//! Argument parsing for every chapter binary, with `clap`.
//!
//! clap was chosen because it is the best-kept Rust argument parser and its
//! derive API keeps each chapter's flags next to their documentation. Its
//! default error is several lines long; [`parse_or_exit`] cuts it to one line
//! and exits with code 2, which is what the book promises for bad input.

use clap::error::ErrorKind;
use clap::Parser;

/// Parses the process arguments, or prints one line to stderr and exits 2.
/// `--help` and `--version` print normally and exit 0.
pub fn parse_or_exit<T: Parser>() -> T {
    match T::try_parse() {
        Ok(args) => args,
        Err(err) => match err.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => err.exit(),
            _ => fail(&first_line(&err.render().to_string())),
        },
    }
}

/// Prints `error: message` on one line to stderr and exits with code 2.
pub fn fail(message: &str) -> ! {
    let message = message.trim_start_matches("error: ");
    eprintln!("error: {message}");
    std::process::exit(2)
}

/// Unwraps a validated value or exits with code 2 and a one-line message.
pub fn or_exit<T, E: std::fmt::Display>(result: Result<T, E>) -> T {
    result.unwrap_or_else(|e| fail(&e.to_string()))
}

fn first_line(text: &str) -> String {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments").trim().to_string()
}

/// A clap value parser for a positive size no larger than `max`, so that
/// zero, negative and absurd values are refused with a clear message.
pub fn size_in(max: u64) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let v: i128 = s.trim().parse().map_err(|_| format!("'{s}' is not a whole number"))?;
        if v <= 0 {
            return Err(format!("{v} is not positive"));
        }
        if v > max as i128 {
            return Err(format!("{v} is larger than the limit of {max}"));
        }
        Ok(v as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        let p = size_in(100);
        assert_eq!(p("7"), Ok(7));
        assert!(p("0").unwrap_err().contains("not positive"));
        assert!(p("-3").unwrap_err().contains("not positive"));
        assert!(p("101").unwrap_err().contains("limit"));
        assert!(p("1e9").unwrap_err().contains("whole number"));
        assert!(p("99999999999999999999999999999999999999999").is_err());
    }
}
