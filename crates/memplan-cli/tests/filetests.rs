//! Text filetests for `memplan opt` (cranelift `filetests/` and MLIR lit style, see
//! ARCHITECTURE.md, item 7).
//!
//! Every `tests/filetests/**/*.mlir` file starts with a `// RUN: memplan ARGS` line (`%s` is the
//! case's input file; a trailing `2>&1` appends stderr to the checked output). Cases are split by
//! `// -----` lines and each case is run on its own, so line numbers are relative to the case
//! (line 1 = the line after the separator, or the file's first line). A case's own `// RUN:`
//! line overrides the file's. Each case states what it expects in a trailing comment block:
//!
//! * `// CHECK:`, `// CHECK-NEXT:`, `// CHECK-SAME:`, `// CHECK-NOT:`, `// CHECK-LABEL:`,
//!   `// CHECK-EMPTY:` - a FileCheck subset matched in order against stdout. Horizontal whitespace
//!   runs are one space; `{{re}}` is a regex (`.`, `[a-z]`, `[^,]`, `\d \w \s`, `* + ?`) and
//!   `[[V:re]]` / `[[V]]` capture and reuse a value (e.g. an SSA name). CHECK-LABEL matches like
//!   CHECK (CHECK-NOT ranges end at it). Such cases are never rewritten.
//! * `// EXPECT: line` - the whole stdout, line by line (trailing whitespace ignored). With
//!   `MEMPLAN_BLESS=1` the block is regenerated from the actual output (a case with no directive
//!   at all gets one).
//! * `// ERROR: L:C: message` (or `// ERROR: L: message`) - memplan must fail (not panic, not be
//!   killed) and print an error at case line L (column C) containing `message`. Blessed too.
//!
//! A failure prints the case, the command and a diff (or the FileCheck step that failed).
//! `MEMPLAN_FILETEST=substr` runs only the files whose path contains `substr`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const SEPARATOR: &str = "// -----";

// ---------------------------------------------------------------------------- mini regex

/// One element of a compiled pattern.
#[derive(Clone, Debug)]
enum Atom {
    Char(char),
    Any,
    Class { neg: bool, items: Vec<(char, char)> },
}

#[derive(Clone, Debug)]
enum Node {
    One(Atom),
    Star(Atom),
    Plus(Atom),
    Quest(Atom),
    Open(usize),
    Close(usize),
}

impl Atom {
    fn matches(&self, c: char) -> bool {
        match self {
            Atom::Char(x) => *x == c,
            Atom::Any => true,
            Atom::Class { neg, items } => items.iter().any(|(a, b)| *a <= c && c <= *b) != *neg,
        }
    }
}

fn class_of(esc: char) -> Option<Atom> {
    let items = match esc {
        'd' => vec![('0', '9')],
        'w' => vec![('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')],
        's' => vec![(' ', ' '), ('\t', '\t')],
        _ => return None,
    };
    Some(Atom::Class { neg: false, items })
}

/// Parses the mini regex `re` into nodes.
fn parse_regex(re: &str, out: &mut Vec<Node>) -> Result<(), String> {
    let cs: Vec<char> = re.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let atom = match cs[i] {
            '.' => {
                i += 1;
                Atom::Any
            }
            '\\' => {
                let c = *cs.get(i + 1).ok_or("regex ends in a backslash")?;
                i += 2;
                class_of(c).unwrap_or(Atom::Char(c))
            }
            '[' => {
                let mut j = i + 1;
                let neg = cs.get(j) == Some(&'^');
                if neg {
                    j += 1;
                }
                let mut items = Vec::new();
                while j < cs.len() && (cs[j] != ']' || items.is_empty()) {
                    let mut c = cs[j];
                    if c == '\\' && j + 1 < cs.len() {
                        j += 1;
                        if let Some(Atom::Class { items: more, .. }) = class_of(cs[j]) {
                            items.extend(more);
                            j += 1;
                            continue;
                        }
                        c = cs[j];
                    }
                    if cs.get(j + 1) == Some(&'-') && cs.get(j + 2).is_some_and(|x| *x != ']') {
                        items.push((c, cs[j + 2]));
                        j += 3;
                    } else {
                        items.push((c, c));
                        j += 1;
                    }
                }
                if j >= cs.len() {
                    return Err(format!("unclosed '[' in regex {re:?}"));
                }
                i = j + 1;
                Atom::Class { neg, items }
            }
            '*' | '+' | '?' => return Err(format!("quantifier without operand in {re:?}")),
            '(' | ')' | '|' | '{' | '}' | '^' | '$' => {
                return Err(format!("unsupported regex syntax {:?} in {re:?}", cs[i]))
            }
            c => {
                i += 1;
                Atom::Char(c)
            }
        };
        let node = match cs.get(i) {
            Some('*') => Node::Star(atom),
            Some('+') => Node::Plus(atom),
            Some('?') => Node::Quest(atom),
            _ => {
                out.push(Node::One(atom));
                continue;
            }
        };
        i += 1;
        out.push(node);
    }
    Ok(())
}

/// A compiled CHECK pattern: literal text, `{{re}}` and `[[V:re]]` / `[[V]]`.
struct Pattern {
    nodes: Vec<Node>,
    /// Capture slot -> variable name.
    captures: Vec<String>,
}

fn canon_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn compile(
    pat: &str,
    vars: &std::collections::BTreeMap<String, String>,
) -> Result<Pattern, String> {
    let pat = canon_ws(pat);
    let mut nodes = Vec::new();
    let mut captures = Vec::new();
    let mut rest = pat.as_str();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("{{") {
            let end = r
                .find("}}")
                .ok_or_else(|| format!("unclosed '{{{{' in {pat:?}"))?;
            parse_regex(&r[..end], &mut nodes)?;
            rest = &r[end + 2..];
        } else if let Some(r) = rest.strip_prefix("[[") {
            let end = r
                .find("]]")
                .ok_or_else(|| format!("unclosed '[[' in {pat:?}"))?;
            let body = &r[..end];
            match body.split_once(':') {
                Some((name, re)) => {
                    let slot = captures.len();
                    captures.push(name.to_string());
                    nodes.push(Node::Open(slot));
                    parse_regex(re, &mut nodes)?;
                    nodes.push(Node::Close(slot));
                }
                None => {
                    let v = vars
                        .get(body)
                        .ok_or_else(|| format!("undefined variable [[{body}]]"))?;
                    nodes.extend(v.chars().map(|c| Node::One(Atom::Char(c))));
                }
            }
            rest = &r[end + 2..];
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            nodes.push(Node::One(Atom::Char(c)));
            rest = &rest[c.len_utf8()..];
        }
    }
    Ok(Pattern { nodes, captures })
}

/// Backtracking match of `nodes` at `s[i..]`; returns the end index.
fn match_here(
    nodes: &[Node],
    s: &[char],
    i: usize,
    caps: &mut Vec<(usize, usize)>,
) -> Option<usize> {
    let Some((n, rest)) = nodes.split_first() else {
        return Some(i);
    };
    match n {
        Node::One(a) => {
            if i < s.len() && a.matches(s[i]) {
                match_here(rest, s, i + 1, caps)
            } else {
                None
            }
        }
        Node::Quest(a) => {
            if i < s.len() && a.matches(s[i]) {
                if let Some(e) = match_here(rest, s, i + 1, caps) {
                    return Some(e);
                }
            }
            match_here(rest, s, i, caps)
        }
        Node::Star(a) | Node::Plus(a) => {
            let min = usize::from(matches!(n, Node::Plus(_)));
            let mut k = 0;
            while i + k < s.len() && a.matches(s[i + k]) {
                k += 1;
            }
            loop {
                if k < min {
                    return None;
                }
                if let Some(e) = match_here(rest, s, i + k, caps) {
                    return Some(e);
                }
                if k == 0 {
                    return None;
                }
                k -= 1;
            }
        }
        Node::Open(slot) => {
            let old = caps[*slot];
            caps[*slot].0 = i;
            let r = match_here(rest, s, i, caps);
            if r.is_none() {
                caps[*slot] = old;
            }
            r
        }
        Node::Close(slot) => {
            let old = caps[*slot];
            caps[*slot].1 = i;
            let r = match_here(rest, s, i, caps);
            if r.is_none() {
                caps[*slot] = old;
            }
            r
        }
    }
}

/// A match: start and end char index, and the values of the captured variables.
type Match = (usize, usize, Vec<(String, String)>);

/// First match of `p` in `line` at or after char index `from`.
fn find_in(p: &Pattern, line: &str, from: usize) -> Option<Match> {
    let s: Vec<char> = line.chars().collect();
    for start in from..=s.len() {
        let mut caps = vec![(0, 0); p.captures.len()];
        if let Some(end) = match_here(&p.nodes, &s, start, &mut caps) {
            let vals = p
                .captures
                .iter()
                .zip(&caps)
                .map(|(n, (a, b))| (n.clone(), s[*a..*b].iter().collect()))
                .collect();
            return Some((start, end, vals));
        }
    }
    None
}

// ---------------------------------------------------------------------------- FileCheck subset

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Check,
    Next,
    Same,
    Not,
    Label,
    Empty,
}

struct Directive {
    kind: Kind,
    pattern: String,
    /// Line in the case (1-based), for messages.
    line: usize,
}

fn parse_directive(line: &str) -> Option<(Kind, String)> {
    let t = line.trim_start().strip_prefix("//")?.trim_start();
    for (name, kind) in [
        ("CHECK-NEXT:", Kind::Next),
        ("CHECK-SAME:", Kind::Same),
        ("CHECK-NOT:", Kind::Not),
        ("CHECK-LABEL:", Kind::Label),
        ("CHECK-EMPTY:", Kind::Empty),
        ("CHECK:", Kind::Check),
    ] {
        if let Some(p) = t.strip_prefix(name) {
            return Some((kind, p.trim().to_string()));
        }
    }
    None
}

/// Checks `output` against `dirs`; `Err` explains the first failing directive.
fn filecheck(output: &str, dirs: &[Directive]) -> Result<(), String> {
    let lines: Vec<String> = output.lines().map(canon_ws).collect();
    let mut vars = std::collections::BTreeMap::new();
    // Cursor: the previous match's line and end column; `None` = before the first line.
    let mut cur_line: Option<usize> = None;
    let mut cur_col = 0usize;
    let mut pending_not: Vec<&Directive> = Vec::new();
    let context = |l: usize| -> String {
        let lo = l.saturating_sub(2);
        let hi = (l + 3).min(lines.len());
        let mut s = String::new();
        for (i, text) in lines.iter().enumerate().take(hi).skip(lo) {
            let _ = writeln!(s, "    {:>4} | {text}", i + 1);
        }
        s
    };
    let check_nots = |nots: &[&Directive],
                      vars: &std::collections::BTreeMap<String, String>,
                      from: (usize, usize),
                      to: (usize, usize)|
     -> Result<(), String> {
        for d in nots {
            let p = compile(&d.pattern, vars)?;
            for (l, text) in lines.iter().enumerate().take(to.0 + 1).skip(from.0) {
                let start = if l == from.0 { from.1 } else { 0 };
                if let Some((_, e, _)) = find_in(&p, text, start) {
                    if l < to.0 || e <= to.1 {
                        return Err(format!(
                            "case line {}: CHECK-NOT: {:?} found on output line {}:\n{}",
                            d.line,
                            d.pattern,
                            l + 1,
                            context(l)
                        ));
                    }
                }
            }
        }
        Ok(())
    };
    for d in dirs {
        if d.kind == Kind::Not {
            pending_not.push(d);
            continue;
        }
        let p = compile(&d.pattern, &vars)?;
        let next_line = cur_line.map_or(0, |l| l + 1);
        let found = match d.kind {
            Kind::Check | Kind::Label => {
                let mut hit = None;
                let first = cur_line.unwrap_or(0);
                for (l, text) in lines.iter().enumerate().skip(first) {
                    let from = if Some(l) == cur_line { cur_col } else { 0 };
                    if let Some((s, e, caps)) = find_in(&p, text, from) {
                        hit = Some((l, s, e, caps));
                        break;
                    }
                }
                hit
            }
            Kind::Next => lines
                .get(next_line)
                .and_then(|t| find_in(&p, t, 0))
                .map(|(s, e, c)| (next_line, s, e, c)),
            Kind::Same => {
                cur_line.and_then(|l| find_in(&p, &lines[l], cur_col).map(|(s, e, c)| (l, s, e, c)))
            }
            Kind::Empty => lines
                .get(next_line)
                .filter(|t| t.is_empty())
                .map(|_| (next_line, 0, 0, Vec::new())),
            Kind::Not => unreachable!(),
        };
        let Some((l, s, e, caps)) = found else {
            let name = match d.kind {
                Kind::Check => "CHECK",
                Kind::Label => "CHECK-LABEL",
                Kind::Next => "CHECK-NEXT",
                Kind::Same => "CHECK-SAME",
                Kind::Empty => "CHECK-EMPTY",
                Kind::Not => "CHECK-NOT",
            };
            let at = cur_line.unwrap_or(0);
            return Err(format!(
                "case line {}: {name}: {:?} not found (searching from output line {}):\n{}",
                d.line,
                d.pattern,
                at + 1,
                context(at)
            ));
        };
        check_nots(
            &pending_not,
            &vars,
            (
                cur_line.unwrap_or(0),
                if cur_line.is_some() { cur_col } else { 0 },
            ),
            (l, s),
        )?;
        pending_not.clear();
        vars.extend(caps);
        cur_line = Some(l);
        cur_col = e;
    }
    let end = (lines.len().saturating_sub(1), usize::MAX);
    check_nots(
        &pending_not,
        &vars,
        (
            cur_line.unwrap_or(0),
            if cur_line.is_some() { cur_col } else { 0 },
        ),
        end,
    )
}

// ---------------------------------------------------------------------------- diff

/// A unified-style line diff (`-` expected, `+` actual) from a longest common subsequence.
fn diff(expected: &[String], actual: &[String]) -> String {
    let (n, m) = (expected.len(), actual.len());
    let mut out = String::new();
    if n * m > 4_000_000 {
        for (i, (a, b)) in expected.iter().zip(actual).enumerate() {
            if a != b {
                let _ = writeln!(out, "first difference at line {}:\n-{a}\n+{b}", i + 1);
                return out;
            }
        }
        let _ = writeln!(out, "lengths differ: expected {n} lines, got {m}");
        return out;
    }
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if expected[i] == actual[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops: Vec<(char, &str)> = Vec::new();
    while i < n || j < m {
        if i < n && j < m && expected[i] == actual[j] {
            ops.push((' ', &expected[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(('+', &actual[j]));
            j += 1;
        } else {
            ops.push(('-', &expected[i]));
            i += 1;
        }
    }
    // Print changed lines with up to 2 lines of context.
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let mut last_printed: Option<usize> = None;
    for (k, (c, t)) in ops.iter().enumerate() {
        let near = changed.iter().any(|&x| x.abs_diff(k) <= 2);
        if !near {
            continue;
        }
        if last_printed.is_some_and(|p| p + 1 != k) || (last_printed.is_none() && k > 0) {
            out.push_str("@@\n");
        }
        let _ = writeln!(out, "{c}{t}");
        last_printed = Some(k);
    }
    out
}

// ---------------------------------------------------------------------------- cases

/// One `// -----`-separated part of a file.
struct Case {
    /// Lines of the case, as in the file.
    lines: Vec<String>,
    /// 1-based line of the case's first line in the file.
    first_line: usize,
}

fn split_cases(text: &str) -> Vec<Case> {
    let mut cases = vec![Case {
        lines: Vec::new(),
        first_line: 1,
    }];
    for (i, line) in text.lines().enumerate() {
        if line.trim() == SEPARATOR {
            cases.push(Case {
                lines: Vec::new(),
                first_line: i + 2,
            });
        } else if let Some(c) = cases.last_mut() {
            c.lines.push(line.to_string());
        }
    }
    cases
}

fn run_line(line: &str) -> Option<&str> {
    line.trim_start()
        .strip_prefix("//")?
        .trim_start()
        .strip_prefix("RUN:")
        .map(str::trim)
}

fn expect_line(line: &str) -> Option<&str> {
    let t = line.trim_start().strip_prefix("//")?.trim_start();
    let r = t.strip_prefix("EXPECT:")?;
    Some(r.strip_prefix(' ').unwrap_or(r))
}

fn error_line(line: &str) -> Option<&str> {
    let t = line.trim_start().strip_prefix("//")?.trim_start();
    t.strip_prefix("ERROR:").map(str::trim)
}

/// `L:C: msg` / `L: msg` / `msg` -> (line, col, message).
fn parse_error_spec(s: &str) -> (Option<usize>, Option<usize>, String) {
    let mut parts = s.splitn(3, ':');
    let a = parts.next().unwrap_or("").trim();
    if let Ok(l) = a.parse::<usize>() {
        let b = parts.next().unwrap_or("").trim();
        if let Ok(c) = b.parse::<usize>() {
            return (
                Some(l),
                Some(c),
                parts.next().unwrap_or("").trim().to_string(),
            );
        }
        let rest: Vec<&str> = std::iter::once(b).chain(parts).collect();
        return (Some(l), None, rest.join(":").trim().to_string());
    }
    (None, None, s.trim().to_string())
}

/// The first `...:L:C: error: msg` in `stderr`, as an ERROR spec `L:C: msg`.
fn first_error(stderr: &str) -> Option<String> {
    for line in stderr.lines() {
        let Some(k) = line.find(": error:") else {
            continue;
        };
        let head = &line[..k];
        let msg = line[k + ": error:".len()..].trim();
        let mut it = head.rsplitn(3, ':');
        let col = it.next()?.trim().parse::<usize>().ok();
        let ln = it.next().and_then(|x| x.trim().parse::<usize>().ok());
        return Some(match (ln, col) {
            (Some(l), Some(c)) => format!("{l}:{c}: {msg}"),
            (None, Some(l)) => format!("{l}: {msg}"),
            _ => msg.to_string(),
        });
    }
    None
}

/// How tools named in RUN lines are found.
struct Tools {
    /// (name in RUN lines, program to start).
    known: Vec<(String, PathBuf)>,
}

impl Tools {
    fn memplan() -> Self {
        Tools {
            known: vec![(
                "memplan".into(),
                PathBuf::from(env!("CARGO_BIN_EXE_memplan")),
            )],
        }
    }
}

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    command: String,
}

fn run_case(tools: &Tools, run: &str, input: &Path) -> Result<Outcome, String> {
    let mut words: Vec<&str> = run.split_whitespace().collect();
    let merge_stderr = words.last() == Some(&"2>&1");
    if merge_stderr {
        words.pop();
    }
    let (tool, args) = words.split_first().ok_or("empty RUN line")?;
    let prog = tools
        .known
        .iter()
        .find(|(n, _)| n == tool)
        .map(|(_, p)| p.clone())
        .ok_or_else(|| format!("RUN: unknown tool {tool:?} (only `memplan`)"))?;
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("%s", &input.to_string_lossy()))
        .collect();
    let out = Command::new(&prog)
        .args(&args)
        .output()
        .map_err(|e| format!("cannot start {}: {e}", prog.display()))?;
    let mut stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if merge_stderr {
        stdout.push_str(&stderr);
    }
    Ok(Outcome {
        code: out.status.code(),
        stdout,
        stderr,
        command: format!("{} {}", tool, args.join(" ")),
    })
}

fn norm_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(|l| l.trim_end().to_string()).collect();
    while v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

/// Runs every case of one file; returns failure reports and, when blessing changed anything,
/// the new file text.
fn run_file(
    tools: &Tools,
    path: &Path,
    scratch: &Path,
    bless: bool,
) -> (Vec<String>, Option<String>) {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return (vec![format!("{}: cannot read: {e}", path.display())], None),
    };
    let mut cases = split_cases(&text);
    let Some(file_run) = text.lines().find_map(run_line).map(str::to_string) else {
        return (vec![format!("{}: no `// RUN:` line", path.display())], None);
    };
    let mut failures = Vec::new();
    let mut changed = false;
    for (ci, case) in cases.iter_mut().enumerate() {
        let run = case
            .lines
            .iter()
            .find_map(|l| run_line(l))
            .unwrap_or(&file_run)
            .to_string();
        let input = scratch.join(format!("case{ci}.mlir"));
        if let Err(e) = std::fs::write(&input, case.lines.join("\n") + "\n") {
            failures.push(format!("cannot write {}: {e}", input.display()));
            continue;
        }
        let here = format!("{}:{} (case {})", path.display(), case.first_line, ci + 1);
        let out = match run_case(tools, &run, &input) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{here}: {e}"));
                continue;
            }
        };
        let dirs: Vec<Directive> = case
            .lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                parse_directive(l).map(|(kind, pattern)| Directive {
                    kind,
                    pattern,
                    line: i + 1,
                })
            })
            .collect();
        let expect: Vec<String> = case
            .lines
            .iter()
            .filter_map(|l| expect_line(l).map(|s| s.trim_end().to_string()))
            .collect();
        let has_expect = case.lines.iter().any(|l| expect_line(l).is_some());
        let error = case
            .lines
            .iter()
            .find_map(|l| error_line(l))
            .map(str::to_string);
        let panicked = out.code == Some(101) || out.stderr.contains("panicked at");
        let header = format!("{here}\n  command: {}\n  exit: {:?}", out.command, out.code);
        if panicked || out.code.is_none() {
            failures.push(format!(
                "{header}\n  memplan panicked or was killed:\n{}",
                out.stderr
            ));
            continue;
        }
        if let Some(spec) = error {
            if out.code == Some(0) {
                failures.push(format!(
                    "{header}\n  expected an error ({spec}) but memplan succeeded"
                ));
                continue;
            }
            let actual = first_error(&out.stderr);
            let (l, c, msg) = parse_error_spec(&spec);
            let pos = match (l, c) {
                (Some(l), Some(c)) => Some(format!(":{l}:{c}:")),
                (Some(l), None) => Some(format!(":{l}:")),
                _ => None,
            };
            let ok = out.stderr.lines().any(|line| {
                line.contains("error")
                    && pos.as_ref().is_none_or(|p| line.contains(p.as_str()))
                    && canon_ws(line).contains(&canon_ws(&msg))
            });
            if !ok {
                if bless {
                    if let Some(a) = actual {
                        for line in case.lines.iter_mut() {
                            if error_line(line).is_some() {
                                *line = format!("// ERROR: {a}");
                            }
                        }
                        changed = true;
                        continue;
                    }
                }
                failures.push(format!(
                    "{header}\n  expected error: {spec}\n  actual stderr:\n{}",
                    out.stderr
                ));
            }
            continue;
        }
        if out.code != Some(0) {
            failures.push(format!("{header}\n  memplan failed:\n{}", out.stderr));
            continue;
        }
        if !dirs.is_empty() {
            if let Err(e) = filecheck(&out.stdout, &dirs) {
                failures.push(format!("{header}\n  {e}"));
            }
            continue;
        }
        let actual = norm_lines(&out.stdout);
        if has_expect && actual == norm_lines(&expect.join("\n")) {
            continue;
        }
        if bless {
            let mut kept: Vec<String> = case
                .lines
                .iter()
                .filter(|l| expect_line(l).is_none())
                .cloned()
                .collect();
            while kept.last().is_some_and(|l| l.trim().is_empty()) {
                kept.pop();
            }
            kept.push(String::new());
            kept.extend(actual.iter().map(|l| {
                if l.is_empty() {
                    "// EXPECT:".to_string()
                } else {
                    format!("// EXPECT: {l}")
                }
            }));
            case.lines = kept;
            changed = true;
            continue;
        }
        if !has_expect {
            failures.push(format!(
                "{header}\n  no CHECK/EXPECT/ERROR directive; run with MEMPLAN_BLESS=1 to record the output"
            ));
        } else {
            failures.push(format!(
                "{header}\n  output differs from the EXPECT block (-expected +actual; MEMPLAN_BLESS=1 rewrites it):\n{}",
                diff(&norm_lines(&expect.join("\n")), &actual)
            ));
        }
    }
    let new_text = changed.then(|| {
        let n = cases.len();
        let mut t = String::new();
        for (i, c) in cases.iter().enumerate() {
            for l in &c.lines {
                t.push_str(l);
                t.push('\n');
            }
            if i + 1 < n {
                if !c.lines.last().is_some_and(|l| l.trim().is_empty()) {
                    t.push('\n');
                }
                t.push_str(SEPARATOR);
                t.push('\n');
            }
        }
        t
    });
    (failures, new_text)
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "mlir") {
            out.push(p);
        }
    }
}

fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("memplan-filetests-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d
}

fn filetests_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests")
}

#[test]
fn filetests() {
    let mut files = Vec::new();
    collect_files(&filetests_root(), &mut files);
    if let Ok(f) = std::env::var("MEMPLAN_FILETEST") {
        files.retain(|p| p.to_string_lossy().contains(&f));
    }
    assert!(
        !files.is_empty(),
        "no filetests under {}",
        filetests_root().display()
    );
    let bless = std::env::var("MEMPLAN_BLESS").as_deref() == Ok("1");
    let tools = Tools::memplan();
    let scratch = scratch_dir("run");
    let mut failures = Vec::new();
    for f in &files {
        let (fails, new_text) = run_file(&tools, f, &scratch, bless);
        if let Some(t) = new_text {
            std::fs::write(f, t).expect("bless: write file");
            eprintln!("blessed {}", f.display());
        }
        failures.extend(fails);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        failures.is_empty(),
        "{} filetest case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// ---------------------------------------------------------------------------- self tests

fn dirs_of(text: &str) -> Vec<Directive> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            parse_directive(l).map(|(kind, pattern)| Directive {
                kind,
                pattern,
                line: i + 1,
            })
        })
        .collect()
}

#[test]
fn filecheck_subset_accepts_and_rejects() {
    let out = "module {\n  func.func @f() {\n    %0 = memref.alloc() : memref<320xi8>\n    %1 = memref.view %0[%c0][] : memref<320xi8> to memref<16xf32>\n    return\n  }\n}\n";
    let good = "// CHECK-LABEL: func.func @f\n// CHECK: [[A:%[0-9]+]] = memref.alloc() : memref<320xi8>\n// CHECK-NEXT: memref.view [[A]]{{\\[}}%c0\n// CHECK-SAME: to memref<16xf32>\n// CHECK-NOT: memref.dealloc\n// CHECK: return\n// CHECK-NEXT: }";
    filecheck(out, &dirs_of(good)).expect("should match");
    for bad in [
        "// CHECK: memref.dealloc",
        "// CHECK: return\n// CHECK: memref.alloc",
        "// CHECK: func.func\n// CHECK-NEXT: memref.view",
        "// CHECK-NOT: memref.view\n// CHECK: return",
        "// CHECK: [[A:%[0-9]+]] = memref.alloc\n// CHECK: memref.view [[A]][%c1",
        "// CHECK: memref.alloc\n// CHECK-SAME: memref<16xf32>",
        "// CHECK: return\n// CHECK-EMPTY:",
        "// CHECK: {{memref\\.alloca}}",
    ] {
        assert!(filecheck(out, &dirs_of(bad)).is_err(), "should fail: {bad}");
    }
    // Empty output: CHECK-NOT holds, CHECK fails, nothing panics.
    filecheck("", &dirs_of("// CHECK-NOT: x")).expect("empty output");
    assert!(filecheck("", &dirs_of("// CHECK: x\n// CHECK-NEXT: y")).is_err());
    // Whitespace runs are one space on both sides.
    filecheck(out, &dirs_of("// CHECK: %0   =   memref.alloc()")).expect("ws");
}

#[test]
fn mini_regex() {
    let vars = Default::default();
    let p = compile("a{{[0-9]+}}b{{.?}}c{{\\w*}}", &vars).expect("compile");
    assert!(find_in(&p, "xa12bc_z9", 0).is_some());
    assert!(find_in(&p, "xab c", 0).is_none());
    let p = compile("{{[^,]+}},", &vars).expect("compile");
    assert_eq!(find_in(&p, "ab,cd", 0).map(|m| (m.0, m.1)), Some((0, 3)));
    assert!(compile("{{(a|b)}}", &vars).is_err());
    assert!(compile("[[X]]", &vars).is_err());
}

#[test]
fn diff_marks_changes() {
    let a: Vec<String> = ["x", "y", "z"].iter().map(|s| s.to_string()).collect();
    let b: Vec<String> = ["x", "q", "z", "w"].iter().map(|s| s.to_string()).collect();
    let d = diff(&a, &b);
    assert!(
        d.contains("-y\n") && d.contains("+q\n") && d.contains("+w\n") && d.contains(" x\n"),
        "{d}"
    );
}

#[test]
fn error_specs() {
    assert_eq!(
        parse_error_spec("3:5: unknown op"),
        (Some(3), Some(5), "unknown op".into())
    );
    assert_eq!(parse_error_spec("3: x: y"), (Some(3), None, "x: y".into()));
    assert_eq!(parse_error_spec("oops"), (None, None, "oops".into()));
    assert_eq!(
        first_error("note\n/tmp/c.mlir:4:7: error: expected ')'\n").as_deref(),
        Some("4:7: expected ')'")
    );
}

/// The runner end to end (RUN, `// -----`, EXPECT, bless, ERROR, CHECK) with a stand-in tool:
/// `sh` scripts that print a fixed text or fail with a positioned error.
#[test]
fn runner_end_to_end_with_stand_in_tool() {
    let scratch = scratch_dir("selftest");
    let tool = scratch.join("fake.sh");
    // Prints the non-comment lines of its input; fails like a parser on a line containing "BAD".
    std::fs::write(
        &tool,
        "#!/bin/sh\nn=$(grep -n BAD \"$1\" | head -1 | cut -d: -f1)\nif [ -n \"$n\" ]; then echo \"$1:$n:3: error: bad thing\" >&2; exit 2; fi\ngrep -v '^//' \"$1\" | grep -v '^$'\n",
    )
    .expect("write tool");
    let tools = Tools {
        known: vec![
            ("memplan".into(), PathBuf::from("sh")),
            ("sh".into(), PathBuf::from("sh")),
        ],
    };
    let file = scratch.join("t.mlir");
    let text = format!(
        "// RUN: sh {} %s\nalpha\n\n// -----\nbeta\n// CHECK: beta\n// CHECK-NOT: alpha\n\n// -----\n\nok\nBAD here\n// ERROR: 3:3: bad thing\n",
        tool.display()
    );
    std::fs::write(&file, &text).expect("write");
    // Case 1 has no directive: fails without bless, gets an EXPECT block with it.
    let (fails, new) = run_file(&tools, &file, &scratch, false);
    assert_eq!(fails.len(), 1, "{fails:?}");
    assert!(new.is_none());
    let (fails, new) = run_file(&tools, &file, &scratch, true);
    assert!(fails.is_empty(), "{fails:?}");
    let blessed = new.expect("blessed text");
    assert!(
        blessed.contains("alpha\n\n// EXPECT: alpha\n\n// -----\nbeta"),
        "{blessed}"
    );
    std::fs::write(&file, &blessed).expect("write");
    let (fails, new) = run_file(&tools, &file, &scratch, false);
    assert!(fails.is_empty() && new.is_none(), "{fails:?}");
    // A wrong EXPECT line and a wrong ERROR position are reported with a diff / the stderr.
    std::fs::write(
        &file,
        blessed
            .replace("// EXPECT: alpha", "// EXPECT: gamma")
            .replace("ERROR: 3:3", "ERROR: 2:3"),
    )
    .expect("write");
    let (fails, _) = run_file(&tools, &file, &scratch, false);
    assert_eq!(fails.len(), 2, "{fails:?}");
    assert!(
        fails[0].contains("-gamma") && fails[0].contains("+alpha"),
        "{}",
        fails[0]
    );
    assert!(fails[1].contains("expected error: 2:3"), "{}", fails[1]);
    // Bless repairs both.
    let (_, new) = run_file(&tools, &file, &scratch, true);
    let fixed = new.expect("blessed");
    assert!(
        fixed.contains("// EXPECT: alpha") && fixed.contains("// ERROR: 3:3: bad thing"),
        "{fixed}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// `memplan opt` without a pass must print what `mlir-opt-22` prints, so the `opt/` suite must
/// hold for the reference tool itself: this keeps its expectations honest.
#[test]
fn opt_suite_holds_for_mlir_opt() {
    let ok = Command::new("mlir-opt-22")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1") {
            panic!("mlir-opt-22 not found but MEMPLAN_REQUIRE_MLIR=1");
        }
        eprintln!("opt_suite_holds_for_mlir_opt: skipped, mlir-opt-22 not found");
        return;
    }
    let tools = Tools {
        known: vec![("memplan".into(), PathBuf::from("mlir-opt-22"))],
    };
    let mut files = Vec::new();
    collect_files(&filetests_root().join("opt"), &mut files);
    assert!(!files.is_empty());
    let scratch = scratch_dir("mlir-opt");
    let mut failures = Vec::new();
    for f in &files {
        // `memplan opt ARGS` -> `mlir-opt-22 ARGS`: drop the subcommand.
        let text = std::fs::read_to_string(f).expect("read");
        let tmp = scratch.join(f.file_name().expect("name"));
        std::fs::write(
            &tmp,
            text.replace("// RUN: memplan opt ", "// RUN: memplan "),
        )
        .expect("write");
        failures.extend(run_file(&tools, &tmp, &scratch, false).0);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
