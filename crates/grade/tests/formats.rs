//! The Gradescope and PrairieLearn files grading writes, validated against
//! a JSON Schema of each format's documented fields (`schemas/`), for a row
//! of every outcome; and the schemas themselves shown to refuse a record
//! with a required field missing or a field mistyped.

use ktrav_grade::exercise::ExerciseRef;
use ktrav_grade::gradebook::{gradescope, prairielearn, Outcome, Row, TaskState};
use ktrav_grade::plan::Job;
use ktrav_grade::store::{Ended, Stored};
use serde_json::{json, Value};

fn schema(name: &str) -> jsonschema::Validator {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemas").join(name);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc).map(|e| format!("{} at {}", e, e.instance_path())).collect()
}

fn job() -> Job {
    Job {
        submission: "alice/transpose".into(),
        file: "/room/alice/transpose.cu".into(),
        exercise: ExerciseRef::new("K.2", "k2_transpose", "transpose"),
        key: "k".into(),
        expect: None,
        expect_large: None,
    }
}

fn stored(ended: Ended, record: Option<Value>, detail: Option<&str>) -> Stored {
    Stored {
        key: "k".into(),
        submission: "alice/transpose".into(),
        exercise: "K.2:transpose".into(),
        ended,
        detail: detail.map(String::from),
        exit_code: Some(1),
        signal: None,
        device: "0".into(),
        seconds: 1.0,
        record,
        stderr: String::new(),
    }
}

fn shape(label: &str, verdict: &str, battery: &str, extra: Value) -> Value {
    let mut s = json!({ "label": label, "rows": 97, "cols": 131, "verdict": verdict, "battery": battery });
    s.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    s
}

/// A row of every outcome, built as grading builds them.
fn rows() -> Vec<Row> {
    let j = job();
    let record = |outcome: &str, reason: Value, log: &str, shapes: Vec<Value>, timing: Value| {
        json!({ "outcome": outcome, "exit_code": 1, "reason": reason, "compile_log": log, "shapes": shapes, "timing": timing })
    };
    let passing = vec![shape("1x1", "pass", "public", json!({})), shape("hidden 1", "pass", "hidden", json!({}))];
    let failing = vec![
        shape("1x1", "pass", "public", json!({})),
        shape("ragged edges 97x131", "fail", "public", json!({"wrong": 3, "unwritten": 0, "first_bad": 4, "out_of_bounds_before": 0, "out_of_bounds_after": 1})),
        shape("hidden 2", "crashed", "hidden", json!({"error": "CUDA_ERROR_ILLEGAL_ADDRESS"})),
        shape("hidden 3", "not_run", "hidden", json!({})),
    ];
    let huge_log = "error: expected a \";\"\n".repeat(100_000);
    let rows = vec![
        Row::of(&j, Some(&stored(Ended::Record, Some(record("pass", Value::Null, "", passing, json!({"share_of_copy": 0.72}))), None)), None),
        Row::of(&j, Some(&stored(Ended::Record, Some(record("fail", Value::Null, "", failing, Value::Null)), None)), None),
        Row::of(&j, Some(&stored(Ended::Record, Some(record("fail", json!("the file does not compile (the compiler's log is above)"), &huge_log, vec![], Value::Null)), None)), None),
        Row::of(&j, Some(&stored(Ended::Record, Some(record("fail", json!("the file has no kernel"), "", vec![], Value::Null)), None)), None),
        Row::of(&j, Some(&stored(Ended::Record, Some(record("could not check", json!("no GPU"), "", vec![], Value::Null)), None)), None),
        Row::of(&j, Some(&stored(Ended::TimedOut, None, Some("stopped after 60 s"))), None),
        Row::of(&j, Some(&stored(Ended::Crashed, None, Some("the checker died of signal 11 (SIGSEGV)"))), None),
        Row::of(&j, None, Some(&TaskState { state: Some("NODE_FAIL".into()), source: "state from sacct".into() })),
        Row::of(&j, None, Some(&TaskState { state: Some("TIMEOUT".into()), source: "state from sacct".into() })),
        Row::of(&j, None, None),
    ];
    let outcomes: Vec<Outcome> = rows.iter().map(|r| r.outcome).collect();
    for o in Outcome::ALL {
        assert!(outcomes.contains(&o), "no row of outcome {o:?}");
    }
    rows
}

#[test]
fn gradescope_results_have_the_documented_fields() {
    let v = schema("gradescope-results.schema.json");
    for row in rows() {
        let doc = gradescope(&row);
        assert!(errors(&v, &doc).is_empty(), "{:?}: {:?}\n{doc:#}", row.outcome, errors(&v, &doc));
        assert!(serde_json::to_string(&doc).unwrap().len() < 1 << 20, "{:?}: over 1 MB", row.outcome);
    }
    let pass = gradescope(&rows()[0]);
    assert_eq!(pass["leaderboard"][0]["value"], json!(0.72));
    assert_eq!(pass["leaderboard"][0]["order"], json!("desc"));
    let fail = gradescope(&rows()[1]);
    let vis: Vec<&str> = fail["tests"].as_array().unwrap().iter().map(|t| t["visibility"].as_str().unwrap()).collect();
    assert_eq!(vis, ["visible", "visible", "after_published", "after_published"]);
    assert_eq!(fail["score"], json!(1.0));
    assert!(fail.get("leaderboard").is_none(), "an untimed kernel has no place on the leaderboard");
}

#[test]
fn prairielearn_results_have_the_documented_fields() {
    let v = schema("prairielearn-results.schema.json");
    for row in rows() {
        let doc = prairielearn(&row);
        assert!(errors(&v, &doc).is_empty(), "{:?}: {:?}\n{doc:#}", row.outcome, errors(&v, &doc));
        assert!(serde_json::to_string(&doc).unwrap().len() < 1 << 20, "{:?}: over PrairieLearn's 1 MB", row.outcome);
        let gradable = doc["gradable"].as_bool().unwrap();
        assert_eq!(gradable, row.outcome.checked() && row.outcome != Outcome::CompileError, "{:?}", row.outcome);
    }
    let fail = prairielearn(&rows()[1]);
    assert_eq!(fail["score"], json!(0.25));
    let ce = prairielearn(&rows()[2]);
    assert_eq!(ce["gradable"], json!(false));
    assert_eq!(ce["format_errors"][0], json!("the file does not compile: error: expected a \";\""));
}

/// Each schema refuses what its format refuses, so that the two tests
/// above can fail.
#[test]
fn the_schemas_refuse_missing_and_mistyped_fields() {
    let gs = schema("gradescope-results.schema.json");
    let pl = schema("prairielearn-results.schema.json");
    let good_gs = gradescope(&rows()[1]);
    let good_pl = prairielearn(&rows()[1]);
    assert!(gs.is_valid(&good_gs) && pl.is_valid(&good_pl));
    let broken = |doc: &Value, f: &dyn Fn(&mut Value)| {
        let mut d = doc.clone();
        f(&mut d);
        d
    };
    // Gradescope: no score anywhere; a score as text; an unknown visibility; a misspelt field; a leaderboard entry without a value.
    assert!(!gs.is_valid(&broken(&good_gs, &|d| {
        d.as_object_mut().unwrap().remove("score");
        for t in d["tests"].as_array_mut().unwrap() {
            t.as_object_mut().unwrap().remove("score");
        }
    })));
    assert!(gs.is_valid(&broken(&good_gs, &|d| {
        d.as_object_mut().unwrap().remove("score");
    })), "tests that each carry a score need no total");
    assert!(!gs.is_valid(&broken(&good_gs, &|d| d["score"] = json!("1"))));
    assert!(!gs.is_valid(&broken(&good_gs, &|d| d["tests"][0]["visibility"] = json!("public"))));
    assert!(!gs.is_valid(&broken(&good_gs, &|d| d["tests"][0]["visiblity"] = json!("visible"))));
    assert!(!gs.is_valid(&broken(&good_gs, &|d| d["leaderboard"] = json!([{"name": "speed"}]))));
    // PrairieLearn: a gradable result without a score; a score past 1; gradable as text; a test without a name.
    assert!(!pl.is_valid(&broken(&good_pl, &|d| {
        d.as_object_mut().unwrap().remove("score");
    })));
    assert!(!pl.is_valid(&broken(&good_pl, &|d| d["score"] = json!(2.5))));
    assert!(!pl.is_valid(&broken(&good_pl, &|d| d["gradable"] = json!("yes"))));
    assert!(!pl.is_valid(&broken(&good_pl, &|d| {
        d["tests"][0].as_object_mut().unwrap().remove("name");
    })));
    assert!(pl.is_valid(&json!({ "gradable": false, "format_errors": "does not compile" })));
}
