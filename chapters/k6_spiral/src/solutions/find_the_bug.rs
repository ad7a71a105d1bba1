//! The fix of `spiral-find-the-bug`, in the form of the student's
//! `exercises/k6_spiral/find_the_bug.rs`: put in its place, it passes.

use crate::{ring_containing, ring_start, spiral_position};
use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// The gather of `find_the_bug.cu`, with `centre` placing rank `offset`
/// along a collapsed ring (top, left, bottom, right) that is one line of
/// cells; a full ring is the chapter's four sides.
fn gather_with_centre(ctx: &Ctx, mem: &mut Mem, centre: fn(u64, [u64; 4]) -> (u64, u64)) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    let (rows, cols) = (ctx.rows, ctx.cols);
    if row >= rows || col >= cols {
        return;
    }
    let to = row * cols + col;
    let k = ring_containing(to, rows, cols);
    let offset = to - ring_start(k, rows, cols);
    let (top, left, bottom, right) = (k, k, rows - 1 - k, cols - 1 - k);
    let (r, c) = if right == left || bottom == top {
        centre(offset, [top, left, bottom, right])
    } else {
        spiral_position(to, rows, cols)
    };
    mem.write_f32(to as i64, mem.input(0, (r * cols + c) as i64));
}

/// The fix: a lone row is entered at its left end, like any top side.
pub fn centre_from_top_left(offset: u64, [top, left, bottom, right]: [u64; 4]) -> (u64, u64) {
    let (width, height) = (right - left + 1, bottom - top + 1);
    (top + if width == 1 { offset } else { 0 }, left + if height == 1 { offset } else { 0 })
}

pub fn find_the_bug_fixed(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    gather_with_centre(ctx, mem, centre_from_top_left)
}

pub const TWIN: Twin =
    Twin { name: "find the bug, fixed", steps: 1, barriers_after: &[], shared_words: 0, body: find_the_bug_fixed };
