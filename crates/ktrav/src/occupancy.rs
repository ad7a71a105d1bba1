//! How many blocks of a kernel fit on one multiprocessor at once, from what
//! each block asks for (threads, registers per thread, shared memory) and
//! the multiprocessor's limits: the arithmetic of NVIDIA's occupancy
//! calculator, for one architecture's published limits.

/// A multiprocessor's per-SM limits, as the CUDA programming guide's table
/// of compute capabilities gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmLimits {
    /// `sm_90`.
    pub arch: &'static str,
    pub max_threads: u32,
    pub max_blocks: u32,
    /// 32-bit registers in the register file.
    pub registers: u32,
    /// Registers are handed to a warp in units of this many.
    pub register_unit: u32,
    /// Shared memory one multiprocessor can give its blocks, in bytes.
    pub shared_bytes: u32,
    /// Shared memory the system keeps for each resident block.
    pub shared_reserved_per_block: u32,
    /// Shared memory is handed out in units of this many bytes.
    pub shared_unit: u32,
}

/// Compute capability 9.0 (H100, H200): 2048 threads, 32 blocks, 64 K
/// registers, 228 KiB of shared memory of which 1 KiB is reserved per block.
pub const SM_90: SmLimits = SmLimits {
    arch: "sm_90",
    max_threads: 2048,
    max_blocks: 32,
    registers: 65_536,
    register_unit: 256,
    shared_bytes: 228 * 1024,
    shared_reserved_per_block: 1024,
    shared_unit: 128,
};

/// What a block asks of a multiprocessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockNeeds {
    pub threads: u32,
    pub registers_per_thread: u32,
    /// Static plus dynamic shared memory, in bytes.
    pub shared_bytes: u32,
}

/// The limit that decides how many blocks fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    Threads,
    Blocks,
    Registers,
    SharedMemory,
}

impl std::fmt::Display for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Limiter::Threads => "threads",
            Limiter::Blocks => "blocks",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
        })
    }
}

fn round_up(v: u32, unit: u32) -> u32 {
    v.div_ceil(unit) * unit
}

impl SmLimits {
    /// Blocks of `needs` resident at once on one multiprocessor, and every
    /// limit that stops the next one (several where they tie, in the order
    /// threads, blocks, registers, shared memory).
    pub fn blocks_per_sm(&self, needs: BlockNeeds) -> (u32, Vec<Limiter>) {
        let warps = needs.threads.div_ceil(crate::ladder::WARP);
        let per_warp = round_up(needs.registers_per_thread * crate::ladder::WARP, self.register_unit);
        let by_registers = self.registers.checked_div(per_warp).map_or(u32::MAX, |w| w / warps.max(1));
        let per_block = round_up(needs.shared_bytes + self.shared_reserved_per_block, self.shared_unit);
        let limits = [
            (self.max_threads / needs.threads.max(1), Limiter::Threads),
            (self.max_blocks, Limiter::Blocks),
            (by_registers, Limiter::Registers),
            (self.shared_bytes / per_block, Limiter::SharedMemory),
        ];
        let fit = limits.iter().map(|l| l.0).min().expect("four limits");
        (fit, limits.iter().filter(|l| l.0 == fit).map(|l| l.1).collect())
    }

    /// The limits, as one line.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} threads, {} blocks, {} registers (given out {} at a time), {} KiB of shared memory ({} bytes kept per block)",
            self.arch,
            self.max_threads,
            self.max_blocks,
            self.registers,
            self.register_unit,
            self.shared_bytes / 1024,
            self.shared_reserved_per_block
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_can_decide() {
        let needs =
            |threads, registers_per_thread, shared_bytes| BlockNeeds { threads, registers_per_thread, shared_bytes };
        // 1024 threads of few registers: two blocks fill the thread limit.
        assert_eq!(SM_90.blocks_per_sm(needs(1024, 16, 4224)), (2, vec![Limiter::Threads]));
        // 32-thread blocks: the block limit comes first.
        assert_eq!(SM_90.blocks_per_sm(needs(32, 16, 0)), (32, vec![Limiter::Blocks]));
        // 256 threads at 128 registers: 4096 registers per warp, 16 warps fit, two blocks.
        assert_eq!(SM_90.blocks_per_sm(needs(256, 128, 0)), (2, vec![Limiter::Registers]));
        // 33 registers round up to 40 per thread (1280 per warp): 51 warps, 6 blocks of 8.
        assert_eq!(SM_90.blocks_per_sm(needs(256, 33, 0)), (6, vec![Limiter::Registers]));
        // 100 KiB of shared memory plus the reserved KiB: two blocks.
        assert_eq!(SM_90.blocks_per_sm(needs(128, 16, 100 * 1024)), (2, vec![Limiter::SharedMemory]));
    }

    #[test]
    fn tied_limits_are_all_named() {
        // 256 threads at 32 registers: 8 blocks by threads and 8 by registers.
        let needs = BlockNeeds { threads: 256, registers_per_thread: 32, shared_bytes: 4224 };
        assert_eq!(SM_90.blocks_per_sm(needs), (8, vec![Limiter::Threads, Limiter::Registers]));
    }
}
