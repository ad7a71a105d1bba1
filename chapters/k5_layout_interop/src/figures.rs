//! Figures.

pub fn figures() -> Vec<(&'static str, String)> {
    Vec::new()
}
