//! The checker's JSON record (`check FILE --json`), read with the fields
//! grading needs. Fields this crate does not know are kept as they are in
//! the stored result; two are optional, since a record may come from a
//! checker of another version:
//! `battery` on each shape (`"public"` or `"hidden"`; missing means public)
//! and `timing.share_of_copy` (the copy's time over the kernel's, so 1.0 is
//! as fast as a device-to-device copy; missing means not timed).

use ktrav::lab::{CheckOutcome, FailureKind, Verdict};
use serde::Deserialize;

/// What a check printed, as far as grading reads it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct CheckRecord {
    /// `pass`, `fail` or `could not check`; a record that says `compiles`
    /// (`check --compile-only`) judged no shape and is no verdict on the
    /// file, so [`parse`] refuses it.
    pub outcome: CheckOutcome,
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

impl CheckRecord {
    /// The record in `value`, if it is one and states a verdict on the file
    /// (see [`CheckRecord::outcome`]).
    pub fn from_value(value: serde_json::Value) -> Option<CheckRecord> {
        let record: CheckRecord = serde_json::from_value(value).ok()?;
        (record.outcome != CheckOutcome::Compiles).then_some(record)
    }

    /// Whether the check failed because the file does not compile: no
    /// shape ran, and the reason is the checker's for a compile error.
    pub fn does_not_compile(&self) -> bool {
        self.outcome == CheckOutcome::Fail
            && self.shapes.is_empty()
            && self.reason.as_deref() == Some(ktrav::lab::DOES_NOT_COMPILE)
    }
}

/// Which battery a shape belongs to: the checker's own type.
pub use ktrav::lab::Battery;

/// One shape's line of a check.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct ShapeRecord {
    pub label: String,
    pub rows: u64,
    pub cols: u64,
    #[serde(default)]
    pub battery: Battery,
    /// The verdict and its fields, as the checker's own type reads them.
    #[serde(flatten)]
    pub verdict: ShapeVerdict,
}

/// A shape's verdict: the checker's [`Verdict`], read with the same type
/// the checker writes it with, or the name of a verdict this build does
/// not know (a record from a checker of another version).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum ShapeVerdict {
    Known(Verdict),
    Other { verdict: String },
}

impl ShapeRecord {
    fn known(&self) -> Option<&Verdict> {
        match &self.verdict {
            ShapeVerdict::Known(v) => Some(v),
            ShapeVerdict::Other { .. } => None,
        }
    }

    /// Ran, and every element matched: what a score counts as earned.
    pub fn passed(&self) -> bool {
        self.known().is_some_and(Verdict::passed)
    }

    /// Not run for want of device memory: neither a pass nor a failure.
    pub fn skipped(&self) -> bool {
        matches!(self.known(), Some(Verdict::Skipped { .. }))
    }

    /// Not run: the time left after a hang, or the device, did not allow it.
    pub fn not_run(&self) -> bool {
        matches!(self.known(), Some(Verdict::NotRun { .. }))
    }

    /// Shows a fault of the kernel (anything but a pass or a skip).
    pub fn failed(&self) -> bool {
        self.known().is_none_or(Verdict::failed)
    }

    /// The kinds of failure this shape shows ([`Verdict::kinds`]); a
    /// verdict this crate does not know is one of its own.
    pub fn kinds(&self) -> Vec<Failure> {
        match &self.verdict {
            ShapeVerdict::Known(v) => v.kinds().into_iter().map(Failure::Kind).collect(),
            ShapeVerdict::Other { verdict } => vec![Failure::Other(verdict.clone())],
        }
    }

    /// Whether a private check reported this hidden shape: no size.
    pub fn private(&self) -> bool {
        self.battery == Battery::Hidden && self.rows == 0 && self.cols == 0
    }

    /// One line on what became of this shape ([`Verdict::describe`]); a
    /// private shape says only whether it passed.
    pub fn describe(&self) -> String {
        match &self.verdict {
            _ if self.private() => if self.passed() {
                "pass"
            } else if self.skipped() {
                "skipped"
            } else {
                "failed"
            }
            .into(),
            ShapeVerdict::Known(v) => v.describe(self.rows * self.cols),
            ShapeVerdict::Other { verdict } => verdict.replace('_', " "),
        }
    }
}

/// A kind of failure a shape shows: one the lab knows, or a verdict a
/// newer checker adds, which is named with its underscores as spaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    Kind(FailureKind),
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Kind(k) => k.fmt(f),
            Failure::Other(verdict) => f.write_str(&verdict.replace('_', " ")),
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
/// else its last non-empty line, as one JSON object stating a verdict on
/// the file ([`CheckRecord::from_value`]).
pub fn parse(stdout: &str) -> Option<(CheckRecord, serde_json::Value)> {
    let candidates = [stdout.trim(), stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim()];
    candidates.iter().find_map(|text| {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        Some((CheckRecord::from_value(value.clone())?, value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A battery's name in the gradebook is the one its records carry.
    #[test]
    fn a_batterys_name_is_its_json_name() {
        for b in [Battery::Public, Battery::Hidden] {
            assert_eq!(serde_json::to_string(&b).unwrap(), format!("\"{}\"", b.name()));
            assert_eq!(serde_json::from_str::<Battery>(&format!("\"{}\"", b.name())).unwrap(), b);
        }
        assert_eq!(Battery::default(), Battery::Public, "a record without a battery is public");
    }

    /// A record as today's checker prints it (no battery, no share).
    const TODAY: &str = r#"{"exercise":"transpose","section":"K.2","kernel":"transpose_tile32_padded","file":"a.cu","outcome":"fail","exit_code":1,"device":"NVIDIA H200","compiler":"NVRTC 13.0","reason":null,"compile_log":"","shapes":[{"label":"1x1","rows":1,"cols":1,"verdict":"pass"},{"label":"ragged edges 97x131","rows":97,"cols":131,"verdict":"fail","wrong":0,"unwritten":12707,"first_bad":0,"out_of_bounds_before":0,"out_of_bounds_after":3},{"label":"big","rows":46341,"cols":46341,"verdict":"skipped","reason":"needs 17 GB"},{"label":"x","rows":2,"cols":2,"verdict":"launch_failed","error":"CUDA_ERROR_INVALID_VALUE"}],"timing":null}"#;

    #[test]
    fn todays_record_reads_with_defaults() {
        let (r, _) = parse(TODAY).unwrap();
        assert_eq!(r.outcome, CheckOutcome::Fail);
        assert!(!r.does_not_compile(), "shapes ran");
        assert!(r.shapes.iter().all(|s| s.battery == Battery::Public));
        assert_eq!(r.shapes.iter().filter(|s| s.passed()).count(), 1, "a skipped shape is not passed");
        assert!(r.shapes[2].skipped() && !r.shapes[2].failed() && r.shapes[1].failed());
        assert_eq!(
            r.shapes[1].kinds(),
            [Failure::Kind(FailureKind::Unwritten), Failure::Kind(FailureKind::OutOfBounds)]
        );
        assert_eq!(r.shapes[3].kinds(), [Failure::Kind(FailureKind::LaunchError)]);
        assert_eq!(r.shapes[1].kinds()[1].to_string(), "out of bounds");
        assert_eq!(r.shapes[1].describe(), "12707 elements: 12707 unwritten, first at index 0, written out of bounds: 0 words before the output, 3 after");
        assert!(r.timing.is_none());
    }

    #[test]
    fn newer_fields_are_read_where_present() {
        let text = r#"{"outcome":"pass","exit_code":0,"shapes":[{"label":"h","rows":3,"cols":4,"verdict":"pass","battery":"hidden"},{"label":"n","rows":3,"cols":4,"verdict":"some_new_verdict"}],"timing":{"copy_ms":1.0,"yours_ms":2.0,"share_of_copy":0.5}}"#;
        let (r, _) = parse(&format!("compiling...\n{text}\n")).unwrap();
        assert_eq!(r.shapes[0].battery, Battery::Hidden);
        assert_eq!(r.shapes[1].kinds(), [Failure::Other("some_new_verdict".into())]);
        assert_eq!(r.shapes[1].kinds()[0].to_string(), "some new verdict");
        let private: ShapeRecord = serde_json::from_str(r#"{"label":"hidden shape 2","rows":0,"cols":0,"verdict":"fail","wrong":0,"unwritten":0,"first_bad":null,"out_of_bounds_before":0,"out_of_bounds_after":0,"battery":"hidden"}"#).unwrap();
        assert_eq!(
            (private.describe().as_str(), private.passed(), private.failed(), private.kinds().len()),
            ("failed", false, true, 0)
        );
        // The checker's own type reads what the checker's own type wrote.
        let written = ktrav::lab::ShapeResult {
            label: "1000x33".into(),
            rows: 1000,
            cols: 33,
            battery: ktrav::lab::Battery::Public,
            purpose: ktrav::lab::Purpose::Ragged,
            verdict: Verdict::InputChanged { input: 0, changed: 5, first_changed: Some(3) },
        };
        let read: ShapeRecord = serde_json::from_str(&serde_json::to_string(&written).unwrap()).unwrap();
        assert_eq!(read.verdict, ShapeVerdict::Known(written.verdict.clone()));
        assert_eq!(
            (read.kinds(), read.describe()),
            (vec![Failure::Kind(FailureKind::InputChanged)], written.verdict.describe(33_000))
        );
        assert_eq!(r.timing.unwrap().share_of_copy, Some(0.5));
    }

    /// A compile error is told apart by the reason the checker gives for
    /// it, and only where no shape ran.
    #[test]
    fn a_compile_error_is_the_checkers_reason_for_one() {
        let record = |reason: &str| {
            let text = serde_json::json!({ "outcome": "fail", "exit_code": 1, "reason": reason }).to_string();
            parse(&text).unwrap().0
        };
        assert!(record(ktrav::lab::DOES_NOT_COMPILE).does_not_compile());
        assert!(!record("the file has no kernel `extern \"C\" __global__ void k(...)`").does_not_compile());
    }

    #[test]
    fn what_is_no_record_is_refused() {
        assert!(parse("").is_none());
        assert!(parse("Segmentation fault").is_none());
        assert!(parse(r#"{"outcome":"maybe","exit_code":0}"#).is_none());
        assert!(parse(r#"{"outcome":"compiles","exit_code":0}"#).is_none(), "a compile-only check judges nothing");
        assert!(parse(r#"{"outcome":"could not check","exit_code":3}"#).is_some());
        assert!(parse(r#"{"exit_code":0}"#).is_none());
        assert!(parse(r#"{"outcome":"pass","exit_code":0,"shapes":[{"label":1}]}"#).is_none());
    }
}
