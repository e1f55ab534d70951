"""System leaderboards by granularity on public data (``python -m experiments.systems``)."""
