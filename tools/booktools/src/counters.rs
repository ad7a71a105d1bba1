//! Nsight Compute's counters, read from its `--csv` output, set beside the
//! simulator's predictions for the hardware page.

use anyhow::{Context, Result};
use ktrav::measured::Prediction;
use std::fmt::Write as _;

/// The Nsight Compute metrics the hardware page reads.
pub mod metric {
    /// Shared-memory load wavefronts: one per bank-conflict-free pass.
    pub const SHARED_LD_WAVEFRONTS: &str = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
    /// Shared-memory load instructions executed (one per warp).
    pub const SHARED_LD_INSTRUCTIONS: &str = "smsp__inst_executed_op_shared_ld.sum";
    /// Shared-memory load bank conflicts.
    pub const SHARED_LD_CONFLICTS: &str = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
    /// 32-byte sectors global loads touched.
    pub const GLOBAL_LD_SECTORS: &str = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
    /// Global load requests (one per warp instruction).
    pub const GLOBAL_LD_REQUESTS: &str = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
    /// 32-byte sectors global stores touched.
    pub const GLOBAL_ST_SECTORS: &str = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
    /// Global store requests (one per warp instruction).
    pub const GLOBAL_ST_REQUESTS: &str = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
    /// Bytes through the L2, as a share of its peak for bytes over the launch.
    pub const L2_BYTES: &str = "lts__t_bytes.sum.pct_of_peak_sustained_elapsed";
    /// Nsight Compute's "L2 Cache Throughput", as a share of peak over the
    /// launch: it counts the L2's work, not only its bytes.
    pub const L2_THROUGHPUT: &str = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
    /// Bytes to and from DRAM, as a share of its peak over the launch.
    pub const DRAM_THROUGHPUT: &str = "dram__bytes.sum.pct_of_peak_sustained_elapsed";
    /// The launch's duration.
    pub const DURATION: &str = "gpu__time_duration.sum";
    /// Cycles from the launch's start to its end, on the slowest GPC.
    pub const ELAPSED_CYCLES: &str = "gpc__cycles_elapsed.max";
    /// Cycles each multiprocessor had a warp resident, summed over them.
    pub const SM_ACTIVE_CYCLES: &str = "sm__cycles_active.sum";
    /// Warp instructions executed.
    pub const INSTRUCTIONS: &str = "smsp__inst_executed.sum";

    /// What the teaching kernels are profiled for: bank conflicts and
    /// sectors per load, beside the simulator's predictions.
    pub const TEACHING: [&str; 5] =
        [SHARED_LD_CONFLICTS, SHARED_LD_WAVEFRONTS, SHARED_LD_INSTRUCTIONS, GLOBAL_LD_SECTORS, GLOBAL_LD_REQUESTS];
    /// What a bandwidth-bound version is profiled for: how busy the L2 and
    /// DRAM were, and how many sectors each warp's store touched.
    pub const THROUGHPUT: [&str; 6] =
        [L2_BYTES, L2_THROUGHPUT, DRAM_THROUGHPUT, GLOBAL_ST_SECTORS, GLOBAL_ST_REQUESTS, DURATION];
    /// What a latency-bound single launch is profiled for: its elapsed
    /// cycles against the cycles its multiprocessors were busy.
    pub const CYCLES: [&str; 4] = [ELAPSED_CYCLES, SM_ACTIVE_CYCLES, DURATION, INSTRUCTIONS];
}

/// One kernel's counters, summed over every launch of it that was profiled.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelCounters {
    /// The kernel's name, without any parameter list.
    pub kernel: String,
    /// The launches' grid, as ncu writes it: `(256, 256, 1)`.
    pub grid: String,
    /// Launches profiled.
    pub launches: usize,
    /// Metric name to value, summed over the launches.
    pub metrics: std::collections::BTreeMap<String, f64>,
}

impl KernelCounters {
    fn ratio(&self, num: &str, den: &str) -> Option<f64> {
        let (n, d) = (*self.metrics.get(num)?, *self.metrics.get(den)?);
        (d > 0.0).then(|| n / d)
    }

    /// Shared-memory wavefronts per shared load instruction: 1 without bank
    /// conflicts, up to 32 when all 32 lanes hit one bank.
    pub fn wavefronts_per_shared_load(&self) -> Option<f64> {
        self.ratio(metric::SHARED_LD_WAVEFRONTS, metric::SHARED_LD_INSTRUCTIONS)
    }

    /// A metric's mean over the launches.
    pub fn mean(&self, name: &str) -> Option<f64> {
        let v = *self.metrics.get(name)?;
        (self.launches > 0).then(|| v / self.launches as f64)
    }

    /// The grid as its dimensions, `(64, 64, 1)` as `[64, 64, 1]`.
    pub fn grid_dims(&self) -> Vec<u64> {
        self.grid.trim_matches(|c| c == '(' || c == ')').split(',').filter_map(|d| d.trim().parse().ok()).collect()
    }

    /// 32-byte sectors per global load request: 4 when a warp reads 128
    /// contiguous bytes, 32 when each lane's float lies in its own sector.
    pub fn sectors_per_global_request(&self) -> Option<f64> {
        self.ratio(metric::GLOBAL_LD_SECTORS, metric::GLOBAL_LD_REQUESTS)
    }
}

/// Splits one CSV line into fields: double quotes group, `""` is a quote.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.trim_end_matches(['\r', '\n']).chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

/// A counter value as ncu prints it: `2,097,152`, `2097152`, `1.03` or
/// `n/a` (none).
fn counter_value(text: &str) -> Option<f64> {
    let t: String = text.trim().chars().filter(|c| *c != ',').collect();
    t.parse().ok()
}

/// Parses `ncu --csv` output, either page: `--page details` (the default:
/// one row per kernel launch and metric, with `Kernel Name`, `Metric Name`
/// and `Metric Value` columns) or `--page raw` (one row per launch, a
/// column per metric, and a row of units under the header). Lines before
/// the header (`==PROF==`, the program's own output) are skipped. Values
/// are summed per kernel over its launches; kernels keep their first
/// appearance's order.
pub fn parse_ncu_csv(text: &str) -> Result<Vec<KernelCounters>> {
    let mut lines = text.lines();
    let header = loop {
        let line = lines.next().context("no ncu CSV header (a line with \"Kernel Name\") found")?;
        if line.starts_with('"') && line.contains("\"Kernel Name\"") {
            break csv_fields(line);
        }
    };
    let col = |name: &str| header.iter().position(|h| h == name);
    let kernel_col = col("Kernel Name").expect("the header has it");
    let id_col = col("ID");
    let grid_col = col("Grid Size");
    let mut out: Vec<KernelCounters> = Vec::new();
    let mut seen_launch: std::collections::BTreeSet<(String, String)> = Default::default();
    let mut add = |out: &mut Vec<KernelCounters>, id: String, kernel: &str, grid: &str, metric: &str, value: f64| {
        let kernel = kernel.split('(').next().unwrap_or(kernel).trim().to_string();
        let at = match out.iter().position(|k| k.kernel == kernel && k.grid == grid) {
            Some(at) => at,
            None => {
                out.push(KernelCounters { kernel: kernel.clone(), grid: grid.to_string(), ..Default::default() });
                out.len() - 1
            }
        };
        if seen_launch.insert((kernel, id)) {
            out[at].launches += 1;
        }
        *out[at].metrics.entry(metric.to_string()).or_insert(0.0) += value;
    };
    let rows = lines.filter(|l| l.starts_with('"')).map(csv_fields).filter(|f| f.len() == header.len());
    if let (Some(name_col), Some(value_col)) = (col("Metric Name"), col("Metric Value")) {
        for (n, f) in rows.enumerate() {
            let id = id_col.map_or(n.to_string(), |c| f[c].clone());
            if let Some(v) = counter_value(&f[value_col]) {
                let grid = grid_col.map_or("", |c| f[c].as_str());
                add(&mut out, id, &f[kernel_col], grid, &f[name_col], v);
            }
        }
    } else {
        let metrics: Vec<(usize, &String)> = header.iter().enumerate().filter(|(_, h)| h.contains("__")).collect();
        anyhow::ensure!(!metrics.is_empty(), "the ncu CSV has neither a Metric Name column nor metric columns");
        for (n, f) in rows.enumerate() {
            // The raw page's second row holds the units, and no kernel name.
            if f[kernel_col].is_empty() {
                continue;
            }
            let id = id_col.map_or(n.to_string(), |c| f[c].clone());
            for &(c, name) in &metrics {
                if let Some(v) = counter_value(&f[c]) {
                    let grid = grid_col.map_or("", |c| f[c].as_str());
                    add(&mut out, id.clone(), &f[kernel_col], grid, name, v);
                }
            }
        }
    }
    anyhow::ensure!(!out.is_empty(), "the ncu CSV holds no kernel rows");
    Ok(out)
}

/// The counters table of the hardware page: per kernel with a prediction,
/// the measured ratios beside the simulator's (the other kernels' counters
/// are read where their goals are rendered).
pub fn render_counters(counters: &[KernelCounters], predictions: &[Prediction]) -> String {
    let num = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.2}"));
    let mut md = String::new();
    let _ = writeln!(md, "| Kernel | Grid | Launches | Wavefronts per shared load: measured, predicted | Sectors per request: measured, predicted |");
    let _ = writeln!(md, "| --- | --- | ---: | ---: | ---: |");
    for k in counters.iter().filter(|k| k.is_full_2d_grid()) {
        let Some(p) = predictions.iter().find(|p| p.kernel == k.kernel) else { continue };
        let p = Some(p);
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {}, {} | {}, {} |",
            k.kernel,
            k.grid_text(),
            k.launches,
            num(k.wavefronts_per_shared_load()),
            num(p.and_then(|p| p.wavefronts_per_shared_load)),
            num(k.sectors_per_global_request()),
            num(p.and_then(|p| p.sectors_per_global_request)),
        );
    }
    let _ = writeln!(
        md,
        "\nOne row per kernel and grid, for the launches whose grid is at least {MIN_BLOCKS} blocks in both \
         dimensions together and more than one block along each (the chapters' large square-ish shapes; the \
         one-row and one-column extremes and the small source shapes are profiled too, but a warp there is \
         mostly idle lanes, which the per-warp prediction does not model). Measured values are over every such \
         launch; the predictions are the simulator's, per warp request of a full 32x32 tile (K.2) or a 32x8 block (K.3)."
    );
    md
}

/// Launches with fewer blocks than this are left out of the counters table.
pub const MIN_BLOCKS: u64 = 1024;

impl KernelCounters {
    /// The grid as `256x256`.
    pub fn grid_text(&self) -> String {
        let dims: Vec<&str> = self.grid.trim_matches(|c| c == '(' || c == ')').split(',').map(str::trim).collect();
        match dims.as_slice() {
            [x, y, "1"] => format!("{x}x{y}"),
            _ => self.grid.clone(),
        }
    }

    /// A grid with more than one block along x and y and at least
    /// [`MIN_BLOCKS`] blocks; an unparsable grid counts as full.
    pub fn is_full_2d_grid(&self) -> bool {
        let dims: Vec<u64> =
            self.grid.trim_matches(|c| c == '(' || c == ')').split(',').filter_map(|d| d.trim().parse().ok()).collect();
        match dims.as_slice() {
            [x, y, ..] => *x > 1 && *y > 1 && x * y >= MIN_BLOCKS,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ncu_csv_pages_parse_alike() {
        let details = concat!(
            "==PROF== Connected to process 1\n",
            "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n",
            "\"0\",\"1\",\"k2\",\"h\",\"tile(float*, const float*)\",\"1\",\"7\",\"(32, 32, 1)\",\"(4, 4, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"smsp__inst_executed_op_shared_ld.sum\",\"inst\",\"1,000\"\n",
            "\"0\",\"1\",\"k2\",\"h\",\"tile(float*, const float*)\",\"1\",\"7\",\"(32, 32, 1)\",\"(4, 4, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\",\"\",\"32,000\"\n",
            "\"1\",\"1\",\"k2\",\"h\",\"tile(float*, const float*)\",\"1\",\"7\",\"(32, 32, 1)\",\"(4, 4, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"smsp__inst_executed_op_shared_ld.sum\",\"inst\",\"1000\"\n",
            "\"1\",\"1\",\"k2\",\"h\",\"tile(float*, const float*)\",\"1\",\"7\",\"(32, 32, 1)\",\"(4, 4, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\",\"\",\"32000\"\n",
        );
        let k = parse_ncu_csv(details).unwrap();
        assert_eq!((k.len(), k[0].kernel.as_str(), k[0].launches), (1, "tile", 2));
        assert_eq!(k[0].wavefronts_per_shared_load(), Some(32.0));
        assert_eq!(k[0].sectors_per_global_request(), None);
        let raw = concat!(
            "\"ID\",\"Kernel Name\",\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\",\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\"\n",
            "\"\",\"\",\"\",\"sector\"\n",
            "\"0\",\"copy\",\"100\",\"3200\"\n",
        );
        let k = parse_ncu_csv(raw).unwrap();
        assert_eq!((k[0].kernel.as_str(), k[0].sectors_per_global_request()), ("copy", Some(32.0)));
        let pred = [Prediction {
            kernel: "copy".into(),
            wavefronts_per_shared_load: None,
            sectors_per_global_request: Some(32.0),
        }];
        assert!(
            render_counters(&k, &pred).contains("| `copy` |  | 1 | —, — | 32.00, 32.00 |"),
            "{}",
            render_counters(&k, &pred)
        );
        assert!(parse_ncu_csv("no csv here").is_err());
    }
}
