//! The DLTI dialect's data-layout specifications (`dlti.dl_spec = #dlti.dl_spec<...>`),
//! checked as MLIR 22 checks them: a repeated key anywhere, and, on the ops that carry a
//! data layout (`builtin.module`, `gpu.module`), every entry against what its key accepts
//! (builtin integer / float / index types, `!llvm.ptr`, `!llvm.struct`, the `dlti.*` names).
//!
//! memplan keeps `#dlti.*` attributes as their source text; this file reads the entries back
//! out of that text.

use crate::attrs::Attribute;
use crate::ir::{Module, OpId};
use crate::types::{Type, TypeKind};

/// The string keys MLIR 22's DLTI dialect knows (`dlti.` prefix left off).
const KNOWN_KEYS: &[&str] = &[
    "endianness",
    "default_memory_space",
    "alloca_memory_space",
    "program_memory_space",
    "global_memory_space",
    "mangling_mode",
    "stack_alignment",
    "function_pointer_alignment",
    "legal_int_widths",
];

/// The `dlti.dl_spec` attribute of `op`, checked (see the module docs).
pub fn verify_discardable_attrs(m: &Module, op: OpId) -> Result<(), String> {
    let d = m.op(op);
    let Some(Attribute::Opaque(text)) = d.attrs.get("dlti.dl_spec") else {
        return Ok(());
    };
    let Some(entries) = spec_entries(text) else {
        return Ok(());
    };
    let mut seen: Vec<String> = Vec::new();
    for (key, _, _) in &entries {
        let norm = match key {
            Key::Name(s) => format!("\"{s}\""),
            Key::Type(t) => t.to_string(),
        };
        if seen.contains(&norm) {
            return Err(format!("repeated DLTI key: {norm}"));
        }
        seen.push(norm);
    }
    if !matches!(d.name.as_str(), "builtin.module" | "gpu.module") {
        return Ok(());
    }
    for (key, value, entry) in &entries {
        match key {
            Key::Name(name) => verify_named(name, value)?,
            Key::Type(t) => verify_typed(t, value, entry)?,
        }
    }
    Ok(())
}

enum Key {
    Name(String),
    Type(Type),
}

/// `(key, value, entry text)` of every `#dlti.dl_entry<KEY, VALUE>` in a `#dlti.dl_spec<...>`;
/// `None` when the text is not in that form (an alias, say): nothing is checked then.
fn spec_entries(text: &str) -> Option<Vec<(Key, Attribute, String)>> {
    let inner = text
        .trim()
        .strip_prefix("#dlti.dl_spec<")?
        .strip_suffix('>')?;
    let mut out = Vec::new();
    for entry in split_top_level(inner, ',') {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        // `#dlti.dl_entry<KEY, VALUE>` or, as MLIR 22 prints it, `KEY = VALUE`.
        let parts = match entry.strip_prefix("#dlti.dl_entry<") {
            Some(rest) => split_top_level(rest.strip_suffix('>')?, ','),
            None => split_top_level(entry, '='),
        };
        if parts.len() != 2 {
            return None;
        }
        let (k, v) = (parts[0].trim(), parts[1].trim());
        let key = if let Some(s) = k.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            Key::Name(s.to_string())
        } else {
            Key::Type(crate::parser::parse_type_str(k)?)
        };
        let value = crate::parser::parse_attr_str(v)?;
        out.push((key, value, format!("#dlti.dl_entry<{k}, {v}>")));
    }
    Some(out)
}

/// `s` split at `sep` where no bracket, angle bracket or string is open (`->` is not a
/// bracket).
fn split_top_level(s: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut in_str, mut prev) = (0i32, 0usize, false, ' ');
    for (i, c) in s.char_indices() {
        if in_str {
            if c == '"' && prev != '\\' {
                in_str = false;
            }
        } else {
            match c {
                '"' => in_str = true,
                '<' | '(' | '[' | '{' => depth += 1,
                '>' if prev == '-' => {}
                '>' | ')' | ']' | '}' => depth -= 1,
                c if c == sep && depth == 0 => {
                    parts.push(&s[start..i]);
                    start = i + c.len_utf8();
                }
                _ => {}
            }
        }
        prev = c;
    }
    parts.push(&s[start..]);
    parts
}

fn verify_named(name: &str, value: &Attribute) -> Result<(), String> {
    let Some(short) = name.strip_prefix("dlti.") else {
        return Ok(());
    };
    if !KNOWN_KEYS.contains(&short) {
        return Err(format!("unknown data layout entry name: {name}"));
    }
    if short == "endianness" {
        let ok = matches!(value, Attribute::String { value, .. } if value == b"big" || value == b"little");
        if !ok {
            return Err(
                "'dlti.endianness' data layout entry is expected to be either 'big' or 'little'"
                    .into(),
            );
        }
    }
    Ok(())
}

/// The integers of a `dense<...>` value whose element type is an integer, with that type's
/// width; `None` for anything else.
fn dense_ints(value: &Attribute) -> Option<(Vec<i128>, u32)> {
    let Attribute::Elements { kind, body, ty } = value else {
        return None;
    };
    if kind != "dense" {
        return None;
    }
    let TypeKind::Integer { width, .. } = ty.element_type()?.kind() else {
        return None;
    };
    let count: i64 = ty.shape()?.iter().product();
    let body = body.trim();
    let vals: Vec<i128> = match body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
        Some(list) => list
            .split(',')
            .filter(|x| !x.trim().is_empty())
            .map(|x| x.trim().parse().ok())
            .collect::<Option<_>>()?,
        None => vec![body.parse().ok()?; usize::try_from(count).ok()?],
    };
    Some((vals, *width))
}

fn verify_typed(t: &Type, value: &Attribute, entry: &str) -> Result<(), String> {
    match t.kind() {
        TypeKind::Integer { .. } | TypeKind::Float(_) => {
            let Some((vals, 64)) = dense_ints(value) else {
                return Err(format!(
                    "expected a dense i64 elements attribute in the data layout entry {entry}"
                ));
            };
            if !(1..=2).contains(&vals.len()) {
                return Err(format!(
                    "expected 1 or 2 elements in the data layout entry {entry}"
                ));
            }
            if vals.len() == 2 && vals[1] < vals[0] {
                return Err(format!("preferred alignment is expected to be greater than or equal to the abi alignment in data layout entry {entry}"));
            }
            Ok(())
        }
        TypeKind::Index => match value {
            Attribute::Integer { .. } => Ok(()),
            _ => Err("expected integer attribute in the data layout entry for 'index'".into()),
        },
        TypeKind::Opaque(text) if text.starts_with("!llvm.") => verify_llvm(text, value),
        // Other dialects' types: whether they take a layout is not known here (accepted).
        TypeKind::Opaque(_) => Ok(()),
        _ => Err("unexpected data layout for a built-in type".into()),
    }
}

/// `!llvm.ptr` and `!llvm.struct` entries (LLVMPointerType / LLVMStructType::verifyEntries);
/// other LLVM types take any value.
fn verify_llvm(text: &str, value: &Attribute) -> Result<(), String> {
    const PREF: &str = "preferred alignment is expected to be at least as large as ABI alignment";
    if text == "!llvm.ptr" || text.starts_with("!llvm.ptr<") {
        let vals = match dense_ints(value) {
            Some((v, w)) if (3..=4).contains(&v.len()) => (v, w),
            _ => {
                return Err(format!("expected layout attribute for '{text}' to be a dense integer elements attribute with 3 or 4 elements"));
            }
        };
        if vals.1 != 64 {
            return Err(format!("expected i64 parameters for '{text}'"));
        }
        // [size, abi, preferred (, index)] in bits.
        if vals.0[2] < vals.0[1] {
            return Err(PREF.into());
        }
        return Ok(());
    }
    if let Some(inner) = text
        .strip_prefix("!llvm.struct<")
        .and_then(|s| s.strip_suffix('>'))
    {
        let inner = inner.trim();
        let body = inner.strip_prefix("packed").unwrap_or(inner).trim();
        if inner.starts_with('"') || body != "()" {
            return Err(format!("unexpected layout attribute for struct '{text}'"));
        }
        let vals = match dense_ints(value) {
            Some((v, w)) if (1..=2).contains(&v.len()) => (v, w),
            _ => {
                return Err(format!("expected layout attribute for '{text}' to be a dense integer elements attribute of 1 or 2 elements"));
            }
        };
        if vals.1 != 64 {
            return Err(format!("expected i64 entries for '{text}'"));
        }
        if vals.0.len() == 2 && vals.0[1] < vals.0[0] {
            return Err(PREF.into());
        }
    }
    Ok(())
}
