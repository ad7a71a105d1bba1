//! A chapter binary's lab subcommands, in one value: `check FILE.cu` (and
//! its worker) on a GPU ([`crate::check::LabCommand`]), and `sim-check`,
//! the student's own Rust twin on the simulator
//! ([`ktrav::lab::simcheck::SimCommand`]).

use clap::Subcommand;
use ktrav::lab::simcheck::SimCommand;
use ktrav::Chapter;
use ktrav_term::cli::Exit;

#[derive(Subcommand, Debug)]
pub enum Lab {
    #[command(flatten)]
    Gpu(crate::check::LabCommand),
    #[command(flatten)]
    Sim(SimCommand),
}

impl Lab {
    /// Runs the subcommand for `chapter` and returns its exit code.
    pub fn run(&self, chapter: &Chapter) -> Result<i32, Exit> {
        match self {
            Lab::Gpu(c) => c.run(chapter),
            Lab::Sim(c) => c.run(chapter),
        }
    }
}
