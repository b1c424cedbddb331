#!/usr/bin/env python3
"""Trains the pattern networks whose tables tsuru's evaluation reads.

One small network per pattern shape and game stage maps the states of the shape's squares
to a value in discs; a position's value is the stage's bias, the networks' values of its 54
pattern copies and its mobility table entry. The networks are trained end to end on a
samples file (`tsuru train --export-samples`) by evaluating each network at every index of
its shape (the table it generates) and reading the batch's look-ups from those tables, so
the loss is exactly that of the tables the engine will read (before quantisation).

    python3 crates/tsuru-lab/scripts/pattern_nets.py samples.smp --out nets.pnn --hidden 64 32 --time 150
    tsuru tables --nets nets.pnn --out nets.tsw --check samples.smp

The file format of nets.pnn is crates/tsuru-core/src/formats/pattern_nets.rs; what the networks compute is
crates/tsuru-lab/src/training/pattern_nets.rs. Needs numpy and torch (CPU or CUDA).
"""

import argparse
import math
import struct
import sys
import time

import numpy as np
import torch

RECORD = np.dtype(
    [("lookups", "<u2", (55,)), ("empties", "u1"), ("label", "i1"), ("flags", "u1"), ("pad", "u1")]
)


def read_samples(path):
    """The header fields and the records (a read-only memory map) of a samples file."""
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:8] != b"TSURUSMP":
        sys.exit(f"{path}: not a tsuru samples file")
    end = head.index(b"\n")
    words = head[8:end].decode("ascii").split(" ")
    if words[0] != "v1" or words[words.index("lookups") + 1] != "55":
        sys.exit(f"{path}: not a version-1 samples file of 55 look-ups")
    field = lambda name: words[words.index(name) + 1]
    header = {
        "records": int(field("records")),
        "held_out": int(field("held-out")),
        "pattern_set": int(field("pattern-set"), 16),
        "shapes": [int(v) for v in field("shapes").split(",")],
        "copies": [int(v) for v in field("copies").split(",")],
        "mobility": int(field("mobility")),
    }
    records = np.memmap(path, dtype=RECORD, mode="r", offset=end + 1)
    if len(records) != header["records"]:
        sys.exit(f"{path}: {len(records)} records, the header says {header['records']}")
    return header, records


def stage_of(empties, stages):
    ply = np.maximum(60 - empties.astype(np.int64), 0)
    return np.minimum(ply * stages // 60, stages - 1)


class PatternNets(torch.nn.Module):
    """Per shape and stage a network 3n -> H1 -> H2 -> 1 (ReLU), per stage a bias and a
    mobility table; `tables()` evaluates every network at every index of its shape."""

    def __init__(self, shapes, copies, stages, hidden, mobility, device):
        super().__init__()
        self.shapes, self.stages, self.hidden, self.mobility = shapes, stages, hidden, mobility
        h1, h2 = hidden
        self.w1, self.b1, self.w2, self.b2, self.w3, self.b3 = (torch.nn.ParameterList() for _ in range(6))
        self.onehots = []
        sizes = []
        for n in shapes:
            size = 3**n
            sizes.append(size)
            index = torch.arange(size)
            digits = torch.stack([(index // 3**i) % 3 for i in range(n)], dim=1)
            onehot = torch.zeros(size, 3 * n)
            onehot.scatter_(1, digits + 3 * torch.arange(n), 1.0)
            self.onehots.append(onehot.to(device))
            self.w1.append(torch.nn.Parameter(torch.randn(stages, 3 * n, h1) * math.sqrt(2.0 / n)))
            self.b1.append(torch.nn.Parameter(torch.zeros(stages, 1, h1)))
            self.w2.append(torch.nn.Parameter(torch.randn(stages, h1, h2) * math.sqrt(2.0 / h1)))
            self.b2.append(torch.nn.Parameter(torch.zeros(stages, 1, h2)))
            self.w3.append(torch.nn.Parameter(torch.randn(stages, h2, 1) * 0.01))
            self.b3.append(torch.nn.Parameter(torch.zeros(stages, 1, 1)))
        self.bias = torch.nn.Parameter(torch.zeros(stages))
        self.mob = torch.nn.Parameter(torch.zeros(stages, mobility * mobility))
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        self.per_stage = int(sum(sizes))
        # Where each copy's table starts in a stage's flat pattern table.
        self.copy_base = torch.tensor([int(offsets[s]) for s in copies], device=device)
        self.to(device)

    def tables(self):
        """[stages, sum of 3^n]: every shape's table, stage by stage."""
        parts = []
        for k in range(len(self.shapes)):
            x = self.onehots[k]
            h = torch.relu(torch.matmul(x, self.w1[k]) + self.b1[k])
            h = torch.relu(torch.matmul(h, self.w2[k]) + self.b2[k])
            parts.append((torch.matmul(h, self.w3[k]) + self.b3[k]).squeeze(-1))
        return torch.cat(parts, dim=1)

    def predict(self, flat, lookups, stage, mob=None, bias=None):
        """Values in discs of a batch, given `flat` = tables().reshape(-1) (and the mobility
        tables and biases, the model's own unless given)."""
        mob = self.mob if mob is None else mob
        bias = self.bias if bias is None else bias
        index = stage[:, None] * self.per_stage + self.copy_base[None, :] + lookups[:, :54]
        return flat[index].sum(dim=1) + mob[stage, lookups[:, 54]] + bias[stage]


def fnv1a(data):
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def write_nets(path, model, pattern_set):
    """The model as a pattern-network file (crates/tsuru-core/src/formats/pattern_nets.rs)."""
    h1, h2 = model.hidden
    out = bytearray(b"TSURUPNN")
    out += struct.pack("<HIHHHHH", 1, pattern_set, model.stages, len(model.shapes), h1, h2, model.mobility)
    out += bytes(model.shapes)
    f32 = lambda t: t.detach().to("cpu", torch.float32).contiguous().numpy().astype("<f4").tobytes()
    for t in range(model.stages):
        out += f32(model.bias[t : t + 1]) + f32(model.mob[t])
    for k in range(len(model.shapes)):
        for t in range(model.stages):
            out += f32(model.w1[k][t]) + f32(model.b1[k][t]) + f32(model.w2[k][t])
            out += f32(model.b2[k][t]) + f32(model.w3[k][t]) + f32(model.b3[k][t])
    out += struct.pack("<I", fnv1a(out))
    with open(path, "wb") as f:
        f.write(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("samples", help="a samples file (tsuru train --export-samples)")
    parser.add_argument("--out", required=True, help="the pattern-network file to write")
    parser.add_argument("--hidden", type=int, nargs=2, default=[32, 32], metavar=("H1", "H2"))
    parser.add_argument("--stages", type=int, default=15)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--time", type=float, default=0, help="seconds of training at most (0: no limit)")
    parser.add_argument("--batch", type=int, default=16384)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = True
    device = torch.device(args.device)
    started = time.time()

    header, records = read_samples(args.samples)
    held = np.asarray(records["flags"] & 1, dtype=bool)
    lookups = torch.from_numpy(np.asarray(records["lookups"]).astype(np.int64)).to(device)
    labels = torch.from_numpy(np.asarray(records["label"]).astype(np.float32)).to(device)
    stages = torch.from_numpy(stage_of(np.asarray(records["empties"]), args.stages)).to(device)
    train_rows = torch.from_numpy(np.nonzero(~held)[0]).to(device)
    held_rows = torch.from_numpy(np.nonzero(held)[0]).to(device)
    print(
        f"{len(train_rows)} training and {len(held_rows)} held-out records on {device} "
        f"({time.time() - started:.0f} s)",
        flush=True,
    )

    model = PatternNets(
        header["shapes"], header["copies"], args.stages, tuple(args.hidden), header["mobility"], device
    )
    params = sum(p.numel() for p in model.parameters())
    print(f"networks {args.hidden[0]}x{args.hidden[1]}: {params} parameters", flush=True)
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    steps_per_epoch = max(1, len(train_rows) // args.batch)
    total_steps = args.epochs * steps_per_epoch
    step = 0

    def held_out_error(quantised=False):
        with torch.no_grad():
            # The engine's tables are in hundredths of a disc (crates/tsuru-core/src/score.rs).
            q = (lambda t: torch.round(t * 100) / 100) if quantised else (lambda t: t)
            flat, mob, bias = q(model.tables().reshape(-1)), q(model.mob), q(model.bias)
            total = 0.0
            for start in range(0, len(held_rows), 1 << 16):
                rows = held_rows[start : start + (1 << 16)]
                pred = model.predict(flat, lookups[rows], stages[rows], mob, bias)
                total += (pred - labels[rows]).abs().sum().item()
            return total / max(1, len(held_rows))

    training_started = time.time()
    done = False
    for epoch in range(args.epochs):
        order = train_rows[torch.randperm(len(train_rows), device=device)]
        sum_sq, count = 0.0, 0
        for k in range(steps_per_epoch):
            rows = order[k * args.batch : (k + 1) * args.batch]
            rate = args.lr * 0.5 * (1 + math.cos(math.pi * min(step / total_steps, 1.0)))
            for group in optimiser.param_groups:
                group["lr"] = rate
            flat = model.tables().reshape(-1)
            pred = model.predict(flat, lookups[rows], stages[rows])
            loss = ((pred - labels[rows]) ** 2).mean()
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            sum_sq += loss.item() * len(rows)
            count += len(rows)
            step += 1
            if step == 10:
                warm = time.time()
            if step == 60 and args.time > 0:
                # Fit the cosine schedule to the time left, once the step time is known (the
                # first steps, with their warm-up, left out).
                per_step = (time.time() - warm) / 50
                left = args.time - (time.time() - training_started)
                total_steps = min(total_steps, max(step + 1, step + int(left / per_step)))
                print(f"{per_step * 1000:.1f} ms a step: {total_steps} steps", flush=True)
            if step >= total_steps:
                done = True
                break
        print(
            f"epoch {epoch + 1}: train rms {math.sqrt(sum_sq / max(1, count)):.3f}, "
            f"held-out MAE {held_out_error():.4f} ({time.time() - started:.0f} s)",
            flush=True,
        )
        if done:
            break
    print(f"held-out MAE {held_out_error():.4f}, quantised {held_out_error(True):.4f}", flush=True)
    write_nets(args.out, model, header["pattern_set"])
    print(f"wrote {args.out} ({time.time() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
