"""Reproduction and extension of Denoual & Lepage (2005), "BLEU in characters".

``python -m experiments.denoual2005`` compares sentence BLEU over N words with BLEU over M
characters on English targets (WMT21 ja-en, de-en; words from ``13a``), and asks the same
question for Chinese and Japanese targets with real segmenters (jieba, pkuseg, MeCab). The
datasets and options are in :mod:`experiments.denoual2005.config`; outputs (Markdown tables,
PNG figures, ``results.json`` with the signature) go to ``experiments/results/denoual2005``.
"""
