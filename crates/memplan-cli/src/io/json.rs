//! The JSON problem format, for what one CSV row cannot say: lifetimes with
//! holes, memory spaces, a capacity.
//!
//! ```json
//! {
//!   "capacity": 4096,
//!   "buffers": [
//!     { "id": "x",  "size": 1024, "lower": 0, "upper": 3 },
//!     { "id": "kv", "size": 512,  "live": [[0, 2], [6, 9]], "alignment": 64 },
//!     { "id": 7,    "size": 256,  "lower": 1, "upper": 4, "space": 3, "offset": 0 }
//!   ]
//! }
//! ```
//!
//! * `capacity` (optional): every arena must fit in this many bytes.
//! * `buffers`: one object per buffer, with
//!   * `id`: a string or a non-negative integer, unique in the file;
//!   * `size`: bytes, at least 1;
//!   * the lifetime, either `lower` and `upper` (live over the half-open
//!     `[lower, upper)`) or `live`, a list of `[start, end)` pairs: a buffer
//!     with holes. Overlapping or touching pairs are merged;
//!   * `alignment` (optional, default 1): a power of two the offset must be a multiple of;
//!   * `space` (optional, default 0): the memory space; buffers of different
//!     spaces never share bytes and each space has its own arena;
//!   * `offset` (optional): fixes the buffer at this offset.
//! * `plan` (optional, ignored on input): the summary `memplan plan` writes.
//!
//! Unknown keys are errors (a misspelt `aligment` must not be ignored). A plan
//! is written in the same schema with every `offset` filled in, so reading a
//! plan back fixes every buffer and `memplan plan plan.json --verify` re-checks it.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use memplan_core::{Buffer, Interval, MemSpace, Problem};
use serde::{Deserialize, Serialize};

use super::{LoadedProblem, Origin, Original};
use crate::diag::{offset_of, InputError};

/// A JSON problem file (the schema of this module).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProblemFile {
    /// Bytes every arena must fit in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<u64>,
    /// Summary of a plan (written by `memplan plan`, ignored on input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<serde_json::Value>,
    /// The buffers.
    pub buffers: Vec<BufferSpec>,
}

/// One buffer of a [`ProblemFile`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// A unique name.
    pub id: Id,
    /// Bytes.
    pub size: u64,
    /// First live tick (with `upper`; or use `live`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<u64>,
    /// First dead tick after `lower`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<u64>,
    /// Half-open live intervals `[start, end)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<Vec<[u64; 2]>>,
    /// Alignment of the offset (a power of two).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment: Option<u64>,
    /// Memory space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<u32>,
    /// Fixed offset (input) or placed offset (output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
}

/// A buffer id: a string or an integer, as the file wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Id {
    /// A string id.
    Text(String),
    /// An integer id.
    Number(u64),
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Text(s) => f.write_str(s),
            Id::Number(n) => write!(f, "{n}"),
        }
    }
}

impl Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Text(t) => s.serialize_str(t),
            Id::Number(n) => s.serialize_u64(*n),
        }
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Id;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a non-negative integer id")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Id, E> {
                Ok(Id::Text(v.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Id, E> {
                Ok(Id::Number(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// Parses a JSON problem (not yet validated; see [`super::parse`]).
pub fn parse(name: &str, source: String) -> Result<LoadedProblem, InputError> {
    let file: ProblemFile = match serde_json::from_str(&source) {
        Ok(f) => f,
        Err(e) => {
            let at = offset_of(&source, e.line(), e.column());
            let full = e.to_string();
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            let msg = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
            let label = match e.classify() {
                serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                    "invalid JSON"
                }
                _ => "does not match the problem schema",
            };
            return Err(InputError::at(name, &source, at..at + 1, msg, label));
        }
    };
    let located = locate(&source).unwrap_or_default();
    let empty = Origin::default();
    let mut buffers = Vec::with_capacity(file.buffers.len());
    let mut ids = Vec::with_capacity(file.buffers.len());
    let mut origins = Vec::with_capacity(file.buffers.len());
    for (k, spec) in file.buffers.iter().enumerate() {
        let origin = located
            .buffers
            .get(k)
            .cloned()
            .unwrap_or_else(|| empty.clone());
        let id = spec.id.to_string();
        let fail = |fields: &[&str], msg: String, label: &str| {
            Err(InputError::at(
                name,
                &source,
                origin.field(fields),
                msg,
                label,
            ))
        };
        let live = match (&spec.live, spec.lower, spec.upper) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return fail(
                    &["live"],
                    format!("buffer `{id}` gives both `live` and `lower`/`upper`"),
                    "give one or the other",
                )
            }
            (Some(list), None, None) => list.iter().map(|&[s, e]| Interval::new(s, e)).collect(),
            (None, Some(lo), Some(up)) => vec![Interval::new(lo, up)],
            (None, Some(_), None) => {
                return fail(
                    &["lower"],
                    format!("buffer `{id}` has `lower` but no `upper`"),
                    "`upper` missing",
                )
            }
            (None, None, Some(_)) => {
                return fail(
                    &["upper"],
                    format!("buffer `{id}` has `upper` but no `lower`"),
                    "`lower` missing",
                )
            }
            (None, None, None) => {
                return fail(
                    &[],
                    format!("buffer `{id}` has no lifetime: give `lower` and `upper`, or `live`"),
                    "lifetime missing",
                )
            }
        };
        let mut b = Buffer::new(spec.size, 0, 1)
            .with_align(spec.alignment.unwrap_or(1))
            .in_space(MemSpace(spec.space.unwrap_or(0)));
        // Empty intervals are kept as written so that validation reports them.
        b.live = if live.iter().any(Interval::is_empty) {
            live
        } else {
            memplan_core::problem::normalize_intervals(live)
        };
        b.fixed_offset = spec.offset;
        buffers.push(b);
        ids.push(id);
        origins.push(origin);
    }
    let mut problem = Problem::new(buffers);
    problem.capacity = file.capacity;
    Ok(LoadedProblem {
        path: name.to_string(),
        problem,
        ids,
        origins,
        capacity_span: located.top.get("capacity").cloned(),
        original: Original::Json(file),
        source,
    })
}

impl ProblemFile {
    /// The JSON form of a problem read from any format.
    pub fn from_loaded(loaded: &LoadedProblem) -> ProblemFile {
        let buffers = loaded
            .problem
            .buffers
            .iter()
            .zip(&loaded.ids)
            .map(|(b, id)| {
                let (lower, upper, live) = match b.live.as_slice() {
                    [one] => (Some(one.start), Some(one.end), None),
                    many => (
                        None,
                        None,
                        Some(many.iter().map(|i| [i.start, i.end]).collect()),
                    ),
                };
                BufferSpec {
                    id: Id::Text(id.clone()),
                    size: b.size,
                    lower,
                    upper,
                    live,
                    alignment: (b.align != 1).then_some(b.align),
                    space: (b.space.0 != 0).then_some(b.space.0),
                    offset: b.fixed_offset,
                }
            })
            .collect();
        ProblemFile {
            capacity: loaded.problem.capacity,
            plan: None,
            buffers,
        }
    }

    /// Writes this problem with every offset filled in and `summary` under `"plan"`.
    pub fn write_with_offsets(
        &self,
        offsets: &[u64],
        summary: serde_json::Value,
        out: &mut dyn std::io::Write,
    ) -> Result<(), String> {
        let mut file = self.clone();
        file.plan = Some(summary);
        for (b, &off) in file.buffers.iter_mut().zip(offsets) {
            b.offset = Some(off);
        }
        serde_json::to_writer_pretty(&mut *out, &file).map_err(|e| e.to_string())?;
        writeln!(out).map_err(|e| e.to_string())
    }
}

/// Byte ranges found by [`locate`].
#[derive(Debug, Default)]
struct Located {
    /// Top-level keys and their value ranges.
    top: BTreeMap<String, Range<usize>>,
    /// One origin per element of `buffers`.
    buffers: Vec<Origin>,
}

/// Finds where the top-level keys and each buffer object (and its keys) are.
/// Runs only on text serde_json accepted, so it may give up (`None`) on anything odd.
fn locate(source: &str) -> Option<Located> {
    let mut sc = Scanner {
        s: source.as_bytes(),
        pos: 0,
    };
    let mut out = Located::default();
    for (key, value) in sc.object()? {
        if key == "buffers" {
            let mut inner = Scanner {
                s: source.as_bytes(),
                pos: value.start,
            };
            for elem in inner.array()? {
                let mut obj = Scanner {
                    s: source.as_bytes(),
                    pos: elem.start,
                };
                let fields = obj.object().unwrap_or_default().into_iter().collect();
                out.buffers.push(Origin {
                    record: elem,
                    fields,
                });
            }
        }
        out.top.insert(key, value);
    }
    Some(out)
}

/// A minimal JSON skimmer that records byte ranges of values.
struct Scanner<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.s.get(self.pos) == Some(&c)).then(|| self.pos += 1)
    }

    /// Skips a string; returns its raw contents.
    fn string(&mut self) -> Option<String> {
        self.eat(b'"')?;
        let start = self.pos;
        while self.pos < self.s.len() {
            match self.s[self.pos] {
                b'\\' => self.pos += 2,
                b'"' => {
                    let raw = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
                    self.pos += 1;
                    return Some(raw);
                }
                _ => self.pos += 1,
            }
        }
        None
    }

    /// Skips one value; returns its range.
    fn value(&mut self) -> Option<Range<usize>> {
        self.ws();
        let start = self.pos;
        match *self.s.get(self.pos)? {
            b'"' => {
                self.string()?;
            }
            b'{' => {
                self.object()?;
            }
            b'[' => {
                self.array()?;
            }
            _ => {
                while self.pos < self.s.len()
                    && !matches!(self.s[self.pos], b',' | b'}' | b']')
                    && !self.s[self.pos].is_ascii_whitespace()
                {
                    self.pos += 1;
                }
            }
        }
        Some(start..self.pos)
    }

    /// Parses an object; returns each key with its value's range.
    fn object(&mut self) -> Option<Vec<(String, Range<usize>)>> {
        self.eat(b'{')?;
        let mut out = Vec::new();
        if self.eat(b'}').is_some() {
            return Some(out);
        }
        loop {
            let key = self.string()?;
            self.eat(b':')?;
            out.push((key, self.value()?));
            if self.eat(b',').is_none() {
                self.eat(b'}')?;
                return Some(out);
            }
        }
    }

    /// Parses an array; returns each element's range.
    fn array(&mut self) -> Option<Vec<Range<usize>>> {
        self.eat(b'[')?;
        let mut out = Vec::new();
        if self.eat(b']').is_some() {
            return Some(out);
        }
        loop {
            out.push(self.value()?);
            if self.eat(b',').is_none() {
                self.eat(b']')?;
                return Some(out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_finds_buffers_and_fields() {
        let src = r#"{ "capacity": 10, "buffers": [ {"id": "a", "size": 0}, {"id": 2, "live": [[0,1]]} ] }"#;
        let l = locate(src).unwrap();
        assert_eq!(&src[l.top["capacity"].clone()], "10");
        assert_eq!(l.buffers.len(), 2);
        assert_eq!(&src[l.buffers[0].fields["size"].clone()], "0");
        assert_eq!(&src[l.buffers[1].fields["live"].clone()], "[[0,1]]");
        assert_eq!(
            &src[l.buffers[1].record.clone()],
            r#"{"id": 2, "live": [[0,1]]}"#
        );
    }

    #[test]
    fn holes_spaces_and_numeric_ids() {
        let src = r#"{"buffers": [
            {"id": 1, "size": 8, "live": [[4, 6], [0, 2], [2, 3]], "space": 2, "alignment": 4},
            {"id": "b", "size": 8, "lower": 0, "upper": 9, "offset": 16}
        ]}"#;
        let p = parse("t.json", src.to_string()).unwrap();
        assert_eq!(p.ids, vec!["1", "b"]);
        let b = &p.problem.buffers[0];
        assert_eq!(b.live, vec![Interval::new(0, 3), Interval::new(4, 6)]);
        assert_eq!((b.space, b.align), (MemSpace(2), 4));
        assert_eq!(p.problem.buffers[1].fixed_offset, Some(16));
    }
}
