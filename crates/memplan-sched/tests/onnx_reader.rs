//! The ONNX reader against the shared graph JSON: on every `.onnx` model of
//! `../shared/benchmarks/onnx` (when that directory is there), the graph read
//! from the model has the same buffers (ids, sizes, producers, consumers,
//! tensor names, aliases, input/output flags) and nodes (ops, inputs,
//! outputs, preds, names) as the JSON written by the benchmark's own script
//! from `onnx.shape_inference`, and every scheduler gives the same peak on both.

use memplan_sched::onnx::onnx_graph_json;
use memplan_sched::{schedule, Graph, ScheduleOptions, Scheduler};

#[test]
fn onnx_models_match_their_json_graphs() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/benchmarks/onnx");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} is absent", dir.display());
        return;
    };
    let mut models: Vec<_> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "onnx"))
        .collect();
    models.sort();
    assert!(models.len() >= 12, "{models:?}");
    for m in models {
        let stem = m.file_stem().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&m).unwrap();
        let got = onnx_graph_json(&bytes).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let want: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("graphs").join(format!("{stem}.json"))).unwrap(),
        )
        .unwrap();
        for key in ["buffers", "nodes", "order"] {
            let (g, w) = (got[key].as_array().unwrap(), want[key].as_array().unwrap());
            assert_eq!(g.len(), w.len(), "{stem}: number of {key}");
            for (a, b) in g.iter().zip(w) {
                assert_eq!(a, b, "{stem}: {key} differ");
            }
        }
        let from_onnx = memplan_sched::read_onnx(&bytes).unwrap();
        let from_json = Graph::from_json(&want.to_string()).unwrap();
        assert_eq!(
            Some(from_onnx.peak(&from_onnx.given_order)),
            from_json.stated_peak,
            "{stem}"
        );
        let opts = ScheduleOptions {
            time_limit: Some(std::time::Duration::from_secs(5)),
            node_limit: None,
        };
        for s in Scheduler::ALL {
            let (a, b) = (
                schedule(&from_onnx, s, &opts),
                schedule(&from_json, s, &opts),
            );
            assert_eq!(
                (a.peak, a.lower_bound),
                (b.peak, b.lower_bound),
                "{stem} {}",
                s.name()
            );
        }
    }
}
