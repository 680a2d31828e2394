#!/usr/bin/env python3
"""Parameter-gradient annotations for the shared training graphs (issue 15).

The training DAGs of shared/benchmarks/graphs exclude the parameter gradients (they belong to
the optimizer), so the graph JSON does not say which node makes which gradient, nor its size.
This script derives both from the graph and the model definitions named in that README, and
writes one `<graph>.gradients.json` per graph: {"graph", "total_bytes", "gradients": [{"node":
NAME, "bytes": N, "param": WHAT}]}, the input of `memplan model --gradients FILE`.

Rules (float32 parameters, 4 bytes each):
- train_resnet18_b8 (torchvision resnet18): a `convolution_backward` makes its conv's weight
  gradient; the conv is found through the data flow (its grad_output comes from the
  `native_batch_norm_backward` that reads the forward conv's output). Channels come from the
  BatchNorm statistics (C floats) of the conv and of the conv feeding it; the kernel is 7x7 for
  the stem (the conv reading the excluded input batch), 1x1 for a block's downsample conv (the
  second conv in forward order reading the same block input), 3x3 otherwise. A
  `native_batch_norm_backward` makes the BN weight and bias gradients (C each); the weight-
  gradient `mm` (no output buffer) of the fc layer makes out x in, the bias `sum` makes out.
- train_bert_b4 (BertForSequenceClassification, 4 layers): a weight-gradient `mm` (two inputs,
  no output buffer) reads grad_y [R, out] and x [R, in] and makes out x in, R = batch x sequence
  (512) for the encoder and 4 (batch) for the pooler and classifier, told apart by size (there
  x may be a view of a larger buffer, the [CLS] row, so in = the hidden size 768); a bias
  `sum` (no output buffer) makes out; `native_layer_norm_backward` makes gamma and beta (768
  each); the three `embedding_dense_backward` make the position (512 x 768, it reads the
  batch-summed gradient), token-type (2 x 768, it reads the gathered ids) and word (30522 x 768)
  embedding gradients.
The total is checked against the README's "excluded gradients" figure (which also counts the
4-byte loss the step returns).
"""
import json
import sys
from pathlib import Path

F32 = 4


def resnet18(g):
    bufs, nodes = g["buffers"], g["nodes"]
    producer = {b["id"]: b["producer"] for b in bufs}
    by_id = {n["id"]: n for n in nodes}
    convs = [n for n in nodes if n["op"] == "aten.convolution.default"]
    bn_of_conv_out = {}
    for n in nodes:
        if n["op"] == "aten.native_batch_norm.default":
            bn_of_conv_out[n["inputs"][0]] = n
    def channels(conv):
        bn = bn_of_conv_out[conv["outputs"][0]]
        return bufs[bn["outputs"][1]]["size"] // F32
    def in_channels(conv):
        if not conv["inputs"]:
            return 3  # the input image batch (excluded)
        src = by_id[producer[conv["inputs"][0]]]
        # through max-pool / ReLU / BN to the conv that made it
        while src["op"] != "aten.native_batch_norm.default" and src["op"] != "aten.convolution.default":
            src = by_id[producer[src["inputs"][0]]]
        return bufs[src["outputs"][1]]["size"] // F32 if src["op"].startswith("aten.native_batch_norm") else channels(src)
    kernel = {}
    seen_input = {}
    for c in convs:
        if not c["inputs"]:
            kernel[c["id"]] = 7
        elif c["inputs"][0] in seen_input:
            kernel[c["id"]] = 1
        else:
            kernel[c["id"]] = 3
        if c["inputs"]:
            seen_input.setdefault(c["inputs"][0], c["id"])
    conv_of_out = {c["outputs"][0]: c for c in convs}
    out = []
    for n in nodes:
        op = n["op"]
        if op == "aten.convolution_backward.default":
            bnb = by_id[producer[n["inputs"][0]]]
            conv = conv_of_out[bnb["inputs"][1]]
            k = kernel[conv["id"]]
            size = channels(conv) * in_channels(conv) * k * k * F32
            out.append({"node": n["name"], "bytes": size, "param": f"{conv['name']}.weight"})
        elif op == "aten.native_batch_norm_backward.default":
            c = bufs[n["inputs"][2]]["size"]
            out.append({"node": n["name"], "bytes": c, "param": "bn.weight"})
            out.append({"node": n["name"], "bytes": c, "param": "bn.bias"})
        elif op == "aten.mm.default" and not n["outputs"] and len(n["inputs"]) == 2:
            a, b = (bufs[i]["size"] // F32 for i in n["inputs"])
            rows = 8
            out.append({"node": n["name"], "bytes": (a // rows) * (b // rows) * F32, "param": "fc.weight"})
        elif op == "aten.sum.dim_IntList" and not n["outputs"]:
            out.append({"node": n["name"], "bytes": bufs[n["inputs"][0]]["size"] // 8, "param": "fc.bias"})
    return out


def bert(g):
    bufs, nodes = g["buffers"], g["nodes"]
    out = []
    def rows(*sizes):
        return 4 if min(sizes) <= 4 * 768 * F32 else 512
    emb = {"sum": (512, "position_embeddings"), "gather": (2, "token_type_embeddings")}
    for n in nodes:
        op = n["op"]
        ins = [bufs[i] for i in n["inputs"]]
        if op == "aten.mm.default" and not n["outputs"] and len(ins) == 2:
            a, b = ins[0]["size"] // F32, ins[1]["size"] // F32
            r = rows(ins[0]["size"], ins[1]["size"])
            # In the head, x may be a view (the [CLS] row) of a larger buffer: in = hidden (768).
            inner = b // r if r == 512 else 768
            out.append({"node": n["name"], "bytes": (a // r) * inner * F32, "param": "linear.weight"})
        elif op == "aten.sum.dim_IntList" and not n["outputs"]:
            r = rows(ins[0]["size"])
            out.append({"node": n["name"], "bytes": ins[0]["size"] // r, "param": "linear.bias"})
        elif op == "aten.native_layer_norm_backward.default":
            out.append({"node": n["name"], "bytes": 768 * F32, "param": "LayerNorm.weight"})
            out.append({"node": n["name"], "bytes": 768 * F32, "param": "LayerNorm.bias"})
        elif op == "aten.embedding_dense_backward.default":
            kind = next((v for k, v in emb.items() if any(b["tensor"].startswith(k) for b in ins)),
                        (30522, "word_embeddings"))
            out.append({"node": n["name"], "bytes": kind[0] * 768 * F32, "param": kind[1]})
    return out


RULES = {"train_resnet18_b8": resnet18, "train_bert_b4": bert}
# The README's "excluded gradients" column (parameter gradients + the 4-byte loss).
README_EXCLUDED = {"train_resnet18_b8": 46758052, "train_bert_b4": 211123212}


def main():
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/benchmarks/graphs")
    dst = Path(sys.argv[2] if len(sys.argv) > 2 else "tests/graphs")
    ok = True
    for name, rule in RULES.items():
        g = json.loads((src / f"{name}.json").read_text())
        grads = rule(g)
        total = sum(x["bytes"] for x in grads)
        status = "ok" if total + 4 == README_EXCLUDED[name] else "MISMATCH"
        ok &= status == "ok"
        print(f"{name}: {len(grads)} gradients, {total} bytes (+4-byte loss = {total + 4}; README {README_EXCLUDED[name]}): {status}")
        (dst / f"{name}.gradients.json").write_text(
            json.dumps({"graph": name, "total_bytes": total, "gradients": grads}, indent=1) + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
