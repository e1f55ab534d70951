"""Ranks, displacement from the human rank and inverted pairs on hand-made 4-system cases."""

from __future__ import annotations

import numpy as np

from metaeval.stats.systems.ranks import competition_ranks, displacement, pair_order

NAN = float("nan")


def test_four_systems_two_inverted_pairs():
    # humans: A > B > C > D; the metric: B > A > D > C
    human = np.array([4.0, 3.0, 2.0, 1.0])
    metric = np.array([0.3, 0.4, 0.1, 0.2])
    human_ranks, metric_ranks = competition_ranks(human), competition_ranks(metric)
    assert human_ranks.tolist() == [1, 2, 3, 4]
    assert metric_ranks.tolist() == [2, 1, 4, 3]
    assert displacement(metric_ranks, human_ranks).tolist() == [1, -1, 1, -1]
    order = pair_order(human, metric)
    assert order.ordered == 6 and order.metric_ties == 0
    assert order.inverted == ((0, 1), (2, 3))  # (A, B) and (C, D), better by the humans first


def test_metric_ties_are_counted_apart_and_share_a_rank():
    human = np.array([4.0, 3.0, 2.0, 1.0])
    metric = np.array([0.3, 0.3, 0.1, 0.2])
    assert competition_ranks(metric).tolist() == [1, 1, 4, 3]
    order = pair_order(human, metric)
    assert order.ordered == 6 and order.metric_ties == 1 and order.inverted == ((2, 3),)


def test_human_ties_are_not_pairs_and_undefined_scores_are_left_out():
    human = np.array([4.0, 4.0, 2.0, 1.0])
    metric = np.array([0.1, 0.4, 0.3, 0.2])
    order = pair_order(human, metric)
    # (A, B) tied by the humans; A below C and D by the metric; B, C, D in the humans' order
    assert order.ordered == 5 and order.inverted == ((0, 2), (0, 3))
    partial = pair_order(np.array([4.0, 3.0, NAN, 1.0]), np.array([0.1, 0.4, 0.3, NAN]))
    assert partial.ordered == 1 and partial.inverted == ((0, 1),)
    ranks = competition_ranks(np.array([0.5, NAN, 0.7]))
    assert ranks[0] == 2 and np.isnan(ranks[1]) and ranks[2] == 1


def test_the_list_follows_the_human_order_whatever_the_input_order():
    # the same four systems as the first case, given as D, C, B, A
    order = pair_order(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.2, 0.1, 0.4, 0.3]))
    assert order.inverted == ((3, 2), (1, 0))
