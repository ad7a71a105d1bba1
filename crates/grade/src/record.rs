//! The checker's JSON record (`check FILE --json`), read with the fields
//! grading needs. Fields this crate does not know are kept as they are in
//! the stored result; the two that a newer checker adds are optional:
//! `battery` on each shape (`"public"` or `"hidden"`; missing means public)
//! and `timing.share_of_copy` (the copy's time over the kernel's, so 1.0 is
//! as fast as a device-to-device copy; missing means not timed).

use serde::Deserialize;

/// What a check printed, as far as grading reads it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct CheckRecord {
    /// `pass`, `fail` or `could not check`.
    pub outcome: String,
    pub exit_code: i32,
    #[serde(default)]
    pub device: Option<String>,
    /// Why the check could not be made, or why the file failed to compile.
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub compile_log: Option<String>,
    #[serde(default)]
    pub shapes: Vec<ShapeRecord>,
    #[serde(default)]
    pub timing: Option<TimingRecord>,
}

/// The outcomes a record may state.
pub const OUTCOMES: [&str; 3] = ["pass", "fail", "could not check"];

/// Which battery a shape belongs to.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Battery {
    #[default]
    Public,
    Hidden,
}

impl Battery {
    pub fn name(self) -> &'static str {
        match self {
            Battery::Public => "public",
            Battery::Hidden => "hidden",
        }
    }
}

/// One shape's line of a check.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct ShapeRecord {
    pub label: String,
    pub rows: u64,
    pub cols: u64,
    /// `pass`, `fail`, `launch_failed`, `crashed`, `did_not_finish`,
    /// `not_run`, `skipped`, or one a newer checker adds.
    pub verdict: String,
    #[serde(default)]
    pub battery: Battery,
    #[serde(default)]
    pub wrong: u64,
    #[serde(default)]
    pub unwritten: u64,
    #[serde(default)]
    pub out_of_bounds_before: u64,
    #[serde(default)]
    pub out_of_bounds_after: u64,
    #[serde(default)]
    pub first_bad: Option<u64>,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub seconds: Option<u64>,
    #[serde(default)]
    pub reason: Option<String>,
}

impl ShapeRecord {
    /// Ran, and every element matched: what a score counts as earned.
    pub fn passed(&self) -> bool {
        self.verdict == "pass"
    }

    /// Not run for want of device memory: neither a pass nor a failure.
    pub fn skipped(&self) -> bool {
        self.verdict == "skipped"
    }

    /// Shows a fault of the kernel (anything but a pass or a skip).
    pub fn failed(&self) -> bool {
        !self.passed() && !self.skipped()
    }

    /// The kinds of failure this shape shows, in the words of the exercise
    /// files' `expect:` lines: `wrong`, `unwritten`, `out of bounds`,
    /// `launch error`, `crashed`, `did not finish`; a verdict this crate
    /// does not know is named with its underscores as spaces.
    pub fn kinds(&self) -> Vec<String> {
        match self.verdict.as_str() {
            "pass" | "skipped" | "not_run" => Vec::new(),
            "fail" => {
                let mut k = Vec::new();
                if self.wrong > 0 {
                    k.push("wrong".to_string());
                }
                if self.unwritten > 0 {
                    k.push("unwritten".to_string());
                }
                if self.out_of_bounds_before + self.out_of_bounds_after > 0 {
                    k.push("out of bounds".to_string());
                }
                k
            }
            "launch_failed" => vec!["launch error".into()],
            "crashed" => vec!["crashed".into()],
            "did_not_finish" => vec!["did not finish".into()],
            other => vec![other.replace('_', " ")],
        }
    }

    /// One line on what became of this shape.
    pub fn describe(&self) -> String {
        let elements = self.rows * self.cols;
        match self.verdict.as_str() {
            "pass" => format!("{elements} elements, all match"),
            "fail" => {
                let mut parts = Vec::new();
                if self.wrong > 0 {
                    parts.push(format!("{} wrong", self.wrong));
                }
                if self.unwritten > 0 {
                    parts.push(format!("{} unwritten", self.unwritten));
                }
                if let Some(i) = self.first_bad {
                    parts.push(format!("first at index {i}"));
                }
                let oob = self.out_of_bounds_before + self.out_of_bounds_after;
                if oob > 0 {
                    parts.push(format!(
                        "written out of bounds: {} words before the output, {} after",
                        self.out_of_bounds_before, self.out_of_bounds_after
                    ));
                }
                match parts.is_empty() {
                    // A private battery says only that the shape failed.
                    true => format!("{elements} elements: failed"),
                    false => format!("{elements} elements: {}", parts.join(", ")),
                }
            }
            "launch_failed" => format!("launch failed: {}", self.error.as_deref().unwrap_or("")),
            "crashed" => format!("the kernel crashed: {}", self.error.as_deref().unwrap_or("")),
            "did_not_finish" => match self.seconds {
                Some(s) => format!("did not finish within {s} s"),
                None => "did not finish".into(),
            },
            "not_run" => "not run: an earlier shape left the device unusable".into(),
            "skipped" => format!("skipped: {}", self.reason.as_deref().unwrap_or("")),
            other => other.replace('_', " "),
        }
    }
}

/// The timing part of a record.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct TimingRecord {
    #[serde(default)]
    pub share_of_copy: Option<f64>,
}

/// Reads a record from a checker's standard output: the whole output, or
/// else its last non-empty line, as one JSON object naming a known outcome.
pub fn parse(stdout: &str) -> Option<(CheckRecord, serde_json::Value)> {
    let candidates = [stdout.trim(), stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim()];
    candidates.iter().find_map(|text| {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        let record: CheckRecord = serde_json::from_value(value.clone()).ok()?;
        OUTCOMES.contains(&record.outcome.as_str()).then_some((record, value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record as today's checker prints it (no battery, no share).
    const TODAY: &str = r#"{"exercise":"transpose","section":"K.2","kernel":"transpose_tile32_padded","file":"a.cu","outcome":"fail","exit_code":1,"device":"NVIDIA H200","compiler":"NVRTC 13.0","reason":null,"compile_log":"","shapes":[{"label":"1x1","rows":1,"cols":1,"verdict":"pass"},{"label":"ragged edges 97x131","rows":97,"cols":131,"verdict":"fail","wrong":0,"unwritten":12707,"first_bad":0,"out_of_bounds_before":0,"out_of_bounds_after":3},{"label":"big","rows":46341,"cols":46341,"verdict":"skipped","reason":"needs 17 GB"},{"label":"x","rows":2,"cols":2,"verdict":"launch_failed","error":"CUDA_ERROR_INVALID_VALUE"}],"timing":null}"#;

    #[test]
    fn todays_record_reads_with_defaults() {
        let (r, _) = parse(TODAY).unwrap();
        assert_eq!(r.outcome, "fail");
        assert!(r.shapes.iter().all(|s| s.battery == Battery::Public));
        assert_eq!(r.shapes.iter().filter(|s| s.passed()).count(), 1, "a skipped shape is not passed");
        assert!(r.shapes[2].skipped() && !r.shapes[2].failed() && r.shapes[1].failed());
        assert_eq!(r.shapes[1].kinds(), ["unwritten", "out of bounds"]);
        assert_eq!(r.shapes[3].kinds(), ["launch error"]);
        assert_eq!(r.shapes[1].describe(), "12707 elements: 12707 unwritten, first at index 0, written out of bounds: 0 words before the output, 3 after");
        assert!(r.timing.is_none());
    }

    #[test]
    fn newer_fields_are_read_where_present() {
        let text = r#"{"outcome":"pass","exit_code":0,"shapes":[{"label":"h","rows":3,"cols":4,"verdict":"pass","battery":"hidden"},{"label":"n","rows":3,"cols":4,"verdict":"some_new_verdict"}],"timing":{"copy_ms":1.0,"yours_ms":2.0,"share_of_copy":0.5}}"#;
        let (r, _) = parse(&format!("compiling...\n{text}\n")).unwrap();
        assert_eq!(r.shapes[0].battery, Battery::Hidden);
        assert_eq!(r.shapes[1].kinds(), ["some new verdict"]);
        let private: ShapeRecord = serde_json::from_str(r#"{"label":"h","rows":2,"cols":3,"verdict":"fail","battery":"hidden"}"#).unwrap();
        assert_eq!((private.describe().as_str(), private.passed()), ("6 elements: failed", false));
        assert_eq!(r.timing.unwrap().share_of_copy, Some(0.5));
    }

    #[test]
    fn what_is_no_record_is_refused() {
        assert!(parse("").is_none());
        assert!(parse("Segmentation fault").is_none());
        assert!(parse(r#"{"outcome":"maybe","exit_code":0}"#).is_none());
        assert!(parse(r#"{"exit_code":0}"#).is_none());
        assert!(parse(r#"{"outcome":"pass","exit_code":0,"shapes":[{"label":1}]}"#).is_none());
    }
}
