//! The root package: the registry of chapters, used by the all-chapters
//! runner (`cargo run`), by `scripts/refresh-outputs` and by the figures'
//! sync test.

/// One chapter: its section label, its worked example, every output file
/// its book page shows (file name under `book/outputs/`, text), and every
/// figure it draws (file name under `book/figures/`, SVG).
pub struct Chapter {
    pub section: &'static str,
    pub worked_example: fn() -> String,
    pub shown_outputs: fn() -> Vec<(&'static str, String)>,
    pub figures: fn() -> Vec<(&'static str, String)>,
}

/// Every chapter, in book order.
pub fn chapters() -> Vec<Chapter> {
    vec![
        Chapter {
            section: "K.1",
            worked_example: k1_row_col_major::worked_example,
            shown_outputs: k1_row_col_major::shown_outputs,
            figures: k1_row_col_major::figures::figures,
        },
        Chapter {
            section: "K.2",
            worked_example: k2_transpose::worked_example,
            shown_outputs: k2_transpose::shown_outputs,
            figures: k2_transpose::figures::figures,
        },
        Chapter {
            section: "K.3",
            worked_example: k3_grid_mapping::worked_example,
            shown_outputs: k3_grid_mapping::shown_outputs,
            figures: k3_grid_mapping::figures::figures,
        },
        Chapter {
            section: "K.4",
            worked_example: k4_boundary_check::worked_example,
            shown_outputs: k4_boundary_check::shown_outputs,
            figures: k4_boundary_check::figures::figures,
        },
        Chapter {
            section: "K.5",
            worked_example: k5_layout_interop::worked_example,
            shown_outputs: k5_layout_interop::shown_outputs,
            figures: k5_layout_interop::figures::figures,
        },
        Chapter {
            section: "K.6",
            worked_example: k6_spiral::worked_example,
            shown_outputs: k6_spiral::shown_outputs,
            figures: k6_spiral::figures::figures,
        },
        Chapter {
            section: "K.7",
            worked_example: k7_diagonal::worked_example,
            shown_outputs: k7_diagonal::shown_outputs,
            figures: k7_diagonal::figures::figures,
        },
    ]
}

/// Every figure of the book, each with the page part that draws it: the
/// simulator page's (drawn by `ktrav`), then each chapter's, in book order.
pub fn figures() -> Vec<(&'static str, &'static str, String)> {
    let mut all: Vec<(&'static str, &'static str, String)> =
        ktrav::figures::figures().into_iter().map(|(name, svg)| ("simulator", name, svg)).collect();
    for ch in chapters() {
        all.extend((ch.figures)().into_iter().map(|(name, svg)| (ch.section, name, svg)));
    }
    all
}
