//! Exercise `spiral-find-the-bug` on the simulator track: the Rust twin of
//! `find_the_bug.cu`, a gather that passes the source's four kernel cases
//! and is wrong. Find the shape it fails, fix it here, then check it by
//!
//! ```text
//! cargo run -p k6_spiral -- sim-check spiral-find-the-bug
//! ```

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

/// `find_the_bug.cu`: the line walked from the ring's top-right corner,
/// down a lone column or leftwards along a lone row.
pub fn centre_from_top_right(offset: u64, [top, left, bottom, right]: [u64; 4]) -> (u64, u64) {
    let (width, height) = (right - left + 1, bottom - top + 1);
    (top + if width == 1 { offset } else { 0 }, right - if height == 1 { offset } else { 0 })
}

pub fn find_the_bug(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    gather_with_centre(ctx, mem, centre_from_top_right)
}

pub const TWIN: Twin =
    Twin { name: "find the bug", steps: 1, barriers_after: &[], shared_words: 0, body: find_the_bug };
