"""Li, Zong & Ng 2011 on public data (``python -m experiments.li2011``)."""
