//! K.4's GPU section tallies, for each launch, how many rows below row 0
//! every run of the row-only fill left wrong, beside the simulator's counts
//! over orders of the blocks. This reads those lines back from a record's
//! K.4 section and draws them as histograms, GPU beside simulator, in the
//! style of the chapter's own `k4-rows-wrong.svg`.

use ktrav::measured::Section;
use ktrav_figure::{Anchor, Figure, BLUE, INK, ORANGE};

/// One launch's tally: the case line, the rows below row 0, and per count
/// of wrong rows, the GPU's runs and the simulator's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    pub case: String,
    pub rows_below: u64,
    /// (wrong rows, GPU runs, simulated runs)
    pub counts: Vec<(u64, u64, u64)>,
    pub gpu_runs: u64,
    pub simulated_runs: u64,
}

impl Tally {
    /// Share of GPU runs and of simulated runs with no row wrong, in percent.
    pub fn clean(&self) -> (f64, f64) {
        let zero = self.counts.iter().find(|c| c.0 == 0).copied().unwrap_or((0, 0, 0));
        (100.0 * zero.1 as f64 / self.gpu_runs as f64, 100.0 * zero.2 as f64 / self.simulated_runs as f64)
    }
}

/// `GPU  1742 of 2000`: the two numbers after `word`.
fn of_after(line: &str, word: &str) -> Option<(u64, u64)> {
    let rest = &line[line.find(word)? + word.len()..];
    let mut it = rest.split_whitespace();
    let part = it.next()?.parse().ok()?;
    (it.next()? == "of").then_some(())?;
    let whole = it.next()?.parse().ok()?;
    Some((part, whole))
}

/// Every tally of the section that has the simulator's counts beside the
/// GPU's (the launches too large to simulate have none).
pub fn tallies(section: &Section) -> Vec<Tally> {
    let mut out: Vec<Tally> = Vec::new();
    let mut case = String::new();
    let mut current: Option<Tally> = None;
    for line in &section.lines {
        let t = line.trim();
        if t.contains(" matrix, ") && t.contains(" runs of each kernel") {
            case = t.split(", grid").next().unwrap_or(t).to_string();
        } else if let Some(rest) = t.strip_prefix("rows (of ") {
            out.extend(current.take());
            let rows_below = rest.split(')').next().and_then(|n| n.parse().ok()).unwrap_or(0);
            current = t.contains("beside the simulator").then(|| Tally {
                case: case.clone(),
                rows_below,
                counts: Vec::new(),
                gpu_runs: 0,
                simulated_runs: 0,
            });
        } else if let (Some(tally), Some((k, _))) = (current.as_mut(), t.split_once(" wrong: GPU")) {
            if let (Ok(k), Some((g, gt)), Some((s, st))) =
                (k.trim().parse(), of_after(t, "GPU"), of_after(t, "simulated"))
            {
                tally.counts.push((k, g, s));
                (tally.gpu_runs, tally.simulated_runs) = (gt, st);
            }
        }
    }
    out.extend(current);
    out
}

/// The histograms of every tally, side by side; `None` when the section has
/// none to draw.
pub fn render(section: &Section, card: &str) -> Option<String> {
    let tallies = tallies(section);
    if tallies.is_empty() {
        return None;
    }
    let (left, top, h, gap, slot) = (20.0, 96.0, 150.0, 44.0, 22.0);
    // Each panel is wide enough for its bars and for its three lines of text.
    let panels: Vec<f64> = tallies.iter().map(|t| (t.counts.len() as f64 * slot).max(300.0)).collect();
    let width = left + panels.iter().sum::<f64>() + gap * (tallies.len() - 1) as f64 + 20.0;
    let summary: Vec<String> = tallies
        .iter()
        .map(|t| {
            let (gpu, sim) = t.clean();
            format!("{}: no row wrong in {gpu:.1}% of the GPU's runs and {sim:.1}% of the simulated ones", t.case)
        })
        .collect();
    let mut fig = Figure::new(
        width.max(640.0),
        top + h + 56.0,
        &format!(
            "Histograms of how many rows the row-only check left wrong per run, the {card}'s runs beside the simulator's \
             orders, as shares of each: {}",
            summary.join("; ")
        ),
    );
    fig.legend(
        left,
        16.0,
        &[(BLUE, &format!("{card}, share of its runs")), (ORANGE, "simulator, share of its orders")],
    );
    let mut x = left;
    for (t, &panel) in tallies.iter().zip(&panels) {
        let slot = (panel / t.counts.len().max(1) as f64).min(3.0 * slot);
        let w = t.counts.len() as f64 * slot;
        let max = t
            .counts
            .iter()
            .map(|&(_, g, s)| (g as f64 / t.gpu_runs as f64).max(s as f64 / t.simulated_runs as f64))
            .fold(0.0, f64::max)
            .max(f64::MIN_POSITIVE);
        fig.line((x, top + h), (x + w, top + h), INK, 1.0);
        for (i, &(k, g, s)) in t.counts.iter().enumerate() {
            let bx = x + i as f64 * slot;
            for (j, (share, fill)) in
                [(g as f64 / t.gpu_runs as f64, BLUE), (s as f64 / t.simulated_runs as f64, ORANGE)]
                    .into_iter()
                    .enumerate()
            {
                let bh = share / max * h;
                fig.rect(bx + 2.0 + j as f64 * (slot - 4.0) / 2.0, top + h - bh, (slot - 4.0) / 2.0, bh, fill);
            }
            fig.text(bx + slot / 2.0, top + h + 10.0, 10.0, Anchor::Middle, INK, &k.to_string());
        }
        let (gpu, sim) = t.clean();
        fig.bold(x, 44.0, 13.0, Anchor::Start, INK, &t.case);
        fig.text(
            x,
            64.0,
            12.0,
            Anchor::Start,
            INK,
            &format!("{} GPU runs, {} simulated", t.gpu_runs, t.simulated_runs),
        );
        fig.text(x, 82.0, 12.0, Anchor::Start, INK, &format!("clean: GPU {gpu:.1}%, simulator {sim:.1}%"));
        fig.text(
            x,
            top + h + 30.0,
            12.0,
            Anchor::Start,
            INK,
            &format!("rows wrong, of the {} below row 0", t.rows_below),
        );
        x += panel + gap;
    }
    Some(fig.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_are_read_back_from_the_section_lines() {
        let lines = [
            "4x10 matrix, 4x1 blocks, grid 3x4: 2 stray column(s) per row, 10 padding cells, 2000 runs of each kernel",
            "    rows (of 3) below row 0 left wrong by fill_row_only_checked, real GPU beside the simulator's 24 orders of the block rows:",
            "         0 wrong: GPU  1742 of 2000 ( 87.1%)   simulated     1 of 24 (  4.2%)",
            "         1 wrong: GPU   258 of 2000 ( 12.9%)   simulated    23 of 24 ( 95.8%)",
            "    the GPU left 2 different number(s) of wrong rows, from 0 to 1",
            "8192x999 matrix, 32x8 blocks, grid 32x1024: 25 stray column(s) per row, 999 padding cells, 100 runs of each kernel",
            "    rows (of 8191) below row 0 left wrong by fill_row_only_checked, real GPU:",
            "      5255 wrong: GPU     1 of 100 (  1.0%)",
        ];
        let section = Section {
            chapter: "K.4".into(),
            checks: vec![],
            lines: lines.iter().map(|s| s.to_string()).collect(),
            tables: vec![],
        };
        let t = tallies(&section);
        assert_eq!(t.len(), 1, "the unsimulated launch has no tally: {t:?}");
        assert_eq!(t[0].case, "4x10 matrix, 4x1 blocks");
        assert_eq!((t[0].rows_below, t[0].gpu_runs, t[0].simulated_runs), (3, 2000, 24));
        assert_eq!(t[0].counts, vec![(0, 1742, 1), (1, 258, 23)]);
        assert_eq!(t[0].clean(), (87.1, 100.0 / 24.0));
        assert!(render(&section, "H200").unwrap().contains("87.1%"));
    }
}
