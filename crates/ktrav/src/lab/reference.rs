//! Host references for the lab exercises: closed forms, so a check of a
//! matrix of billions of elements needs no second matrix on the host.

use crate::geometry::Shape;

/// The value of element `i` of input `k` (0, 1, ...): exact as an `f32`
/// and different for every index and input.
pub fn input_value(k: u8, i: u64) -> f32 {
    crate::compare::test_value(i.wrapping_add((k as u64) << 40))
}

/// Transpose: element `i` of the `cols x rows` output is element
/// `(i % rows, i / rows)` of the input.
pub fn transpose_source(shape: Shape, i: u64) -> u64 {
    let (r, c) = (i % shape.rows, i / shape.rows);
    r * shape.cols + c
}

/// K.4's marker: `(float)(row * 1000 + col)`, as CUDA converts it.
pub fn marker(shape: Shape, i: u64) -> f32 {
    let (r, c) = (i / shape.cols, i % shape.cols);
    (r * 1000 + c) as f32
}

/// The spiral's ring start: `rows*cols` minus the core left after `k` peels.
fn ring_start(k: i128, rows: i128, cols: i128) -> i128 {
    rows * cols - (rows - 2 * k) * (cols - 2 * k)
}

/// The inverse spiral: which `(row, col)` has spiral rank `rank`. The ring
/// is found by binary search on `ring_start`, in exact integers.
pub fn spiral_position(shape: Shape, rank: u64) -> (u64, u64) {
    let (rows, cols, rank) = (shape.rows as i128, shape.cols as i128, rank as i128);
    let last = (rows.min(cols) - 1) / 2;
    let (mut lo, mut hi) = (0i128, last);
    while lo < hi {
        let mid = (lo + hi + 1) / 2;
        if ring_start(mid, rows, cols) <= rank {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let k = lo;
    let offset = rank - ring_start(k, rows, cols);
    let (top, left, bottom, right) = (k, k, rows - 1 - k, cols - 1 - k);
    let (width, height) = (right - left + 1, bottom - top + 1);
    let (r, c) = if offset < width {
        (top, left + offset)
    } else if offset < width + height - 1 {
        (top + offset - (width - 1), right)
    } else if offset < 2 * width + height - 2 {
        (bottom, right - (offset - (width - 1) - (height - 1)))
    } else {
        (bottom - (offset - 2 * (width - 1) - (height - 1)), left)
    };
    (r as u64, c as u64)
}

/// The Mersenne prime K.7's counts are kept modulo.
pub const LATTICE_MODULUS: u64 = (1 << 61) - 1;

fn mul_mod(a: u64, b: u64) -> u64 {
    ((a as u128 * b as u128) % LATTICE_MODULUS as u128) as u64
}

fn pow_mod(mut a: u64, mut e: u64) -> u64 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, a);
        }
        a = mul_mod(a, a);
        e >>= 1;
    }
    r
}

/// Lattice paths to `(r, c)`, `C(r + c, r) mod 2^61 - 1`, from factorials
/// up to `rows + cols - 2` (the modulus is prime and larger, so every
/// factorial is invertible).
pub struct Lattice {
    fact: Vec<u64>,
    inv_fact: Vec<u64>,
}

impl Lattice {
    pub fn new(shape: Shape) -> Self {
        let n = (shape.rows + shape.cols - 1) as usize;
        let mut fact = vec![1u64; n];
        for i in 1..n {
            fact[i] = mul_mod(fact[i - 1], i as u64);
        }
        let mut inv_fact = vec![1u64; n];
        inv_fact[n - 1] = pow_mod(fact[n - 1], LATTICE_MODULUS - 2);
        for i in (1..n).rev() {
            inv_fact[i - 1] = mul_mod(inv_fact[i], i as u64);
        }
        Lattice { fact, inv_fact }
    }

    /// `paths(r, c)`.
    pub fn paths(&self, r: u64, c: u64) -> u64 {
        let n = (r + c) as usize;
        mul_mod(self.fact[n], mul_mod(self.inv_fact[r as usize], self.inv_fact[c as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spiral_inverse_walks_the_rings_in_order() {
        // The 4x5 spiral, walked by hand: top, right, bottom, left, then the core.
        let walk = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 4), (2, 4), (3, 4), (3, 3), (3, 2), (3, 1), (3, 0), (2, 0), (1, 0), (1, 1), (1, 2), (1, 3), (2, 3), (2, 2), (2, 1)];
        let s = Shape::new(4, 5);
        let got: Vec<(u64, u64)> = (0..20).map(|k| spiral_position(s, k)).collect();
        assert_eq!(got, walk);
        // A permutation on odd, thin and tall shapes.
        for s in [Shape::new(7, 5), Shape::new(1, 9), Shape::new(9, 1), Shape::new(6, 9), Shape::new(1, 1)] {
            let mut seen = vec![false; s.elements() as usize];
            for k in 0..s.elements() {
                let (r, c) = spiral_position(s, k);
                assert!(r < s.rows && c < s.cols && !std::mem::replace(&mut seen[(r * s.cols + c) as usize], true));
            }
        }
    }

    #[test]
    fn lattice_paths_are_binomials_mod_the_prime() {
        let l = Lattice::new(Shape::new(40, 40));
        assert_eq!((l.paths(0, 7), l.paths(1, 1), l.paths(2, 2), l.paths(3, 4)), (1, 2, 6, 35));
        // The DP recurrence holds, including past 2^61 where the modulus bites (C(78, 39) > 2^61).
        for r in 1..40 {
            for c in 1..40 {
                assert_eq!(l.paths(r, c), (l.paths(r - 1, c) + l.paths(r, c - 1)) % LATTICE_MODULUS);
            }
        }
    }

    #[test]
    fn transpose_and_marker_follow_their_formulas() {
        let s = Shape::new(2, 3);
        // out is 3x2: out[1] = in(1, 0) = in[3]; out[2] = in(0, 1) = in[1].
        assert_eq!((0..6).map(|i| transpose_source(s, i)).collect::<Vec<_>>(), vec![0, 3, 1, 4, 2, 5]);
        assert_eq!(marker(s, 5), 1002.0);
        assert_ne!(input_value(0, 5), input_value(1, 5));
    }
}
