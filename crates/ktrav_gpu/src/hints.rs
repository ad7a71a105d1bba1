//! Hints: why a student's kernel cannot be checked as it stands, said in
//! the exercise's terms rather than as wrong values or a bare CUDA error.
//!
//! * [`find_entry`]: the exercise's kernel among the PTX's entry points, or
//!   why it is not there (a missing `extern "C"` leaves a C++ name, such as
//!   `_Z9copy_kernelPfPKfmm`, that still holds the kernel's name);
//! * [`parameter_mismatch`]: the widths the PTX gives each parameter,
//!   against the arguments the exercise passes (a `long long rows` where
//!   the exercise passes an `int` reads garbage, whatever the kernel does);
//! * [`explain_launch_failure`]: which limit a refused launch passed, from
//!   the loaded function's attributes ([`FunctionLimits`]).
//!
//! Everything but [`function_limits`] is a pure function of text and
//! numbers, tested without a GPU.

use crate::runner::{Gpu, Kernel};
use anyhow::{Context, Result};
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use ktrav::lab::{Arg, Elem, Exercise};

/// One `.param` of a PTX entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its width in bits (an array parameter, a struct passed by value,
    /// counts all its bytes).
    pub bits: u32,
    /// Whether PTX types it as floating point (`.f32`, `.f64`).
    pub float: bool,
}

/// One `.entry` of the PTX: a `__global__` function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its name as the PTX has it: the source's name under `extern "C"`,
    /// a mangled C++ name (`_Z...`) otherwise.
    pub name: String,
    pub params: Vec<Param>,
    /// Threads per block allowed by `__launch_bounds__` (PTX `.maxntid`,
    /// its three numbers multiplied), when the kernel declares one.
    pub max_threads: Option<u32>,
}

/// Every entry point of `ptx`, in order.
pub fn entries(ptx: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".entry ") {
        let after = &rest[at + ".entry ".len()..];
        let Some(open) = after.find('(') else { break };
        let name = after[..open].trim().to_string();
        let Some(close) = after[open..].find(')') else { break };
        let list = &after[open + 1..open + close];
        let params = list.split(',').filter(|p| p.contains(".param")).map(param).collect();
        let tail = &after[open + close + 1..];
        let body = tail.find('{').map_or(tail, |b| &tail[..b]);
        let max_threads = body.find(".maxntid").map(|m| {
            body[m + ".maxntid".len()..]
                .lines()
                .next()
                .unwrap_or("")
                .split(',')
                .filter_map(|n| n.trim().parse::<u32>().ok())
                .product()
        });
        out.push(Entry { name, params, max_threads });
        rest = tail;
    }
    out
}

/// `.param .u64 k_param_0`, `.param .align 8 .b8 k_param_1[16]`, ...
fn param(text: &str) -> Param {
    let ty = text
        .split_whitespace()
        .find(|t| {
            let t = t.trim_start_matches('.');
            matches!(t.chars().next(), Some('u' | 's' | 'b' | 'f'))
                && t[1..].chars().all(|c| c.is_ascii_digit())
                && t.len() > 1
        })
        .unwrap_or(".b64")
        .trim_start_matches('.');
    let bits: u32 = ty[1..].parse().unwrap_or(64);
    let count: u32 = text
        .rsplit_once('[')
        .and_then(|(_, n)| n.trim_end_matches(|c: char| c == ']' || c.is_whitespace()).parse().ok())
        .unwrap_or(1);
    Param { bits: bits * count, float: ty.starts_with('f') }
}

/// The width in bits of what the exercise passes as `arg`.
pub fn arg_bits(arg: Arg) -> u32 {
    match arg {
        Arg::Out | Arg::Input(_) | Arg::Rows64 | Arg::Cols64 | Arg::Step => 64,
        Arg::Rows32 | Arg::Cols32 => 32,
    }
}

/// What the exercise passes as `arg`, in words: `an int`, `a pointer`, ...
pub fn arg_words(arg: Arg) -> &'static str {
    match arg {
        Arg::Out | Arg::Input(_) => "a pointer (64-bit)",
        Arg::Rows64 | Arg::Cols64 => "a 64-bit integer (size_t or long long)",
        Arg::Rows32 | Arg::Cols32 => "an int (32-bit)",
        Arg::Step => "a long long (64-bit)",
    }
}

/// The parameter names the exercise's kernel takes, as its starter has them.
pub fn arg_names(ex: &Exercise) -> Vec<String> {
    let inputs = ex.inputs();
    ex.args
        .iter()
        .map(|a| match *a {
            Arg::Out => "out".to_string(),
            Arg::Input(_) if inputs == 1 => "in".to_string(),
            Arg::Input(k) => ((b'a' + k) as char).to_string(),
            Arg::Rows64 | Arg::Rows32 => "rows".to_string(),
            Arg::Cols64 | Arg::Cols32 => "cols".to_string(),
            Arg::Step => "d".to_string(),
        })
        .collect()
}

/// The exercise's kernel as it must be declared, such as
/// `extern "C" __global__ void copy(float* out, const float* in, size_t rows, size_t cols)`.
pub fn signature(ex: &Exercise) -> String {
    let params: Vec<String> = ex
        .args
        .iter()
        .zip(arg_names(ex))
        .map(|(a, name)| {
            let ty = match a {
                Arg::Out if ex.elem == Elem::U64 => "unsigned long long*",
                Arg::Out => "float*",
                Arg::Input(_) => "const float*",
                Arg::Rows64 | Arg::Cols64 => "size_t",
                Arg::Rows32 | Arg::Cols32 => "int",
                Arg::Step => "long long",
            };
            format!("{ty} {name}")
        })
        .collect();
    format!("extern \"C\" __global__ void {}({})", ex.kernel, params.join(", "))
}

/// The entry point `kernel` of `ptx`, or one line saying why there is none:
/// `extern "C"` is missing (a C++-mangled entry holds the name), or the
/// file defines other kernels, or none.
pub fn find_entry(ptx: &str, kernel: &str) -> Result<Entry> {
    let all = entries(ptx);
    if let Some(e) = all.iter().find(|e| e.name == kernel) {
        return Ok(e.clone());
    }
    // Itanium C++ mangling writes a name as its length, then the name:
    // `_Z9test_copyPfPKfmm`, `_ZN2ns9test_copyE...`.
    let mangled_part = format!("{}{kernel}", kernel.len());
    if let Some(e) = all.iter().find(|e| e.name.starts_with("_Z") && e.name.contains(&mangled_part)) {
        anyhow::bail!(
            "`extern \"C\"` is missing: your kernel {kernel} was compiled with the C++ name {}, which the checker \
             cannot look up; declare it `extern \"C\" __global__ void {kernel}(...)`",
            e.name
        );
    }
    let others: Vec<&str> = all.iter().map(|e| e.name.as_str()).collect();
    Err(anyhow::Error::msg(match others.as_slice() {
        [] => format!(
            "the file has no kernel `extern \"C\" __global__ void {kernel}(...)` (it defines no __global__ function)"
        ),
        _ => format!(
            "the file has no kernel `extern \"C\" __global__ void {kernel}(...)`; it defines {}",
            others.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        ),
    }))
}

/// One line saying how `entry`'s parameters differ from the arguments
/// `ex` passes, or `None` when every width (and integer or floating kind)
/// agrees.
pub fn parameter_mismatch(entry: &Entry, ex: &Exercise) -> Option<String> {
    let names = arg_names(ex);
    if entry.params.len() != ex.args.len() {
        return Some(format!(
            "your kernel takes {} parameter{}; the exercise passes {} ({}): {}",
            entry.params.len(),
            if entry.params.len() == 1 { "" } else { "s" },
            ex.args.len(),
            names.join(", "),
            signature(ex)
        ));
    }
    for (n, ((p, a), name)) in entry.params.iter().zip(ex.args).zip(&names).enumerate() {
        let want = arg_bits(*a);
        if p.bits != want {
            return Some(format!(
                "parameter {} ({name}) is {}-bit in your kernel; the exercise passes {}: {}",
                n + 1,
                p.bits,
                arg_words(*a),
                signature(ex)
            ));
        }
        if p.float {
            return Some(format!(
                "parameter {} ({name}) is a floating-point number in your kernel; the exercise passes {}: {}",
                n + 1,
                arg_words(*a),
                signature(ex)
            ));
        }
    }
    None
}

/// [`find_entry`] then [`parameter_mismatch`]: the entry, or one line
/// saying why the exercise cannot launch it as it is.
pub fn check_entry(ptx: &str, ex: &Exercise) -> Result<Entry> {
    let entry = find_entry(ptx, ex.kernel)?;
    match parameter_mismatch(&entry, ex) {
        Some(why) => Err(anyhow::Error::msg(why)),
        None => Ok(entry),
    }
}

/// What limits a kernel's launch: the loaded function's attributes and the
/// device's, as [`function_limits`] reads them through the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionLimits {
    /// The most threads a block of this function may have
    /// (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`): the device's limit,
    /// lowered by `__launch_bounds__` or by the registers it uses.
    pub max_threads_per_block: u32,
    /// `__launch_bounds__`'s threads per block, when the kernel declares it.
    pub launch_bounds: Option<u32>,
    pub registers_per_thread: u32,
    pub static_shared_bytes: u32,
    pub local_bytes_per_thread: u32,
    /// The most dynamic shared memory a launch may ask for
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
    pub max_dynamic_shared_bytes: u32,
    /// The device's own limits.
    pub device_max_threads_per_block: u32,
    pub device_registers_per_block: u32,
    pub device_shared_per_block: u32,
}

impl FunctionLimits {
    /// `10 registers per thread, 4224 bytes of static shared memory, at
    /// most 1024 threads per block`, for the report.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} registers per thread, {} bytes of static shared memory",
            self.registers_per_thread, self.static_shared_bytes
        );
        if self.local_bytes_per_thread > 0 {
            s.push_str(&format!(", {} bytes of local memory per thread", self.local_bytes_per_thread));
        }
        s.push_str(&format!(", at most {} threads per block", self.max_threads_per_block));
        if let Some(n) = self.launch_bounds {
            s.push_str(&format!(" (__launch_bounds__({n}))"));
        }
        s
    }
}

/// Which limit a launch of `block_threads` threads per block with
/// `shared_bytes` of dynamic shared memory passes, in one line; `None`
/// when it passes none of them (the launch failed for another reason).
pub fn explain_launch_failure(attrs: &FunctionLimits, block_threads: u32, shared_bytes: u32) -> Option<String> {
    if block_threads > attrs.device_max_threads_per_block {
        return Some(format!(
            "this GPU runs blocks of at most {} threads; the exercise launches {block_threads}",
            attrs.device_max_threads_per_block
        ));
    }
    if block_threads > attrs.max_threads_per_block {
        let max = attrs.max_threads_per_block;
        let registers = attrs.registers_per_thread as u64 * block_threads as u64;
        return Some(match attrs.launch_bounds {
            Some(bound) if bound == max => format!(
                "your kernel's __launch_bounds__({bound}) allows {bound} threads per block; the exercise launches {block_threads}"
            ),
            _ if registers > attrs.device_registers_per_block as u64 => format!(
                "your kernel uses {} registers per thread, so a block of {block_threads} threads needs {registers} of \
                 the {} a block may have: registers allow {max} threads per block; the exercise launches {block_threads}",
                attrs.registers_per_thread, attrs.device_registers_per_block
            ),
            _ => format!("__launch_bounds__ or registers allow {max} threads per block; the exercise launches {block_threads}"),
        });
    }
    let shared = attrs.static_shared_bytes as u64 + shared_bytes as u64;
    if shared_bytes > attrs.max_dynamic_shared_bytes || shared > attrs.device_shared_per_block as u64 {
        return Some(format!(
            "your kernel's {} bytes of static shared memory and the launch's {shared_bytes} bytes of dynamic shared \
             memory make {shared}, more than the {} a block may use",
            attrs.static_shared_bytes,
            attrs.device_shared_per_block.min(attrs.static_shared_bytes + attrs.max_dynamic_shared_bytes)
        ));
    }
    None
}

/// Reads `f`'s attributes and the device's limits through the driver;
/// `entry` (from [`find_entry`] on the same PTX) gives `__launch_bounds__`.
pub fn function_limits(gpu: &Gpu, f: &Kernel, entry: Option<&Entry>) -> Result<FunctionLimits> {
    let func = |a: CUfunction_attribute, what: &str| -> Result<u32> {
        let v = f.get_attribute(a).with_context(|| format!("reading the kernel's {what} failed"))?;
        Ok(v.max(0) as u32)
    };
    let device = |a: CUdevice_attribute, what: &str| -> Result<u32> {
        let v = gpu.context().attribute(a).with_context(|| format!("reading the device's {what} failed"))?;
        Ok(v.max(0) as u32)
    };
    Ok(FunctionLimits {
        max_threads_per_block: func(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            "threads per block",
        )?,
        launch_bounds: entry.and_then(|e| e.max_threads),
        registers_per_thread: func(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS, "registers")?,
        static_shared_bytes: func(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "shared memory")?,
        local_bytes_per_thread: func(CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "local memory")?,
        max_dynamic_shared_bytes: func(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            "dynamic shared memory limit",
        )?,
        device_max_threads_per_block: device(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            "threads per block",
        )?,
        device_registers_per_block: device(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
            "registers per block",
        )?,
        device_shared_per_block: device(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
            "shared memory per block",
        )?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::lab::simtrack::{Twin, Twins};
    use ktrav::lab::{input_value, Launch};
    use ktrav::{Dim2, Shape};

    const NOTHING: Twin =
        Twin { name: "nothing", steps: 1, barriers_after: &[], shared_words: 0, body: |_, _, _, _| {} };

    const GATHER: Exercise = Exercise {
        id: "test-gather",
        title: "a gather",
        kernel: "spiral_gather",
        starter: "gather.cu",
        args: &[Arg::Out, Arg::Input(0), Arg::Rows32, Arg::Cols32],
        elem: Elem::F32,
        launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: false, grid_stride_y: false },
        source_shapes: || vec![Shape::new(5, 7)],
        chapter_shapes: Vec::new,
        timing_shape: Shape::new(64, 64),
        expected: |_| Box::new(|i| input_value(0, i).to_bits() as u64),
        twins: Twins { solution: NOTHING, wrong: &[] },
    };

    /// NVRTC's PTX for `spiral_gather(float*, const float*, long long, long long)`.
    const WIDE: &str = "
.visible .entry spiral_gather(
	.param .u64 .ptr .align 1 spiral_gather_param_0,
	.param .u64 .ptr .align 1 spiral_gather_param_1,
	.param .u64 spiral_gather_param_2,
	.param .u64 spiral_gather_param_3
)
{
	.reg .b32 	%r<2>;
}
";

    const RIGHT: &str = "
.visible .entry spiral_gather(
	.param .u64 spiral_gather_param_0,
	.param .u64 spiral_gather_param_1,
	.param .u32 spiral_gather_param_2,
	.param .u32 spiral_gather_param_3
)
.maxntid 256, 1, 1
{
}
.visible .entry helper_kernel(
	.param .align 8 .b8 helper_kernel_param_0[16],
	.param .f32 helper_kernel_param_1
)
.maxntid 16, 16, 1
.minnctapersm 2
{
}
";

    #[test]
    fn entries_and_their_parameter_widths_are_read_from_the_ptx() {
        let e = entries(RIGHT);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].name, "spiral_gather");
        assert_eq!(e[0].params.iter().map(|p| p.bits).collect::<Vec<_>>(), [64, 64, 32, 32]);
        assert_eq!(e[0].max_threads, Some(256));
        assert_eq!(e[1].params, [Param { bits: 128, float: false }, Param { bits: 32, float: true }]);
        assert_eq!(e[1].max_threads, Some(256), ".maxntid 16, 16, 1 is 256 threads");
        assert_eq!(entries(WIDE)[0].params.iter().map(|p| p.bits).collect::<Vec<_>>(), [64, 64, 64, 64]);
        assert_eq!(entries(WIDE)[0].max_threads, None);
    }

    #[test]
    fn a_parameter_of_the_wrong_width_is_named() {
        let entry = find_entry(WIDE, "spiral_gather").unwrap();
        let why = parameter_mismatch(&entry, &GATHER).expect("64-bit rows where an int is passed");
        assert!(
            why.starts_with("parameter 3 (rows) is 64-bit in your kernel; the exercise passes an int (32-bit): "),
            "{why}"
        );
        assert!(
            why.ends_with(
                "extern \"C\" __global__ void spiral_gather(float* out, const float* in, int rows, int cols)"
            ),
            "{why}"
        );
        assert_eq!(check_entry(RIGHT, &GATHER).unwrap().name, "spiral_gather");
        // The other way round: an int where the exercise passes 64 bits.
        let wide_ex = Exercise { args: &[Arg::Out, Arg::Input(0), Arg::Rows64, Arg::Cols64], ..GATHER };
        let why = check_entry(RIGHT, &wide_ex).unwrap_err().to_string();
        assert!(
            why.starts_with("parameter 3 (rows) is 32-bit in your kernel; the exercise passes a 64-bit integer"),
            "{why}"
        );
        // A missing parameter, and a float where a count is passed.
        let three = ".visible .entry spiral_gather(\n.param .u64 a,\n.param .u64 b,\n.param .u32 c\n)\n{\n}";
        let why = check_entry(three, &GATHER).unwrap_err().to_string();
        assert!(
            why.starts_with("your kernel takes 3 parameters; the exercise passes 4 (out, in, rows, cols)"),
            "{why}"
        );
        let float =
            ".visible .entry spiral_gather(\n.param .u64 a,\n.param .u64 b,\n.param .f32 c,\n.param .u32 d\n)\n{\n}";
        assert!(check_entry(float, &GATHER)
            .unwrap_err()
            .to_string()
            .starts_with("parameter 3 (rows) is a floating-point number"));
        let two_inputs =
            Exercise { args: &[Arg::Out, Arg::Input(0), Arg::Input(1), Arg::Rows64, Arg::Cols64], ..GATHER };
        assert_eq!(arg_names(&two_inputs), ["out", "a", "b", "rows", "cols"]);
    }

    #[test]
    fn a_missing_extern_c_is_named_from_the_mangled_entry() {
        let mangled = ".visible .entry _Z13spiral_gatherPfPKfii(\n.param .u64 a\n)\n{\n}";
        let why = find_entry(mangled, "spiral_gather").unwrap_err().to_string();
        assert!(why.starts_with("`extern \"C\"` is missing: your kernel spiral_gather was compiled with the C++ name _Z13spiral_gatherPfPKfii"), "{why}");
        // A longer name that merely contains the kernel's is not it.
        let other = ".visible .entry _Z18spiral_gather_fastPfPKfii(\n.param .u64 a\n)\n{\n}";
        let why = find_entry(other, "spiral_gather").unwrap_err().to_string();
        assert!(
            why.contains("it defines `_Z18spiral_gather_fastPfPKfii`") && !why.contains("extern \"C\"` is missing"),
            "{why}"
        );
        assert!(find_entry("// no kernels\n", "k").unwrap_err().to_string().contains("defines no __global__ function"));
    }

    fn h200(max_threads: u32, launch_bounds: Option<u32>, registers: u32, shared: u32) -> FunctionLimits {
        FunctionLimits {
            max_threads_per_block: max_threads,
            launch_bounds,
            registers_per_thread: registers,
            static_shared_bytes: shared,
            local_bytes_per_thread: 0,
            max_dynamic_shared_bytes: 48 * 1024 - shared,
            device_max_threads_per_block: 1024,
            device_registers_per_block: 65536,
            device_shared_per_block: 48 * 1024,
        }
    }

    #[test]
    fn a_refused_launch_names_the_limit_it_passed() {
        let bounds = explain_launch_failure(&h200(256, Some(256), 30, 0), 1024, 0).unwrap();
        assert_eq!(
            bounds,
            "your kernel's __launch_bounds__(256) allows 256 threads per block; the exercise launches 1024"
        );
        let regs = explain_launch_failure(&h200(512, None, 128, 0), 1024, 0).unwrap();
        assert!(
            regs.starts_with(
                "your kernel uses 128 registers per thread, so a block of 1024 threads needs 131072 of the 65536"
            ),
            "{regs}"
        );
        assert!(regs.contains("registers allow 512 threads per block; the exercise launches 1024"), "{regs}");
        let either = explain_launch_failure(&h200(768, None, 40, 0), 1024, 0).unwrap();
        assert_eq!(either, "__launch_bounds__ or registers allow 768 threads per block; the exercise launches 1024");
        let shared = explain_launch_failure(&h200(1024, None, 16, 40_000), 256, 10_000).unwrap();
        assert!(
            shared.contains("40000 bytes of static shared memory and the launch's 10000 bytes")
                && shared.contains("more than the 49152"),
            "{shared}"
        );
        let device = explain_launch_failure(&h200(1024, None, 16, 0), 2048, 0).unwrap();
        assert!(device.starts_with("this GPU runs blocks of at most 1024 threads"));
        assert_eq!(explain_launch_failure(&h200(1024, None, 16, 4224), 1024, 0), None, "within every limit");
        assert_eq!(explain_launch_failure(&h200(256, Some(256), 16, 0), 256, 0), None, "exactly at the bound");
        assert!(h200(256, Some(256), 30, 4224)
            .describe()
            .ends_with("at most 256 threads per block (__launch_bounds__(256))"));
    }

    /// NVRTC's own PTX, read by the same functions: the widths C++ gives
    /// each type, `__launch_bounds__`, and the name without `extern "C"`.
    #[test]
    fn nvrtcs_ptx_is_read_as_the_source_declares_it() {
        let Some(nvrtc) = crate::nvrtc::for_tests() else { return };
        let src = "extern \"C\" __global__ void __launch_bounds__(128) spiral_gather(float* out, const float* in, long long rows, int cols) {}
                   __global__ void spiral_gather2(float* out, unsigned short s, double x) {}";
        let ptx = nvrtc.compile(src, "hint.cu", crate::nvrtc::DEFAULT_ARCH).unwrap().ptx;
        let e = find_entry(&ptx, "spiral_gather").unwrap();
        assert_eq!(e.params.iter().map(|p| p.bits).collect::<Vec<_>>(), [64, 64, 64, 32]);
        assert_eq!(e.max_threads, Some(128));
        let why = parameter_mismatch(&e, &GATHER).unwrap();
        assert!(why.starts_with("parameter 3 (rows) is 64-bit in your kernel; the exercise passes an int"), "{why}");
        let mangled = nvrtc.compile(
            "__global__ void spiral_gather(float* o, const float* i, int r, int c) {}",
            "m.cu",
            crate::nvrtc::DEFAULT_ARCH,
        );
        let why = find_entry(&mangled.unwrap().ptx, "spiral_gather").unwrap_err().to_string();
        assert!(
            why.starts_with(
                "`extern \"C\"` is missing: your kernel spiral_gather was compiled with the C++ name _Z13spiral_gather"
            ),
            "{why}"
        );
    }
}
