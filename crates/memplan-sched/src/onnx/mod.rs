//! Reading an ONNX model (`.onnx`) into a [`Graph`], with static shape
//! inference.
//!
//! The protobuf is decoded with `prost` ([`proto`] declares the messages the
//! reader needs). Shapes come from this module's own inference over the
//! operators below, with integer constant folding for shape arithmetic
//! (`Shape`, `Gather`, `Concat`, `Unsqueeze`, ... on constants), so a
//! graph-only model works: weights replaced by `ConstantOfShape` nodes, or
//! initializers whose data lives in an external file that is absent (only
//! their dims and type are needed, unless a shape input reads their values).
//! A `value_info` or graph output entry with a static shape is checked
//! against the inferred one, and stands in for it on an operator the
//! inference does not know.
//!
//! Memory model (`benchmarks/onnx/README.md`): weights are the initializers
//! and the outputs of `Constant` / `ConstantOfShape` nodes, which are not
//! scheduled; every other node is a schedule node (ids in file order).
//! Buffers are the graph's real inputs (in `graph.input` order), then the
//! outputs of the schedule nodes in file order, except the outputs of view
//! ops (`Reshape`, `Flatten`, `Squeeze`, `Unsqueeze`, `Identity`,
//! `Dropout`): a view's output 0 names its input 0's buffer (a view of a
//! weight is a weight), and its further outputs are dropped unless something
//! reads them. A node's `preds` are the schedule nodes producing its inputs
//! (in input order); its `inputs` the buffers behind them, through views.

pub mod proto;

use std::collections::{HashMap, HashSet};

use prost::Message;
use serde_json::{json, Value};

use crate::graph::{Graph, GraphError};
use proto::{AttributeProto, NodeProto, TensorProto, ValueInfoProto};

/// The ops whose output 0 aliases input 0.
pub const VIEW_OPS: &[&str] = &[
    "Reshape",
    "Flatten",
    "Squeeze",
    "Unsqueeze",
    "Identity",
    "Dropout",
];

fn err(at: impl Into<String>, message: impl Into<String>) -> GraphError {
    GraphError {
        at: at.into(),
        message: message.into(),
    }
}

/// Reads an ONNX model into a graph.
pub fn read_onnx(bytes: &[u8]) -> Result<Graph, GraphError> {
    let doc = onnx_graph_json(bytes)?;
    Graph::from_json(&doc.to_string())
}

/// A static tensor type: element type (ONNX `TensorProto.DataType`) and dims.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ty {
    elem: i32,
    dims: Vec<u64>,
}

impl Ty {
    fn new(elem: i32, dims: Vec<u64>) -> Ty {
        Ty { elem, dims }
    }
    fn rank(&self) -> usize {
        self.dims.len()
    }
}

const FLOAT: i32 = 1;
const INT64: i32 = 7;
const BOOL: i32 = 9;

/// Bits per element of an ONNX data type (`None`: strings and unknown types).
fn elem_bits(elem: i32) -> Option<u64> {
    Some(match elem {
        2 | 3 | 9 | 17..=20 => 8,
        4 | 5 | 10 | 16 => 16,
        1 | 6 | 12 => 32,
        7 | 11 | 13 | 14 => 64,
        15 => 128,
        21..=23 | 25 | 26 => 4,
        _ => return None,
    })
}

fn bytes_of(t: &Ty) -> Option<u64> {
    let mut n: u64 = 1;
    for &d in &t.dims {
        n = n.checked_mul(d)?;
    }
    let bits = n.checked_mul(elem_bits(t.elem)?)?;
    Some(bits.div_ceil(8))
}

fn attr<'a>(n: &'a NodeProto, name: &str) -> Option<&'a AttributeProto> {
    n.attribute.iter().find(|a| a.name.as_deref() == Some(name))
}

fn attr_i(n: &NodeProto, name: &str) -> Option<i64> {
    attr(n, name).and_then(|a| a.i)
}

fn attr_ints(n: &NodeProto, name: &str) -> Option<Vec<i64>> {
    attr(n, name).map(|a| a.ints.clone())
}

fn attr_s(n: &NodeProto, name: &str) -> Option<String> {
    attr(n, name)
        .and_then(|a| a.s.as_ref())
        .map(|s| String::from_utf8_lossy(s).into_owned())
}

fn tensor_ty(t: &TensorProto) -> Result<Ty, String> {
    let mut dims = Vec::with_capacity(t.dims.len());
    for &d in &t.dims {
        dims.push(u64::try_from(d).map_err(|_| format!("negative dim {d}"))?);
    }
    Ok(Ty::new(t.data_type.unwrap_or(FLOAT), dims))
}

/// The integer values of a tensor with inline data (int64, int32 and
/// smaller integer types, bool); `None` for external or non-integer data.
fn tensor_ints(t: &TensorProto) -> Option<Vec<i64>> {
    if t.data_location == Some(1) {
        return None;
    }
    let elem = t.data_type.unwrap_or(FLOAT);
    let width = match elem {
        7 | 13 => 8,
        6 | 12 => 4,
        5 | 4 => 2,
        2 | 3 | 9 => 1,
        _ => return None,
    };
    if let Some(raw) = &t.raw_data {
        if raw.len() % width != 0 {
            return None;
        }
        return Some(
            raw.chunks(width)
                .map(|c| {
                    let mut b = [0u8; 8];
                    b[..width].copy_from_slice(c);
                    let v = u64::from_le_bytes(b);
                    // Sign-extend the signed types.
                    let shift = 64 - 8 * width as u32;
                    match elem {
                        7 | 6 | 5 | 3 => ((v << shift) as i64) >> shift,
                        _ => v as i64,
                    }
                })
                .collect(),
        );
    }
    match elem {
        7 => Some(t.int64_data.clone()),
        13 => Some(t.uint64_data.iter().map(|&v| v as i64).collect()),
        _ => Some(t.int32_data.iter().map(|&v| i64::from(v)).collect()),
    }
}

fn norm_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    if (0..r).contains(&a) {
        Ok(a as usize)
    } else {
        Err(format!("axis {axis} is out of range for rank {rank}"))
    }
}

fn broadcast(a: &[u64], b: &[u64]) -> Result<Vec<u64>, String> {
    let r = a.len().max(b.len());
    let mut out = vec![0; r];
    for (i, o) in out.iter_mut().enumerate() {
        let x = if i + a.len() >= r {
            a[i + a.len() - r]
        } else {
            1
        };
        let y = if i + b.len() >= r {
            b[i + b.len() - r]
        } else {
            1
        };
        *o = if x == y || y == 1 {
            x
        } else if x == 1 {
            y
        } else {
            return Err(format!("shapes {a:?} and {b:?} do not broadcast"));
        };
    }
    Ok(out)
}

fn prod(d: &[u64]) -> Result<u64, String> {
    d.iter()
        .try_fold(1u64, |acc, &x| acc.checked_mul(x))
        .ok_or_else(|| "a dimension product overflows 64 bits".to_string())
}

/// What shape inference sees of a node's inputs.
struct Inputs<'a> {
    tys: Vec<Option<&'a Ty>>,
    consts: Vec<Option<&'a Vec<i64>>>,
}

impl<'a> Inputs<'a> {
    fn ty(&self, i: usize) -> Result<&'a Ty, String> {
        self.tys
            .get(i)
            .copied()
            .flatten()
            .ok_or_else(|| format!("input {i} is missing"))
    }
    fn has(&self, i: usize) -> bool {
        self.tys.get(i).is_some_and(|t| t.is_some())
    }
    fn ints(&self, i: usize, what: &str) -> Result<Vec<i64>, String> {
        self.consts
            .get(i)
            .copied()
            .flatten()
            .cloned()
            .ok_or_else(|| {
                format!("input {i} ({what}) must be a constant known when the model is read")
            })
    }
}

/// Attribute list or (from some opset on) constant input `i`.
fn ints_attr_or_input(
    n: &NodeProto,
    inp: &Inputs,
    name: &str,
    i: usize,
) -> Result<Option<Vec<i64>>, String> {
    if let Some(v) = attr_ints(n, name) {
        return Ok(Some(v));
    }
    if inp.has(i) {
        return inp.ints(i, name).map(Some);
    }
    Ok(None)
}

fn conv_like(n: &NodeProto, x: &Ty, kernel: &[u64], pool: bool) -> Result<Vec<u64>, String> {
    let sp = x.rank().checked_sub(2).ok_or("input rank below 2")?;
    if kernel.len() != sp {
        return Err(format!(
            "kernel rank {} for {sp} spatial dims",
            kernel.len()
        ));
    }
    let strides = attr_ints(n, "strides").unwrap_or_else(|| vec![1; sp]);
    let dil = attr_ints(n, "dilations").unwrap_or_else(|| vec![1; sp]);
    let pads = attr_ints(n, "pads").unwrap_or_else(|| vec![0; 2 * sp]);
    let auto = attr_s(n, "auto_pad").unwrap_or_else(|| "NOTSET".into());
    let ceil = pool && attr_i(n, "ceil_mode").unwrap_or(0) != 0;
    if strides.len() != sp || dil.len() != sp || pads.len() != 2 * sp {
        return Err("strides, dilations or pads do not match the spatial rank".into());
    }
    const LIMIT: i64 = 1 << 40;
    let too_big = |v: i64| !(-LIMIT..=LIMIT).contains(&v);
    if x.dims.iter().any(|&d| d > LIMIT as u64)
        || kernel.iter().any(|&k| k > LIMIT as u64)
        || strides.iter().chain(&dil).chain(&pads).any(|&v| too_big(v))
    {
        return Err("a dimension or attribute is above 2^40".into());
    }
    let mut out = Vec::with_capacity(sp);
    for i in 0..sp {
        let d = x.dims[2 + i] as i64;
        let (s, k) = (strides[i], kernel[i] as i64);
        if s <= 0 || dil[i] <= 0 {
            return Err("strides and dilations must be positive".into());
        }
        let ek = dil[i] * (k - 1) + 1;
        let o = match auto.as_str() {
            "SAME_UPPER" | "SAME_LOWER" => (d + s - 1) / s,
            "VALID" => (d - ek) / s + 1,
            _ => {
                let span = d + pads[i] + pads[i + sp] - ek;
                if span < 0 {
                    return Err(format!("the kernel is larger than the padded input ({d})"));
                }
                if ceil {
                    let mut o = (span + s - 1) / s + 1;
                    // The last window must start inside the input or its left padding.
                    if (o - 1) * s >= d + pads[i] {
                        o -= 1;
                    }
                    o
                } else {
                    span / s + 1
                }
            }
        };
        if o <= 0 {
            return Err(format!("output dim {o} is not positive"));
        }
        out.push(o as u64);
    }
    Ok(out)
}

fn reduce(n: &NodeProto, inp: &Inputs, opset: i64, x: &Ty, elem: i32) -> Result<Ty, String> {
    let keep = attr_i(n, "keepdims").unwrap_or(1) != 0;
    let axes = if n.op_type.as_deref() == Some("ArgMax") || n.op_type.as_deref() == Some("ArgMin") {
        Some(vec![attr_i(n, "axis").unwrap_or(0)])
    } else {
        let by_input = opset >= 18 || (n.op_type.as_deref() == Some("ReduceSum") && opset >= 13);
        if by_input {
            if inp.has(1) {
                Some(inp.ints(1, "axes")?)
            } else {
                None
            }
        } else {
            attr_ints(n, "axes")
        }
    };
    let axes: Vec<usize> = match axes {
        Some(a) if !a.is_empty() => a
            .iter()
            .map(|&a| norm_axis(a, x.rank()))
            .collect::<Result<_, _>>()?,
        _ if attr_i(n, "noop_with_empty_axes").unwrap_or(0) != 0 => return Ok(x.clone()),
        _ => (0..x.rank()).collect(),
    };
    let mut dims = Vec::new();
    for (i, &d) in x.dims.iter().enumerate() {
        if axes.contains(&i) {
            if keep {
                dims.push(1);
            }
        } else {
            dims.push(d);
        }
    }
    Ok(Ty::new(elem, dims))
}

fn slice_dim(d: u64, start: i64, end: i64, step: i64) -> Result<u64, String> {
    if step == 0 {
        return Err("a slice step is 0".into());
    }
    let d = d as i64;
    let fix = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
    let (s, e) = (fix(start), fix(end));
    let n = if step > 0 {
        let (s, e) = (s.clamp(0, d), e.clamp(0, d));
        if e > s {
            (e - s - 1) / step + 1
        } else {
            0
        }
    } else {
        let (s, e) = (s.clamp(-1, d - 1), e.clamp(-1, d - 1));
        if s > e {
            ((s - e - 1) as u64 / step.unsigned_abs() + 1) as i64
        } else {
            0
        }
    };
    Ok(n as u64)
}

/// Output types of one node (`None` for an omitted optional output).
fn infer(n: &NodeProto, inp: &Inputs, opset: i64) -> Result<Vec<Ty>, String> {
    let op = n.op_type.as_deref().unwrap_or("");
    let nout = n.output.len();
    Ok(match op {
        "Relu"
        | "LeakyRelu"
        | "Sigmoid"
        | "Tanh"
        | "Erf"
        | "Exp"
        | "Log"
        | "Neg"
        | "Abs"
        | "Sqrt"
        | "Reciprocal"
        | "Elu"
        | "Selu"
        | "Celu"
        | "HardSigmoid"
        | "HardSwish"
        | "Softplus"
        | "Softsign"
        | "Gelu"
        | "Clip"
        | "Softmax"
        | "LogSoftmax"
        | "Hardmax"
        | "Identity"
        | "Floor"
        | "Ceil"
        | "Round"
        | "Sign"
        | "Sin"
        | "Cos"
        | "Tan"
        | "Not"
        | "LRN"
        | "InstanceNormalization"
        | "MeanVarianceNormalization"
        | "ThresholdedRelu"
        | "Shrink"
        | "Mish"
        | "Trilu"
        | "CumSum"
        | "Asin"
        | "Acos"
        | "Atan"
        | "Sinh"
        | "Cosh"
        | "Erfc"
        | "BitwiseNot" => vec![inp.ty(0)?.clone()],
        "IsNaN" | "IsInf" => vec![Ty::new(BOOL, inp.ty(0)?.dims.clone())],
        "Dropout" => {
            let x = inp.ty(0)?;
            let mut v = vec![x.clone()];
            if nout > 1 {
                v.push(Ty::new(BOOL, x.dims.clone()));
            }
            v
        }
        "BatchNormalization" => {
            let x = inp.ty(0)?;
            let mut v = vec![x.clone()];
            for k in 1..nout {
                v.push(inp.ty(if k <= 2 { k + 2 } else { 1 })?.clone());
            }
            v
        }
        "LayerNormalization" => {
            let x = inp.ty(0)?;
            let axis = norm_axis(attr_i(n, "axis").unwrap_or(-1), x.rank())?;
            let stat: Vec<u64> = x
                .dims
                .iter()
                .enumerate()
                .map(|(i, &d)| if i < axis { d } else { 1 })
                .collect();
            let mut v = vec![x.clone()];
            for _ in 1..nout {
                v.push(Ty::new(FLOAT, stat.clone()));
            }
            v
        }
        "Cast" => {
            let to = attr_i(n, "to").ok_or("Cast without `to`")?;
            vec![Ty::new(to as i32, inp.ty(0)?.dims.clone())]
        }
        "CastLike" => vec![Ty::new(inp.ty(1)?.elem, inp.ty(0)?.dims.clone())],
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Mod" | "Max" | "Min" | "Sum" | "Mean"
        | "PRelu" | "BitShift" | "BitwiseAnd" | "BitwiseOr" | "BitwiseXor" | "And" | "Or"
        | "Xor" | "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" => {
            let first = inp.ty(0)?;
            let mut dims = first.dims.clone();
            for i in 1..inp.tys.len() {
                if inp.has(i) {
                    dims = broadcast(&dims, &inp.ty(i)?.dims)?;
                }
            }
            let logic = matches!(
                op,
                "And"
                    | "Or"
                    | "Xor"
                    | "Equal"
                    | "Less"
                    | "Greater"
                    | "LessOrEqual"
                    | "GreaterOrEqual"
            );
            vec![Ty::new(if logic { BOOL } else { first.elem }, dims)]
        }
        "Where" => {
            let d = broadcast(&inp.ty(0)?.dims, &inp.ty(1)?.dims)?;
            let d = broadcast(&d, &inp.ty(2)?.dims)?;
            vec![Ty::new(inp.ty(1)?.elem, d)]
        }
        "Conv" | "ConvInteger" => {
            let (x, w) = (inp.ty(0)?, inp.ty(1)?);
            if w.rank() != x.rank() || x.rank() < 3 {
                return Err(format!(
                    "Conv input rank {} and weight rank {}",
                    x.rank(),
                    w.rank()
                ));
            }
            let k: Vec<u64> = match attr_ints(n, "kernel_shape") {
                Some(k) => k.iter().map(|&v| v.max(0) as u64).collect(),
                None => w.dims[2..].to_vec(),
            };
            let mut dims = vec![x.dims[0], w.dims[0]];
            dims.extend(conv_like(n, x, &k, false)?);
            let elem = if op == "ConvInteger" { 6 } else { x.elem };
            vec![Ty::new(elem, dims)]
        }
        "ConvTranspose" => {
            let (x, w) = (inp.ty(0)?, inp.ty(1)?);
            let sp = x.rank().checked_sub(2).ok_or("input rank below 2")?;
            if w.rank() != x.rank() {
                return Err("ConvTranspose weight rank differs from input rank".into());
            }
            let group = attr_i(n, "group").unwrap_or(1).max(1) as u64;
            let mut dims = vec![
                x.dims[0],
                w.dims[1]
                    .checked_mul(group)
                    .ok_or("ConvTranspose size overflows")?,
            ];
            if let Some(os) = attr_ints(n, "output_shape") {
                let os = &os[os.len().saturating_sub(sp)..];
                dims.extend(os.iter().map(|&v| v.max(0) as u64));
            } else {
                let k = attr_ints(n, "kernel_shape")
                    .unwrap_or_else(|| w.dims[2..].iter().map(|&v| v as i64).collect());
                let s = attr_ints(n, "strides").unwrap_or_else(|| vec![1; sp]);
                let d = attr_ints(n, "dilations").unwrap_or_else(|| vec![1; sp]);
                let p = attr_ints(n, "pads").unwrap_or_else(|| vec![0; 2 * sp]);
                let op_ = attr_ints(n, "output_padding").unwrap_or_else(|| vec![0; sp]);
                if k.len() != sp
                    || s.len() != sp
                    || d.len() != sp
                    || p.len() != 2 * sp
                    || op_.len() != sp
                {
                    return Err("ConvTranspose attributes do not match the spatial rank".into());
                }
                let auto = attr_s(n, "auto_pad").unwrap_or_else(|| "NOTSET".into());
                const LIMIT: i64 = 1 << 40;
                if x.dims.iter().any(|&d| d > LIMIT as u64)
                    || k.iter()
                        .chain(&s)
                        .chain(&d)
                        .chain(&p)
                        .chain(&op_)
                        .any(|&v| !(-LIMIT..=LIMIT).contains(&v))
                {
                    return Err("a dimension or attribute is above 2^40".into());
                }
                for i in 0..sp {
                    let xi = x.dims[2 + i] as i64;
                    let o = if auto == "SAME_UPPER" || auto == "SAME_LOWER" {
                        xi * s[i]
                    } else {
                        s[i] * (xi - 1) + op_[i] + (k[i] - 1) * d[i] + 1 - p[i] - p[i + sp]
                    };
                    if o <= 0 {
                        return Err(format!("output dim {o} is not positive"));
                    }
                    dims.push(o as u64);
                }
            }
            vec![Ty::new(x.elem, dims)]
        }
        "MaxPool" | "AveragePool" | "LpPool" => {
            let x = inp.ty(0)?;
            let k: Vec<u64> = attr_ints(n, "kernel_shape")
                .ok_or("pooling without kernel_shape")?
                .iter()
                .map(|&v| v.max(0) as u64)
                .collect();
            let mut dims = x.dims[..2.min(x.rank())].to_vec();
            dims.extend(conv_like(n, x, &k, true)?);
            let mut v = vec![Ty::new(x.elem, dims.clone())];
            if nout > 1 {
                v.push(Ty::new(INT64, dims));
            }
            v
        }
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => {
            let x = inp.ty(0)?;
            let dims = x
                .dims
                .iter()
                .enumerate()
                .map(|(i, &d)| if i < 2 { d } else { 1 })
                .collect();
            vec![Ty::new(x.elem, dims)]
        }
        "Gemm" => {
            let (a, b) = (inp.ty(0)?, inp.ty(1)?);
            if a.rank() != 2 || b.rank() != 2 {
                return Err("Gemm operands must be matrices".into());
            }
            let m = if attr_i(n, "transA").unwrap_or(0) != 0 {
                a.dims[1]
            } else {
                a.dims[0]
            };
            let nn = if attr_i(n, "transB").unwrap_or(0) != 0 {
                b.dims[0]
            } else {
                b.dims[1]
            };
            vec![Ty::new(a.elem, vec![m, nn])]
        }
        "MatMul" | "MatMulInteger" => {
            let (a, b) = (inp.ty(0)?, inp.ty(1)?);
            if a.rank() == 0 || b.rank() == 0 {
                return Err("MatMul of a scalar".into());
            }
            let ad = if a.rank() == 1 {
                vec![1, a.dims[0]]
            } else {
                a.dims.clone()
            };
            let bd = if b.rank() == 1 {
                vec![b.dims[0], 1]
            } else {
                b.dims.clone()
            };
            let (ar, br) = (ad.len(), bd.len());
            if ad[ar - 1] != bd[br - 2] {
                return Err(format!("MatMul of {:?} and {:?}", a.dims, b.dims));
            }
            let mut dims = broadcast(&ad[..ar - 2], &bd[..br - 2])?;
            if a.rank() > 1 {
                dims.push(ad[ar - 2]);
            }
            if b.rank() > 1 {
                dims.push(bd[br - 1]);
            }
            let elem = if op == "MatMulInteger" { 6 } else { a.elem };
            vec![Ty::new(elem, dims)]
        }
        "Flatten" => {
            let x = inp.ty(0)?;
            let axis = attr_i(n, "axis").unwrap_or(1);
            let r = x.rank() as i64;
            let a = if axis < 0 { axis + r } else { axis };
            if !(0..=r).contains(&a) {
                return Err(format!("axis {axis} is out of range for rank {r}"));
            }
            let a = a as usize;
            vec![Ty::new(
                x.elem,
                vec![prod(&x.dims[..a])?, prod(&x.dims[a..])?],
            )]
        }
        "Reshape" => {
            let x = inp.ty(0)?;
            let shape = if inp.has(1) {
                inp.ints(1, "shape")?
            } else {
                attr_ints(n, "shape").ok_or("Reshape without a shape")?
            };
            let allow_zero = attr_i(n, "allowzero").unwrap_or(0) != 0;
            let total = prod(&x.dims)?;
            let mut dims = Vec::with_capacity(shape.len());
            let mut infer_at = None;
            for (i, &s) in shape.iter().enumerate() {
                match s {
                    -1 if infer_at.is_none() => {
                        infer_at = Some(i);
                        dims.push(1);
                    }
                    0 if !allow_zero => dims.push(
                        *x.dims
                            .get(i)
                            .ok_or("Reshape copies a dim the input lacks")?,
                    ),
                    s if s >= 0 => dims.push(s as u64),
                    _ => return Err(format!("bad Reshape target {shape:?}")),
                }
            }
            if let Some(i) = infer_at {
                let rest = prod(&dims)?;
                if rest == 0 || total % rest != 0 {
                    return Err(format!("cannot reshape {:?} to {shape:?}", x.dims));
                }
                dims[i] = total / rest;
            }
            if prod(&dims)? != total {
                return Err(format!("cannot reshape {:?} to {shape:?}", x.dims));
            }
            vec![Ty::new(x.elem, dims)]
        }
        "Squeeze" => {
            let x = inp.ty(0)?;
            let axes = ints_attr_or_input(n, inp, "axes", 1)?;
            let dims = match axes {
                Some(a) => {
                    let a: Vec<usize> = a
                        .iter()
                        .map(|&a| norm_axis(a, x.rank()))
                        .collect::<Result<_, _>>()?;
                    let mut dims = Vec::new();
                    for (i, &d) in x.dims.iter().enumerate() {
                        if a.contains(&i) {
                            if d != 1 {
                                return Err(format!("Squeeze of a dim of size {d}"));
                            }
                        } else {
                            dims.push(d);
                        }
                    }
                    dims
                }
                None => x.dims.iter().copied().filter(|&d| d != 1).collect(),
            };
            vec![Ty::new(x.elem, dims)]
        }
        "Unsqueeze" => {
            let x = inp.ty(0)?;
            let axes = ints_attr_or_input(n, inp, "axes", 1)?.ok_or("Unsqueeze without axes")?;
            let r = x.rank() + axes.len();
            let a: Vec<usize> = axes
                .iter()
                .map(|&a| norm_axis(a, r))
                .collect::<Result<_, _>>()?;
            let mut src = x.dims.iter();
            let dims = (0..r)
                .map(|i| {
                    if a.contains(&i) {
                        Ok(1)
                    } else {
                        src.next().copied().ok_or("Unsqueeze axes repeat")
                    }
                })
                .collect::<Result<Vec<u64>, _>>()?;
            vec![Ty::new(x.elem, dims)]
        }
        "Transpose" => {
            let x = inp.ty(0)?;
            let perm = attr_ints(n, "perm").unwrap_or_else(|| (0..x.rank() as i64).rev().collect());
            if perm.len() != x.rank() {
                return Err("Transpose perm does not match the rank".into());
            }
            let dims = perm
                .iter()
                .map(|&p| norm_axis(p, x.rank()).map(|p| x.dims[p]))
                .collect::<Result<_, _>>()?;
            vec![Ty::new(x.elem, dims)]
        }
        "Concat" => {
            let x = inp.ty(0)?;
            let axis = norm_axis(attr_i(n, "axis").ok_or("Concat without axis")?, x.rank())?;
            let mut dims = x.dims.clone();
            for i in 1..inp.tys.len() {
                let t = inp.ty(i)?;
                if t.rank() != x.rank() {
                    return Err("Concat of tensors of different ranks".into());
                }
                dims[axis] = dims[axis]
                    .checked_add(t.dims[axis])
                    .ok_or("Concat size overflows")?;
            }
            vec![Ty::new(x.elem, dims)]
        }
        "Split" => {
            let x = inp.ty(0)?;
            let axis = norm_axis(attr_i(n, "axis").unwrap_or(0), x.rank())?;
            let d = x.dims[axis];
            let parts: Vec<u64> = match ints_attr_or_input(n, inp, "split", 1)? {
                Some(s) => s.iter().map(|&v| v.max(0) as u64).collect(),
                None => {
                    let k = attr_i(n, "num_outputs").map_or(nout as u64, |v| v.max(1) as u64);
                    let chunk = d.div_ceil(k.max(1));
                    (0..k)
                        .map(|i| chunk.min(d.saturating_sub(i * chunk)))
                        .collect()
                }
            };
            if parts.len() != nout || parts.iter().sum::<u64>() != d {
                return Err(format!(
                    "Split sizes {parts:?} do not cover dim {d} in {nout} outputs"
                ));
            }
            parts
                .iter()
                .map(|&p| {
                    let mut dims = x.dims.clone();
                    dims[axis] = p;
                    Ty::new(x.elem, dims)
                })
                .collect()
        }
        "Gather" => {
            let (x, i) = (inp.ty(0)?, inp.ty(1)?);
            let axis = norm_axis(attr_i(n, "axis").unwrap_or(0), x.rank())?;
            let mut dims = x.dims[..axis].to_vec();
            dims.extend(&i.dims);
            dims.extend(&x.dims[axis + 1..]);
            vec![Ty::new(x.elem, dims)]
        }
        "GatherElements" => vec![Ty::new(inp.ty(0)?.elem, inp.ty(1)?.dims.clone())],
        "GatherND" => {
            let (x, i) = (inp.ty(0)?, inp.ty(1)?);
            let b = attr_i(n, "batch_dims").unwrap_or(0).max(0) as usize;
            let last = *i.dims.last().ok_or("GatherND indices of rank 0")? as usize;
            if b + last > x.rank() {
                return Err("GatherND indices reach past the data rank".into());
            }
            let mut dims = i.dims[..i.rank() - 1].to_vec();
            dims.extend(&x.dims[b + last..]);
            vec![Ty::new(x.elem, dims)]
        }
        "ScatterElements" | "ScatterND" | "Scatter" => vec![inp.ty(0)?.clone()],
        "Slice" => {
            let x = inp.ty(0)?;
            let (starts, ends, axes, steps) = if opset < 10 {
                (
                    attr_ints(n, "starts").ok_or("Slice without starts")?,
                    attr_ints(n, "ends").ok_or("Slice without ends")?,
                    attr_ints(n, "axes"),
                    None,
                )
            } else {
                (
                    inp.ints(1, "starts")?,
                    inp.ints(2, "ends")?,
                    if inp.has(3) {
                        Some(inp.ints(3, "axes")?)
                    } else {
                        None
                    },
                    if inp.has(4) {
                        Some(inp.ints(4, "steps")?)
                    } else {
                        None
                    },
                )
            };
            let axes = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
            let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
            if ends.len() != starts.len()
                || axes.len() != starts.len()
                || steps.len() != starts.len()
            {
                return Err("Slice starts, ends, axes and steps differ in length".into());
            }
            let mut dims = x.dims.clone();
            for k in 0..starts.len() {
                let a = norm_axis(axes[k], x.rank())?;
                dims[a] = slice_dim(x.dims[a], starts[k], ends[k], steps[k])?;
            }
            vec![Ty::new(x.elem, dims)]
        }
        "Expand" => {
            let x = inp.ty(0)?;
            let shape: Vec<u64> = inp
                .ints(1, "shape")?
                .iter()
                .map(|&v| v.max(0) as u64)
                .collect();
            vec![Ty::new(x.elem, broadcast(&x.dims, &shape)?)]
        }
        "Tile" => {
            let x = inp.ty(0)?;
            let reps = inp.ints(1, "repeats")?;
            if reps.len() != x.rank() {
                return Err("Tile repeats do not match the rank".into());
            }
            let dims = x
                .dims
                .iter()
                .zip(&reps)
                .map(|(&d, &r)| d.checked_mul(r.max(0) as u64).ok_or("Tile overflows"))
                .collect::<Result<_, _>>()?;
            vec![Ty::new(x.elem, dims)]
        }
        "Pad" => {
            let x = inp.ty(0)?;
            let pads = if opset < 11 {
                attr_ints(n, "pads").ok_or("Pad without pads")?
            } else {
                inp.ints(1, "pads")?
            };
            let axes: Vec<usize> = if inp.has(3) {
                inp.ints(3, "axes")?
                    .iter()
                    .map(|&a| norm_axis(a, x.rank()))
                    .collect::<Result<_, _>>()?
            } else {
                (0..x.rank()).collect()
            };
            if pads.len() != 2 * axes.len() {
                return Err("Pad pads do not match the axes".into());
            }
            let mut dims = x.dims.clone();
            for (k, &a) in axes.iter().enumerate() {
                let v = i64::try_from(dims[a])
                    .ok()
                    .and_then(|d| d.checked_add(pads[k])?.checked_add(pads[k + axes.len()]))
                    .ok_or("Pad size overflows")?;
                if v < 0 {
                    return Err("Pad makes a negative dim".into());
                }
                dims[a] = v as u64;
            }
            vec![Ty::new(x.elem, dims)]
        }
        "Shape" => {
            let x = inp.ty(0)?;
            let r = x.rank() as i64;
            let clampi = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r);
            let s = clampi(attr_i(n, "start").unwrap_or(0));
            let e = clampi(attr_i(n, "end").unwrap_or(r));
            vec![Ty::new(INT64, vec![(e - s).max(0) as u64])]
        }
        "Size" => vec![Ty::new(INT64, vec![])],
        "Range" => {
            let one = |i: usize, what: &str| -> Result<i64, String> {
                inp.ints(i, what)?
                    .first()
                    .copied()
                    .ok_or_else(|| format!("Range {what} is empty"))
            };
            let (start, limit, delta) = (one(0, "start")?, one(1, "limit")?, one(2, "delta")?);
            if delta == 0 {
                return Err("Range delta is 0".into());
            }
            let span = limit.saturating_sub(start);
            let n = if (span > 0) == (delta > 0) && span != 0 {
                (span.unsigned_abs()).div_ceil(delta.unsigned_abs())
            } else {
                0
            };
            vec![Ty::new(inp.ty(0)?.elem, vec![n])]
        }
        "ConstantOfShape" => {
            let shape: Vec<u64> = inp
                .ints(0, "shape")?
                .iter()
                .map(|&v| v.max(0) as u64)
                .collect();
            let elem = attr(n, "value")
                .and_then(|a| a.t.as_ref())
                .and_then(|t| t.data_type)
                .unwrap_or(FLOAT);
            vec![Ty::new(elem, shape)]
        }
        "Constant" => {
            if let Some(t) = attr(n, "value").and_then(|a| a.t.as_ref()) {
                vec![tensor_ty(t)?]
            } else if attr(n, "value_float").is_some() {
                vec![Ty::new(FLOAT, vec![])]
            } else if attr(n, "value_int").is_some() {
                vec![Ty::new(INT64, vec![])]
            } else if let Some(a) = attr(n, "value_floats") {
                vec![Ty::new(FLOAT, vec![a.floats.len() as u64])]
            } else if let Some(a) = attr(n, "value_ints") {
                vec![Ty::new(INT64, vec![a.ints.len() as u64])]
            } else {
                return Err("Constant without a supported value attribute".into());
            }
        }
        "ReduceMean" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => {
            let x = inp.ty(0)?;
            vec![reduce(n, inp, opset, x, x.elem)?]
        }
        "ArgMax" | "ArgMin" => vec![reduce(n, inp, opset, inp.ty(0)?, INT64)?],
        "TopK" => {
            let x = inp.ty(0)?;
            let axis = norm_axis(attr_i(n, "axis").unwrap_or(-1), x.rank())?;
            let k = if opset < 10 {
                attr_i(n, "k").ok_or("TopK without k")?
            } else {
                *inp.ints(1, "K")?.first().ok_or("TopK with an empty K")?
            };
            let mut dims = x.dims.clone();
            dims[axis] = k.max(0) as u64;
            vec![Ty::new(x.elem, dims.clone()), Ty::new(INT64, dims)]
        }
        "DepthToSpace" | "SpaceToDepth" => {
            let x = inp.ty(0)?;
            let b = attr_i(n, "blocksize").ok_or("blocksize missing")?.max(1) as u64;
            if x.rank() != 4 {
                return Err("rank-4 input expected".into());
            }
            let d = &x.dims;
            let mul = |a: u64, b: u64| a.checked_mul(b).ok_or("size overflows");
            let bb = mul(b, b)?;
            let dims = if op == "DepthToSpace" {
                vec![d[0], d[1] / bb, mul(d[2], b)?, mul(d[3], b)?]
            } else {
                vec![d[0], mul(d[1], bb)?, d[2] / b, d[3] / b]
            };
            vec![Ty::new(x.elem, dims)]
        }
        "Resize" | "Upsample" => {
            let x = inp.ty(0)?;
            let sizes_at = if op == "Resize" && opset >= 11 {
                3
            } else {
                usize::MAX
            };
            if sizes_at != usize::MAX && inp.has(sizes_at) {
                let s = inp.ints(sizes_at, "sizes")?;
                vec![Ty::new(
                    x.elem,
                    s.iter().map(|&v| v.max(0) as u64).collect(),
                )]
            } else {
                return Err(format!(
                    "{op} by scales is not supported (give the output shape in value_info)"
                ));
            }
        }
        _ => return Err(format!("no shape inference for op `{op}`")),
    })
}

/// Folds integer arithmetic on constants (shape computations).
fn fold(n: &NodeProto, inp: &Inputs, out: &[Ty]) -> Option<Vec<i64>> {
    let op = n.op_type.as_deref().unwrap_or("");
    let c = |i: usize| inp.consts.get(i).copied().flatten();
    let out0 = out.first()?;
    if !matches!(out0.elem, 2..=7 | 9 | 12 | 13) && op != "Shape" {
        return None;
    }
    match op {
        "Shape" => {
            let x = inp.ty(0).ok()?;
            let r = x.rank() as i64;
            let clampi = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
            let s = clampi(attr_i(n, "start").unwrap_or(0));
            let e = clampi(attr_i(n, "end").unwrap_or(r));
            Some(x.dims[s..e.max(s)].iter().map(|&d| d as i64).collect())
        }
        "Size" => Some(vec![prod(&inp.ty(0).ok()?.dims).ok()? as i64]),
        "Range" => {
            // The output length (inferred above) already ends the sequence at the limit.
            let (s, d) = (*c(0)?.first()?, *c(2)?.first()?);
            let n = out0.dims.first().copied()?;
            if n > 4096 {
                return None;
            }
            (0..n as i64)
                .map(|k| k.checked_mul(d).and_then(|x| x.checked_add(s)))
                .collect()
        }
        "Identity" | "Cast" | "Reshape" | "Squeeze" | "Unsqueeze" | "Flatten" => c(0).cloned(),
        "Concat" => {
            let mut v = Vec::new();
            for i in 0..inp.consts.len() {
                v.extend(c(i)?);
            }
            Some(v)
        }
        "Gather" => {
            let (d, idx) = (c(0)?, c(1)?);
            if inp.ty(0).ok()?.rank() != 1 {
                return None;
            }
            idx.iter()
                .map(|&i| {
                    let i = if i < 0 { i + d.len() as i64 } else { i };
                    d.get(usize::try_from(i).ok()?).copied()
                })
                .collect()
        }
        "Slice" if inp.ty(0).ok()?.rank() == 1 => {
            let d = c(0)?;
            let (s, e) = (*c(1)?.first()?, *c(2)?.first()?);
            let step = c(4).and_then(|v| v.first().copied()).unwrap_or(1);
            if step != 1 {
                return None;
            }
            let len = d.len() as i64;
            let fix = |v: i64| (if v < 0 { v + len } else { v }).clamp(0, len) as usize;
            let (s, e) = (fix(s), fix(e));
            Some(d[s..e.max(s)].to_vec())
        }
        "Add" | "Sub" | "Mul" | "Div" => {
            let (a, b) = (c(0)?, c(1)?);
            let len = a.len().max(b.len());
            if (a.len() != len && a.len() != 1) || (b.len() != len && b.len() != 1) {
                return None;
            }
            (0..len)
                .map(|i| {
                    let x = a[if a.len() == 1 { 0 } else { i }];
                    let y = b[if b.len() == 1 { 0 } else { i }];
                    match op {
                        "Add" => x.checked_add(y),
                        "Sub" => x.checked_sub(y),
                        "Mul" => x.checked_mul(y),
                        _ => x.checked_div(y),
                    }
                })
                .collect()
        }
        "Constant" => {
            if let Some(t) = attr(n, "value").and_then(|a| a.t.as_ref()) {
                tensor_ints(t)
            } else if let Some(v) = attr_i(n, "value_int") {
                Some(vec![v])
            } else {
                attr_ints(n, "value_ints")
            }
        }
        _ => None,
    }
}

fn declared_ty(v: &ValueInfoProto) -> Option<Ty> {
    let tt = v.r#type.as_ref()?.tensor_type.as_ref()?;
    let shape = tt.shape.as_ref()?;
    let mut dims = Vec::new();
    for d in &shape.dim {
        dims.push(u64::try_from(d.dim_value?).ok()?);
    }
    Some(Ty::new(tt.elem_type?, dims))
}

/// What a tensor name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    Weight,
    Buf(usize),
}

struct BufInfo {
    size: u64,
    producer: Option<usize>,
    tensor: String,
    graph_input: bool,
    graph_output: bool,
    aliases: Vec<String>,
    consumers: Vec<usize>,
}

/// Reads an ONNX model into the graph JSON schema of
/// `benchmarks/onnx/graphs/*.json` (`buffers`, `nodes`, `order`).
pub fn onnx_graph_json(bytes: &[u8]) -> Result<Value, GraphError> {
    let model = proto::ModelProto::decode(bytes).map_err(|e| {
        err(
            "model",
            format!("not an ONNX model (protobuf decoding failed: {e})"),
        )
    })?;
    let g = model
        .graph
        .as_ref()
        .ok_or_else(|| err("model", "the model has no graph"))?;
    let opset = model
        .opset_import
        .iter()
        .find(|o| matches!(o.domain.as_deref(), None | Some("") | Some("ai.onnx")))
        .and_then(|o| o.version)
        .unwrap_or(1);
    let mut tys: HashMap<String, Ty> = HashMap::new();
    let mut consts: HashMap<String, Vec<i64>> = HashMap::new();
    let mut src: HashMap<String, Src> = HashMap::new();
    let mut made_by: HashMap<String, usize> = HashMap::new();
    let mut declared: HashMap<String, Ty> = HashMap::new();
    for v in g.value_info.iter().chain(&g.output) {
        if let (Some(name), Some(t)) = (&v.name, declared_ty(v)) {
            declared.insert(name.clone(), t);
        }
    }
    for (k, t) in g.initializer.iter().enumerate() {
        let name = t.name.clone().unwrap_or_default();
        let ty = tensor_ty(t).map_err(|m| err(format!("initializer[{k}] `{name}`"), m))?;
        if let Some(v) = tensor_ints(t) {
            consts.insert(name.clone(), v);
        }
        tys.insert(name.clone(), ty);
        src.insert(name, Src::Weight);
    }
    let mut bufs: Vec<BufInfo> = Vec::new();
    for (k, v) in g.input.iter().enumerate() {
        let name = v.name.clone().unwrap_or_default();
        if src.contains_key(&name) {
            continue;
        }
        let at = format!("graph.input[{k}] `{name}`");
        let ty = declared_ty(v).ok_or_else(|| {
            err(
                &at,
                "the graph input has no static shape (a symbolic or missing dim)",
            )
        })?;
        let size =
            bytes_of(&ty).ok_or_else(|| err(&at, "unsupported element type or size overflow"))?;
        src.insert(name.clone(), Src::Buf(bufs.len()));
        tys.insert(name.clone(), ty);
        bufs.push(BufInfo {
            size,
            producer: None,
            tensor: name,
            graph_input: true,
            graph_output: false,
            aliases: Vec::new(),
            consumers: Vec::new(),
        });
    }
    let used: HashSet<&str> = g
        .node
        .iter()
        .flat_map(|n| n.input.iter().map(String::as_str))
        .chain(g.output.iter().filter_map(|o| o.name.as_deref()))
        .collect();
    let mut nodes: Vec<Value> = Vec::new();
    for (k, n) in g.node.iter().enumerate() {
        let op = n.op_type.clone().unwrap_or_default();
        let at = format!(
            "graph.node[{k}] ({op}{})",
            n.name
                .as_deref()
                .filter(|s| !s.is_empty())
                .map_or(String::new(), |s| format!(" `{s}`"))
        );
        if n.attribute
            .iter()
            .any(|a| a.g.is_some() || !a.graphs.is_empty())
        {
            return Err(err(
                &at,
                "control-flow ops with sub-graphs are not supported",
            ));
        }
        let default_domain = matches!(n.domain.as_deref(), None | Some("") | Some("ai.onnx"));
        let mut in_tys = Vec::new();
        let mut in_consts = Vec::new();
        for (i, name) in n.input.iter().enumerate() {
            if name.is_empty() {
                in_tys.push(None);
                in_consts.push(None);
                continue;
            }
            let t = tys.get(name).ok_or_else(|| {
                err(
                    &at,
                    format!("input {i} `{name}` is not defined before this node (the graph must be topologically sorted)"),
                )
            })?;
            in_tys.push(Some(t));
            in_consts.push(consts.get(name));
        }
        let inputs = Inputs {
            tys: in_tys,
            consts: in_consts,
        };
        let inferred = if default_domain {
            infer(n, &inputs, opset)
        } else {
            Err(format!(
                "op `{op}` of domain `{}` is not known",
                n.domain.as_deref().unwrap_or("")
            ))
        };
        let mut out_tys: Vec<Option<Ty>> = Vec::with_capacity(n.output.len());
        match inferred {
            Ok(v) => {
                for (i, name) in n.output.iter().enumerate() {
                    let t = v.get(i).cloned();
                    if let (Some(t), Some(d)) = (&t, declared.get(name)) {
                        if t != d {
                            return Err(err(
                                &at,
                                format!("output `{name}`: inferred {:?} (type {}), but the model declares {:?} (type {})", t.dims, t.elem, d.dims, d.elem),
                            ));
                        }
                    }
                    out_tys.push(t.or_else(|| declared.get(name).cloned()));
                }
            }
            Err(m) => {
                for name in &n.output {
                    if name.is_empty() {
                        out_tys.push(None);
                        continue;
                    }
                    match declared.get(name) {
                        Some(d) => out_tys.push(Some(d.clone())),
                        None => return Err(err(&at, m)),
                    }
                }
            }
        }
        let folded = {
            let outs: Vec<Ty> = out_tys.iter().flatten().cloned().collect();
            if n.output.len() == 1 && outs.len() == 1 {
                fold(n, &inputs, &outs)
            } else {
                None
            }
        };
        for (name, t) in n.output.iter().zip(&out_tys) {
            if name.is_empty() {
                continue;
            }
            let t = t
                .clone()
                .ok_or_else(|| err(&at, format!("no type for output `{name}`")))?;
            tys.insert(name.clone(), t);
        }
        if let (Some(v), Some(name)) = (folded, n.output.first()) {
            consts.insert(name.clone(), v);
        }
        // Constants are weights, not scheduled.
        if default_domain && (op == "Constant" || op == "ConstantOfShape") {
            for name in n.output.iter().filter(|s| !s.is_empty()) {
                src.insert(name.clone(), Src::Weight);
            }
            continue;
        }
        let id = nodes.len();
        let mut preds: Vec<usize> = Vec::new();
        let mut ins: Vec<usize> = Vec::new();
        for name in n.input.iter().filter(|s| !s.is_empty()) {
            if let Some(&p) = made_by.get(name) {
                if !preds.contains(&p) {
                    preds.push(p);
                }
            }
            if let Some(Src::Buf(b)) = src.get(name) {
                if !ins.contains(b) {
                    ins.push(*b);
                }
            }
        }
        for &b in &ins {
            bufs[b].consumers.push(id);
        }
        let is_view = default_domain && VIEW_OPS.contains(&op.as_str());
        let mut outs = Vec::new();
        for (i, name) in n.output.iter().enumerate() {
            if name.is_empty() {
                continue;
            }
            made_by.insert(name.clone(), id);
            if is_view && i == 0 {
                let first = n
                    .input
                    .first()
                    .ok_or_else(|| err(&at, "a view without an input"))?;
                let s = *src.get(first).expect("inputs are defined");
                if let Src::Buf(b) = s {
                    bufs[b].aliases.push(name.clone());
                }
                src.insert(name.clone(), s);
                continue;
            }
            if is_view && !used.contains(name.as_str()) {
                continue; // an unused extra output of a view (Dropout's mask)
            }
            let t = &tys[name];
            let size = bytes_of(t).ok_or_else(|| {
                err(
                    &at,
                    format!(
                        "output `{name}`: unsupported element type {} or size overflow",
                        t.elem
                    ),
                )
            })?;
            let b = bufs.len();
            bufs.push(BufInfo {
                size,
                producer: Some(id),
                tensor: name.clone(),
                graph_input: false,
                graph_output: false,
                aliases: Vec::new(),
                consumers: Vec::new(),
            });
            src.insert(name.clone(), Src::Buf(b));
            outs.push(b);
        }
        let name = n
            .name
            .clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| format!("n{id}"));
        nodes.push(json!({"id": id, "op": op, "inputs": ins, "outputs": outs,
            "preds": preds, "name": name}));
    }
    for (k, o) in g.output.iter().enumerate() {
        let name = o.name.clone().unwrap_or_default();
        match src.get(&name) {
            Some(Src::Buf(b)) => bufs[*b].graph_output = true,
            Some(Src::Weight) => {}
            None => {
                return Err(err(
                    format!("graph.output[{k}] `{name}`"),
                    "no node or input defines this output",
                ))
            }
        }
    }
    let buffers: Vec<Value> = bufs
        .iter()
        .enumerate()
        .map(|(i, b)| {
            json!({"id": i, "size": b.size, "producer": b.producer, "consumers": b.consumers,
                "tensor": b.tensor, "graph_input": b.graph_input, "graph_output": b.graph_output,
                "aliases": b.aliases})
        })
        .collect();
    let order: Vec<usize> = (0..nodes.len()).collect();
    Ok(json!({"buffers": buffers, "nodes": nodes, "order": order}))
}

#[cfg(test)]
mod tests {
    use super::proto::*;
    use super::*;

    fn vi(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
        ValueInfoProto {
            name: Some(name.into()),
            r#type: Some(TypeProto {
                tensor_type: Some(TypeTensor {
                    elem_type: Some(elem),
                    shape: Some(TensorShapeProto {
                        dim: dims
                            .iter()
                            .map(|&d| Dimension {
                                dim_value: Some(d),
                                dim_param: None,
                            })
                            .collect(),
                    }),
                }),
            }),
        }
    }

    fn node(op: &str, ins: &[&str], outs: &[&str], attrs: Vec<AttributeProto>) -> NodeProto {
        NodeProto {
            input: ins.iter().map(|s| s.to_string()).collect(),
            output: outs.iter().map(|s| s.to_string()).collect(),
            name: None,
            op_type: Some(op.into()),
            domain: None,
            attribute: attrs,
        }
    }

    fn ints(name: &str, v: &[i64]) -> AttributeProto {
        AttributeProto {
            name: Some(name.into()),
            ints: v.to_vec(),
            ..Default::default()
        }
    }

    fn int(name: &str, v: i64) -> AttributeProto {
        AttributeProto {
            name: Some(name.into()),
            i: Some(v),
            ..Default::default()
        }
    }

    fn text(name: &str, v: &str) -> AttributeProto {
        AttributeProto {
            name: Some(name.into()),
            s: Some(v.as_bytes().to_vec()),
            ..Default::default()
        }
    }

    fn init_i64(name: &str, v: &[i64]) -> TensorProto {
        TensorProto {
            dims: vec![v.len() as i64],
            data_type: Some(INT64),
            int64_data: v.to_vec(),
            name: Some(name.into()),
            ..Default::default()
        }
    }

    fn model(
        inputs: Vec<ValueInfoProto>,
        inits: Vec<TensorProto>,
        nodes: Vec<NodeProto>,
        out: &str,
    ) -> Vec<u8> {
        let m = ModelProto {
            ir_version: Some(8),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(17),
            }],
            graph: Some(GraphProto {
                node: nodes,
                initializer: inits,
                input: inputs,
                output: vec![ValueInfoProto {
                    name: Some(out.into()),
                    r#type: None,
                }],
                value_info: vec![],
            }),
        };
        m.encode_to_vec()
    }

    /// Sizes of the buffers by tensor name.
    fn sizes(bytes: &[u8]) -> HashMap<String, u64> {
        let v = onnx_graph_json(bytes).unwrap();
        v["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["tensor"].as_str().unwrap().to_string(),
                    b["size"].as_u64().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn conv_and_pool_shapes_follow_the_onnx_formulas() {
        let w = TensorProto {
            dims: vec![8, 3, 3, 3],
            data_type: Some(FLOAT),
            name: Some("w".into()),
            // Weights may live in an external file that is not there.
            data_location: Some(1),
            ..Default::default()
        };
        let bytes = model(
            vec![vi("x", FLOAT, &[1, 3, 10, 11])],
            vec![w],
            vec![
                // SAME_UPPER, stride 2: ceil(10/2)=5, ceil(11/2)=6.
                node(
                    "Conv",
                    &["x", "w"],
                    &["c"],
                    vec![text("auto_pad", "SAME_UPPER"), ints("strides", &[2, 2])],
                ),
                // 3x3 max pool, stride 2, ceil mode on 5x6: ceil((5-3)/2)+1=2, ceil((6-3)/2)+1=3.
                node(
                    "MaxPool",
                    &["c"],
                    &["p"],
                    vec![
                        ints("kernel_shape", &[3, 3]),
                        ints("strides", &[2, 2]),
                        int("ceil_mode", 1),
                    ],
                ),
                // 2x2 average pool, pads 1 on each side, stride 1: 2+2-2+1 = 3, 3+2-2+1 = 4.
                node(
                    "AveragePool",
                    &["p"],
                    &["a"],
                    vec![ints("kernel_shape", &[2, 2]), ints("pads", &[1, 1, 1, 1])],
                ),
            ],
            "a",
        );
        let s = sizes(&bytes);
        assert_eq!(s["c"], 4 * 8 * 5 * 6);
        assert_eq!(s["p"], 4 * 8 * 2 * 3);
        assert_eq!(s["a"], 4 * 8 * 3 * 4);
    }

    #[test]
    fn shape_arithmetic_is_folded_and_views_alias() {
        let bytes = model(
            vec![vi("x", FLOAT, &[2, 6, 4])],
            vec![
                init_i64("i0", &[0]),
                init_i64("m1", &[-1]),
                init_i64("ax", &[0]),
            ],
            vec![
                node("Shape", &["x"], &["s"], vec![]),
                node("Gather", &["s", "i0"], &["s0"], vec![int("axis", 0)]),
                node("Concat", &["s0", "m1"], &["t"], vec![int("axis", 0)]),
                // [2, 24]: a view of x.
                node("Reshape", &["x", "t"], &["r"], vec![]),
                // Uneven split of 24 in 5 outputs: 5,5,5,5,4.
                node(
                    "Split",
                    &["r"],
                    &["a", "b", "c", "d", "e"],
                    vec![int("axis", 1), int("num_outputs", 5)],
                ),
                // Reverse slice of e's last dim from -1 down to 0 (exclusive): 3 elements.
                node("Slice", &["e", "m1", "ax", "ax2", "m1"], &["f"], vec![]),
                node("MatMul", &["f", "v"], &["g"], vec![]),
            ],
            "g",
        );
        // Fill in the constants the Slice and MatMul need.
        let mut m = ModelProto::decode(bytes.as_slice()).unwrap();
        let g = m.graph.as_mut().unwrap();
        g.initializer.push(init_i64("ax2", &[1]));
        g.initializer.push(TensorProto {
            dims: vec![3],
            data_type: Some(FLOAT),
            name: Some("v".into()),
            ..Default::default()
        });
        // Slice inputs are starts, ends, axes, steps: starts=-1, ends=0, axes=[1], steps=-1.
        g.node[5].input = vec![
            "e".into(),
            "m1".into(),
            "ax".into(),
            "ax2".into(),
            "m1".into(),
        ];
        let bytes = m.encode_to_vec();
        let v = onnx_graph_json(&bytes).unwrap();
        let s = sizes(&bytes);
        assert_eq!(s["s"], 24); // Shape: 3 x int64
        assert_eq!(s["a"], 4 * 2 * 5);
        assert_eq!(s["e"], 4 * 2 * 4);
        assert_eq!(s["f"], 4 * 2 * 3);
        assert_eq!(s["g"], 4 * 2); // [2,3] x [3] -> [2]
        assert!(!s.contains_key("r"), "a Reshape output is a view");
        let x = &v["buffers"][0];
        assert_eq!(x["aliases"], json!(["r"]));
        // x is read by Shape (node 0), Reshape (3) and, through the view, Split (4).
        assert_eq!(x["consumers"], json!([0, 3, 4]));
    }

    #[test]
    fn range_is_folded_into_a_reshape_target() {
        // Range(0, 2, 1) = [0, 1]; Shape of it = [2]; Concat([2], [-1]) = [2, -1].
        let bytes = model(
            vec![vi("x", FLOAT, &[4, 6])],
            vec![
                init_i64("z", &[0]),
                init_i64("two", &[2]),
                init_i64("one", &[1]),
                init_i64("m1", &[-1]),
            ],
            vec![
                node("Range", &["z", "two", "one"], &["r"], vec![]),
                node("Shape", &["r"], &["s"], vec![]),
                node("Concat", &["s", "m1"], &["t"], vec![int("axis", 0)]),
                node("Reshape", &["x", "t"], &["y"], vec![]),
                node("Relu", &["y"], &["o"], vec![]),
            ],
            "o",
        );
        let v = onnx_graph_json(&bytes).unwrap();
        let s = sizes(&bytes);
        assert_eq!(s["r"], 16);
        assert_eq!(s["o"], 4 * 24);
        // The Relu reads x's buffer through the Reshape view.
        assert_eq!(v["buffers"][0]["aliases"], json!(["y"]));
    }

    #[test]
    fn bad_models_are_rejected_with_a_place() {
        let dynamic = ValueInfoProto {
            name: Some("x".into()),
            r#type: Some(TypeProto {
                tensor_type: Some(TypeTensor {
                    elem_type: Some(FLOAT),
                    shape: Some(TensorShapeProto {
                        dim: vec![Dimension {
                            dim_value: None,
                            dim_param: Some("batch".into()),
                        }],
                    }),
                }),
            }),
        };
        let e = onnx_graph_json(&model(
            vec![dynamic],
            vec![],
            vec![node("Relu", &["x"], &["y"], vec![])],
            "y",
        ))
        .unwrap_err();
        assert!(e.at.contains("graph.input[0]"), "{e}");
        let e = onnx_graph_json(&model(
            vec![vi("x", FLOAT, &[4])],
            vec![],
            vec![node("FancyOp", &["x"], &["y"], vec![])],
            "y",
        ))
        .unwrap_err();
        assert!(
            e.at.contains("graph.node[0] (FancyOp)") && e.message.contains("FancyOp"),
            "{e}"
        );
        let e = onnx_graph_json(&model(
            vec![vi("x", FLOAT, &[4])],
            vec![],
            vec![node("Relu", &["z"], &["y"], vec![])],
            "y",
        ))
        .unwrap_err();
        assert!(e.message.contains("`z`"), "{e}");
        assert!(onnx_graph_json(b"\xff\xff\xff").is_err());
    }

    #[test]
    fn declared_shapes_stand_in_for_unknown_ops_and_are_checked() {
        let mut m = ModelProto::decode(
            model(
                vec![vi("x", FLOAT, &[4])],
                vec![],
                vec![
                    node("FancyOp", &["x"], &["y"], vec![]),
                    node("Relu", &["y"], &["z"], vec![]),
                ],
                "z",
            )
            .as_slice(),
        )
        .unwrap();
        m.graph
            .as_mut()
            .unwrap()
            .value_info
            .push(vi("y", FLOAT, &[2, 5]));
        let s = sizes(&m.encode_to_vec());
        assert_eq!((s["y"], s["z"]), (40, 40));
        // A declared shape that disagrees with inference is an error.
        m.graph
            .as_mut()
            .unwrap()
            .value_info
            .push(vi("z", FLOAT, &[3]));
        let e = onnx_graph_json(&m.encode_to_vec()).unwrap_err();
        assert!(e.message.contains("declares"), "{e}");
    }
}
