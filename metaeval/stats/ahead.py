"""Statistics started ahead: the items of the configurations a run has finished scoring,
computed by the workers while the run still segments and scores its last segmenters.

Without it, a run's statistics wait for its slowest segmentation: on two workers, one tags
with pkuseg while the other scores the other segmenters, runs out of work before pkuseg is
done, and waits again while the last chunks are scored and the statistics are handed out.
:meth:`ItemsAhead.start` sends the statistics of each finished segmenter to the same workers
at once (from a thread of this process, which only waits on them); :meth:`ItemsAhead.take` gives them
back to :func:`metaeval.stats.evaluate.evaluate`, which computes only the rest.

A configuration's items depend on the configuration, the judgments, the settings and the
seeded resamples, never on the configurations computed beside it, so the table is bit for
bit the one computed at once. Configurations with the same scores as one already started
(``char`` and ``cjk-char`` on Chinese, chrF under every segmenter) are not computed again:
their items are copies of its items, renamed, as :func:`metaeval.stats.evaluate` does for
twins within one call.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import threading
from typing import TYPE_CHECKING, Any, Callable, Sequence

from metaeval.scoretable import ConfigScores
from metaeval.stats import itemstore
from metaeval.stats.settings import Settings

if TYPE_CHECKING:
    from metaeval.corpora.model import Judgments
    from metaeval.stats.case import Item

    Items = list[tuple[Item, list[str]]]


def _in_thread(function: Callable[[], Any]) -> cf.Future:
    """``function()`` run in a daemon thread of this process, its result or error in a future.
    A daemon thread: if the run stops (an error, Ctrl-C), the workers are terminated, the
    tasks it waits on fail, and nothing waits for it at exit."""
    future: cf.Future = cf.Future()

    def work() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(function())
        except BaseException as error:  # noqa: BLE001 - handed to the thread that takes the result
            future.set_exception(error)

    threading.Thread(target=work, name="metaeval-statistics-ahead", daemon=True).start()
    return future


class ItemsAhead:
    """The items of configurations computed ahead of :func:`~metaeval.stats.evaluate.evaluate`
    on ``executor``'s workers, with the judgments, kinds, settings and store it will be called
    with. Without an executor or bootstrap resamples (the statistics would then be computed in
    this process, beside the work it waits for), :meth:`start` does nothing."""

    def __init__(self, judgments: Judgments, kinds: Sequence[str] | None, settings: Settings, store: Any,
                 executor: cf.Executor | None) -> None:  # fmt: skip
        self.judgments = judgments
        self.kinds = list(kinds) if kinds is not None else None
        self.settings = settings
        self.store = store
        self.executor = executor
        #: Unnamed digest (:func:`itemstore.config_digest`) -> the configuration whose items give it.
        self.sources: dict[str, ConfigScores] = {}
        self._started: list[tuple[list[ConfigScores], cf.Future]] = []

    @property
    def active(self) -> bool:
        return self.executor is not None and self.settings.n_bootstrap > 0

    def start(self, configs: Sequence[ConfigScores]) -> None:
        """Begin computing the items of ``configs`` (those whose scores were not started before)."""
        if not self.active:
            return
        from metaeval.stats.evaluate import _items

        new = []
        for config in configs:
            digest = itemstore.config_digest(config, named=False)
            if digest not in self.sources:
                self.sources[digest] = config
                new.append(config)
        if new:
            self._started.append((new, _in_thread(lambda: _items(new, self.judgments, self.kinds, self.settings, None,
                                                                 self.store, self.executor))))  # fmt: skip

    def take(self, configs: Sequence[ConfigScores]) -> tuple[dict[int, Items], list[ConfigScores]]:
        """``(items by id of configuration, the configurations still to compute)``: every
        configuration of ``configs`` whose scores were started ahead gets that computation's items
        (waited for; an error there is raised here), renamed for it where it is a twin."""
        done: dict[int, Items] = {}
        for started, future in self._started:
            found = future.result()
            by_config: dict[int, Items] = {id(c): [] for c in started}
            for item, dropped in found:
                by_config[id(item.config)].append((item, dropped))
            done.update(by_config)
        out: dict[int, Items] = {}
        rest = []
        for config in configs:
            source = self.sources.get(itemstore.config_digest(config, named=False))
            if source is None or id(source) not in done:
                rest.append(config)
            elif source is config:
                out[id(config)] = done[id(config)]
            else:
                out[id(config)] = [(dataclasses.replace(item, config=config), list(dropped)) for item, dropped in done[id(source)]]
        return out, rest


__all__ = ["ItemsAhead"]
