"""Statistics between MT systems over the segments of one corpus (system leaderboards):

- :mod:`.bootstrap`: paired bootstrap between systems over segments, as sacrebleu's
  ``--paired-bs`` defines its p-value;
- :mod:`.wilcoxon`: the one-sided Wilcoxon signed-rank tests WMT24 used between systems;
- :mod:`.rankranges`: rank ranges and significance clusters from those tests (WMT24's procedure);
- :mod:`.ranks`: ranks, their displacement from the human rank, and the pairs a metric orders
  against the humans.

They work on arrays and import nothing of a run; :mod:`metaeval.systemrank` builds the board.
"""

from __future__ import annotations
