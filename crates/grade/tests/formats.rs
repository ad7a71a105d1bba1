//! The Gradescope and PrairieLearn files grading writes, read back by
//! typed readers of each format's documented fields (below: Gradescope's
//! autograder specification, "Output format", test visibility and
//! leaderboards; PrairieLearn's external grading, "Grading results"), for a
//! row of every outcome; and the readers shown to refuse a file with a
//! required field missing, a field mistyped, or a field the format does not
//! have.

use ktrav_grade::exercise::ExerciseRef;
use ktrav_grade::gradebook::{gradescope, prairielearn, Outcome, Row, TaskState, NOT_GRADED};
use ktrav_grade::plan::{Expectation, Job};
use ktrav_grade::store::{Ended, Stored};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// Gradescope's `results.json`.
#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GsResults {
    score: Option<f64>,
    execution_time: Option<f64>,
    output: Option<String>,
    visibility: Option<GsVisibility>,
    stdout_visibility: Option<GsVisibility>,
    extra_data: Option<Map<String, Value>>,
    tests: Option<Vec<GsTest>>,
    leaderboard: Option<Vec<GsEntry>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum GsVisibility {
    Hidden,
    AfterDueDate,
    AfterPublished,
    Visible,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GsTest {
    score: Option<f64>,
    max_score: Option<f64>,
    status: Option<GsStatus>,
    name: Option<String>,
    name_format: Option<String>,
    number: Option<String>,
    output: Option<String>,
    output_format: Option<String>,
    tags: Option<Vec<String>>,
    visibility: Option<GsVisibility>,
    extra_data: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum GsStatus {
    Passed,
    Failed,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GsEntry {
    name: String,
    value: NumberOrText,
    order: Option<GsOrder>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(untagged)]
enum NumberOrText {
    Number(f64),
    Text(String),
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum GsOrder {
    Asc,
    Desc,
}

/// A value no format field takes.
fn no_nulls(v: &Value, at: &str) -> Result<(), String> {
    match v {
        Value::Null => Err(format!("null at {at}")),
        Value::Array(a) => a.iter().enumerate().try_for_each(|(i, x)| no_nulls(x, &format!("{at}[{i}]"))),
        Value::Object(o) => o.iter().try_for_each(|(k, x)| no_nulls(x, &format!("{at}.{k}"))),
        _ => Ok(()),
    }
}

/// Reads a Gradescope file as the specification describes it: a top-level
/// score is optional only where every test has one.
fn gradescope_ok(doc: &Value) -> Result<(), String> {
    no_nulls(doc, "$")?;
    let r: GsResults = serde_json::from_value(doc.clone()).map_err(|e| e.to_string())?;
    let every_test_scored = r.tests.as_ref().is_some_and(|t| t.iter().all(|t| t.score.is_some()));
    if r.score.is_none() && !every_test_scored {
        return Err("no score: neither at the top nor on every test".into());
    }
    Ok(())
}

/// PrairieLearn's `results.json`. Other top-level data is allowed, as the
/// documentation says; the tests are what `<pl-external-grader-results>`
/// renders.
#[allow(dead_code)]
#[derive(Deserialize)]
struct PlResults {
    gradable: Option<bool>,
    score: Option<f64>,
    message: Option<String>,
    output: Option<String>,
    format_errors: Option<TextOrTexts>,
    images: Option<Vec<PlImage>>,
    tests: Option<Vec<PlTest>>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(untagged)]
enum TextOrTexts {
    One(String),
    Many(Vec<String>),
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(untagged)]
enum PlImage {
    Url(String),
    Image { url: String, label: Option<String> },
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlTest {
    name: String,
    description: Option<String>,
    points: Option<f64>,
    max_points: Option<f64>,
    message: Option<String>,
    output: Option<String>,
    images: Option<Vec<PlImage>>,
}

/// Reads a PrairieLearn file: a score in [0, 1] unless `gradable` is false.
fn prairielearn_ok(doc: &Value) -> Result<(), String> {
    no_nulls(doc, "$")?;
    let r: PlResults = serde_json::from_value(doc.clone()).map_err(|e| e.to_string())?;
    match (r.gradable, r.score) {
        (Some(false), _) => Ok(()),
        (_, None) => Err("a gradable result has no score".into()),
        (_, Some(s)) if !(0.0..=1.0).contains(&s) => Err(format!("the score {s} is outside [0, 1]")),
        _ => Ok(()),
    }
}

fn job() -> Job {
    Job {
        submission: "alice/transpose".into(),
        file: "/room/alice/transpose.cu".into(),
        exercise: ExerciseRef::new("K.2", "k2_transpose", "transpose"),
        key: "k".into(),
        expect: Default::default(),
        normalized: String::new(),
        modified: None,
        extension: 0,
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
    let record = |outcome: &str, reason: Value, log: &str, shapes: Vec<Value>, timing: Value| json!({ "outcome": outcome, "exit_code": 1, "reason": reason, "compile_log": log, "shapes": shapes, "timing": timing });
    let passing = vec![shape("1x1", "pass", "public", json!({})), shape("hidden 1", "pass", "hidden", json!({}))];
    let failing = vec![
        shape("1x1", "pass", "public", json!({})),
        shape(
            "ragged edges 97x131",
            "fail",
            "public",
            json!({"wrong": 3, "unwritten": 0, "first_bad": 4, "out_of_bounds_before": 0, "out_of_bounds_after": 1}),
        ),
        shape("hidden 2", "crashed", "hidden", json!({"error": "CUDA_ERROR_ILLEGAL_ADDRESS"})),
        shape("hidden 3", "not_run", "hidden", json!({})),
    ];
    let huge_log = "error: expected a \";\"\n".repeat(100_000);
    let rows = vec![
        Row::of(
            &j,
            Some(&stored(
                Ended::Record,
                Some(record("pass", Value::Null, "", passing, json!({"share_of_copy": 0.72}))),
                None,
            )),
            None,
        ),
        Row::of(
            &j,
            Some(&stored(Ended::Record, Some(record("fail", Value::Null, "", failing, Value::Null)), None)),
            None,
        ),
        Row::of(
            &j,
            Some(&stored(
                Ended::Record,
                Some(record(
                    "fail",
                    json!("the file does not compile (the compiler's log is above)"),
                    &huge_log,
                    vec![],
                    Value::Null,
                )),
                None,
            )),
            None,
        ),
        Row::of(
            &j,
            Some(&stored(
                Ended::Record,
                Some(record("fail", json!("the file has no kernel"), "", vec![], Value::Null)),
                None,
            )),
            None,
        ),
        Row::of(
            &j,
            Some(&stored(
                Ended::Record,
                Some(record("could not check", json!("no GPU"), "", vec![], Value::Null)),
                None,
            )),
            None,
        ),
        Row::of(&j, Some(&stored(Ended::TimedOut, None, Some("stopped after 60 s"))), None),
        Row::of(&j, Some(&stored(Ended::Crashed, None, Some("the checker died of signal 11 (SIGSEGV)"))), None),
        Row::of(&j, None, Some(&TaskState { state: Some("NODE_FAIL".into()), source: "state from sacct".into() })),
        Row::of(&j, None, Some(&TaskState { state: Some("TIMEOUT".into()), source: "state from sacct".into() })),
        Row::of(&j, None, None),
    ];
    let outcomes: Vec<Outcome> = rows.iter().map(|r| r.outcome).collect();
    // A missing student has a gradebook row but no results files.
    for o in Outcome::ALL.into_iter().filter(|o| *o != Outcome::Missing) {
        assert!(outcomes.contains(&o), "no row of outcome {o:?}");
    }
    rows
}

#[test]
fn gradescope_results_have_the_documented_fields() {
    for row in rows() {
        let doc = gradescope(&row);
        assert!(serde_json::to_string(&doc).unwrap().len() < 1 << 20, "{:?}: over 1 MB", row.outcome);
        if row.outcome.needs_regrade() {
            // No score at all, so that Gradescope reports a failed
            // autograder, never a 0; and nothing of the machine is said.
            assert!(doc.get("score").is_none() && doc.get("tests").is_none(), "{:?}:\n{doc:#}", row.outcome);
            assert!(
                gradescope_ok(&doc).is_err(),
                "{:?}: a file without a score must not pass as a result",
                row.outcome
            );
            assert_eq!(doc["output"], json!(NOT_GRADED));
            assert_eq!(doc["extra_data"]["status"], json!("needs regrade"));
            continue;
        }
        assert_eq!(gradescope_ok(&doc), Ok(()), "{:?}:\n{doc:#}", row.outcome);
        let tests = doc["tests"].as_array().unwrap();
        let max: f64 = tests.iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
        assert!(
            (max - row.worth.total()).abs() < 1e-9,
            "{:?}: the tests are worth {max}, not {}",
            row.outcome,
            row.worth.total()
        );
    }
    let pass = gradescope(&rows()[0]);
    assert_eq!(pass["leaderboard"][0]["value"], json!(0.72));
    assert_eq!(pass["leaderboard"][0]["order"], json!("desc"));
    assert_eq!(pass["score"], json!(2.0));
    let fail = gradescope(&rows()[1]);
    let vis: Vec<&str> = fail["tests"].as_array().unwrap().iter().map(|t| t["visibility"].as_str().unwrap()).collect();
    assert_eq!(vis, ["visible", "visible", "after_published"], "the hidden battery is one test");
    assert_eq!(fail["score"], json!(0.5));
    assert!(fail.get("leaderboard").is_none(), "an untimed kernel has no place on the leaderboard");
}

#[test]
fn prairielearn_results_have_the_documented_fields() {
    for row in rows() {
        let doc = prairielearn(&row);
        assert_eq!(prairielearn_ok(&doc), Ok(()), "{:?}:\n{doc:#}", row.outcome);
        assert!(serde_json::to_string(&doc).unwrap().len() < 1 << 20, "{:?}: over PrairieLearn's 1 MB", row.outcome);
        let gradable = doc["gradable"].as_bool().unwrap();
        assert_eq!(gradable, !row.outcome.needs_regrade() && row.outcome != Outcome::CompileError, "{:?}", row.outcome);
        if row.outcome.needs_regrade() {
            assert_eq!(
                doc["format_errors"],
                json!([NOT_GRADED]),
                "{:?}: the grader's detail reached the student",
                row.outcome
            );
        }
    }
    let fail = prairielearn(&rows()[1]);
    assert_eq!(fail["score"], json!(0.25));
    let ce = prairielearn(&rows()[2]);
    assert_eq!(ce["gradable"], json!(false));
    assert_eq!(ce["format_errors"][0], json!("the file does not compile: error: expected a \";\""));
}

/// A skipped shape is not a pass: it earns nothing, in either file.
#[test]
fn a_skipped_shape_earns_nothing() {
    let j = job();
    let shapes = vec![
        shape("1x1", "pass", "public", json!({})),
        shape("46341x46341", "skipped", "public", json!({"reason": "needs 17.2 GB"})),
    ];
    let record = json!({ "outcome": "pass", "exit_code": 0, "shapes": shapes });
    let row = Row::of(&j, Some(&stored(Ended::Record, Some(record), None)), None);
    assert_eq!((row.outcome, row.public, row.skipped), (Outcome::Pass, (1, 1), 1));
    assert_eq!(gradescope(&row)["score"], json!(0.5));
    assert_eq!(prairielearn(&row)["score"], json!(0.5));
}

/// Each reader refuses what its format refuses, so that the two tests
/// above can fail.
#[test]
fn the_readers_refuse_missing_mistyped_and_unknown_fields() {
    let good_gs = gradescope(&rows()[0]);
    let good_pl = prairielearn(&rows()[1]);
    assert_eq!((gradescope_ok(&good_gs), prairielearn_ok(&good_pl)), (Ok(()), Ok(())));
    let broken = |doc: &Value, f: &dyn Fn(&mut Value)| {
        let mut d = doc.clone();
        f(&mut d);
        d
    };
    // Gradescope: no score anywhere; a score as text; an unknown visibility;
    // a misspelt field; a leaderboard entry without a value; a null.
    assert!(gradescope_ok(&broken(&good_gs, &|d| {
        d.as_object_mut().unwrap().remove("score");
        for t in d["tests"].as_array_mut().unwrap() {
            t.as_object_mut().unwrap().remove("score");
        }
    }))
    .is_err());
    assert_eq!(
        gradescope_ok(&broken(&good_gs, &|d| {
            d.as_object_mut().unwrap().remove("score");
        })),
        Ok(()),
        "tests that each carry a score need no total"
    );
    assert!(gradescope_ok(&broken(&good_gs, &|d| d["score"] = json!("1"))).is_err());
    assert!(gradescope_ok(&broken(&good_gs, &|d| d["tests"][0]["visibility"] = json!("public"))).is_err());
    assert!(gradescope_ok(&broken(&good_gs, &|d| d["tests"][0]["visiblity"] = json!("visible"))).is_err());
    assert!(gradescope_ok(&broken(&good_gs, &|d| d["tests"][0]["status"] = json!("ok"))).is_err());
    assert!(gradescope_ok(&broken(&good_gs, &|d| d["leaderboard"] = json!([{"name": "speed"}]))).is_err());
    assert!(gradescope_ok(&broken(&good_gs, &|d| d["tests"][0]["output"] = Value::Null)).is_err());
    // PrairieLearn: a gradable result without a score; a score past 1;
    // gradable as text; a test without a name; format_errors as a number.
    assert!(prairielearn_ok(&broken(&good_pl, &|d| {
        d.as_object_mut().unwrap().remove("score");
    }))
    .is_err());
    assert!(prairielearn_ok(&broken(&good_pl, &|d| d["score"] = json!(2.5))).is_err());
    assert!(prairielearn_ok(&broken(&good_pl, &|d| d["gradable"] = json!("yes"))).is_err());
    assert!(prairielearn_ok(&broken(&good_pl, &|d| {
        d["tests"][0].as_object_mut().unwrap().remove("name");
    }))
    .is_err());
    assert!(prairielearn_ok(&json!({ "gradable": false, "format_errors": 3 })).is_err());
    assert_eq!(prairielearn_ok(&json!({ "gradable": false, "format_errors": "does not compile" })), Ok(()));
    assert_eq!(
        prairielearn_ok(&json!({ "score": 0.5, "course_data": {"any": "thing"} })),
        Ok(()),
        "other data is allowed"
    );
}

/// A private hidden failure shows no kind: a manifest's kind is met by it
/// only where no public shape failed.
#[test]
fn a_private_hidden_failure_meets_a_kind_only_alone() {
    let expect = |name: &str| name.parse::<Expectation>().unwrap();
    let j = job();
    let private = shape(
        "hidden shape 1",
        "fail",
        "hidden",
        json!({"wrong": 0, "unwritten": 0, "out_of_bounds_before": 0, "out_of_bounds_after": 0}),
    );
    let private = {
        let mut p = private;
        p["rows"] = json!(0);
        p["cols"] = json!(0);
        p
    };
    let row = |shapes: Vec<Value>| {
        let record = json!({ "outcome": "fail", "exit_code": 1, "shapes": shapes });
        Row::of(&j, Some(&stored(Ended::Record, Some(record), None)), None)
    };
    let alone = row(vec![shape("1x1", "pass", "public", json!({})), private.clone()]);
    assert!(alone.meets(expect("unwritten")) && alone.meets(expect("fail")) && !alone.meets(expect("pass")));
    let wrong =
        json!({"wrong": 2, "unwritten": 0, "first_bad": 0, "out_of_bounds_before": 0, "out_of_bounds_after": 0});
    let with_public = row(vec![shape("1x1", "fail", "public", wrong.clone()), private]);
    assert!(with_public.meets(expect("wrong")) && !with_public.meets(expect("unwritten")));
    let sized = row(vec![shape("1x1", "pass", "public", json!({})), shape("hidden: 7x9", "fail", "hidden", wrong)]);
    assert!(
        sized.meets(expect("wrong")) && !sized.meets(expect("unwritten")),
        "a hidden shape with its counts is held to them"
    );
}

/// The checker's own crash and a kernel's crash are named apart: the first
/// is the outcome `checker crashed`, a failure of the grader; the second
/// the failure kind `crashed` of a failed check. A manifest's `crashed`
/// is met by either, and no outcome bears a kind's name.
#[test]
fn a_crashed_checker_is_named_apart_from_a_crashed_kernel() {
    let j = job();
    let checker =
        Row::of(&j, Some(&stored(Ended::Crashed, None, Some("the checker died of signal 11 (SIGSEGV)"))), None);
    assert_eq!((checker.outcome, checker.outcome.as_str()), (Outcome::CheckerCrashed, "checker crashed"));
    assert!(checker.outcome.needs_regrade());
    assert_eq!(checker.fields()[2], "checker crashed");
    assert_eq!(gradescope(&checker)["extra_data"]["outcome"], json!("checker crashed"));
    let record = json!({ "outcome": "fail", "exit_code": 1, "shapes": [
        shape("1x1", "crashed", "public", json!({"error": "CUDA_ERROR_ILLEGAL_ADDRESS"}))
    ] });
    let kernel = Row::of(&j, Some(&stored(Ended::Record, Some(record), None)), None);
    assert_eq!((kernel.outcome, kernel.verdict().as_str()), (Outcome::Fail, "fail (crashed)"));
    let crashed = "crashed".parse::<Expectation>().unwrap();
    assert!(checker.meets(crashed) && kernel.meets(crashed));
    for o in Outcome::ALL {
        assert!(
            ktrav::lab::FailureKind::ALL.iter().all(|k| k.as_str() != o.as_str()),
            "the outcome {} reads as a kind of failure",
            o.as_str()
        );
    }
}
