//! Diagnostics with byte spans, and a source map that renders them the way MLIR tools do:
//! `file:line:col: error: message`, then the source line and a caret under the column.
//!
//! The library never prints: parsers and verifiers return [`Diagnostic`] values and the
//! CLI renders them through [`SourceMap::render`] (ARCHITECTURE.md trait 11, after the
//! cranelift verifier's collected errors).

use std::fmt;

/// A half-open byte range `[start, end)` into one source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span covering `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: clamp(start),
            end: clamp(end.max(start)),
        }
    }
    /// An empty span at `pos`.
    pub fn at(pos: usize) -> Span {
        Span::new(pos, pos)
    }
}

fn clamp(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// A note attached to a diagnostic, optionally pointing at its own span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Where the note points, if anywhere.
    pub span: Option<Span>,
    /// The note's text.
    pub message: String,
}

/// One error with a position and optional notes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Diagnostic {
    /// Where the error is.
    pub span: Span,
    /// What went wrong.
    pub message: String,
    /// Extra context (e.g. "prior use here").
    pub notes: Vec<Note>,
}

impl Diagnostic {
    /// A diagnostic at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            span,
            message: message.into(),
            notes: Vec::new(),
        }
    }
    /// Adds a note.
    pub fn with_note(mut self, span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        self.notes.push(Note {
            span,
            message: message.into(),
        });
        self
    }
}

/// A named source text with a line index, for turning byte offsets into `line:col`.
#[derive(Clone, Debug)]
pub struct SourceMap {
    name: String,
    text: String,
    /// Byte offsets where lines start, built on the first position query: a run that
    /// reports nothing never scans the text (or holds 8 bytes per line) for it.
    line_starts: std::sync::OnceLock<Vec<usize>>,
}

impl SourceMap {
    /// Indexes `text` under the file name `name`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceMap {
        SourceMap {
            name: name.into(),
            text: text.into(),
            line_starts: std::sync::OnceLock::new(),
        }
    }
    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            let mut v = vec![0];
            v.extend(
                self.text
                    .bytes()
                    .enumerate()
                    .filter(|&(_, b)| b == b'\n')
                    .map(|(i, _)| i + 1),
            );
            v
        })
    }
    /// The source text.
    pub fn text(&self) -> &str {
        &self.text
    }
    /// The file name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// 1-based line and byte column of offset `pos`.
    pub fn line_col(&self, pos: u32) -> (usize, usize) {
        let pos = (pos as usize).min(self.text.len());
        let line = match self.line_starts().binary_search(&pos) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        (line + 1, pos - self.line_starts()[line] + 1)
    }
    fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts()[line - 1];
        let end = self
            .line_starts()
            .get(line)
            .map_or(self.text.len(), |e| e - 1);
        let bytes = &self.text.as_bytes()[start..end.max(start)];
        std::str::from_utf8(bytes)
            .unwrap_or("")
            .trim_end_matches('\r')
    }
    fn render_one(&self, out: &mut String, span: Span, kind: &str, message: &str) {
        use fmt::Write;
        let (line, col) = self.line_col(span.start);
        let _ = writeln!(out, "{}:{}:{}: {}: {}", self.name, line, col, kind, message);
        let text = self.line_text(line);
        let _ = writeln!(out, "{text}");
        let pad: String = text
            .bytes()
            .take(col.saturating_sub(1))
            .map(|b| if b == b'\t' { '\t' } else { ' ' })
            .collect();
        let _ = writeln!(out, "{pad}^");
    }
    /// Renders `file:line:col: error: msg`, the source line and a caret, then the notes.
    pub fn render(&self, d: &Diagnostic) -> String {
        let mut out = String::new();
        self.render_one(&mut out, d.span, "error", &d.message);
        for n in &d.notes {
            match n.span {
                Some(s) => self.render_one(&mut out, s, "note", &n.message),
                None => {
                    out.push_str("note: ");
                    out.push_str(&n.message);
                    out.push('\n');
                }
            }
        }
        out
    }
}
