"""The granularity sweep on public data (``python -m experiments.sweep``)."""
