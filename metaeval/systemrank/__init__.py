"""System leaderboards: MT systems ranked by the humans and by each metric at each granularity.

- :mod:`.granularity`: the order of granularities (the sweep's axis);
- :mod:`.board`: the whole leaderboard of a scored corpus as DataFrames;
- :mod:`.study`: the leaderboard of a finished run (``run --out``).

The tests between systems, rank ranges and ranks are statistics (:mod:`metaeval.stats.systems`);
scoring a corpus folder and ranking its systems is :func:`metaeval.systems.system_leaderboard`.
"""

from __future__ import annotations
