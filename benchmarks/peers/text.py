#!/usr/bin/env python3
"""Python peers of the text benchmark suite (benchmarks/text.cpp, ember_bench_text).

  text.py sp_encode --corpus FILE --model SPM.model --sp-threads 1|all ...
  text.py basic_english_vocab --corpus FILE ...
  text.py gpt2_bpe --corpus FILE --encoder encoder.json --merges vocab.bpe ...
  text.py lm_train_step --weights F32 --names TXT --pe F32 --batch I64 ...
  (each then --target-s 0.4 --threads 2 --result FILE)

Reads the inputs the harness wrote to its scratch folder (the corpus: lines
joined by '\\n'), times the workload with the harness's policy (peer_timing.py),
writes the result's bytes to --result (token workloads: every line's ids
followed by -1, int64; the LM step: the second step's loss, float32) and prints
{"median_s", "min_s", "reps"}, or {"skip": why}. The workloads' parameters are
those of benchmarks/text.cpp: keep the two in step.
"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from peer_timing import time_runs  # noqa: E402  (the harness's timing policy)

# The reference implementations the tests' fixtures come from.
FIXTURES = os.path.join(HERE, "..", "..", "scripts", "fixtures")

# text.cpp's word_language_model shapes.
VOCAB, MODEL, HEADS, HIDDEN, LAYERS, BPTT, BATCH = 10000, 256, 4, 256, 2, 35, 20


def read_corpus(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")


def flat_ids(lists):
    out = []
    for ids in lists:
        out.extend(ids)
        out.append(-1)
    return out


def sp_encode(args, lines):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=args.model)
    # encode(list) of 0.1.97 is a C++ batch on num_threads threads (default -1:
    # every core): 1, or the harness's thread count for "all".
    threads = 1 if args.sp_threads == "1" else args.threads
    times, result = time_runs(lambda: sp.encode(lines, out_type=int, num_threads=threads), args.target_s)
    return times, flat_ids(result), {"sentencepiece": spm.__version__, "num_threads": threads}


def basic_english_vocab(args, lines):
    sys.path.insert(0, FIXTURES)
    from text_tok import basic_english_normalize, build_vocab_itos
    itos = build_vocab_itos((basic_english_normalize(l) for l in lines), min_freq=2, specials=["<unk>"])
    stoi = {t: i for i, t in enumerate(itos)}
    default = 0

    def run():
        get = stoi.get
        return [[get(t, default) for t in basic_english_normalize(line)] for line in lines]

    times, result = time_runs(run, args.target_s)
    return times, flat_ids(result), {"reference": "torchtext 0.14 basic_english rules, Python re + dict"}


def gpt2_bpe(args, lines):
    sys.path.insert(0, FIXTURES)
    from text_bpe import Encoder, gpt2_pattern
    with open(args.encoder, encoding="utf-8") as f:
        encoder = json.load(f)
    with open(args.merges, encoding="utf-8") as f:
        merges = [tuple(m.split()) for m in f.read().split("\n")[1:-1]]
    enc = Encoder(encoder, merges, gpt2_pattern())

    def run():
        return [[encoder[t] for t in enc.tokenize(line)] for line in lines]

    times, result = time_runs(run, args.target_s)
    return times, flat_ids(result), {"reference": "GPT-2 encoder.py port (Python re, no regex module)"}


def lm_train_step(args):
    import numpy as np
    import torch
    import torch.nn as nn
    torch.set_num_threads(args.threads)

    class TransformerModel(nn.Module):  # pytorch/examples word_language_model, dropout 0
        def __init__(self, pe):
            super().__init__()
            self.encoder = nn.Embedding(VOCAB, MODEL)
            layer = nn.TransformerEncoderLayer(MODEL, HEADS, HIDDEN, dropout=0.0)
            self.transformer_encoder = nn.TransformerEncoder(layer, LAYERS)
            self.decoder = nn.Linear(MODEL, VOCAB)
            self.register_buffer("pe", pe)

        def forward(self, src, mask):
            x = self.encoder(src) * (MODEL ** 0.5) + self.pe
            return self.decoder(self.transformer_encoder(x, mask))

    pe = torch.from_numpy(np.fromfile(args.pe, dtype=np.float32).reshape(BPTT, 1, MODEL))
    model = TransformerModel(pe)
    flat = np.fromfile(args.weights, dtype=np.float32)
    params = dict(model.named_parameters())
    offset = 0
    with open(args.names) as f, torch.no_grad():
        for line in f:
            name, numel = line.split()
            numel = int(numel)
            p = params.pop(name)  # a KeyError names a parameter torch.nn does not have
            p.copy_(torch.from_numpy(flat[offset:offset + numel]).reshape(p.shape))
            offset += numel
    if params or offset != flat.size:
        raise SystemExit(f"weights do not match torch.nn's model: left {sorted(params)}, {offset} of {flat.size}")
    batch = torch.from_numpy(np.fromfile(args.batch, dtype=np.int64).reshape(BPTT + 1, BATCH))
    src, target = batch[:BPTT], batch[1:].reshape(-1)
    mask = nn.Transformer.generate_square_subsequent_mask(BPTT)
    opt = torch.optim.SGD(model.parameters(), lr=5.0)
    criterion = nn.CrossEntropyLoss()
    losses = []

    def step():
        opt.zero_grad()
        loss = criterion(model(src, mask).view(-1, VOCAB), target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        opt.step()
        losses.append(loss.detach())

    times, _ = time_runs(step, args.target_s)
    return times, losses[1].numpy().astype(np.float32), {"torch": torch.__version__}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workload", choices=["sp_encode", "basic_english_vocab", "gpt2_bpe", "lm_train_step"])
    p.add_argument("--corpus")
    p.add_argument("--model")
    p.add_argument("--sp-threads", choices=["1", "all"], default="1")
    p.add_argument("--encoder")
    p.add_argument("--merges")
    p.add_argument("--weights")
    p.add_argument("--names")
    p.add_argument("--pe")
    p.add_argument("--batch")
    p.add_argument("--target-s", type=float, default=0.4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--result", required=True)
    args = p.parse_args()
    try:
        import numpy as np
        if args.workload == "lm_train_step":
            import torch  # noqa: F401
        elif args.workload == "sp_encode":
            import sentencepiece  # noqa: F401
    except ImportError as e:
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    if args.workload == "lm_train_step":
        times, result, version = lm_train_step(args)
        data = np.asarray(result, dtype=np.float32)
    else:
        lines = read_corpus(args.corpus)
        times, result, version = globals()[args.workload](args, lines)
        data = np.asarray(result, dtype=np.int64)
    with open(args.result, "wb") as f:
        f.write(np.ascontiguousarray(data).tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times), **version}))


if __name__ == "__main__":
    main()
