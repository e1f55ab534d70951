"""Meta-evaluation statistics: how well metric scores agree with human judgments.

One module per job (docs/design.md, "Layers" and "Meta-evaluation"):

- :mod:`~metaeval.stats.registry`: every statistic, one entry each (levels, groupings, the
  function computing it, its chance level, the settings it takes, description, citation);
- :mod:`~metaeval.stats.settings`: the one frozen :class:`~metaeval.stats.settings.Settings`
  of a request, with every default from :mod:`~metaeval.stats.defaults`;
- the statistics over arrays: :mod:`~metaeval.stats.correlations` (Pearson, Spearman,
  Kendall; :mod:`~metaeval.stats.weighted` for their resamples), :mod:`~metaeval.stats.pairwise`
  (Li et al.'s consistency), :mod:`~metaeval.stats.tallies`, :mod:`~metaeval.stats.calibration`
  and :mod:`~metaeval.stats.kendall` (the tie-aware variants and tie calibration of WMT23-24),
  :mod:`~metaeval.stats.syspairs` (system pairs), :mod:`~metaeval.stats.grouping` (groupings and
  their averages), :mod:`~metaeval.stats.chance` (chance levels);
- uncertainty: :mod:`~metaeval.stats.resampling` (bootstrap), :mod:`~metaeval.stats.significance`
  (paired tests, Williams, clusters);
- a run: :mod:`~metaeval.stats.human` (the human side), :mod:`~metaeval.stats.case` (what a
  statistic is computed from), :mod:`~metaeval.stats.evaluate` (the ResultTable, dispatching
  over the registry), :mod:`~metaeval.stats.itemstore` (results kept by content hash),
  :mod:`~metaeval.stats.clusters` and :mod:`~metaeval.stats.paired` (comparing configurations).

Every statistic returns a :class:`~metaeval.stats.result.Correlation`; an undefined one is NaN
with a reason, never 0.
"""
