//! Drawing a plan as an SVG picture, the way the dynamic-storage-allocation
//! literature draws one (e.g. the figures of MiniMalloc and TelaMalloc): time
//! runs left to right, addresses bottom to top, and every buffer is a
//! rectangle spanning its lifetime and its bytes `[offset, offset + size)`.
//! A buffer with holes is one rectangle per live interval. Dashed lines mark
//! the lower bound and the peak, so the wasted band between them is visible.
//!
//! The SVG is written by hand (plain text, no crate): one panel per memory
//! space, stacked vertically; each rectangle carries a `<title>` tooltip with
//! the buffer's id, size, offset and lifetime. Colours come from a hash of
//! the id, so the same buffer has the same colour in every plot.

use std::fmt::Write;

use memplan_core::{MemSpace, Plan, Problem};

/// Width of the picture in pixels.
const WIDTH: f64 = 1000.0;
/// Height of one memory-space panel in pixels.
const PANEL: f64 = 440.0;
/// Margins of the plotting area inside a panel: left, right, top, bottom.
const MARGIN: (f64, f64, f64, f64) = (80.0, 150.0, 40.0, 50.0);

/// What the drawing needs besides the problem and plan.
pub struct PlotInput<'a> {
    /// The problem.
    pub problem: &'a Problem,
    /// The file's id of every buffer.
    pub ids: &'a [String],
    /// The plan to draw.
    pub plan: &'a Plan,
    /// The lower bound of every space.
    pub lower_bounds: &'a [(MemSpace, u64)],
    /// A line of text at the top of the picture.
    pub title: &'a str,
}

/// The plan as the text of an SVG document.
pub fn render(input: &PlotInput<'_>) -> String {
    let spaces = input.problem.spaces();
    let panels = spaces.len().max(1);
    let height = PANEL * panels as f64 + 30.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" text-anchor="middle" font-size="15">{}</text>"#,
        WIDTH / 2.0,
        escape(input.title)
    );
    for (k, &space) in spaces.iter().enumerate() {
        panel(
            &mut s,
            input,
            space,
            30.0 + PANEL * k as f64,
            spaces.len() > 1,
        );
    }
    s.push_str("</svg>\n");
    s
}

fn panel(s: &mut String, input: &PlotInput<'_>, space: MemSpace, y0: f64, label_space: bool) {
    let (ml, mr, mt, mb) = MARGIN;
    let (left, top) = (ml, y0 + mt);
    let (w, h) = (WIDTH - ml - mr, PANEL - mt - mb);
    let members: Vec<usize> = (0..input.problem.buffers.len())
        .filter(|&i| input.problem.buffers[i].space == space)
        .collect();
    // One time axis for all panels, so that spaces line up.
    let all = &input.problem.buffers;
    let t0 = all.iter().map(|b| b.start()).min().unwrap_or(0);
    let t1 = all.iter().map(|b| b.end()).max().unwrap_or(1).max(t0 + 1);
    let peak = input.plan.peak_of(space);
    let lb = input
        .lower_bounds
        .iter()
        .find(|(sp, _)| *sp == space)
        .map_or(0, |&(_, l)| l);
    let amax = (peak.max(lb) as f64 * 1.05).max(1.0);
    let x = |t: u64| left + (t - t0) as f64 / (t1 - t0) as f64 * w;
    let y = |a: u64| top + h - a as f64 / amax * h;

    if label_space {
        let _ = writeln!(
            s,
            r#"<text x="{left}" y="{}" font-weight="bold">memory space {}</text>"#,
            top - 8.0,
            space.0
        );
    }
    // Axes, ticks and labels.
    let _ = writeln!(
        s,
        r##"<g stroke="#444" stroke-width="1"><line x1="{left}" y1="{}" x2="{}" y2="{}"/><line x1="{left}" y1="{top}" x2="{left}" y2="{}"/></g>"##,
        top + h,
        left + w,
        top + h,
        top + h
    );
    for t in ticks(t0 as f64, t1 as f64, 1.0) {
        let px = x(t as u64);
        let _ = writeln!(
            s,
            r##"<line x1="{px:.2}" y1="{}" x2="{px:.2}" y2="{}" stroke="#444"/><text x="{px:.2}" y="{}" text-anchor="middle">{}</text>"##,
            top + h,
            top + h + 5.0,
            top + h + 18.0,
            t as u64
        );
    }
    // Address ticks are round in the unit the labels use (B, KiB, MiB, ...).
    let unit = 1024f64.powi((amax.log(1024.0).floor() as i32).clamp(0, 4));
    for a in ticks(0.0, amax / unit, 1.0 / unit)
        .into_iter()
        .map(|t| t * unit)
    {
        let py = y(a as u64);
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{py:.2}" x2="{left}" y2="{py:.2}" stroke="#444"/><text x="{}" y="{:.2}" text-anchor="end">{}</text>"##,
            left - 5.0,
            left - 8.0,
            py + 4.0,
            bytes(a as u64)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">time</text>"#,
        left + w / 2.0,
        top + h + 38.0
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate({},{}) rotate(-90)" text-anchor="middle">address (bytes)</text>"#,
        left - 62.0,
        top + h / 2.0
    );
    // Buffers.
    for &i in &members {
        let b = &input.problem.buffers[i];
        let off = input.plan.offsets[i];
        let id = input.ids.get(i).map_or("?", String::as_str);
        let live: Vec<String> = b
            .live
            .iter()
            .map(|iv| format!("[{}, {})", iv.start, iv.end))
            .collect();
        let _ = write!(
            s,
            r#"<g fill="{}"><title>{}&#10;size {} bytes&#10;offset {}&#10;live {}</title>"#,
            colour(id),
            escape(id),
            b.size,
            off,
            live.join(" ")
        );
        let (ya, yb) = (y(off.saturating_add(b.size)), y(off));
        for iv in &b.live {
            let (xa, xb) = (x(iv.start), x(iv.end));
            let _ = write!(
                s,
                r##"<rect x="{xa:.2}" y="{ya:.2}" width="{:.2}" height="{:.2}" stroke="#222" stroke-width="0.3"/>"##,
                (xb - xa).max(0.5),
                (yb - ya).max(0.5)
            );
        }
        s.push_str("</g>\n");
    }
    // Lower bound and peak.
    for (value, name, colour) in [(lb, "lower bound", "#c0392b"), (peak, "peak", "#1f4e9c")] {
        let py = y(value);
        let dy = if name == "peak" && peak != lb {
            -4.0
        } else {
            12.0
        };
        let _ = writeln!(
            s,
            r#"<line x1="{left}" y1="{py:.2}" x2="{}" y2="{py:.2}" stroke="{colour}" stroke-width="1.5" stroke-dasharray="6,4"/><text x="{}" y="{:.2}" fill="{colour}">{name} {}</text>"#,
            left + w,
            left + w + 6.0,
            py + dy,
            bytes(value)
        );
    }
}

/// About five round tick values covering `[lo, hi]`, at least `min_step` apart.
fn ticks(lo: f64, hi: f64, min_step: f64) -> Vec<f64> {
    let span = (hi - lo).max(1.0);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|&st| span / st <= 7.0)
        .unwrap_or(10.0 * mag)
        .max(min_step);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + 1e-9 {
        out.push(t);
        t += step;
    }
    out
}

/// A byte count for labels: `512 B`, `1.5 KiB`, `12.0 MiB`.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// A stable fill colour for an id (FNV-1a hash to a hue).
fn colour(id: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in id.bytes() {
        h ^= byte as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!(
        "hsl({},{}%,{}%)",
        h % 360,
        50 + (h >> 16) % 30,
        55 + (h >> 32) % 20
    )
}

/// Escapes text for XML.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use memplan_core::{Buffer, Interval};

    #[test]
    fn draws_one_rect_per_live_interval_and_both_lines() {
        let problem = Problem::new(vec![
            Buffer::new(8, 0, 2).with_live(vec![Interval::new(0, 2), Interval::new(4, 6)]),
            Buffer::new(8, 1, 5),
        ]);
        let plan = Plan::from_offsets(&problem, vec![0, 8]);
        let ids = vec!["a<1>".to_string(), "b".to_string()];
        let svg = render(&PlotInput {
            problem: &problem,
            ids: &ids,
            plan: &plan,
            lower_bounds: &[(MemSpace(0), 16)],
            title: "t & t",
        });
        assert_eq!(svg.matches("<rect x=").count(), 3);
        assert_eq!(svg.matches("stroke-dasharray").count(), 2);
        assert!(svg.contains(
            "<title>a&lt;1&gt;&#10;size 8 bytes&#10;offset 0&#10;live [0, 2) [4, 6)</title>"
        ));
        assert!(svg.contains("t &amp; t"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(ticks(0.0, 10.0, 1.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(0.0, 1_048_576.0, 1.0)[1], 200_000.0);
        assert_eq!(ticks(0.0, 3.0, 1.0), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(ticks(0.0, 1.4, 0.001).len(), 8);
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(400 << 10), "400 KiB");
    }
}
