//! `cargo run` at the workspace root: every chapter's worked example, in order.

fn main() {
    let chapters: &[(&str, fn() -> String)] = &[("K.1", k1_row_col_major::worked_example)];
    for (i, (_, run)) in chapters.iter().enumerate() {
        if i > 0 {
            println!();
        }
        anstream::print!("{}", run());
    }
}
