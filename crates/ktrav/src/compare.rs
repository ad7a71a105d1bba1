//! Checking an output against what it should be: every output buffer starts
//! filled with [`POISON_WORD`], so a comparison, exact to the bit, tells the
//! elements a kernel never wrote apart from the wrong ones; and the test
//! inputs are values that make a misplaced element show. The GPU runner,
//! the lab's judge and the simulator track all compare through this module.

/// A 32-bit pattern written over every output buffer before a launch. As an
/// `f32` it is a NaN, as an `i32` it is 2143346349: an element still holding
/// it after the launch is one the kernel never wrote.
pub const POISON_WORD: u32 = 0x7FC0_DEAD;

/// Poisoned 32-bit words kept before and after every output buffer a check
/// judges, so a write just past either end is caught, not lost.
pub const GUARD_WORDS: usize = 1 << 16;

/// How a GPU result compares with its simulator, element by element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreement {
    pub elements: usize,
    /// Elements still holding the poison pattern: never written.
    pub unwritten: usize,
    /// Written elements that differ from the reference.
    pub mismatched: usize,
    /// The first index that is unwritten or wrong.
    pub first_bad: Option<usize>,
}

impl Agreement {
    pub fn ok(&self) -> bool {
        self.unwritten == 0 && self.mismatched == 0
    }

    /// `16777216 elements: all match` or the counts of what went wrong.
    pub fn describe(&self) -> String {
        if self.ok() {
            format!("{} elements, all match", self.elements)
        } else {
            format!(
                "{} elements: {} unwritten, {} wrong (first at index {})",
                self.elements,
                self.unwritten,
                self.mismatched,
                self.first_bad.unwrap_or(0)
            )
        }
    }
}

/// Compares a downloaded GPU buffer with the reference, telling poisoned
/// (unwritten) elements apart from wrong ones. Elements are compared by bit
/// pattern, so the comparison is exact.
pub fn compare<T: Copy + Send + Sync>(gpu: &[T], reference: &[T]) -> Agreement {
    assert_eq!(gpu.len(), reference.len(), "GPU and reference lengths differ");
    compare_with(gpu, |i| reference[i])
}

/// Like [`compare`], but the reference is a function of the index, so a
/// matrix of billions of elements needs no second host buffer. The check is
/// spread over every CPU core.
pub fn compare_with<T: Copy + Send + Sync>(gpu: &[T], expected: impl Fn(usize) -> T + Sync) -> Agreement {
    let n_words = std::mem::size_of::<T>() / 4;
    assert!(
        std::mem::size_of::<T>().is_multiple_of(4) && std::mem::align_of::<T>() >= 4,
        "comparison needs elements made of aligned 32-bit words"
    );
    fn words<T>(x: &T, n: usize) -> &[u32] {
        // SAFETY: `T` is `n` aligned 32-bit words (checked above), and
        // every bit pattern is a valid u32.
        unsafe { std::slice::from_raw_parts(x as *const T as *const u32, n) }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(64);
    let chunk = gpu.len().div_ceil(threads).max(1 << 16);
    let parts: Vec<Agreement> = std::thread::scope(|scope| {
        let handles: Vec<_> = gpu
            .chunks(chunk)
            .enumerate()
            .map(|(k, part)| {
                let expected = &expected;
                scope.spawn(move || {
                    let mut a = Agreement { elements: part.len(), unwritten: 0, mismatched: 0, first_bad: None };
                    for (j, g) in part.iter().enumerate() {
                        let i = k * chunk + j;
                        let want = expected(i);
                        let (gw, rw) = (words(g, n_words), words(&want, n_words));
                        if gw == rw {
                            continue;
                        }
                        if gw.iter().all(|&w| w == POISON_WORD) {
                            a.unwritten += 1;
                        } else {
                            a.mismatched += 1;
                        }
                        a.first_bad.get_or_insert(i);
                    }
                    a
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("comparison thread panicked")).collect()
    });
    parts.into_iter().fold(Agreement { elements: 0, unwritten: 0, mismatched: 0, first_bad: None }, |mut acc, p| {
        acc.elements += p.elements;
        acc.unwritten += p.unwritten;
        acc.mismatched += p.mismatched;
        acc.first_bad = acc.first_bad.or(p.first_bad);
        acc
    })
}

/// A value for element `i` of a test input: 24 well-mixed bits, exact as
/// an `f32`, so a misplaced element is caught even in a matrix of billions.
pub fn test_value(i: u64) -> f32 {
    (i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as f32
}

/// `n` test values, `test_value(offset + i)` for each `i`, filled on every
/// CPU core (a matrix past 2^31 elements takes seconds on one).
pub fn test_input(n: u64, offset: u64) -> Vec<f32> {
    let mut v = vec![0.0f32; n as usize];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(64);
    let chunk = v.len().div_ceil(threads).max(1 << 16);
    std::thread::scope(|scope| {
        for (k, part) in v.chunks_mut(chunk).enumerate() {
            scope.spawn(move || {
                for (j, x) in part.iter_mut().enumerate() {
                    *x = test_value(offset + (k * chunk + j) as u64);
                }
            });
        }
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_tells_unwritten_from_wrong() {
        let poison = f32::from_bits(POISON_WORD);
        let a = compare(&[1.0f32, poison, 3.5, 4.0], &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(a, Agreement { elements: 4, unwritten: 1, mismatched: 1, first_bad: Some(1) });
        assert!(!a.ok());
        assert!(compare(&[7i32, 8], &[7, 8]).ok());
        // Exact: NaN compares equal to the same NaN, and 0.0 differs from -0.0.
        assert!(compare(&[f32::NAN], &[f32::NAN]).ok());
        assert!(!compare(&[0.0f32], &[-0.0]).ok());
        // The parallel check finds the first bad index across chunks.
        let mut big = vec![1u32; 300_000];
        big[250_000] = POISON_WORD;
        big[299_999] = 7;
        let a = compare_with(&big, |_| 1u32);
        assert_eq!(a, Agreement { elements: 300_000, unwritten: 1, mismatched: 1, first_bad: Some(250_000) });
    }

    #[test]
    fn test_inputs_are_their_values_on_every_core() {
        let v = test_input(300_001, 7);
        assert!(v.iter().enumerate().all(|(i, &x)| x == test_value(7 + i as u64)));
        assert_ne!(test_value(0), test_value(1));
    }
}
