#!/usr/bin/env python3
"""Issue 53, rung (b): fits pattern tables with a factorisation-machine term and writes them
as a model file that `tsuru tables --fm` quantises into weights the engine reads.

The model (crates/tsuru-core/src/formats/fm_model.rs): per stage (15, by empties) a bias and one table entry
for each of a position's 55 look-ups (54 pattern copies, tied to their canonical entries, and
the mobility table), plus a d-wide vector per table entry shared by all stages and a scale per
stage (with --one-scale one for all, so the term is the same at every stage); the term is
scale * sum over pairs of look-ups of their vectors' dot products, computed as
scale/2 * (|sum v|^2 - sum |v|^2). With --dim 0 it fits the tables alone (the control).

    tsuru tables --weights crates/tsuru-core/src/eval/weights.tsw --export-fm gen4.fmm
    python3 crates/tsuru-lab/scripts/fm_train.py s.smp --init gen4.fmm --dim 8 --time 120 --out fm.fmm
    tsuru tables --fm fm.fmm --out fm.tsw --check s.smp

--init starts the tables and biases from a model file (the shipped weights, say), so entries
the samples never touch keep their values; without it they start at zero. When that model has
an interaction term of the same width (`tsuru tables --weights crates/tsuru-core/src/eval/term.tsi
--export-fm shipped.fmm`), the fit goes on from its vectors and scales too. The state kept is
the epoch with the lowest held-out error. Needs numpy and torch; uses CUDA when there is a GPU.
"""

import argparse
import struct
import time

import numpy as np
import torch

from pattern_nets import fnv1a, read_samples, stage_of

MAGIC = b"TSURUFMM"


def read_model(path):
    """A model file's header fields and arrays (see crates/tsuru-core/src/formats/fm_model.rs)."""
    data = open(path, "rb").read()
    if data[:8] != MAGIC:
        raise SystemExit(f"{path}: not a tsuru FM model file")
    if fnv1a(data[:-4]) != struct.unpack("<I", data[-4:])[0]:
        raise SystemExit(f"{path}: checksum mismatch (damaged file)")
    version, pattern_set, stages, entries, dim = struct.unpack("<HIHIH", data[8:22])
    if version != 1:
        raise SystemExit(f"{path}: version {version}, this script reads 1")
    floats = np.frombuffer(data[22:-4], dtype="<f4")
    per_stage = floats[: stages * (entries + 1)].reshape(stages, entries + 1)
    rest = floats[stages * (entries + 1) :]
    return {
        "pattern_set": pattern_set,
        "dim": dim,
        "bias": per_stage[:, 0].copy(),
        "tables": per_stage[:, 1:].copy(),
        "scales": rest[:stages].copy(),
        "vectors": rest[stages:].reshape(entries, dim).copy(),
    }


def tied_stages(stages, group, before_ply):
    """The stages (of `stages` by ply, in groups of `group` split from one stage each) whose
    whole group covers plies before `before_ply`, less the first of each group: they share
    its values. Empty for no split or `before_ply` 0."""
    if group <= 1 or before_ply <= 0:
        return []
    first_ply = lambda t: -(-t * 60 // stages)  # the first ply with stage_of(60 - ply) == t
    tied = []
    for first in range(0, stages, group):
        if first_ply(first + group) <= before_ply:
            tied.extend(range(first + 1, first + group))
    return tied


def has_term(model):
    """Whether a model file's interaction term is not all zero."""
    return bool(np.any(model["scales"] != 0) and np.any(model["vectors"] != 0))


def write_model(path, pattern_set, bias, tables, scales, vectors):
    """Writes a model file (arrays in discs; vectors of shape (entries, dim))."""
    stages, entries = tables.shape
    dim = vectors.shape[1]
    out = bytearray(MAGIC)
    out += struct.pack("<HIHIH", 1, pattern_set, stages, entries, dim)
    for t in range(stages):
        out += np.asarray(bias[t : t + 1], dtype="<f4").tobytes()
        out += np.asarray(tables[t], dtype="<f4").tobytes()
    out += np.asarray(scales, dtype="<f4").tobytes()
    out += np.asarray(vectors, dtype="<f4").tobytes()
    out += struct.pack("<I", fnv1a(out))
    with open(path, "wb") as f:
        f.write(out)


def table_offsets(header):
    """Per look-up, the offset of its table in one flat list of all tables (one stage)."""
    shapes, copies = header["shapes"], header["copies"]
    shape_offset = np.cumsum([0] + [3**n for n in shapes])
    offsets = [int(shape_offset[s]) for s in copies]
    mobility_offset = int(shape_offset[-1])
    offsets.append(mobility_offset)
    total = mobility_offset + header["mobility"] ** 2
    return np.array(offsets, dtype=np.int64), total


class Model(torch.nn.Module):
    """Tables as embeddings with sparse gradients (a step touches only the rows its batch
    reads), vectors shared by the stages, a scale per stage (or one for all)."""

    def __init__(self, entries, stages, dim, init=None, columns=None, init_term=False, head=None, one_scale=False):
        super().__init__()
        self.entries, self.stages, self.dim = entries, stages, dim
        # With one_scale the term is the same at every stage (one scale, as well as the shared
        # vectors); the file still holds a scale a stage, all equal.
        self.one_scale = one_scale
        # An experimental network head over the vectors' sum (issue 84, rung c): None, or
        # ("lanes", 0) for a clipped ReLU of each lane, or ("mlp", H) for H clipped-ReLU
        # units each mixing all lanes; per stage, its output weights starting at zero so
        # that the fit starts from the term alone.
        self.head = head
        # The look-ups (columns of a record) that carry vectors; None: all of them.
        self.columns = columns
        self.linear = torch.nn.Embedding(entries * stages, 1, sparse=True)
        self.bias = torch.nn.Parameter(torch.zeros(stages))
        torch.nn.init.zeros_(self.linear.weight)
        if init is not None:
            with torch.no_grad():
                self.linear.weight.copy_(torch.from_numpy(init["tables"].reshape(-1, 1)))
                self.bias.copy_(torch.from_numpy(init["bias"]))
        if dim:
            self.vectors = torch.nn.Embedding(entries, dim, sparse=True)
            torch.nn.init.normal_(self.vectors.weight, std=0.05)
            self.scale = torch.nn.Parameter(torch.ones(1 if one_scale else stages))
            if init_term:
                # Go on from the model's term (a shipped one, exported with --export-fm).
                with torch.no_grad():
                    self.vectors.weight.copy_(torch.from_numpy(init["vectors"]))
                    scales = init["scales"]
                    if one_scale:
                        # The mean of the stages' scales where the term is on.
                        on = scales[scales != 0]
                        scales = np.array([on.mean() if len(on) else 1.0], dtype=np.float32)
                    self.scale.copy_(torch.from_numpy(scales))
            if head is not None:
                kind, hidden = head
                units = dim if kind == "lanes" else hidden
                if kind == "mlp":
                    self.head_in = torch.nn.Parameter(torch.randn(stages, units, dim) / dim**0.5)
                else:
                    self.head_gain = torch.nn.Parameter(torch.ones(stages, units))
                self.head_bias = torch.nn.Parameter(torch.zeros(stages, units))
                self.head_out = torch.nn.Parameter(torch.zeros(stages, units))

    def forward(self, lookups, stage):
        value = self.linear(lookups + (stage * self.entries)[:, None]).sum((1, 2)) + self.bias[stage]
        if self.dim:
            rows = self.vectors(lookups if self.columns is None else lookups[:, self.columns])
            total = rows.sum(1)
            pairs = 0.5 * (total.pow(2).sum(1) - rows.pow(2).sum((1, 2)))
            value = value + self.scale[0 if self.one_scale else stage] * pairs
            if self.head is not None:
                if self.head[0] == "mlp":
                    total = torch.einsum("bd,bhd->bh", total, self.head_in[stage])
                else:
                    total = total * self.head_gain[stage]
                hidden = torch.clamp(total + self.head_bias[stage], 0.0, 1.0)
                value = value + (hidden * self.head_out[stage]).sum(1)
        return value

    def optimisers(self, lr, freeze_tables=False):
        frozen = {"linear.weight", "bias"} if freeze_tables else set()
        for name, p in self.named_parameters():
            p.requires_grad_(name not in frozen)
        sparse = [p for n, p in self.named_parameters() if n.endswith("weight") and n not in frozen]
        dense = [p for n, p in self.named_parameters() if not n.endswith("weight") and n not in frozen]
        optimisers = [torch.optim.SparseAdam(sparse, lr=lr)]
        if dense:
            optimisers.append(torch.optim.Adam(dense, lr=lr))
        return optimisers

    def arrays(self, dim_out):
        """(bias, tables, scales, vectors) as NumPy arrays in discs, vectors dim_out wide."""
        cpu = lambda t: t.detach().to("cpu", torch.float32).numpy()
        tables = cpu(self.linear.weight).reshape(self.stages, self.entries)
        if self.dim:
            scales = cpu(self.scale)
            if self.one_scale:
                scales = np.repeat(scales, self.stages)
            return cpu(self.bias), tables, scales, cpu(self.vectors.weight)
        zeros = np.zeros((self.entries, dim_out), dtype=np.float32)
        return cpu(self.bias), tables, np.zeros(self.stages, dtype=np.float32), zeros


@torch.no_grad()
def mae(model, data, batch):
    model.eval()
    lookups, stage, label = data
    errors = 0.0
    for start in range(0, len(label), batch * 4):
        sl = slice(start, start + batch * 4)
        errors += float((model(lookups[sl], stage[sl]) - label[sl]).abs().sum())
    return errors / len(label)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples")
    parser.add_argument("--out", required=True, help="the model file to write")
    parser.add_argument("--init", help="a model file to start the tables and biases from (and the term, "
                        "when it has one as wide as --dim)")
    parser.add_argument("--dim", type=int, default=8, help="vector width; 0 fits the tables alone")
    parser.add_argument("--stages", type=int, default=15,
                        help="stages by ply; an --init with fewer stages that divide this is split into them")
    parser.add_argument("--tie-before-ply", type=int, default=0,
                        help="with --stages splitting --init's stages: the stages of plies before P stay "
                        "--init's, each fitted as one (the split stages of a group share its values)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--time", type=float, help="stop after the epoch that passes S seconds")
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--min-positions", type=int, default=10000,
                        help="a stage with fewer training positions gets no interaction term")
    parser.add_argument("--limit", type=int, help="read about N records, evenly spread (for a quick try)")
    parser.add_argument("--min-count", type=int, default=1,
                        help="vectors of entries read fewer than N times by the training records "
                        "are written as zero (untrained vectors would add noise, and zeros keep the "
                        "file small)")
    parser.add_argument("--freeze-tables", action="store_true",
                        help="keep the tables and biases of --init as they are and fit the term alone "
                        "(the weights then differ from --init only by the term)")
    parser.add_argument("--head", help="experimental: 'lanes' (a clipped ReLU of each lane of the vectors' "
                        "sum) or 'mlp:H' (H clipped-ReLU units over all lanes), per stage, added to the term; "
                        "measured on held-out error only: the model file does not hold it")
    parser.add_argument("--fm-shapes", help="comma-separated shape numbers (their order in the samples' header) "
                        "whose look-ups carry vectors, 'm' for the mobility table; default all: a term over "
                        "fewer look-ups costs the engine fewer row reads")
    parser.add_argument("--one-scale", action="store_true",
                        help="one scale for every stage: the term is then the same at every stage, over "
                        "per-stage tables (without it the vectors are shared and each stage scales them); "
                        "a stage with fewer than --min-positions training positions still gets no term")
    args = parser.parse_args()
    # Checked before the samples are read (minutes for a large file).
    if args.epochs < 1:
        parser.error("--epochs must be at least 1 (the model written is the best epoch's)")
    head = None
    if args.head:
        kind, _, hidden = args.head.partition(":")
        if not (kind == "lanes" and not hidden or kind == "mlp" and hidden.isdigit() and int(hidden) > 0):
            raise SystemExit(f"--head {args.head}: give 'lanes' or 'mlp:H' with H at least 1")
        if not args.dim:
            raise SystemExit("--head needs a term (--dim at least 1): it reads the vectors' sum")
        head = (kind, int(hidden or 0))
    if args.one_scale and not args.dim:
        parser.error("--one-scale needs a term (--dim at least 1)")
    if not 0 <= args.tie_before_ply <= 60:
        raise SystemExit("--tie-before-ply: give a ply from 0 to 60")
    torch.manual_seed(53)
    torch.set_num_threads(args.threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    init = read_model(args.init) if args.init else None
    group = 1  # stages of --stages to one of --init's
    if init is not None:
        given = init["tables"].shape[0]
        if given != args.stages and given and args.stages % given == 0:
            # Each of the model's stages split into --stages / its count equal stages (stage
            # t of 15 covers the plies of stages 2t and 2t+1 of 30), the same values to start.
            group = args.stages // given
            print(f"--init's {given} stages split into {args.stages}", flush=True)
            for key in ("bias", "scales"):
                init[key] = np.repeat(init[key], group)
            init["tables"] = np.repeat(init["tables"], group, axis=0)
    if args.tie_before_ply and group <= 1:
        raise SystemExit("--tie-before-ply needs --init with fewer stages than --stages (a split)")
    header, records = read_samples(args.samples)
    offsets, entries = table_offsets(header)
    # A quick try reads every k-th record (the held-out records come last in the file).
    step = max(1, len(records) // args.limit) if args.limit else 1
    records = np.asarray(records[::step])
    if init is not None:
        if init["pattern_set"] != header["pattern_set"] or init["tables"].shape != (args.stages, entries):
            raise SystemExit("--init is for another pattern set or shape")
    to = lambda a, dtype: torch.from_numpy(a.astype(dtype)).to(device)
    # 32-bit indices, converted a chunk at a time: the whole data at once in 64 bits would
    # need several times the memory of the file.
    raw = records["lookups"]
    flat = np.empty(raw.shape, dtype=np.int32)
    for start in range(0, len(raw), 1 << 20):
        flat[start : start + (1 << 20)] = raw[start : start + (1 << 20)].astype(np.int32) + offsets[None, :]
    lookups = torch.from_numpy(flat).to(device)
    stage_numbers = stage_of(records["empties"], args.stages)
    tied = tied_stages(args.stages, group, args.tie_before_ply)
    if tied:
        # A tied stage's positions train the first stage of its group; the file repeats it.
        stage_numbers = np.where(np.isin(stage_numbers, tied), stage_numbers - stage_numbers % group, stage_numbers)
        print(f"stages {', '.join(map(str, tied))} tied to the first of their groups of {group} "
              f"(plies before {args.tie_before_ply})", flush=True)
    stage = to(stage_numbers, np.int64)
    del stage_numbers
    label = to(records["label"], np.float32)
    # A samples file holds its training records, then its held-out ones (samples::write), so
    # the two sets are views of one array, not copies: a mask would copy the index array,
    # 10 GB at 45 M records, while the whole of it is still held.
    held_out = (records["flags"] & 1).astype(bool)
    cut = len(held_out) - int(held_out.sum())
    if held_out[:cut].any():
        raise SystemExit(f"{args.samples}: held-out records before training ones (not written by tsuru train)")
    train = (lookups[:cut], stage[:cut], label[:cut])
    held = (lookups[cut:], stage[cut:], label[cut:])
    del lookups, flat, stage, label
    print(f"{len(train[2])} training and {len(held[2])} held-out positions; {entries} entries a stage; {device}", flush=True)

    columns, entry_mask = None, np.ones(entries, dtype=np.float32)
    if args.fm_shapes:
        chosen = args.fm_shapes.split(",")
        shapes = {int(v) for v in chosen if v != "m"}
        keep = [c for c, shape in enumerate(header["copies"]) if shape in shapes]
        if "m" in chosen:
            keep.append(len(header["copies"]))
        columns = torch.tensor(keep, dtype=torch.int64, device=device)
        # Entries of the other shapes are never read with vectors: written as zero vectors.
        entry_mask[:] = 0.0
        for c in keep:
            start = int(offsets[c])
            size = 3 ** header["shapes"][header["copies"][c]] if c < len(header["copies"]) else header["mobility"] ** 2
            entry_mask[start : start + size] = 1.0
        print(f"vectors on {len(keep)} of {len(offsets)} look-ups ({int(entry_mask.sum())} entries)", flush=True)
    # How often the training records read each entry with a vector.
    counts = torch.zeros(entries, dtype=torch.int64, device=device)
    for start in range(0, len(train[0]), 1 << 20):
        chunk = train[0][start : start + (1 << 20)]
        chunk = chunk if columns is None else chunk[:, columns]
        counts += torch.bincount(chunk.reshape(-1).to(torch.int64), minlength=entries)
    rare = (counts < args.min_count).cpu().numpy() & (entry_mask > 0)
    # Whether the fit goes on from --init's term (one as wide as --dim).
    inherited = init is not None and args.dim > 0 and has_term(init) and init["dim"] == args.dim
    if inherited:
        # Entries these records do not read keep the vectors the initial term gave them.
        rare &= ~np.any(init["vectors"] != 0, axis=1)
    print(f"{int(rare.sum())} entries with vectors read fewer than {args.min_count} times: written as zero", flush=True)
    entry_mask[rare] = 0.0
    del counts
    model = Model(entries, args.stages, args.dim, init, columns, inherited, head, args.one_scale).to(device)
    print(f"start: held-out MAE {mae(model, held, args.batch):.3f}", flush=True)
    optimisers = model.optimisers(args.lr, args.freeze_tables)
    n = len(train[2])
    generator = torch.Generator(device=device).manual_seed(53)
    started, best = time.time(), (float("inf"), None, 0)
    out_of_time = lambda: args.time and time.time() - started > args.time
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(n, generator=generator, device=device)
        total, seen = 0.0, 0
        for step, start in enumerate(range(0, n, args.batch)):
            index = order[start : start + args.batch]
            loss = torch.nn.functional.mse_loss(model(train[0][index], train[1][index]), train[2][index])
            for optimiser in optimisers:
                optimiser.zero_grad()
            loss.backward()
            for optimiser in optimisers:
                optimiser.step()
            total, seen = total + float(loss.detach()) * len(index), seen + len(index)
            # --time also ends an epoch part-way (the held-out error is measured there).
            if step % 200 == 199 and out_of_time():
                break
        held_mae = mae(model, held, args.batch)
        part = "" if seen == n else f" ({seen / n:.0%} of it)"
        print(f"epoch {epoch + 1}{part}: train MSE {total / seen:.2f}  held-out MAE {held_mae:.3f}  ({time.time() - started:.0f} s)", flush=True)
        if held_mae < best[0]:
            best = (held_mae, model.arrays(args.dim or 8), epoch + 1)
        if out_of_time():
            break
    held_mae, arrays, epoch = best
    # A stage the samples do not reach (self-play's random openings give no positions before
    # ply 8) keeps its initial scale and would add the shared vectors' untrained sum: its term
    # is switched off instead, unless the initial term had one there (it keeps that scale).
    counts = torch.bincount(train[1], minlength=args.stages).cpu().numpy()
    scales = arrays[2].copy()
    for t in np.flatnonzero(counts < args.min_positions):
        if inherited and init["scales"][t] != 0 or t in tied:
            continue  # (a tied stage takes its group's scale below)
        print(f"stage {t}: {counts[t]} training positions, the term is off there", flush=True)
        scales[t] = 0.0
    bias, tables = arrays[0].copy(), arrays[1].copy()
    for t in tied:
        first = t - t % group
        bias[t], tables[t], scales[t] = bias[first], tables[first], scales[first]
    arrays = (bias, tables, scales, arrays[3] * entry_mask[:, None])
    write_model(args.out, header["pattern_set"], *arrays)
    print(f"wrote {args.out}: epoch {epoch}, held-out MAE {held_mae:.4f}", flush=True)
    if head is not None:
        print("the head is not in the model file: its held-out MAE above includes the head, the file's does not", flush=True)


if __name__ == "__main__":
    main()
