//! Diagnostics for bad input files, rendered the way compilers do.
//!
//! The loaders in [`crate::io`] never print: they return an [`InputError`]
//! holding the file name, its text and byte ranges for what is wrong (a primary
//! label and, for things like duplicate ids or colliding fixed offsets, the
//! other place involved). Only the command layer renders it, with
//! `codespan-reporting`, as `error: …` followed by `┌─ file:line:col`, the
//! source line and a caret — the shape of the cranelift verifier and ISLE
//! errors the architecture notes point to (ARCHITECTURE.md, trait 11).

use std::io::IsTerminal;
use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{
    self,
    termcolor::{ColorChoice, StandardStream},
};

/// One problem with an input file: where it is and what is wrong (boxed: it
/// travels in `Result`s and is rarely built).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError(Box<Detail>);

/// The contents of an [`InputError`].
#[derive(Clone, Debug, PartialEq, Eq)]
struct Detail {
    /// The file name as the user gave it.
    pub path: String,
    /// The file's text (empty when it could not be read).
    pub source: String,
    /// What is wrong, one sentence.
    pub message: String,
    /// The byte range the message is about, with a short label.
    pub primary: Option<(Range<usize>, String)>,
    /// Other places involved (the first occurrence of a duplicate id, ...).
    pub secondary: Vec<(Range<usize>, String)>,
    /// Extra hints printed after the snippet.
    pub notes: Vec<String>,
}

impl InputError {
    /// An error about the whole file (no position), e.g. it cannot be read.
    pub fn whole_file(path: &str, message: impl Into<String>) -> InputError {
        InputError(Box::new(Detail {
            path: path.to_string(),
            source: String::new(),
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            notes: Vec::new(),
        }))
    }

    /// An error at a byte range of `source`.
    pub fn at(
        path: &str,
        source: &str,
        span: Range<usize>,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> InputError {
        InputError(Box::new(Detail {
            path: path.to_string(),
            source: source.to_string(),
            message: message.into(),
            primary: Some((clamp(source, span), label.into())),
            secondary: Vec::new(),
            notes: Vec::new(),
        }))
    }

    /// What is wrong, one sentence (no position).
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Adds another place involved (builder style).
    pub fn with_secondary(mut self, span: Range<usize>, label: impl Into<String>) -> InputError {
        let span = clamp(&self.0.source, span);
        self.0.secondary.push((span, label.into()));
        self
    }

    /// Adds a note (builder style).
    pub fn with_note(mut self, note: impl Into<String>) -> InputError {
        self.0.notes.push(note.into());
        self
    }

    /// Writes the diagnostic to `out`, coloured when `color` is set.
    fn emit(&self, out: &mut dyn term::termcolor::WriteColor) -> std::io::Result<()> {
        let d = &self.0;
        let Some((span, label)) = &d.primary else {
            writeln!(out, "error: {}: {}", d.path, d.message)?;
            for n in &d.notes {
                writeln!(out, "  = note: {n}")?;
            }
            return Ok(());
        };
        let file = SimpleFile::new(d.path.as_str(), d.source.as_str());
        let mut labels = vec![Label::primary((), span.clone()).with_message(label)];
        labels.extend(
            d.secondary
                .iter()
                .map(|(r, l)| Label::secondary((), r.clone()).with_message(l)),
        );
        let diag = Diagnostic::error()
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(d.notes.clone());
        term::emit(out, &term::Config::default(), &file, &diag)
            .map_err(|e| std::io::Error::other(e.to_string()))
    }

    /// The diagnostic as plain text (no colour), as [`InputError::print`] shows it.
    #[cfg(test)]
    pub fn render(&self) -> String {
        let mut out = term::termcolor::NoColor::new(Vec::new());
        // Writing to a Vec cannot fail.
        let _ = self.emit(&mut out);
        String::from_utf8_lossy(&out.into_inner()).into_owned()
    }

    /// Prints the diagnostic on stderr (coloured when stderr is a terminal).
    pub fn print(&self) {
        let stream = StandardStream::stderr(color_choice());
        let mut lock = stream.lock();
        if self.emit(&mut lock).is_err() {
            eprintln!("error: {}: {}", self.0.path, self.0.message);
        }
    }
}

/// Prints a one-line error that is not about a position in a file.
pub fn error(message: impl std::fmt::Display) {
    eprintln!("error: {message}");
}

fn color_choice() -> ColorChoice {
    if std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    }
}

/// Shrinks `span` to lie inside `source` on character boundaries.
fn clamp(source: &str, span: Range<usize>) -> Range<usize> {
    let fix = |mut i: usize| {
        i = i.min(source.len());
        while !source.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (s, e) = (fix(span.start), fix(span.end));
    s..e.max(s)
}

/// Byte offset of 1-based (line, column) in `source` (clamped to the text).
pub fn offset_of(source: &str, line: usize, col: usize) -> usize {
    let mut start = 0usize;
    for _ in 1..line {
        match source[start..].find('\n') {
            Some(p) => start += p + 1,
            None => return source.len(),
        }
    }
    let line_end = source[start..]
        .find('\n')
        .map_or(source.len(), |p| start + p);
    (start + col.saturating_sub(1)).min(line_end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1-based (line, column) of byte `pos` in `source`.
    fn line_col(source: &str, pos: usize) -> (usize, usize) {
        let before = &source.as_bytes()[..pos];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let col = pos
            - before
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1)
            + 1;
        (line, col)
    }

    #[test]
    fn line_col_round_trips() {
        let src = "ab\ncde\n\nf";
        for pos in 0..src.len() {
            let (l, c) = line_col(src, pos);
            assert_eq!(offset_of(src, l, c), pos, "pos {pos}");
        }
        assert_eq!(line_col(src, 4), (2, 2));
    }

    #[test]
    fn render_names_file_line_and_column() {
        let src = "id,lower,upper,size\na,0,2,x\n";
        let e = InputError::at("t.csv", src, 26..27, "bad size", "not an integer");
        let text = e.render();
        assert!(text.contains("error: bad size"), "{text}");
        assert!(text.contains("t.csv:2:7"), "{text}");
        let w = InputError::whole_file("gone.csv", "cannot read");
        assert_eq!(w.render(), "error: gone.csv: cannot read\n");
    }
}
