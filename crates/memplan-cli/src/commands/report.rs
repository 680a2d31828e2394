//! `memplan model --report OUT.html`: one self-contained HTML page (no
//! script, no external file) with the summary, the plan picture (the SVG of
//! [`crate::svg`]), the per-step live-bytes curve, the schedule, and a table
//! of every scheduler x planner (placed peak, order peak, time).

use std::fmt::Write;
use std::time::{Duration, Instant};

use memplan_core::{Algorithm, MemSpace, Plan, Problem};
use memplan_sched::{place, schedule, Graph, Placement, Schedule, ScheduleOptions, Scheduler};

use crate::commands::plan::options_for;
use crate::svg;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The plan as a memplan-core problem and plan, for drawing.
fn as_plan(g: &Graph, order: &[usize], placement: &Placement) -> (Problem, Plan, Vec<String>) {
    let life = g.lifetimes(order);
    let mut buffers = Vec::new();
    let mut offsets = Vec::new();
    let mut ids = Vec::new();
    for (i, b) in g.buffers.iter().enumerate() {
        if let Some(off) = placement.offsets[i] {
            let (s, e) = life[i];
            buffers.push(memplan_core::Buffer::new(b.size, s as u64, e as u64 + 1));
            offsets.push(off);
            ids.push(format!("{i} {}", b.tensor));
        }
    }
    let problem = Problem::new(buffers);
    let plan = Plan::from_offsets(&problem, offsets);
    (problem, plan, ids)
}

/// The live-bytes curve as an SVG polyline (steps on x, bytes on y).
fn curve(loads: &[u64], lower_bound: u64) -> String {
    let (w, h, ml, mb, mt) = (1000.0, 260.0, 80.0, 30.0, 20.0);
    let max = loads.iter().copied().max().unwrap_or(1).max(1) as f64;
    // Each step is a flat segment [i, i + 1).
    let n = loads.len().max(1) as f64;
    let x = |i: f64| ml + (w - ml - 20.0) * i / n;
    let y = |v: f64| mt + (h - mt - mb) * (1.0 - v / max);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r##"<line x1="{ml}" y1="{}" x2="{}" y2="{}" stroke="#444"/><line x1="{ml}" y1="{mt}" x2="{ml}" y2="{}" stroke="#444"/>"##,
        h - mb,
        w - 20.0,
        h - mb,
        h - mb
    );
    let pts: Vec<String> = loads
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let (a, b, yv) = (x(i as f64), x(i as f64 + 1.0), y(v as f64));
            format!("{a:.1},{yv:.1} {b:.1},{yv:.1}")
        })
        .collect();
    let _ = writeln!(
        s,
        r##"<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="{}"/>"##,
        pts.join(" ")
    );
    let ly = y(lower_bound as f64);
    let _ = writeln!(
        s,
        r##"<line x1="{ml}" y1="{ly:.1}" x2="{}" y2="{ly:.1}" stroke="#d62728" stroke-dasharray="5,4"/><text x="{}" y="{:.1}" fill="#d62728" text-anchor="end">bound {lower_bound}</text>"##,
        w - 20.0,
        w - 22.0,
        ly - 4.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="end">{}</text><text x="{}" y="{}" text-anchor="end">0</text><text x="{}" y="{}" text-anchor="middle">step (0 .. {})</text>"#,
        ml - 6.0,
        mt + 4.0,
        max as u64,
        ml - 6.0,
        h - mb,
        (w + ml) / 2.0,
        h - 6.0,
        loads.len().saturating_sub(1)
    );
    s.push_str("</svg>\n");
    s
}

/// Everything the page shows about the chosen result.
pub struct Chosen<'a> {
    /// The input file's name.
    pub path: &'a str,
    /// The graph.
    pub graph: &'a Graph,
    /// The schedule.
    pub schedule: &'a Schedule,
    /// Its scheduler.
    pub scheduler: Scheduler,
    /// Its placement.
    pub placement: &'a Placement,
    /// Schedule + placement seconds.
    pub seconds: f64,
    /// The exact scheduler's limit for the table.
    pub time_limit: Duration,
}

/// The HTML page.
pub fn render(c: &Chosen<'_>) -> String {
    let g = c.graph;
    let mut h = String::new();
    let title = format!("memplan model {}", c.path);
    let _ = writeln!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>body{{font-family:sans-serif;margin:24px;max-width:1100px}}table{{border-collapse:collapse}}td,th{{border:1px solid #bbb;padding:3px 8px;text-align:right}}th{{background:#eee}}td:first-child,th:first-child{{text-align:left}}.sched{{max-height:260px;overflow:auto;border:1px solid #ccc;padding:4px 24px;font-size:13px}}.best{{background:#dfd}}</style></head><body>",
        escape(&title)
    );
    let p = c.placement.peak;
    let lb = c.schedule.lower_bound;
    let gap = if lb == 0 {
        0.0
    } else {
        100.0 * (p as f64 / lb as f64 - 1.0)
    };
    let _ = writeln!(h, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(
        h,
        "<table><tr><th>nodes</th><th>buffers</th><th>scheduler</th><th>planner</th><th>order peak</th><th>placed peak</th><th>lower bound (all orders)</th><th>gap</th><th>proved</th><th>seconds</th></tr>\n<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{p}</td><td>{lb}</td><td>{gap:.3}%</td><td>{}</td><td>{:.3}</td></tr></table>",
        g.len(),
        g.buffers.len(),
        c.scheduler.name(),
        escape(&c.placement.algorithm),
        c.schedule.peak,
        if p == lb { "yes" } else { "no" },
        c.seconds
    );
    let (problem, plan, ids) = as_plan(g, &c.schedule.order, c.placement);
    let _ = writeln!(h, "<h2>Plan</h2>");
    h.push_str(&svg::render(&svg::PlotInput {
        problem: &problem,
        ids: &ids,
        plan: &plan,
        lower_bounds: &[(MemSpace(0), lb)],
        title: &format!("{} · peak {p} bytes", c.path),
    }));
    let _ = writeln!(h, "<h2>Live bytes per step</h2>");
    h.push_str(&curve(&g.step_loads(&c.schedule.order), lb));
    let _ = writeln!(h, "<h2>Every scheduler x planner</h2>\n<p>Placed peak in bytes (order peak of the scheduler in the header; the exact planner has 1 s per cell, the exact scheduler {:.0} s). Green: the lowest placed peak.</p>", c.time_limit.as_secs_f64());
    h.push_str(&matrix(g, c.time_limit));
    let _ = writeln!(h, "<h2>Schedule</h2><ol class=\"sched\" start=\"0\">");
    for &v in &c.schedule.order {
        let node = &g.nodes[v];
        let _ = writeln!(
            h,
            "<li>node {v} {} <small>({})</small></li>",
            escape(&node.name),
            escape(&node.op)
        );
    }
    h.push_str("</ol>\n</body></html>\n");
    h
}

fn matrix(g: &Graph, time_limit: Duration) -> String {
    let sopts = ScheduleOptions {
        time_limit: Some(time_limit),
        node_limit: None,
    };
    let mut rows = Vec::new();
    for s in Scheduler::ALL {
        let t = Instant::now();
        let sched = schedule(g, s, &sopts);
        let st = t.elapsed().as_secs_f64();
        let mut cells = Vec::new();
        for a in Algorithm::ALL {
            let opts = options_for(a, Some(Duration::from_secs(1)), None);
            let t = Instant::now();
            let r = place(g, &sched.order, &opts).map(|p| p.peak).ok();
            cells.push((r, t.elapsed().as_secs_f64()));
        }
        rows.push((s, sched, st, cells));
    }
    let best = rows
        .iter()
        .flat_map(|r| r.3.iter().filter_map(|c| c.0))
        .min()
        .unwrap_or(0);
    let mut h = String::from(
        "<div style=\"overflow-x:auto\"><table style=\"font-size:12px\"><tr><th>scheduler (order peak, s)</th>",
    );
    for a in Algorithm::ALL {
        let _ = write!(h, "<th>{}</th>", a.name());
    }
    h.push_str("</tr>\n");
    for (s, sched, st, cells) in rows {
        let _ = write!(h, "<tr><td>{} ({}, {st:.3} s)</td>", s.name(), sched.peak);
        for (peak, t) in cells {
            match peak {
                Some(p) => {
                    let class = if p == best { " class=\"best\"" } else { "" };
                    let _ = write!(h, "<td{class}>{p}<br><small>{:.1} ms</small></td>", t * 1e3);
                }
                None => h.push_str("<td>failed</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></div>\n");
    h
}
