"""The worked example of docs/python.md: overprovisioning x GC victim policy on a small
UFS-like device under steady-state random writes; writes the figure to a temporary folder
(never over the repository's files; docs/python-sweep.png is refreshed with --out explicitly).

    pip install .            # from the repository root
    python examples/sweep_op_victim.py [--workers N] [--out FILE.png]
"""

import argparse
import os
import tempfile
import time

import matplotlib.pyplot as plt

import zonesim
import zonesim.plot

HERE = os.path.dirname(os.path.abspath(__file__))

ap = argparse.ArgumentParser()
ap.add_argument("--workers", type=int, default=2)
ap.add_argument(
    "--out", default=os.path.join(tempfile.gettempdir(), "zonesim-examples", "python-sweep.png")
)
ap.add_argument("--csv", default=None, help="also write the sweep's rows here")
a = ap.parse_args()

dev = zonesim.Device(
    "ufs-conventional",
    **{
        "nand.blocks_per_plane": 96,  # 96 superblocks of 6 MiB: a 576 MiB device, seconds per run
        "nand.pages_per_block": 48,
        "ftl.l2p_cache_bytes": 4194304,  # the whole map cached: the WAF is GC's alone
    },
)
t = time.perf_counter()
df = zonesim.sweep(
    dev,
    grid={
        "ftl.overprovisioning": [0.07, 0.14, 0.28],
        "ftl.gc.victim": ["greedy", "cost_benefit", "fifo"],
    },
    workload=os.path.join(HERE, "gc-sweep.fio"),
    precondition="seq",
    workers=a.workers,
)
print(f"{len(df)} runs in {time.perf_counter() - t:.1f} s on {a.workers} workers")
print(df[["ftl.overprovisioning", "ftl.gc.victim", "waf", "write_iops", "write_p99_us", "error"]].to_string(index=False))
if a.csv:
    df.to_csv(a.csv, index=False)

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2), constrained_layout=True)
zonesim.plot.heatmap(df, "ftl.overprovisioning", "ftl.gc.victim", "waf", ax=left)
zonesim.plot.waf_gc_bars(df, ax=right)
os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
fig.savefig(a.out, dpi=110)
print("wrote", a.out)
