//! `appendix_k expect-columns FILE...`, for `scripts/make-room`: each
//! `// expect:` line of each exercise file as the columns of its row in a
//! room's manifest ([`ktrav_grade::plan::Expect::of_line`]), so that the
//! script keeps no list of verdicts of its own.

use ktrav::lab::expect;
use ktrav_grade::plan::Expect;
use std::path::PathBuf;

/// One line per `// expect:` line of `files` (a race's left out: its
/// verdict is not fixed), `FILE,EXERCISE,EXPECT,EXPECT_LARGE,EXPECT_HIDDEN,
/// EXPECT_HIDDEN_LARGE`, an empty column where the manifest falls back to
/// another. `Err` is one line, and nothing is printed before it.
pub fn expect_columns(files: &[PathBuf]) -> anyhow::Result<String> {
    let mut out = String::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
        let lines = expect::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        for line in &lines {
            let Some(columns) = Expect::of_line(line) else { continue };
            let columns = columns.columns().map(|c| c.map_or(String::new(), |c| c.to_string()));
            out.push_str(&format!("{},{},{}\n", file.display(), line.exercise, columns.join(",")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_but_a_race_is_a_row_and_a_bad_one_is_one_line() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("a.cu");
        std::fs::write(
            &file,
            "// expect: copy: input changed\n// expect: copy: wrong (a race: repeated)\n\
             // expect: add: passes without --large; fails with --large\nint x;\n",
        )
        .unwrap();
        let f = file.display();
        assert_eq!(
            expect_columns(std::slice::from_ref(&file)).unwrap(),
            format!("{f},copy,input changed,,,\n{f},add,pass,fail,,\n")
        );
        std::fs::write(&file, "// expect: copy: fine\n").unwrap();
        assert_eq!(
            expect_columns(std::slice::from_ref(&file)).unwrap_err().to_string(),
            format!("{f}: unknown verdict in 'copy: fine'")
        );
        let missing = d.path().join("missing.cu");
        assert!(expect_columns(&[missing]).unwrap_err().to_string().starts_with("cannot read "));
    }
}
