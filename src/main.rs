//! `cargo run` at the workspace root: every chapter's worked example, in order.
//! `cargo run -- --refresh-outputs` rewrites `book/outputs/` and
//! `book/figures/` from the code (see `scripts/refresh-outputs`; review the
//! diff before committing).

use appendix_k::chapters;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => {
            for (i, ch) in chapters().iter().enumerate() {
                if i > 0 {
                    println!();
                }
                anstream::print!("{}", (ch.worked_example)());
            }
        }
        [flag] if flag == "--refresh-outputs" => {
            let dir = ktrav::book::outputs_dir();
            for ch in chapters() {
                for (name, text) in (ch.shown_outputs)() {
                    let path = dir.join(name);
                    ktrav::cli::or_exit(std::fs::write(&path, ktrav::report::plain(&text)));
                    println!("{} {}", ch.section, path.display());
                }
            }
            let dir = ktrav::figure::figures_dir();
            ktrav::cli::or_exit(std::fs::create_dir_all(&dir));
            for (part, name, svg) in appendix_k::figures() {
                let path = dir.join(name);
                ktrav::cli::or_exit(std::fs::write(&path, svg));
                println!("{part} {}", path.display());
            }
        }
        _ => ktrav::cli::fail("usage: appendix_k [--refresh-outputs]"),
    }
}
