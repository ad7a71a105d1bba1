//! mdBook runs this as the `values` preprocessor (see `book.toml`): with
//! `supports RENDERER` it answers yes, otherwise it reads mdBook's
//! `[context, book]` JSON on stdin and writes the book back with every
//! `{{value NAME}}` replaced from `<book src>/values.txt`. With
//! `KTRAV_STUDENT_EDITION=1` it first leaves out every solution block
//! (the students' edition; see [`mdbook_values::drop_solutions`]).

use anyhow::{Context, Result};
use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_values::{drop_solutions, student_edition, substitute, Values, STUDENT_EDITION};

fn run() -> Result<()> {
    let (ctx, mut book): (_, Book) = mdbook_preprocessor::parse_input(std::io::stdin())?;
    let path = ctx.root.join(&ctx.config.book.src).join("values.txt");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let values = Values::parse(&text).with_context(|| format!("{}", path.display()))?;
    let mut failure = None;
    book.for_each_mut(|item| {
        if let (BookItem::Chapter(ch), None) = (item, &failure) {
            let students = student_edition(std::env::var(STUDENT_EDITION).ok().as_deref());
            let content = if students { drop_solutions(&ch.content) } else { Ok(ch.content.clone()) };
            match content.and_then(|c| substitute(&c, &values)) {
                Ok(text) => ch.content = text,
                Err(e) => {
                    let page = ch.source_path.as_ref().map_or(ch.name.clone(), |p| p.display().to_string());
                    failure = Some(e.context(format!("book page {page}")));
                }
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    serde_json::to_writer(std::io::stdout(), &book)?;
    Ok(())
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("supports") {
        return;
    }
    if let Err(e) = run() {
        eprintln!("mdbook-values: {e:#}");
        std::process::exit(1);
    }
}
