//! The exercises a submission can be graded against, as this crate needs
//! them: which chapter binary checks it and under which id. The catalogue
//! itself is the lab's; the caller hands it over (see [`crate::run`]).

use anyhow::anyhow;
use std::fmt;

/// One lab exercise: `K.2:transpose` is section `K.2`, chapter binary
/// `k2_transpose`, exercise id `transpose`. Two are the same exercise when
/// their names are; [`Bytes`] only sizes a Slurm task.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ExerciseRef {
    pub section: String,
    pub chapter: String,
    pub id: String,
    /// The buffers of its largest shape in each battery.
    #[serde(default)]
    pub bytes: Bytes,
}

/// The bytes of device buffers (inputs and guarded output) the largest
/// shape of an exercise's battery needs: public, public with `--large`,
/// public and hidden (with a seed), and both with `--large`. The checker's
/// host side holds as much again, so a Slurm task's memory is sized from
/// it (see [`crate::slurm::resources`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Bytes {
    pub public: u64,
    pub public_large: u64,
    pub hidden: u64,
    pub hidden_large: u64,
}

impl Bytes {
    /// The largest shape's buffers under these options.
    pub fn of(&self, seeded: bool, large: bool) -> u64 {
        match (seeded, large) {
            (false, false) => self.public,
            (false, true) => self.public_large,
            (true, false) => self.hidden,
            (true, true) => self.hidden_large,
        }
    }
}

impl ExerciseRef {
    pub fn new(section: &str, chapter: &str, id: &str) -> Self {
        ExerciseRef { section: section.into(), chapter: chapter.into(), id: id.into(), bytes: Bytes::default() }
    }

    pub fn with_bytes(self, bytes: Bytes) -> Self {
        ExerciseRef { bytes, ..self }
    }

    fn name(&self) -> (&str, &str, &str) {
        (&self.section, &self.chapter, &self.id)
    }
}

impl PartialEq for ExerciseRef {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for ExerciseRef {}

impl PartialOrd for ExerciseRef {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ExerciseRef {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name().cmp(&other.name())
    }
}

impl std::hash::Hash for ExerciseRef {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.name().hash(h)
    }
}

impl fmt::Display for ExerciseRef {
    /// `K.2:transpose`, the name the gradebook uses.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.section, self.id)
    }
}

/// Finds `CHAPTER:EXERCISE` in the catalogue, the chapter given as its
/// section (`K.2`, any case) or its crate (`k2_transpose`), or says in one
/// line what exists.
pub fn find(catalogue: &[ExerciseRef], name: &str) -> anyhow::Result<ExerciseRef> {
    let Some((chapter, id)) = name.split_once(':') else {
        return Err(anyhow!("'{name}' is not CHAPTER:EXERCISE (for example K.2:transpose)"));
    };
    let in_chapter: Vec<&ExerciseRef> = catalogue
        .iter()
        .filter(|e| e.section.eq_ignore_ascii_case(chapter.trim()) || e.chapter == chapter.trim())
        .collect();
    if in_chapter.is_empty() {
        let mut sections: Vec<&str> = catalogue.iter().map(|e| e.section.as_str()).collect();
        sections.dedup();
        return Err(anyhow!("no chapter '{chapter}' has lab exercises (these do: {})", sections.join(", ")));
    }
    match in_chapter.iter().find(|e| e.id == id.trim()) {
        Some(e) => Ok((*e).clone()),
        None => {
            let ids: Vec<&str> = in_chapter.iter().map(|e| e.id.as_str()).collect();
            Err(anyhow!("{} has no exercise '{id}' (it has: {})", in_chapter[0].section, ids.join(", ")))
        }
    }
}

#[cfg(test)]
pub(crate) fn sample() -> Vec<ExerciseRef> {
    vec![
        ExerciseRef::new("K.2", "k2_transpose", "transpose"),
        ExerciseRef::new("K.2", "k2_transpose", "find-the-bug"),
        ExerciseRef::new("K.3", "k3_grid_mapping", "copy"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn either_name_of_a_chapter_finds_the_exercise() {
        let c = sample();
        assert_eq!(find(&c, "K.2:transpose").unwrap(), c[0]);
        assert_eq!(
            find(&c, "k2:transpose").unwrap_err().to_string(),
            "no chapter 'k2' has lab exercises (these do: K.2, K.3)"
        );
        assert_eq!(find(&c, "k.2:find-the-bug").unwrap(), c[1]);
        assert_eq!(find(&c, "k3_grid_mapping:copy").unwrap(), c[2]);
        assert_eq!(
            find(&c, "K.3:transpose").unwrap_err().to_string(),
            "K.3 has no exercise 'transpose' (it has: copy)"
        );
        assert!(find(&c, "transpose").unwrap_err().to_string().contains("CHAPTER:EXERCISE"));
        assert_eq!(c[1].to_string(), "K.2:find-the-bug");
    }
}
