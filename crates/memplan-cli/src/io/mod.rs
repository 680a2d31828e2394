//! Reading problems from files and writing plans back.
//!
//! Two formats are understood, chosen by extension (`.json`; anything else is
//! read as CSV):
//!
//! * **CSV**, the MiniMalloc convention the shared benchmarks use (Moffitt,
//!   "MiniMalloc", ASPLOS 2023): a header naming the columns, any order,
//!   `id,lower,upper,size` required and `alignment`, `offset`, `space`
//!   optional; other columns are kept and copied to the output. A buffer lives
//!   over the half-open interval `[lower, upper)`; a non-empty `offset` cell
//!   fixes the buffer at that offset. Ids may be any string. See [`csv`].
//! * **JSON**, for richer problems: several live intervals per buffer (holes),
//!   memory spaces, alignments, fixed offsets and a capacity. See [`json`] for
//!   the schema.
//!
//! Loading does all the checking a file needs before planning: syntax, types,
//! missing columns or fields, duplicate ids, and then
//! [`memplan_core::Problem::validate`], whose [`ProblemError`] (which speaks of
//! buffer indices) is mapped back to the file's ids and byte ranges. Every
//! failure is an [`InputError`] that names the file, line and column.

pub mod csv;
pub mod json;

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use memplan_core::{bounds, BufferId, CheckError, Plan, Problem, ProblemError};

use crate::diag::InputError;

/// Which of the two formats a file is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// MiniMalloc-style CSV.
    Csv,
    /// The JSON schema of [`json`].
    Json,
}

impl Format {
    /// The format a path's extension asks for (`.json` is JSON, anything else CSV).
    pub fn of_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Csv,
        }
    }
}

/// Where one buffer was written in its file: the whole record and its fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The byte range of the buffer's row (CSV) or object (JSON).
    pub record: Range<usize>,
    /// The byte range of each field, by column / key name.
    pub fields: BTreeMap<String, Range<usize>>,
}

impl Origin {
    /// The range of the first of `names` the record has, else the whole record.
    pub fn field(&self, names: &[&str]) -> Range<usize> {
        names
            .iter()
            .find_map(|n| self.fields.get(*n).cloned())
            .unwrap_or_else(|| self.record.clone())
    }
}

/// How the file's own text is kept so that the plan can be written in its shape.
#[derive(Clone, Debug)]
pub enum Original {
    /// The CSV header and rows.
    Csv(csv::Table),
    /// The parsed JSON document.
    Json(json::ProblemFile),
}

/// A problem read from a file, with what is needed to talk about it.
#[derive(Clone, Debug)]
pub struct LoadedProblem {
    /// The path as the user gave it.
    pub path: String,
    /// The file's text.
    pub source: String,
    /// The problem to plan.
    pub problem: Problem,
    /// The file's id of every buffer (`ids[i]` is buffer `i`).
    pub ids: Vec<String>,
    /// Where every buffer was written.
    pub origins: Vec<Origin>,
    /// Where the capacity was written, if the file gives one.
    pub capacity_span: Option<Range<usize>>,
    /// The file's own shape, for writing the plan back.
    pub original: Original,
}

/// Reads and checks a problem file (CSV or JSON by extension).
pub fn load(path: &Path) -> Result<LoadedProblem, InputError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| InputError::whole_file(&name, format!("cannot read the file: {e}")))?;
    let source = match String::from_utf8(bytes) {
        // A byte-order mark (spreadsheets write one) is not part of the header.
        Ok(s) => match s.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => s,
        },
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            return Err(InputError::at(
                &name,
                &text,
                at..at + 1,
                "the file is not valid UTF-8",
                "invalid byte here",
            ));
        }
    };
    parse(&name, source, Format::of_path(path))
}

/// Parses and checks a problem from text.
pub fn parse(name: &str, source: String, format: Format) -> Result<LoadedProblem, InputError> {
    let loaded = match format {
        Format::Csv => csv::parse(name, source)?,
        Format::Json => json::parse(name, source)?,
    };
    loaded.check_duplicate_ids()?;
    loaded
        .problem
        .validate()
        .map_err(|e| loaded.problem_error(&e))?;
    Ok(loaded)
}

impl LoadedProblem {
    fn check_duplicate_ids(&self) -> Result<(), InputError> {
        let mut first: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, id) in self.ids.iter().enumerate() {
            if let Some(&j) = first.get(id.as_str()) {
                return Err(InputError::at(
                    &self.path,
                    &self.source,
                    self.origins[i].field(&["id"]),
                    format!("duplicate buffer id `{id}`"),
                    "second use of the id",
                )
                .with_secondary(self.origins[j].field(&["id"]), "first used here"));
            }
            first.insert(id, i);
        }
        Ok(())
    }

    /// The file's id of a buffer.
    pub fn id(&self, b: BufferId) -> &str {
        self.ids.get(b.index()).map_or("?", String::as_str)
    }

    fn at(&self, b: BufferId, fields: &[&str], message: String, label: String) -> InputError {
        let span = self
            .origins
            .get(b.index())
            .map_or(0..0, |o| o.field(fields));
        InputError::at(&self.path, &self.source, span, message, label)
    }

    /// Turns a core [`ProblemError`] (buffer indices) into a diagnostic on the file.
    pub fn problem_error(&self, e: &ProblemError) -> InputError {
        let buf = |b: BufferId| &self.problem.buffers[b.index()];
        match *e {
            ProblemError::ZeroSize(b) => self.at(
                b,
                &["size"],
                format!("buffer `{}` has size 0", self.id(b)),
                "a buffer needs at least one byte".into(),
            ),
            ProblemError::BadAlign(b, a) => self.at(
                b,
                &["alignment"],
                format!(
                    "buffer `{}` has alignment {a}, which is not a power of two",
                    self.id(b)
                ),
                "expected 1, 2, 4, 8, ...".into(),
            ),
            ProblemError::EmptyLifetime(b) => {
                let detail = match buf(b).live.iter().find(|i| i.is_empty()) {
                    Some(i) => format!(
                        "[{}, {}) is empty: `upper` must be greater than `lower`",
                        i.start, i.end
                    ),
                    None => "no live interval".to_string(),
                };
                self.at(
                    b,
                    &["upper", "live"],
                    format!("buffer `{}` has an empty lifetime", self.id(b)),
                    detail,
                )
            }
            ProblemError::UnsortedLifetime(b) => self.at(
                b,
                &["live"],
                format!(
                    "buffer `{}` has live intervals that are not sorted and disjoint",
                    self.id(b)
                ),
                "here".into(),
            ),
            ProblemError::MisalignedFixed(b, off, a) => self.at(
                b,
                &["offset"],
                format!(
                    "buffer `{}` is fixed at offset {off}, which is not a multiple of its alignment {a}",
                    self.id(b)
                ),
                "misaligned fixed offset".into(),
            ),
            ProblemError::FixedCollision(a, b) => {
                let range = |x: BufferId| {
                    let o = buf(x).fixed_offset.unwrap_or(0);
                    format!("[{}, {})", o, o.saturating_add(buf(x).size))
                };
                self.at(
                    b,
                    &["offset"],
                    format!(
                        "fixed buffers `{}` and `{}` are live at the same time and overlap in memory",
                        self.id(a),
                        self.id(b)
                    ),
                    format!("`{}` occupies {}", self.id(b), range(b)),
                )
                .with_secondary(
                    self.origins[a.index()].field(&["offset"]),
                    format!("`{}` occupies {}", self.id(a), range(a)),
                )
            }
            ProblemError::Overflow(b) => self.at(
                b,
                &["offset"],
                format!("buffer `{}`: offset + size overflows 64 bits", self.id(b)),
                "too large".into(),
            ),
            ProblemError::LiveTooLarge {
                space,
                buffer,
                tick,
                bytes,
            } => self
                .at(
                    buffer,
                    &["size"],
                    format!(
                        "the buffers live at tick {tick} in memory space {space} need at least {bytes} bytes together, more than a 64-bit offset can address"
                    ),
                    format!("`{}` starts here and takes the live total past 2^64 - 1", self.id(buffer)),
                )
                .with_note("no plan exists: the largest arena a 64-bit offset can describe is 2^64 - 1 bytes"),
            ProblemError::TotalTooLarge {
                space,
                buffer,
                bytes,
            } => self
                .at(
                    buffer,
                    &["size"],
                    format!(
                        "memory space {space} totals {bytes} bytes (sizes padded to its largest alignment, plus the highest fixed top), at least 2^63"
                    ),
                    format!("the running total reaches 2^63 at `{}`", self.id(buffer)),
                )
                .with_note("memplan plans arenas below 2^63 bytes (half the 64-bit range), so that no planner's offsets can overflow"),
        }
    }

    /// Rejects a capacity given in the file that is below the lower bound of some space.
    pub fn check_file_capacity(&self) -> Result<(), InputError> {
        let Some(cap) = self.problem.capacity else {
            return Ok(());
        };
        for (space, lb) in bounds::max_load_per_space(&self.problem) {
            if lb > cap {
                let span = self.capacity_span.clone().unwrap_or(0..0);
                return Err(InputError::at(
                    &self.path,
                    &self.source,
                    span,
                    format!("capacity {cap} is below the lower bound {lb} of memory space {}", space.0),
                    "no plan can fit in this",
                )
                .with_note("the lower bound is the largest total size live at one moment (fixed buffers included)"));
            }
        }
        Ok(())
    }

    /// Writes the plan in `format`: CSV is the input rows (or, for JSON input,
    /// one row per buffer) with an `offset` column; JSON is the problem with
    /// every offset filled in and `summary` under `"plan"`.
    pub fn write_plan(
        &self,
        plan: &Plan,
        summary: serde_json::Value,
        format: Format,
        out: &mut dyn std::io::Write,
    ) -> Result<(), String> {
        match (&self.original, format) {
            (Original::Csv(table), Format::Csv) => table.write_with_offsets(&plan.offsets, out),
            (Original::Json(_), Format::Csv) => csv::write_problem(self, &plan.offsets, out),
            (Original::Json(file), Format::Json) => {
                file.write_with_offsets(&plan.offsets, summary, out)
            }
            (Original::Csv(_), Format::Json) => {
                json::ProblemFile::from_loaded(self).write_with_offsets(&plan.offsets, summary, out)
            }
        }
    }
}

impl LoadedProblem {
    /// Describes a checker failure with the file's ids instead of buffer indices.
    pub fn check_error(&self, e: &CheckError) -> String {
        match *e {
            CheckError::Misaligned(b, off, a) => format!(
                "buffer `{}` is placed at offset {off}, which breaks its alignment {a}",
                self.id(b)
            ),
            CheckError::FixedMoved(b, fixed, off) => format!(
                "buffer `{}` is fixed at offset {fixed} but was placed at {off}",
                self.id(b)
            ),
            CheckError::Overflow(b) => {
                format!("buffer `{}`: offset + size overflows 64 bits", self.id(b))
            }
            CheckError::OverCapacity(b, top, cap) => format!(
                "buffer `{}` ends at {top}, above the capacity {cap}",
                self.id(b)
            ),
            CheckError::Overlap { a, b, tick } => format!(
                "buffers `{}` and `{}` are both live at tick {tick} and overlap in memory",
                self.id(a),
                self.id(b)
            ),
            CheckError::WrongLength { .. } | CheckError::WrongPeak { .. } => e.to_string(),
        }
    }
}
