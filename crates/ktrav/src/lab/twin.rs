//! A kernel of the simulator track, as Rust: a twin is a kernel written as
//! numbered steps (statements), with the `__syncthreads()` the student
//! placed between them, that reads and writes the device memory a [`Mem`]
//! models. An exercise ties its twins to it ([`Twins`]); the simulator
//! track ([`super::simtrack`]) runs them.

use crate::compare::{GUARD_WORDS, POISON_WORD};
use crate::sim::Thread;

// ANCHOR: ctx
/// Where a twin's thread is, and the launch's arguments.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    pub t: Thread,
    pub rows: u64,
    pub cols: u64,
    /// The anti-diagonal of a per-diagonal launch, else 0.
    pub diagonal: i64,
    /// Which round of a grid-stride loop over y this step belongs to: the
    /// block's rows of blocks are `blockIdx.y + round * gridDim.y`.
    pub round: u64,
}
// ANCHOR_END: ctx

/// The device memory a twin sees: the output (guarded, poisoned) and the
/// inputs. Writes anywhere land in the guards or are counted, never panic.
pub struct Mem {
    words: Vec<u32>,
    words_per_element: usize,
    inputs: Vec<Vec<f32>>,
    /// Writes that landed before the guard before the output, or after the
    /// one after it.
    pub far_before: u64,
    pub far_after: u64,
}

impl Mem {
    /// An output of `n` elements of `words_per_element` 32-bit words, every
    /// word poisoned, between [`GUARD_WORDS`] poisoned words on each side,
    /// and the given inputs.
    pub fn new(n: usize, words_per_element: usize, inputs: Vec<Vec<f32>>) -> Mem {
        Mem {
            words: vec![POISON_WORD; 2 * GUARD_WORDS + n * words_per_element],
            words_per_element,
            inputs,
            far_before: 0,
            far_after: 0,
        }
    }

    /// The output with its guards, as a GPU check downloads it.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    fn word(&mut self, i: i64, k: usize) -> Option<&mut u32> {
        let at = GUARD_WORDS as i64 + i * self.words_per_element as i64 + k as i64;
        if at < 0 {
            self.far_before += 1;
            None
        } else if at as usize >= self.words.len() {
            self.far_after += 1;
            None
        } else {
            Some(&mut self.words[at as usize])
        }
    }

    /// `out[i] = v` for a `float*` output.
    pub fn write_f32(&mut self, i: i64, v: f32) {
        if let Some(w) = self.word(i, 0) {
            *w = v.to_bits();
        }
    }

    /// `out[i] = v` for an `unsigned long long*` output.
    pub fn write_u64(&mut self, i: i64, v: u64) {
        if let Some(w) = self.word(i, 0) {
            *w = v as u32;
        }
        if let Some(w) = self.word(i, 1) {
            *w = (v >> 32) as u32;
        }
    }

    /// `out[i]` of an `unsigned long long*` output (for a twin that reads
    /// the table it fills).
    pub fn read_u64(&self, i: i64) -> u64 {
        let at = GUARD_WORDS as i64 + 2 * i;
        match (self.words.get(at as usize), self.words.get(at as usize + 1)) {
            (Some(&lo), Some(&hi)) if at >= 0 => lo as u64 | (hi as u64) << 32,
            _ => (POISON_WORD as u64) << 32 | POISON_WORD as u64,
        }
    }

    /// Element `i` of input `k` (`in`, `a`, `b`); NaN outside it.
    pub fn input(&self, k: usize, i: i64) -> f32 {
        if i < 0 {
            return f32::NAN;
        }
        self.inputs[k].get(i as usize).copied().unwrap_or(f32::NAN)
    }
}

// ANCHOR: twin
/// A twin's body: one step of one thread.
pub type Body = fn(&Ctx, usize, &mut [f32], &mut Mem);

/// A kernel of the simulator track.
#[derive(Clone, Copy)]
pub struct Twin {
    pub name: &'static str,
    /// Steps of one round (of the grid-stride loop, or of the whole kernel).
    pub steps: usize,
    /// The steps of a round after which the twin calls `__syncthreads()`.
    pub barriers_after: &'static [usize],
    /// Words of `__shared__ float` memory per block.
    pub shared_words: usize,
    pub body: Body,
}
// ANCHOR_END: twin

/// An exercise's kernels on the simulator track that the chapter's own
/// tests judge: the solution, and the catalogued wrong kernels that have a
/// twin, each with the kind of failure ([`super::FailureKind`]) its file's
/// `// expect:` line names. A wrong twin is named after
/// its file in the chapter's `exercises/<chapter>/wrong/`. The student's
/// own twin is not here: it lives in a file of its own beside the `.cu`
/// starter, and only `sim-check` runs it ([`super::simcheck`]).
#[derive(Clone, Copy)]
pub struct Twins {
    pub solution: Twin,
    pub wrong: &'static [(Twin, super::FailureKind)],
}
