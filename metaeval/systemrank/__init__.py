"""System leaderboards: MT systems ranked by the humans and by each metric at each granularity.

- :mod:`.bootstrap`: paired bootstrap between systems over segments, as sacrebleu's
  ``--paired-bs`` defines its p-value;
- :mod:`.wilcoxon`: the one-sided Wilcoxon signed-rank tests WMT24 used between systems;
- :mod:`.clusters`: rank ranges and significance clusters from those tests (WMT24's procedure);
- :mod:`.ranks`: ranks, their displacement from the human rank, and the pairs a metric orders
  against the humans;
- :mod:`.granularity`: the order of granularities (the sweep's axis);
- :mod:`.board`: the whole leaderboard of a scored corpus as DataFrames.
"""

from __future__ import annotations
