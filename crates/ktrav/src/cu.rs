//! Reading a chapter's `kernels/*.cu` as text, with no compiler: which
//! `extern "C" __global__` entry points it declares, the `__launch_bounds__`
//! each states, and the comment that says why a numbered version exists.
//! The book's tests tie these to the chapter's launch plans, so what the
//! `.cu` file states and what the code launches cannot drift apart.

const ENTRY: &str = "extern \"C\" __global__ void ";

/// Every `extern "C" __global__ void` entry point of `source`, in the
/// order of the file: where its declaration starts, its name, and the text
/// of its `__launch_bounds__(..)`, if it states one.
fn entries(source: &str) -> impl Iterator<Item = (usize, &str, Option<&str>)> {
    source.match_indices(ENTRY).filter_map(|(at, _)| {
        let mut rest = &source[at + ENTRY.len()..];
        let mut bounds = None;
        if let Some(after) = rest.strip_prefix("__launch_bounds__(") {
            let close = after.find(')')?;
            bounds = Some(&after[..close]);
            rest = after[close + 1..].trim_start();
        }
        let name = &rest[..rest.find('(')?];
        Some((at, name, bounds))
    })
}

/// Where `function`'s declaration starts in `source`, if `source` declares
/// it as an `extern "C" __global__ void` entry point (with or without
/// `__launch_bounds__(..)` before its name), and the bounds' text.
fn entry<'s>(source: &'s str, function: &str) -> Option<(usize, Option<&'s str>)> {
    entries(source).find(|(_, name, _)| *name == function).map(|(at, _, bounds)| (at, bounds))
}

/// The name of every `extern "C" __global__ void` entry point `source`
/// declares, in the order of the file.
pub fn entry_points(source: &str) -> Vec<&str> {
    entries(source).map(|(_, name, _)| name).collect()
}

/// Whether `source` declares `function` as an `extern "C" __global__ void`
/// entry point, with or without `__launch_bounds__(..)` before its name.
pub fn declares(source: &str, function: &str) -> bool {
    entry(source, function).is_some()
}

/// The most threads per block `function`'s `__launch_bounds__(N[, M])`
/// allows, `N`; `None` when it states none (or is not declared).
pub fn launch_bounds(source: &str, function: &str) -> Option<u32> {
    let (_, bounds) = entry(source, function)?;
    bounds?.split(',').next()?.trim().parse().ok()
}

/// The comment paragraph of version `number` above `function`: the run of
/// `//` lines that starts with `// v<number>` (before the declaration,
/// with helper functions possibly in between), joined into one line.
pub fn version_comment(source: &str, number: usize, function: &str) -> Option<String> {
    let (at, _) = entry(source, function)?;
    let before: Vec<&str> = source[..at].lines().collect();
    let label = format!("// v{number}");
    let start =
        before.iter().rposition(|l| l.strip_prefix(&label).is_some_and(|rest| rest.starts_with([':', ' ', '('])))?;
    let words: Vec<&str> =
        before[start..].iter().take_while(|l| l.starts_with("//")).map(|l| l.trim_start_matches('/').trim()).collect();
    Some(words.join(" "))
}

/// Why version `number` exists, in the `.cu` file's own words: the first
/// sentence of its comment ([`version_comment`]), without a leading
/// `vN: ` label.
pub fn version_reason(source: &str, number: usize, function: &str) -> Option<String> {
    let comment = version_comment(source, number, function)?;
    let label = format!("v{number}: ");
    let text = comment.strip_prefix(&label).unwrap_or(&comment);
    let end = text.match_indices(". ").map(|(i, _)| i + 1).next().unwrap_or(text.len());
    Some(text[..end].trim().to_string())
}

/// The `blockDim = (x, y)` a version's comment states for its launch, if
/// it states one.
pub fn stated_block(comment: &str) -> Option<(u32, u32)> {
    let after = comment.split("blockDim = (").nth(1)?;
    let (x, rest) = after.split_once(',')?;
    let y = rest.split(')').next()?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
// ---- How fast can it go ----
// v1: one pass. Launch blockDim = (32, 8).
extern \"C\" __global__ void __launch_bounds__(256) k_v1(float* o) { }

// v2 (slower than v1, 2.5 ms against 1.95: kept): v1 with a twist: more
// in flight. Then more.
// Launch: blockDim = (16, 16).

__device__ int helper() { return 1; }

extern \"C\" __global__ void __launch_bounds__(1024, 2) k_v2(float* o) { }
extern \"C\" __global__ void plain(float* o) { }
";

    #[test]
    fn entry_points_are_found_with_or_without_launch_bounds() {
        let src =
            "extern \"C\" __global__ void a(int x)\nextern \"C\" __global__ void __launch_bounds__(256, 4) b_v1(int)";
        assert!(declares(src, "a") && declares(src, "b_v1"));
        assert!(!declares(src, "b") && !declares(src, "c"));
        assert_eq!(entry_points(src), ["a", "b_v1"]);
        assert_eq!(entry_points(SOURCE), ["k_v1", "k_v2", "plain"]);
        assert_eq!(
            (launch_bounds(src, "b_v1"), launch_bounds(src, "a"), launch_bounds(src, "c")),
            (Some(256), None, None)
        );
        assert_eq!((launch_bounds(SOURCE, "k_v1"), launch_bounds(SOURCE, "k_v2")), (Some(256), Some(1024)));
    }

    #[test]
    fn a_versions_reason_is_the_first_sentence_of_its_comment() {
        assert_eq!(version_reason(SOURCE, 1, "k_v1").as_deref(), Some("one pass."));
        assert_eq!(
            version_reason(SOURCE, 2, "k_v2").as_deref(),
            Some("v2 (slower than v1, 2.5 ms against 1.95: kept): v1 with a twist: more in flight.")
        );
        let comment = version_comment(SOURCE, 2, "k_v2").unwrap();
        assert!(comment.ends_with("Then more. Launch: blockDim = (16, 16)."), "{comment}");
        assert_eq!(stated_block(&comment), Some((16, 16)));
        assert_eq!(stated_block(&version_comment(SOURCE, 1, "k_v1").unwrap()), Some((32, 8)));
        // No `// v3` comment, and none above a kernel that is not declared.
        assert_eq!(version_comment(SOURCE, 3, "k_v2"), None);
        assert_eq!(version_comment(SOURCE, 1, "k_v9"), None);
        assert_eq!(stated_block("no launch here"), None);
    }
}
