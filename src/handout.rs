//! `appendix_k handout DIR`: the students' handout, the starter of every
//! lab exercise (`exercises/<chapter>/*.cu`) and nothing else: not the
//! catalogues of wrong kernels under `wrong/`, not the chapters' kernels
//! under `kernels/`, which are the solutions. The starters are embedded
//! when the program is built, so the handout needs no checkout.

use std::path::Path;

/// Every starter, as `chapter/file.cu` and its text, sorted.
pub const STARTERS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/starters.rs"));

/// Writes the handout into `dir`, which must be missing or empty; returns
/// the files written. `Err` is one line, before anything is written.
pub fn write(dir: &Path) -> anyhow::Result<Vec<String>> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                anyhow::bail!("{} is not empty: give a new or empty folder for the handout", dir.display());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            anyhow::bail!("{} is a file, not a folder", dir.display())
        }
        Err(e) => anyhow::bail!("cannot read {}: {e}", dir.display()),
    }
    let mut written = Vec::new();
    for (name, text) in STARTERS {
        let path = dir.join(name);
        let parent = path.parent().expect("a starter lies in a chapter's folder");
        std::fs::create_dir_all(parent).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", parent.display()))?;
        std::fs::write(&path, text).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        written.push(name.to_string());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CHAPTERS;

    /// The handout is exactly the exercises' starters: each exercise's
    /// starter is in it, and nothing else is.
    #[test]
    fn the_handout_is_every_exercise_starter_and_nothing_else() {
        let mut wanted: Vec<String> = CHAPTERS
            .iter()
            .flat_map(|ch| ch.exercises.iter().map(move |e| format!("{}/{}", ch.id, e.starter)))
            .collect();
        wanted.sort();
        wanted.dedup();
        let names: Vec<&str> = STARTERS.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, wanted);
        for (name, text) in STARTERS {
            assert!(!name.contains("wrong/"), "{name}");
            let chapter = name.split('/').next().unwrap();
            let solution = ktrav_gpu::kernels::find(chapter).unwrap().source;
            assert_ne!(*text, solution, "{name} is the chapter's own kernel");
        }
    }

    #[test]
    fn a_handout_goes_only_into_a_new_or_empty_folder() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("handout");
        let written = write(&dir).unwrap();
        assert_eq!(written.len(), STARTERS.len());
        assert_eq!(std::fs::read_to_string(dir.join(STARTERS[0].0)).unwrap(), STARTERS[0].1);
        let again = write(&dir).unwrap_err().to_string();
        assert!(again.ends_with("is not empty: give a new or empty folder for the handout"), "{again}");
        std::fs::write(d.path().join("file"), "x").unwrap();
        assert!(write(&d.path().join("file")).unwrap_err().to_string().contains("is a file"));
        let empty = d.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert!(write(&empty).is_ok());
    }
}
