//! The numbers K.4's page quotes, computed here (see `book/values.txt`).

use crate::{launch_plan, run_add, SOURCE_BLOCK, SOURCE_SHAPE};
use ktrav::{BlockOrder, Dim2, Shape};

/// The addition with only the row checked, run in reverse: the stray
/// threads (those past the last column) whose store lands past the last
/// row, each having read one element of `a` and one of `b` there: (stray
/// threads past the end, their reads, their writes).
pub fn strays_past_the_end(shape: Shape, block: Dim2) -> (u64, u64, u64) {
    let plan = launch_plan(shape, block).expect("a valid launch");
    let buf = run_add(&plan, &BlockOrder::Reverse);
    let past = buf.log().iter().filter(|((_, wc), s)| *wc >= shape.cols && s.index >= shape.elements()).count() as u64;
    // Each reads a[i] and b[i] through the same flat index and writes out[i].
    (past, 2 * past, past)
}

pub fn values() -> Vec<(&'static str, String)> {
    let (threads, reads, writes) = strays_past_the_end(SOURCE_SHAPE, SOURCE_BLOCK);
    vec![
        ("k4.past_end.threads", threads.to_string()),
        ("k4.past_end.reads", reads.to_string()),
        ("k4.past_end.writes", writes.to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_launch_has_two_strays_past_the_end() {
        assert_eq!(strays_past_the_end(SOURCE_SHAPE, SOURCE_BLOCK), (2, 4, 2));
    }

    #[test]
    fn a_changed_shape_changes_the_count() {
        // 4x9 under 4x1 blocks: three threads per row past the last column.
        assert_eq!(strays_past_the_end(Shape::new(4, 9), SOURCE_BLOCK).0, 3);
    }
}
