//! `ktrav_figure` draws the book's figures as SVG, for the code that
//! computes what they show: every chapter, the root package and the book's
//! tooling.
//!
//! Each chapter computes what a figure shows (a simulator run, a closed
//! form, a traversal) and hands the numbers to the helpers here, which only
//! know how to draw: a canvas, a grid of labelled cells, a legend, a bar
//! chart. The output is deterministic byte for byte, so `book/figures/`
//! can be checked against the code the same way `book/outputs/` is.
//!
//! The book shows each figure as an `<img>`, where the page's text colour
//! does not reach inside the SVG, and mdBook has light and dark themes. So
//! the figures carry no background of their own and use colours that read
//! on both: labels outside cells in a mid grey ([`INK`]), cells filled with
//! opaque light tints carrying dark text ([`CELL_INK`]).

use svg::node::element::{Definitions, Group, Line, Marker, Path, Rectangle, Text, Title};
use svg::node::Node;
use svg::Document;

/// Text and strokes outside cells: a mid grey with a contrast of about
/// 4:1 against both a white page and mdBook's near-black dark themes.
pub const INK: &str = "#8b95a1";
/// Text inside a filled cell: every cell fill below is light.
pub const CELL_INK: &str = "#1c1f24";
/// Grid lines between cells.
pub const RULE: &str = "#6b7683";
/// A plain cell.
pub const PLAIN: &str = "#dde2e8";
/// Light tints for categories (rings, launches, warps...), in order.
pub const TINTS: [&str; 8] = ["#9ec5f4", "#f7c58b", "#a9dba0", "#f4a6a6", "#cdb6ec", "#95d9d2", "#f2e08a", "#d7bba6"];
/// Strong accents for what a figure points at; they read on both themes.
pub const BLUE: &str = "#3b82c4";
pub const ORANGE: &str = "#e07b16";
pub const RED: &str = "#d9485f";
pub const GREEN: &str = "#3f9c4a";

/// A coordinate rounded to a hundredth, so the text of the SVG is short and
/// the same on every machine.
fn n(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// How a text is placed horizontally against its `x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn name(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// One SVG drawing.
pub struct Figure {
    doc: Document,
    width: f64,
    height: f64,
    markers: Vec<String>,
}

impl Figure {
    /// An empty canvas of `width x height` user units (pixels at 100 %),
    /// with `title` as its accessible name.
    pub fn new(width: f64, height: f64, title: &str) -> Self {
        let doc = Document::new()
            .set("width", n(width))
            .set("height", n(height))
            .set("viewBox", format!("0 0 {} {}", n(width), n(height)))
            .set("role", "img")
            .set("font-family", "DejaVu Sans, Verdana, sans-serif")
            .add(Title::new(title));
        Figure { doc, width, height, markers: Vec::new() }
    }

    pub fn width(&self) -> f64 {
        self.width
    }

    pub fn height(&self) -> f64 {
        self.height
    }

    /// Adds any SVG node.
    pub fn add(&mut self, node: impl Into<Box<dyn Node>>) {
        self.doc.append(node);
    }

    /// A filled rectangle with no outline.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        self.add(
            Rectangle::new().set("x", n(x)).set("y", n(y)).set("width", n(w)).set("height", n(h)).set("fill", fill),
        );
    }

    /// An unfilled rectangle, solid or dashed. (Geometry, then style, as
    /// SVG's own attributes are: a struct here would only rename them.)
    #[allow(clippy::too_many_arguments)]
    pub fn outline(&mut self, x: f64, y: f64, w: f64, h: f64, stroke: &str, stroke_width: f64, dashed: bool) {
        let mut r = Rectangle::new()
            .set("x", n(x))
            .set("y", n(y))
            .set("width", n(w))
            .set("height", n(h))
            .set("fill", "none")
            .set("stroke", stroke)
            .set("stroke-width", n(stroke_width));
        if dashed {
            r = r.set("stroke-dasharray", "5 3");
        }
        self.add(r);
    }

    /// A straight line.
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, stroke_width: f64) {
        self.add(
            Line::new()
                .set("x1", n(x1))
                .set("y1", n(y1))
                .set("x2", n(x2))
                .set("y2", n(y2))
                .set("stroke", stroke)
                .set("stroke-width", n(stroke_width)),
        );
    }

    /// A polyline through `points`, ending in an arrowhead when `arrow`.
    pub fn path(&mut self, points: &[(f64, f64)], stroke: &str, stroke_width: f64, arrow: bool) {
        let d: Vec<String> = points
            .iter()
            .enumerate()
            .map(|(i, &(x, y))| format!("{}{} {}", if i == 0 { "M" } else { "L" }, n(x), n(y)))
            .collect();
        let mut p = Path::new()
            .set("d", d.join(" "))
            .set("fill", "none")
            .set("stroke", stroke)
            .set("stroke-width", n(stroke_width))
            .set("stroke-linejoin", "round")
            .set("stroke-linecap", "round");
        if arrow {
            p = p.set("marker-end", format!("url(#{})", self.arrowhead(stroke)));
        }
        self.add(p);
    }

    /// A quadratic curve from `from` to `to` bending through `control`,
    /// with an arrowhead at `to`.
    pub fn curved_arrow(
        &mut self,
        from: (f64, f64),
        control: (f64, f64),
        to: (f64, f64),
        stroke: &str,
        stroke_width: f64,
    ) {
        let id = self.arrowhead(stroke);
        self.add(
            Path::new()
                .set(
                    "d",
                    format!("M{} {} Q{} {} {} {}", n(from.0), n(from.1), n(control.0), n(control.1), n(to.0), n(to.1)),
                )
                .set("fill", "none")
                .set("stroke", stroke)
                .set("stroke-width", n(stroke_width))
                .set("marker-end", format!("url(#{id})")),
        );
    }

    /// The id of an arrowhead marker in `colour`, defined on first use.
    fn arrowhead(&mut self, colour: &str) -> String {
        let id = format!("arrow-{}", colour.trim_start_matches('#'));
        if !self.markers.contains(&id) {
            self.markers.push(id.clone());
            let head = Path::new().set("d", "M0 0 L10 5 L0 10 z").set("fill", colour);
            let marker = Marker::new()
                .set("id", id.as_str())
                .set("viewBox", "0 0 10 10")
                .set("refX", 9)
                .set("refY", 5)
                .set("markerWidth", 6)
                .set("markerHeight", 6)
                .set("orient", "auto-start-reverse")
                .add(head);
            self.add(Definitions::new().add(marker));
        }
        id
    }

    /// A line of text; `y` is its vertical centre.
    pub fn text(&mut self, x: f64, y: f64, size: f64, anchor: Anchor, fill: &str, content: &str) {
        self.add(text_node(x, y, size, anchor, fill, content, false));
    }

    /// A bold line of text; `y` is its vertical centre.
    pub fn bold(&mut self, x: f64, y: f64, size: f64, anchor: Anchor, fill: &str, content: &str) {
        self.add(text_node(x, y, size, anchor, fill, content, true));
    }

    /// A row of swatches with their labels starting at `(x, y)`; returns the
    /// x where the legend ends.
    pub fn legend(&mut self, x: f64, y: f64, items: &[(&str, &str)]) -> f64 {
        let mut at = x;
        for &(fill, label) in items {
            self.rect(at, y - 6.0, 12.0, 12.0, fill);
            self.outline(at, y - 6.0, 12.0, 12.0, RULE, 0.75, false);
            self.text(at + 17.0, y, 12.0, Anchor::Start, INK, label);
            at += 17.0 + text_width(label, 12.0) + 16.0;
        }
        at
    }

    /// The finished SVG text, ending in a newline.
    pub fn finish(self) -> String {
        format!("{}\n", self.doc)
    }
}

fn text_node(x: f64, y: f64, size: f64, anchor: Anchor, fill: &str, content: &str, bold: bool) -> Text {
    let mut t = Text::new(content)
        .set("x", n(x))
        .set("y", n(y))
        .set("font-size", n(size))
        .set("dominant-baseline", "central")
        .set("fill", fill);
    if anchor != Anchor::Start {
        t = t.set("text-anchor", anchor.name());
    }
    if bold {
        t = t.set("font-weight", "bold");
    }
    t
}

/// A generous estimate of how wide a text is drawn, for laying out legends.
pub fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.6
}

/// A grid of `rows x cols` cells of `cell_w x cell_h`, its top left corner
/// at `(x, y)`: the shape of nearly every figure in the book.
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    pub x: f64,
    pub y: f64,
    pub cell_w: f64,
    pub cell_h: f64,
    pub rows: u64,
    pub cols: u64,
    /// Width of the lines between cells; 0 draws only the outer edge.
    pub rule_width: f64,
}

impl Grid {
    pub fn new(x: f64, y: f64, cell_w: f64, cell_h: f64, rows: u64, cols: u64) -> Self {
        Grid { x, y, cell_w, cell_h, rows, cols, rule_width: 0.75 }
    }

    /// The same grid with lines of `width` between its cells.
    pub fn with_rules(self, width: f64) -> Self {
        Grid { rule_width: width, ..self }
    }

    /// The top left corner of cell `(row, col)`.
    pub fn corner(&self, row: u64, col: u64) -> (f64, f64) {
        (self.x + col as f64 * self.cell_w, self.y + row as f64 * self.cell_h)
    }

    /// The centre of cell `(row, col)`.
    pub fn centre(&self, row: u64, col: u64) -> (f64, f64) {
        let (x, y) = self.corner(row, col);
        (x + self.cell_w / 2.0, y + self.cell_h / 2.0)
    }

    pub fn width(&self) -> f64 {
        self.cols as f64 * self.cell_w
    }

    pub fn height(&self) -> f64 {
        self.rows as f64 * self.cell_h
    }

    pub fn right(&self) -> f64 {
        self.x + self.width()
    }

    pub fn bottom(&self) -> f64 {
        self.y + self.height()
    }

    /// Fills every cell (`fill` says with what, `None` leaves it empty),
    /// writes its label, and rules the lines between cells. Cells are filled
    /// in runs along each row, so a figure of many cells stays small.
    pub fn draw(
        &self,
        fig: &mut Figure,
        fill: impl Fn(u64, u64) -> Option<&'static str>,
        label: impl Fn(u64, u64) -> Option<String>,
        font_size: f64,
    ) {
        let mut cells = Group::new();
        for r in 0..self.rows {
            let mut c = 0;
            while c < self.cols {
                let colour = fill(r, c);
                let start = c;
                while c < self.cols && fill(r, c) == colour {
                    c += 1;
                }
                if let Some(colour) = colour {
                    let (x, y) = self.corner(r, start);
                    cells = cells.add(
                        Rectangle::new()
                            .set("x", n(x))
                            .set("y", n(y))
                            .set("width", n((c - start) as f64 * self.cell_w))
                            .set("height", n(self.cell_h))
                            .set("fill", colour),
                    );
                }
            }
        }
        fig.add(cells);
        if self.rule_width > 0.0 {
            self.rules(fig, RULE, self.rule_width);
        }
        let mut labels = Group::new()
            .set("font-size", n(font_size))
            .set("text-anchor", "middle")
            .set("dominant-baseline", "central")
            .set("fill", CELL_INK);
        for r in 0..self.rows {
            for c in 0..self.cols {
                if let Some(s) = label(r, c) {
                    let (x, y) = self.centre(r, c);
                    labels = labels.add(Text::new(s).set("x", n(x)).set("y", n(y)));
                }
            }
        }
        fig.add(labels);
    }

    /// The lines between cells and around the grid, as one path.
    pub fn rules(&self, fig: &mut Figure, stroke: &str, stroke_width: f64) {
        let mut d = Vec::new();
        for r in 0..=self.rows {
            let y = n(self.y + r as f64 * self.cell_h);
            d.push(format!("M{} {y}H{}", n(self.x), n(self.right())));
        }
        for c in 0..=self.cols {
            let x = n(self.x + c as f64 * self.cell_w);
            d.push(format!("M{x} {}V{}", n(self.y), n(self.bottom())));
        }
        fig.add(
            Path::new()
                .set("d", d.join(""))
                .set("fill", "none")
                .set("stroke", stroke)
                .set("stroke-width", n(stroke_width)),
        );
    }

    /// Lines between neighbouring cells whose `key` differs, and around
    /// the grid: the outlines of regions such as cache lines, rings or tiles.
    pub fn boundaries(&self, fig: &mut Figure, key: impl Fn(u64, u64) -> u64, stroke: &str, stroke_width: f64) {
        let mut d =
            vec![format!("M{} {}H{}V{}H{}Z", n(self.x), n(self.y), n(self.right()), n(self.bottom()), n(self.x))];
        for r in 0..self.rows {
            for c in 0..self.cols {
                let (x, y) = self.corner(r, c);
                if c + 1 < self.cols && key(r, c) != key(r, c + 1) {
                    d.push(format!("M{} {}V{}", n(x + self.cell_w), n(y), n(y + self.cell_h)));
                }
                if r + 1 < self.rows && key(r, c) != key(r + 1, c) {
                    d.push(format!("M{} {}H{}", n(x), n(y + self.cell_h), n(x + self.cell_w)));
                }
            }
        }
        fig.add(
            Path::new()
                .set("d", d.join(""))
                .set("fill", "none")
                .set("stroke", stroke)
                .set("stroke-width", n(stroke_width))
                .set("stroke-linecap", "square"),
        );
    }

    /// A thick outline around the cells `rows x cols` from `(row, col)`.
    pub fn frame(
        &self,
        fig: &mut Figure,
        (row, col): (u64, u64),
        (rows, cols): (u64, u64),
        stroke: &str,
        stroke_width: f64,
        dashed: bool,
    ) {
        let (x, y) = self.corner(row, col);
        fig.outline(x, y, cols as f64 * self.cell_w, rows as f64 * self.cell_h, stroke, stroke_width, dashed);
    }

    /// Column numbers above the grid, every `every` columns.
    pub fn column_numbers(&self, fig: &mut Figure, every: u64, size: f64) {
        for c in (0..self.cols).step_by(every.max(1) as usize) {
            let (x, _) = self.centre(0, c);
            fig.text(x, self.y - size * 0.8, size, Anchor::Middle, INK, &c.to_string());
        }
    }

    /// Row numbers left of the grid, every `every` rows.
    pub fn row_numbers(&self, fig: &mut Figure, every: u64, size: f64) {
        for r in (0..self.rows).step_by(every.max(1) as usize) {
            let (_, y) = self.centre(r, 0);
            fig.text(self.x - size * 0.5, y, size, Anchor::End, INK, &r.to_string());
        }
    }
}

/// A vertical bar chart of `bars` (one bar per entry, labelled by its
/// key below and its value above), in the box `(x, y, w, h)`.
pub fn bar_chart(fig: &mut Figure, (x, y, w, h): (f64, f64, f64, f64), bars: &[(String, u64)], fill: &str) {
    let max = bars.iter().map(|b| b.1).max().unwrap_or(1).max(1) as f64;
    let slot = w / bars.len().max(1) as f64;
    fig.line((x, y + h), (x + w, y + h), INK, 1.0);
    for (i, (key, value)) in bars.iter().enumerate() {
        let bh = *value as f64 / max * h;
        let bx = x + i as f64 * slot;
        fig.rect(bx + slot * 0.12, y + h - bh, slot * 0.76, bh, fill);
        fig.text(bx + slot / 2.0, y + h + 9.0, 10.0, Anchor::Middle, INK, key);
        fig.text(bx + slot / 2.0, y + h - bh - 7.0, 9.0, Anchor::Middle, INK, &value.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_is_the_same_text_every_time() {
        let draw = || {
            let mut f = Figure::new(100.0, 50.0, "two cells & a title");
            Grid::new(10.0, 10.0, 20.0, 20.0, 1, 2).draw(
                &mut f,
                |_, c| (c == 0).then_some(BLUE),
                |r, c| Some(format!("{r},{c}")),
                9.0,
            );
            f.path(&[(0.0, 0.0), (1.0 / 3.0, 2.0)], INK, 1.0, true);
            f.finish()
        };
        let a = draw();
        assert_eq!(a, draw());
        assert!(a.starts_with("<svg "), "{a}");
        assert!(a.contains("<title>two cells &amp; a title</title>"), "{a}");
        assert!(a.contains("0.33 2"), "coordinates are rounded: {a}");
        // One run of cells is one rectangle.
        assert_eq!(a.matches("<rect").count(), 1, "{a}");
    }
}
