//! `sim-check`: a student's own twin checked on the simulator, no GPU
//! needed. Every chapter with exercises compiles in the student's files
//! (one `.rs` file per exercise, beside the `.cu` starter under
//! `exercises/<chapter>/`) and lists them as [`SimExercise`]s in its
//! [`crate::Chapter`]; its binary takes [`SimCommand`]:
//!
//! ```text
//! cargo run -p k3_grid_mapping -- sim-check copy
//! ```
//!
//! prints the report (one line per shape, `pass` or `FAIL`, the first
//! failing schedule) and exits 0 when every shape passes, 1 when one
//! fails, 2 on bad input. A twin that panics is judged a crash on its
//! shape's line, with no backtrace ([`super::simtrack::quiet_panics`]).

use super::simtrack::{check_twin, SimCheck};
use super::twin::Twin;
use super::Exercise;
use crate::Chapter;
use clap::Subcommand;
use ktrav_term::cli::Exit;

/// What a simulated check found: the report, and whether every case passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimReport {
    pub text: String,
    pub passed: bool,
}

impl From<SimCheck> for SimReport {
    fn from(c: SimCheck) -> SimReport {
        SimReport { passed: c.passed(), text: c.render() }
    }
}

/// Checks `twin` against `ex` on the simulator battery: what
/// [`SimExercise::check`] does for a kernel exercise.
pub fn report(ex: &Exercise, twin: &Twin) -> SimReport {
    check_twin(ex, twin).into()
}

/// One exercise as the simulator track checks a student's own answer.
#[derive(Clone, Copy, Debug)]
pub struct SimExercise {
    /// The exercise's id, as `sim-check` takes it (a kernel exercise's is
    /// its [`Exercise::id`]).
    pub id: &'static str,
    /// The file the student edits, relative to the workspace root
    /// (`exercises/k3_grid_mapping/copy.rs`).
    pub file: &'static str,
    /// The crate's own solution, a file of the same form, relative to the
    /// workspace root: put in place of [`Self::file`], it passes.
    pub solution: &'static str,
    /// Checks the student's file as the chapter compiled it in.
    pub check: fn() -> SimReport,
}

/// The simulator track's subcommand, for a chapter binary's subcommands
/// (`#[command(flatten)]`).
#[derive(Subcommand, Debug, Clone)]
pub enum SimCommand {
    /// Check your own Rust twin (the .rs file beside the exercise's starter) on the simulator; no GPU needed
    #[command(name = "sim-check")]
    SimCheck {
        /// The exercise, by id (default: the chapter's first)
        exercise: Option<String>,
    },
}

impl SimCommand {
    /// Runs the subcommand for `chapter`: prints the report and returns the
    /// exit code, 0 when it passes and 1 when it fails; an exercise the
    /// chapter does not have is [`Exit::Usage`].
    pub fn run(&self, chapter: &Chapter) -> Result<i32, Exit> {
        let SimCommand::SimCheck { exercise } = self;
        let ex = ktrav_term::cli::usage(find(chapter, exercise.as_deref()))?;
        super::simtrack::quiet_panics();
        let r = (ex.check)();
        ktrav_term::cli::print(&format!("checking {}\n{}", ex.file, r.text))?;
        Ok(if r.passed { 0 } else { 1 })
    }
}

/// The exercise `id` names among `chapter`'s, or its first; `Err` is one
/// line naming the ones it has.
pub fn find<'a>(chapter: &'a Chapter, id: Option<&str>) -> anyhow::Result<&'a SimExercise> {
    let all = chapter.sim_exercises;
    let names = || all.iter().map(|e| e.id).collect::<Vec<_>>().join(", ");
    match id {
        Some(id) => all
            .iter()
            .find(|e| e.id == id)
            .ok_or_else(|| anyhow::anyhow!("{} has no exercise '{id}' (it has: {})", chapter.id, names())),
        None => all.first().ok_or_else(|| anyhow::anyhow!("{} has no exercise on the simulator track", chapter.id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passes() -> SimReport {
        SimReport { text: "ok\n".into(), passed: true }
    }

    const CH: Chapter = Chapter {
        id: "k0_test",
        section: "K.0",
        title: "a test",
        report: Vec::new,
        shown_outputs: Vec::new,
        figures: Vec::new,
        kernel_source: None,
        values: Vec::new,
        gpu: None,
        exercises: &[],
        versions: &[],
        sim_exercises: &[
            SimExercise { id: "first", file: "exercises/k0_test/first.rs", solution: "s.rs", check: passes },
            SimExercise { id: "second", file: "exercises/k0_test/second.rs", solution: "s.rs", check: passes },
        ],
    };

    #[test]
    fn an_exercise_is_found_by_id_or_the_first_and_an_unknown_one_is_named() {
        assert_eq!(find(&CH, None).unwrap().id, "first");
        assert_eq!(find(&CH, Some("second")).unwrap().id, "second");
        let third = find(&CH, Some("third")).unwrap_err();
        assert_eq!(third.to_string(), "k0_test has no exercise 'third' (it has: first, second)");
        let none = Chapter { sim_exercises: &[], ..CH };
        assert_eq!(find(&none, None).unwrap_err().to_string(), "k0_test has no exercise on the simulator track");
    }
}
