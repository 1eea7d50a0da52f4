"""Fit seconds of the peers of ``peers.py`` at 10k, 100k and 1M rows, for a quiet machine.

Run it with ``run_all.py peers_timing`` (one thread, set before numpy is
imported) and nothing else on the machine: a row whose wall time is more than
1.15 times its CPU time was slowed by other work and is not to be trusted.
"""

from __future__ import annotations

import harness
import peers

NAME = "peers_timing"


def run(quick=False):
    return peers.run_timing(quick=quick)


def summary(frame):
    table = frame.pivot_table(index=["library", "splits"], columns="n_train",
                              values="fit_cpu_s", sort=False)
    table.columns = [f"fit CPU s, n={c:,}" for c in table.columns]
    worst = frame["wall_over_cpu"].max()
    return (f"Peers' fit time (CPU seconds, one thread); the largest wall/CPU ratio is"
            f" {worst:.2f} (above 1.15: the machine was busy).\n\n"
            + harness.markdown_table(table.reset_index()))
