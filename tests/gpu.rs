//! The GPU suite: every chapter's cross-checks on a real GPU, each kernel
//! against its simulator or host reference.
//!
//! It has its own harness (`harness = false`) so that what it did is always
//! printed, captured or not: on a machine without a GPU every check says
//! `skipped: no GPU` and the suite ends with `0 passed, 0 failed, N skipped`
//! rather than passing silently. Set `KTRAV_GPU_LARGE=1` to add the
//! 46341 x 46341 transpose (2^31 + 1 elements, 17 GB of device memory).

use ktrav::gpu::{section, Gpu, GpuSection, SectionOutcome};

type Checks = Box<dyn Fn(&Gpu, &mut GpuSection) -> Result<(), String>>;

fn suite() -> Vec<(&'static str, Checks)> {
    let scale = if std::env::var_os("KTRAV_GPU_LARGE").is_some() {
        k2_transpose::gpu::Scale::Large
    } else {
        k2_transpose::gpu::Scale::Default
    };
    vec![
        ("K.2 tiled transpose", Box::new(move |g, s| k2_transpose::gpu::checks(g, s, scale))),
        ("K.3 grid mapping", Box::new(k3_grid_mapping::gpu::checks)),
        ("K.4 one-axis boundary check", Box::new(k4_boundary_check::gpu::checks)),
        ("K.5 layout interop and cuBLAS", Box::new(k5_layout_interop::gpu::checks)),
        ("K.6 spiral scatter and gather", Box::new(k6_spiral::gpu::checks)),
        ("K.7 diagonal wavefront", Box::new(k7_diagonal::gpu::checks)),
    ]
}

fn main() {
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for (name, checks) in suite() {
        match section(|g, s| checks(g, s)) {
            SectionOutcome::Skipped(reason) => {
                println!("{name}: skipped: no GPU ({reason})");
                skipped += 1;
            }
            SectionOutcome::Ran { text, failures: 0 } => {
                println!("{name}: ok\n{}", ktrav::report::plain(&text));
                passed += 1;
            }
            other => {
                println!("{name}: FAILED\n{}", ktrav::report::plain(&other.text()));
                failed += 1;
            }
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::exit(1);
    }
}
