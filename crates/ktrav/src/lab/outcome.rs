//! What a check says, in the words every edge uses: the outcome of a whole
//! check ([`CheckOutcome`], the JSON record's `outcome`) and the kinds of
//! failure a shape shows ([`FailureKind`], the words of the exercise
//! files' `// expect:` lines, the gradebook's `failures` column and a
//! grading manifest's `expect` columns). Each type has one table of names,
//! which `Display`, `FromStr` and serde all read.

use std::fmt;

/// A name that is none of a type's: the type (`kind of failure`) and the name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    pub of: &'static str,
    pub name: String,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is no {}", self.name, self.of)
    }
}

impl std::error::Error for UnknownName {}

/// An enum of unit variants, each with its name: `ALL`, `as_str`,
/// `Display`, `FromStr` and serde as a string, from one table.
macro_rules! named {
    (
        $(#[$meta:meta])*
        pub enum $ty:ident ($of:literal) {
            $($(#[$vmeta:meta])* $variant:ident => $name:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $ty {
            $($(#[$vmeta])* $variant,)+
        }

        impl $ty {
            /// Every value, in the order of the type's declaration.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The value's name, as every edge writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = UnknownName;

            fn from_str(s: &str) -> Result<$ty, UnknownName> {
                $ty::ALL.iter().copied().find(|v| v.as_str() == s).ok_or_else(|| UnknownName { of: $of, name: s.into() })
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                let name = String::deserialize(d)?;
                name.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

named! {
    /// A kind of failure a shape shows (see [`super::Verdict::kinds`]).
    pub enum FailureKind ("kind of failure") {
        /// An element holds a value other than the expected one.
        Wrong => "wrong",
        /// An element still holds the poison it was filled with.
        Unwritten => "unwritten",
        /// A guard word around the output was overwritten.
        OutOfBounds => "out of bounds",
        /// A launch was refused.
        LaunchError => "launch error",
        /// The kernel faulted (on the simulator: the twin panicked).
        Crashed => "crashed",
        /// The watchdog stopped a kernel that did not finish.
        DidNotFinish => "did not finish",
        /// The output is right, but the kernel wrote into an input.
        InputChanged => "input changed",
        /// racecheck (`--sanitize=racecheck`) reported a hazard.
        Race => "race",
        /// memcheck (`--sanitize=memcheck`) reported an access.
        MemoryError => "memory error",
    }
}

named! {
    /// The outcome of a check: the JSON record's `outcome`.
    pub enum CheckOutcome ("outcome of a check") {
        /// Every shape passes (or was skipped for want of device memory).
        Pass => "pass",
        /// A shape fails, or the file failed before any shape ran.
        Fail => "fail",
        /// No GPU, no NVRTC, or the check could not be finished, through
        /// no fault of the file.
        CouldNotCheck => "could not check",
        /// `check --compile-only`: the file compiles, and its kernel's name
        /// and parameters match; no shape ran.
        Compiles => "compiles",
    }
}

named! {
    /// A tool of NVIDIA's compute-sanitizer that a check can run a shape
    /// under (`--sanitize`), named as the tool's `--tool` option names it;
    /// in the order a check runs them.
    pub enum SanitizerTool ("sanitizer tool") {
        /// Reads and writes out of bounds, misaligned accesses.
        Memcheck => "memcheck",
        /// Shared-memory hazards: a race the GPU happened to hide.
        Racecheck => "racecheck",
    }
}

impl SanitizerTool {
    /// The kind of failure an error this tool reports is.
    pub fn finds(self) -> FailureKind {
        match self {
            SanitizerTool::Memcheck => FailureKind::MemoryError,
            SanitizerTool::Racecheck => FailureKind::Race,
        }
    }
}

impl CheckOutcome {
    /// The exit code of a check with this outcome (see [`super`]).
    pub fn exit_code(self) -> i32 {
        match self {
            CheckOutcome::Pass | CheckOutcome::Compiles => 0,
            CheckOutcome::Fail => 1,
            CheckOutcome::CouldNotCheck => super::COULD_NOT_CHECK,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name reads back as its value, through `FromStr` and through
    /// serde, and no two values share a name.
    fn round_trips<T>(all: &[T])
    where
        T: Copy + PartialEq + fmt::Debug + fmt::Display + std::str::FromStr + serde::Serialize,
        T: serde::de::DeserializeOwned,
        <T as std::str::FromStr>::Err: fmt::Debug,
    {
        for (i, v) in all.iter().enumerate() {
            let name = v.to_string();
            assert_eq!(name.parse::<T>().unwrap(), *v);
            assert_eq!(serde_json::to_string(v).unwrap(), format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<T>(&format!("\"{name}\"")).unwrap(), *v);
            assert!(all[..i].iter().all(|w| w.to_string() != name), "two values are named {name}");
        }
    }

    #[test]
    fn every_name_reads_back_and_an_unknown_one_is_an_error() {
        round_trips(FailureKind::ALL);
        round_trips(CheckOutcome::ALL);
        round_trips(SanitizerTool::ALL);
        assert_eq!("fine".parse::<FailureKind>().unwrap_err().to_string(), "'fine' is no kind of failure");
        assert_eq!("maybe".parse::<CheckOutcome>().unwrap_err().to_string(), "'maybe' is no outcome of a check");
        let bad = serde_json::from_str::<CheckOutcome>("\"maybe\"").unwrap_err().to_string();
        assert!(bad.contains("'maybe' is no outcome of a check"), "{bad}");
        assert!(serde_json::from_str::<CheckOutcome>("3").is_err());
    }

    /// The names the JSON records stored so far hold, and the words of the
    /// exercise files: a renamed value would no longer read them.
    #[test]
    fn the_names_are_those_records_and_exercise_files_hold() {
        let outcomes: Vec<&str> = CheckOutcome::ALL.iter().map(|o| o.as_str()).collect();
        assert_eq!(outcomes, ["pass", "fail", "could not check", "compiles"]);
        let tools: Vec<&str> = SanitizerTool::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(tools, ["memcheck", "racecheck"]);
        let kinds: Vec<&str> = FailureKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "wrong",
                "unwritten",
                "out of bounds",
                "launch error",
                "crashed",
                "did not finish",
                "input changed",
                "race",
                "memory error"
            ]
        );
    }

    #[test]
    fn the_exit_code_follows_the_outcome() {
        let codes: Vec<i32> = CheckOutcome::ALL.iter().map(|o| o.exit_code()).collect();
        assert_eq!(codes, [0, 1, super::super::COULD_NOT_CHECK, 0]);
    }
}
