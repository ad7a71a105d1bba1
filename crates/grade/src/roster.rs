//! Students, not files (`--roster roster.csv`): whose each submitted file
//! is, in the layouts courses collect, and which one of a student's files
//! is graded.
//!
//! * one folder per student: `alice/…/transpose.cu`, the folder named by
//!   the student's id;
//! * GitHub Classroom clones: `transpose-lab-alice/…`, a folder ending in
//!   `-ID`;
//! * a Canvas or Moodle export: `smithalice_1234_5678_transpose.cu`, one
//!   folder of files named `NAME_ID_…` (Canvas puts `LATE` before the id of
//!   a late one).
//!
//! Of a student's files the latest one changed by the deadline (plus the
//! student's extension) is graded, or, where none was, the latest, marked
//! late. A file's time is its last commit's in a git repository, else the
//! time it was last written.

use anyhow::anyhow;
use serde::{Deserialize, Serialize};
use std::path::{Component, Path, PathBuf};

/// One row of a roster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Student {
    pub id: String,
    pub name: String,
    pub email: String,
    /// Days added to the deadline for this student (empty: none).
    #[serde(default)]
    pub extension: Option<u32>,
}

impl Student {
    /// The extension in seconds.
    pub fn extension_secs(&self) -> i64 {
        self.extension.unwrap_or(0) as i64 * 86_400
    }
}

/// Reads a roster: CSV with the columns `id`, `name`, `email` and
/// optionally `extension` (whole days); lines starting with `#` are
/// comments. `Err` is one line.
pub fn read(path: &Path) -> anyhow::Result<Vec<Student>> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow!("cannot read the roster {}: {e}", path.display()))?;
    let mut reader = csv::ReaderBuilder::new().comment(Some(b'#')).trim(csv::Trim::All).from_reader(text.as_bytes());
    let mut out: Vec<Student> = Vec::new();
    for (n, row) in reader.deserialize::<Student>().enumerate() {
        let row = row.map_err(|e| anyhow!("{} row {}: {e}", path.display(), n + 1))?;
        if row.id.is_empty() || row.id.contains(['/', '\\']) || row.id.starts_with('.') {
            return Err(anyhow!("{} row {}: '{}' is not a student id", path.display(), n + 1, row.id));
        }
        if out.iter().any(|s| s.id == row.id) {
            return Err(anyhow!("{} row {}: the id {} is listed twice", path.display(), n + 1, row.id));
        }
        out.push(row);
    }
    if out.is_empty() {
        return Err(anyhow!("the roster {} lists no student", path.display()));
    }
    Ok(out)
}

/// The student a file is, from its path under the submissions folder.
pub fn owner<'a>(relative: &Path, students: &'a [Student]) -> Option<&'a Student> {
    let parts: Vec<String> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let first = parts.first()?;
    if parts.len() > 1 {
        return students
            .iter()
            .find(|s| *first == s.id)
            .or_else(|| students.iter().find(|s| first.ends_with(&format!("-{}", s.id))));
    }
    // NAME_ID_..., or NAME_LATE_ID_...
    let fields: Vec<&str> = first.split('_').collect();
    let id = match fields.as_slice() {
        [_, "LATE", id, _, ..] | [_, id, _, ..] => *id,
        _ => return None,
    };
    students.iter().find(|s| s.id == id)
}

/// When `file` was submitted: its last commit's time where it is in a git
/// repository with a commit of it, else the time it was last written, in
/// seconds since 1970.
pub fn submitted_at(file: &Path) -> Option<i64> {
    let dir = file.parent()?;
    let committed = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["log", "-1", "--format=%ct", "--"])
        .arg(file)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse::<i64>().ok());
    committed.or_else(|| {
        let t = std::fs::metadata(file).ok()?.modified().ok()?;
        Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64)
    })
}

/// The file of a student's that is graded, from (file, time) pairs: the
/// latest by `deadline` (seconds since 1970, extension included), else the
/// latest. `None` when there is none.
pub fn choose(files: &[(PathBuf, Option<i64>)], deadline: Option<i64>) -> Option<(PathBuf, Option<i64>)> {
    let latest = |on_time: bool| {
        files
            .iter()
            .filter(|(_, t)| !on_time || deadline.is_none_or(|d| t.is_some_and(|t| t <= d)))
            .max_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)))
            .cloned()
    };
    latest(true).or_else(|| latest(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn students() -> Vec<Student> {
        ["alice", "bob", "1234"]
            .iter()
            .map(|id| Student {
                id: id.to_string(),
                name: format!("{id} name"),
                email: format!("{id}@uni"),
                extension: None,
            })
            .collect()
    }

    #[test]
    fn each_layout_finds_its_student() {
        let s = students();
        let of = |p: &str| owner(Path::new(p), &s).map(|x| x.id.as_str());
        assert_eq!(of("alice/transpose.cu"), Some("alice"));
        assert_eq!(of("alice/src/deep/transpose.cu"), Some("alice"));
        assert_eq!(of("transpose-lab-bob/kernels/t.cu"), Some("bob"));
        assert_eq!(of("smithjane_1234_99887_transpose.cu"), Some("1234"));
        assert_eq!(of("smithjane_LATE_1234_99887_transpose.cu"), Some("1234"));
        assert_eq!(of("carol/transpose.cu"), None);
        assert_eq!(of("transpose.cu"), None);
        assert_eq!(of("smithjane_4321_99887_transpose.cu"), None);
    }

    #[test]
    fn the_latest_file_by_the_deadline_is_graded() {
        let f = |name: &str, t: i64| (PathBuf::from(name), Some(t));
        let files = [f("a.cu", 100), f("b.cu", 200), f("c.cu", 300)];
        assert_eq!(choose(&files, Some(250)).unwrap().0, PathBuf::from("b.cu"));
        assert_eq!(choose(&files, None).unwrap().0, PathBuf::from("c.cu"));
        assert_eq!(choose(&files, Some(50)).unwrap().0, PathBuf::from("c.cu"), "all late: the latest");
        assert!(choose(&[], Some(50)).is_none());
    }

    #[test]
    fn a_roster_is_checked() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("roster.csv");
        let write = |t: &str| {
            std::fs::write(&p, t).unwrap();
            read(&p)
        };
        let r = write("id,name,email,extension\nalice,Alice A,a@uni,two\n").unwrap_err().to_string();
        assert!(r.contains("row 1"), "{r}");
        let r = write("# the class\nid,name,email,extension\nalice,Alice A,a@uni,2\nbob,Bob B,b@uni,\n").unwrap();
        assert_eq!((r[0].extension_secs(), r[1].extension, r[1].id.as_str()), (2 * 86_400, None, "bob"));
        assert_eq!(write("id,name,email\nalice,A,a@uni\n").unwrap()[0].extension, None);
        assert!(write("id,name,email\nalice,A,a\nalice,B,b\n").unwrap_err().to_string().contains("listed twice"));
        assert!(write("id,name,email\n../x,A,a\n").unwrap_err().to_string().contains("not a student id"));
        assert!(write("id,name,email\n").unwrap_err().to_string().contains("lists no student"));
    }
}
