#!/usr/bin/env python3
"""Issue 53, rung (b), first step of the ladder: does a factorisation-machine term lower the
error of tsuru's pattern evaluation on the same data?

Fits two models to one samples file (`tsuru train ... --export-samples FILE`) with the same
optimiser, epochs and batch order, and reports each one's error on the file's held-out
records:

* **linear**: what the engine reads today. Per stage (15, by empties) a bias and one table
  entry for each of the 55 look-ups (54 pattern copies, tied to their canonical entries, and
  the mobility table).
* **linear + FM**: the same, plus a d-dimensional vector for every table entry, shared by
  all stages, and per stage a scale s. The term is s * sum over pairs i < j of <v_i, v_j>
  over the position's 55 entries, computed in the folded form
  s/2 * (|sum_i v_i|^2 - sum_i |v_i|^2): the second sum depends on each entry alone and
  folds into that entry's linear weight, so an engine would add one d-wide sum of the rows
  it reads and one dot product.

    python3 crates/tsuru-lab/scripts/fm_probe.py s.smp --dim 8 --epochs 6

Needs numpy and torch (CPU is enough). Not a trainer of shipped weights: a measurement.
"""

import argparse
import time

import numpy as np
import torch

from fm_train import Model, mae, table_offsets
from pattern_nets import read_samples, stage_of


def fit(name, model, train, held, epochs, batch, lr, log):
    optimisers = model.optimisers(lr)
    lookups, stage, label = train
    n = len(label)
    generator = torch.Generator().manual_seed(53)
    started = time.time()
    for epoch in range(epochs):
        order = torch.randperm(n, generator=generator)
        model.train()
        total = 0.0
        for start in range(0, n, batch):
            index = order[start : start + batch]
            predicted = model(lookups[index], stage[index])
            loss = torch.nn.functional.mse_loss(predicted, label[index])
            for optimiser in optimisers:
                optimiser.zero_grad()
            loss.backward()
            for optimiser in optimisers:
                optimiser.step()
            total += loss.item() * len(index)
        train_mae, held_mae = mae(model, train, batch), mae(model, held, batch)
        log(f"{name}: epoch {epoch + 1}  train MSE {total / n:.2f}  train MAE {train_mae:.3f}  held-out MAE {held_mae:.3f}  ({time.time() - started:.0f} s)")
    return mae(model, held, batch)


@torch.no_grad()
def mae_by_empties(model, data, batch, bins):
    model.eval()
    lookups, stage, label, empties = data
    out = []
    for low, high in bins:
        mask = (empties >= low) & (empties <= high)
        if int(mask.sum()) == 0:
            out.append(float("nan"))
            continue
        predicted = model(lookups[mask], stage[mask])
        out.append(float((predicted - label[mask]).abs().mean()))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples")
    parser.add_argument("--dim", type=int, default=8)
    parser.add_argument("--stages", type=int, default=15)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(53)
    torch.set_num_threads(args.threads)

    header, records = read_samples(args.samples)
    offsets, entries = table_offsets(header)
    records = np.asarray(records)
    lookups = torch.from_numpy(records["lookups"].astype(np.int64) + offsets[None, :])
    empties = torch.from_numpy(records["empties"].astype(np.int64))
    stage = torch.from_numpy(stage_of(records["empties"], args.stages).astype(np.int64))
    label = torch.from_numpy(records["label"].astype(np.float32))
    held_out = torch.from_numpy((records["flags"] & 1).astype(bool))
    train = (lookups[~held_out], stage[~held_out], label[~held_out])
    held = (lookups[held_out], stage[held_out], label[held_out])
    print(f"{len(train[2])} training and {len(held[2])} held-out positions; {entries} entries a stage, {args.stages} stages")

    results = {}
    for name, dim in (("linear", 0), (f"linear+FM{args.dim}", args.dim)):
        torch.manual_seed(53)
        model = Model(entries, args.stages, dim)
        results[name] = (fit(name, model, train, held, args.epochs, args.batch, args.lr, print), model)
    bins = [(0, 14), (15, 20), (21, 30), (31, 40), (41, 60)]
    held_with_empties = (*held, empties[held_out])
    print("held-out MAE by empties " + " ".join(f"{lo}-{hi}" for lo, hi in bins))
    for name, (overall, model) in results.items():
        by = mae_by_empties(model, held_with_empties, args.batch, bins)
        print(f"{name:14} {overall:.3f}  " + "  ".join(f"{v:.3f}" for v in by))


if __name__ == "__main__":
    main()
