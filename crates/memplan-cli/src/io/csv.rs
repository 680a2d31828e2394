//! The MiniMalloc CSV convention (google/minimalloc, Moffitt ASPLOS 2023).
//!
//! ```text
//! id,lower,upper,size,alignment,offset
//! x,0,3,4096,,
//! w,0,9,256,64,1024
//! ```
//!
//! Columns are found by their header name, in any order:
//!
//! | column      | required | meaning                                                   |
//! |-------------|----------|-----------------------------------------------------------|
//! | `id`        | yes      | any string, unique in the file                            |
//! | `lower`     | yes      | first tick the buffer is live                             |
//! | `upper`     | yes      | first tick it is dead again: the lifetime is `[lower, upper)` |
//! | `size`      | yes      | bytes, at least 1                                         |
//! | `alignment` | no       | the offset must be a multiple of it (a power of two; empty = 1) |
//! | `offset`    | no       | a non-empty cell fixes the buffer at that offset          |
//! | `space`     | no       | memory space number (empty = 0); spaces never share bytes |
//!
//! Other columns are ignored and copied to the output. Lines starting with `#`
//! are comments; spaces around cells are trimmed. A plan is written as the same
//! rows plus (or with a filled-in) `offset` column, which `check_plan.py` in
//! the shared benchmarks reads.

use std::collections::BTreeMap;
use std::ops::Range;

use memplan_core::{Buffer, MemSpace, Problem};

use super::{LoadedProblem, Origin, Original};
use crate::diag::InputError;

/// Columns a CSV problem must have.
const REQUIRED: [&str; 4] = ["id", "lower", "upper", "size"];

/// The CSV as read: header and rows, kept to write the plan in the same shape.
#[derive(Clone, Debug)]
pub struct Table {
    headers: csv::StringRecord,
    rows: Vec<csv::StringRecord>,
    offset_col: Option<usize>,
}

/// Parses a CSV problem (not yet validated; see [`super::parse`]).
pub fn parse(name: &str, source: String) -> Result<LoadedProblem, InputError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(source.as_bytes());
    let err_at = |span: Range<usize>, msg: String, label: &str| {
        InputError::at(name, &source, span, msg, label)
    };
    let headers = match rdr.headers() {
        Ok(h) => h.clone(),
        Err(e) => return Err(csv_error(name, &source, &e)),
    };
    let header_start = headers.position().map_or(0, |p| p.byte() as usize);
    let (header_spans, header_span) = field_spans(&source, header_start);
    if headers.is_empty() || (headers.len() == 1 && headers[0].is_empty()) {
        return Err(err_at(
            header_span,
            "empty file: expected a header such as `id,lower,upper,size`".into(),
            "no header",
        ));
    }
    let mut cols: BTreeMap<String, usize> = BTreeMap::new();
    for (k, h) in headers.iter().enumerate() {
        let key = h.to_ascii_lowercase();
        if let Some(&first) = cols.get(&key) {
            let span = header_spans.get(k).cloned().unwrap_or(header_span.clone());
            let first_span = header_spans.get(first).cloned().unwrap_or(0..0);
            return Err(
                err_at(span, format!("column `{h}` appears twice"), "again here")
                    .with_secondary(first_span, "first here"),
            );
        }
        cols.insert(key, k);
    }
    for want in REQUIRED {
        if !cols.contains_key(want) {
            let found: Vec<&str> = headers.iter().collect();
            return Err(err_at(
                header_span,
                format!("missing column `{want}`"),
                "this header",
            )
            .with_note(format!(
                "found columns: {}; required: {}",
                found.join(", "),
                REQUIRED.join(", ")
            )));
        }
    }
    let col = |n: &str| cols.get(n).copied();
    let (c_id, c_lower, c_upper, c_size) = (cols["id"], cols["lower"], cols["upper"], cols["size"]);
    let (c_align, c_offset, c_space) = (col("alignment"), col("offset"), col("space"));

    let mut buffers = Vec::new();
    let mut ids = Vec::new();
    let mut origins = Vec::new();
    let mut rows = Vec::new();
    let mut rec = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(csv_error(name, &source, &e)),
        }
        let start = rec.position().map_or(0, |p| p.byte() as usize);
        let (spans, record) = field_spans(&source, start);
        let origin = Origin {
            fields: cols
                .iter()
                .filter_map(|(n, &k)| spans.get(k).map(|s| (n.clone(), s.clone())))
                .collect(),
            record,
        };
        let cell = |k: usize| rec.get(k).unwrap_or("");
        let number = |k: usize, column: &str, default: Option<u64>| -> Result<u64, InputError> {
            let text = cell(k);
            let span = origin.field(&[column]);
            if text.is_empty() {
                return default.ok_or_else(|| {
                    err_at(
                        span,
                        format!("column `{column}` is empty"),
                        "expected an integer",
                    )
                });
            }
            text.parse::<u64>().map_err(|_| {
                err_at(
                    span,
                    format!("column `{column}` must be a non-negative integer, found `{text}`"),
                    "not a non-negative integer",
                )
            })
        };
        let id = cell(c_id);
        if id.is_empty() {
            return Err(err_at(
                origin.field(&["id"]),
                "empty buffer id".into(),
                "id expected",
            ));
        }
        let lower = number(c_lower, "lower", None)?;
        let upper = number(c_upper, "upper", None)?;
        let size = number(c_size, "size", None)?;
        let align = match c_align {
            Some(k) => number(k, "alignment", Some(1))?,
            None => 1,
        };
        let fixed = match c_offset {
            Some(k) if !cell(k).is_empty() => Some(number(k, "offset", None)?),
            _ => None,
        };
        let space = match c_space {
            Some(k) => {
                let s = number(k, "space", Some(0))?;
                u32::try_from(s).map_err(|_| {
                    err_at(
                        origin.field(&["space"]),
                        format!("space {s} is too large"),
                        "at most 2^32-1",
                    )
                })?
            }
            None => 0,
        };
        let mut b = Buffer::new(size, lower, upper)
            .with_align(align)
            .in_space(MemSpace(space));
        b.fixed_offset = fixed;
        buffers.push(b);
        ids.push(id.to_string());
        origins.push(origin);
        rows.push(rec.clone());
    }
    Ok(LoadedProblem {
        path: name.to_string(),
        problem: Problem::new(buffers),
        ids,
        origins,
        capacity_span: None,
        original: Original::Csv(Table {
            headers,
            rows,
            offset_col: c_offset,
        }),
        source,
    })
}

fn csv_error(name: &str, source: &str, e: &csv::Error) -> InputError {
    let at = e.position().map_or(0, |p| p.byte() as usize);
    let (_, record) = field_spans(source, at);
    match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => InputError::at(
            name,
            source,
            record,
            format!("this row has {len} fields but the header has {expected_len}"),
            "wrong number of fields",
        ),
        _ => InputError::at(name, source, record, format!("malformed CSV: {e}"), "here"),
    }
}

/// Byte ranges of the (trimmed) fields of the CSV record starting at `start`,
/// and of the whole record (without its line break). Quotes are honoured.
fn field_spans(source: &str, start: usize) -> (Vec<Range<usize>>, Range<usize>) {
    let bytes = source.as_bytes();
    // The csv crate may report a record as starting on the `\n` of a `\r\n`.
    let mut start = start.min(bytes.len());
    while start < bytes.len() && matches!(bytes[start], b'\r' | b'\n') {
        start += 1;
    }
    let mut spans = Vec::new();
    let (mut i, mut field_start, mut quoted) = (start, start, false);
    let trim = |mut a: usize, mut b: usize| {
        while a < b && bytes[a].is_ascii_whitespace() {
            a += 1;
        }
        while b > a && bytes[b - 1].is_ascii_whitespace() {
            b -= 1;
        }
        a..b
    };
    while i < bytes.len() {
        match bytes[i] {
            b'"' => quoted = !quoted,
            b',' if !quoted => {
                spans.push(trim(field_start, i));
                field_start = i + 1;
            }
            b'\n' | b'\r' if !quoted => break,
            _ => {}
        }
        i += 1;
    }
    spans.push(trim(field_start, i));
    (spans, start..i)
}

impl Table {
    /// Writes the rows with their `offset` cells set to `offsets`.
    pub fn write_with_offsets(
        &self,
        offsets: &[u64],
        out: &mut dyn std::io::Write,
    ) -> Result<(), String> {
        let mut w = csv::Writer::from_writer(out);
        let mut header = self.headers.clone();
        if self.offset_col.is_none() {
            header.push_field("offset");
        }
        w.write_record(&header).map_err(|e| e.to_string())?;
        for (row, off) in self.rows.iter().zip(offsets) {
            let off = off.to_string();
            let cells: Vec<&str> = match self.offset_col {
                Some(k) => row
                    .iter()
                    .enumerate()
                    .map(|(i, c)| if i == k { off.as_str() } else { c })
                    .collect(),
                None => row.iter().chain(std::iter::once(off.as_str())).collect(),
            };
            w.write_record(&cells).map_err(|e| e.to_string())?;
        }
        w.flush().map_err(|e| e.to_string())
    }
}

/// Writes any problem as CSV with offsets: `id,lower,upper,size,alignment[,space],offset`.
/// Fails for a buffer with holes, which one CSV row cannot describe.
pub fn write_problem(
    loaded: &LoadedProblem,
    offsets: &[u64],
    out: &mut dyn std::io::Write,
) -> Result<(), String> {
    let problem = &loaded.problem;
    if let Some(i) = problem.buffers.iter().position(|b| b.live.len() > 1) {
        return Err(format!(
            "buffer `{}` has {} live intervals, which one CSV row cannot hold; write the plan as JSON instead",
            loaded.ids[i],
            problem.buffers[i].live.len()
        ));
    }
    let spaces = problem.buffers.iter().any(|b| b.space.0 != 0);
    let mut w = csv::Writer::from_writer(out);
    let mut header = vec!["id", "lower", "upper", "size", "alignment"];
    if spaces {
        header.push("space");
    }
    header.push("offset");
    w.write_record(&header).map_err(|e| e.to_string())?;
    for ((b, id), off) in problem.buffers.iter().zip(&loaded.ids).zip(offsets) {
        let mut row = vec![
            id.clone(),
            b.start().to_string(),
            b.end().to_string(),
            b.size.to_string(),
            b.align.to_string(),
        ];
        if spaces {
            row.push(b.space.0.to_string());
        }
        row.push(off.to_string());
        w.write_record(&row).map_err(|e| e.to_string())?;
    }
    w.flush().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_spans_trim_and_quote() {
        let src = "a, b ,\"c,d\"\nnext";
        let (spans, rec) = field_spans(src, 0);
        let texts: Vec<&str> = spans.iter().map(|r| &src[r.clone()]).collect();
        assert_eq!(texts, vec!["a", "b", "\"c,d\""]);
        assert_eq!(&src[rec], "a, b ,\"c,d\"");
    }

    #[test]
    fn crlf_rows_point_at_their_own_line() {
        let src = "id,lower,upper,size\r\na,0,2,8\r\nb,1,3,x\r\n".to_string();
        let e = parse("t.csv", src).unwrap_err();
        assert!(e.render().contains("t.csv:3:7"), "{}", e.render());
    }

    #[test]
    fn columns_by_name_any_order_and_extra_columns_kept() {
        let src = "size,note,upper,id,lower,offset\n8,hi,4,x,0,\n8,,4,y,0,16\n".to_string();
        let p = parse("t.csv", src).unwrap();
        assert_eq!(p.ids, vec!["x", "y"]);
        assert_eq!(p.problem.buffers[0], Buffer::new(8, 0, 4));
        assert_eq!(p.problem.buffers[1].fixed_offset, Some(16));
        let mut out = Vec::new();
        let Original::Csv(t) = &p.original else {
            panic!()
        };
        t.write_with_offsets(&[0, 16], &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "size,note,upper,id,lower,offset\n8,hi,4,x,0,0\n8,,4,y,0,16\n"
        );
    }
}
