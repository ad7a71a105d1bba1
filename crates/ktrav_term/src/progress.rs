//! Progress for work that can take more than about a second: a bar on
//! stderr from `indicatif` (built on `console`), drawn only when stderr is a
//! terminal, so piped output, tests and the book never see it.

use indicatif::{ProgressDrawTarget, ProgressStyle};

/// The bar [`bar`] returns, named here so chapters can pass one around.
pub use indicatif::ProgressBar;
use std::time::Duration;

/// Work smaller than this many steps finishes too fast to need a bar.
pub const SMALL: u64 = 1 << 20;

/// A bar for `total` steps of `what` on stderr, hidden when stderr is not a
/// terminal or when `total` is below `small` steps.
pub fn bar(what: &str, total: u64, small: u64) -> ProgressBar {
    if total < small {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{msg} [{bar:30}] {percent:>3}% ({eta} left)")
        .expect("the template is valid")
        .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(what.to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_work_gets_no_bar() {
        assert!(bar("tiny", 10, SMALL).is_hidden());
        let big = bar("big", SMALL, SMALL);
        big.inc(1);
        assert_eq!(big.position(), 1);
        big.finish_and_clear();
    }
}
