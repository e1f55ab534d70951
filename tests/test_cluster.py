"""A real Dask cluster (two worker processes) gives the same bytes as this process alone:
segmentation, scoring and the bootstrap resamples all go to its workers."""

from __future__ import annotations

import pytest

from metaeval.cli import main
from tests.test_cli import ZH, small_corpus

distributed = pytest.importorskip("distributed", reason="pip install 'metaeval[test]' installs distributed")


def _segmenters_built() -> list[str]:
    from metaeval import segmenting

    return sorted(segmenting._WORKER_SEGMENTERS)


def _run(corpus, out, *extra: str) -> dict[str, bytes]:  # noqa: ANN001
    args = ["run", str(corpus), "-s", "char", "-s", "jieba", "-m", "bleu", "-m", "1-ter", "-m", "chrf",
            "--bootstrap", "200", "-q", "--out", str(out), *extra]
    assert main(args) == 0
    return {name: (out / name).read_bytes() for name in ("results.json", "scores.tsv.gz")}


@pytest.mark.skipif(not ZH.is_dir(), reason="shared data folder not found (set METAEVAL_SHARED)")
def test_local_cluster_jobs_and_serial_give_identical_outputs(tmp_path, capsys, monkeypatch):
    import metaeval.stats.evaluate as evaluate_module

    # 64 resamples per block: the 200 resamples come in 4 blocks, 2 of them queued at a time
    monkeypatch.setattr(evaluate_module, "BOOTSTRAP_BLOCK_ELEMENTS", 30 * 64)
    distributed_blocks = []
    real = evaluate_module._items_distributed

    def recording(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        for found in real(*args, **kwargs):
            distributed_blocks.append(len(found))
            yield found

    monkeypatch.setattr(evaluate_module, "_items_distributed", recording)
    corpus = small_corpus(tmp_path, n=30)
    serial = _run(corpus, tmp_path / "serial", "-j", "1")
    assert distributed_blocks == []
    assert _run(corpus, tmp_path / "jobs2", "-j", "2") == serial
    # the two worker processes evaluated the 4 blocks
    assert len(distributed_blocks) == 4
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert len(cluster.workers) == 2
        with distributed.Client(cluster) as client:
            clustered = _run(corpus, tmp_path / "cluster", "--scheduler", cluster.scheduler_address)
            # the segmentation went to the cluster: its workers built the segmenters themselves
            built = client.run(_segmenters_built)
        # so did the bootstrap (Dask names a task by its function, leading underscores dropped)
        prefixes = set(cluster.scheduler.task_prefixes)
    assert len(built) == 2 and any(any(sig.startswith("jieba|") for sig in sigs) for sigs in built.values())
    assert len(distributed_blocks) == 8 and {"segment_task", "score_chunk", "items_task"} <= prefixes
    assert clustered == serial
    capsys.readouterr()


def test_an_unreachable_scheduler_is_one_line_and_exit_1(tmp_path, capsys):
    corpus = small_corpus(tmp_path, n=5)
    code = main(["score", str(corpus), "-q", "--scheduler", "tcp://127.0.0.1:9", "-o", str(tmp_path / "s.tsv")])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("metaeval: error: --scheduler tcp://127.0.0.1:9: cannot reach")
    assert len(err.strip().splitlines()) == 1


def _spm_run(corpus, out, *extra: str) -> dict[str, bytes]:  # noqa: ANN001
    args = ["run", str(corpus), "-s", "spm:vocab=1200", "-s", "char", "-m", "bleu", "-m", "1-ter", "--bootstrap", "100",
            "-q", "--out", str(out), *extra]
    assert main(args) == 0
    return {name: (out / name).read_bytes() for name in ("results.json", "scores.tsv.gz")}


@pytest.mark.skipif(not ZH.is_dir(), reason="shared data folder not found (set METAEVAL_SHARED)")
def test_a_trained_sentencepiece_model_reaches_pool_and_cluster_workers(tmp_path, capsys):
    """spm learns its pieces from the corpus's references, which a worker does not have: the
    trained segmenter travels to it by content hash, so --jobs 2 and a cluster give --jobs 1's bytes
    (before, a worker rebuilt it from its name and stopped the run)."""
    from metaeval import segmenting

    corpus = small_corpus(tmp_path, n=60)
    serial = _spm_run(corpus, tmp_path / "serial", "-j", "1")
    assert _spm_run(corpus, tmp_path / "jobs2", "-j", "2") == serial
    assert not any(sig.startswith("spm") for sig in segmenting._WORKER_SEGMENTERS)  # built in the pool's worker
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            clustered = _spm_run(corpus, tmp_path / "cluster", "--scheduler", cluster.scheduler_address)
            built = client.run(_segmenters_built)
    assert any(sig.startswith("spm") for sigs in built.values() for sig in sigs)
    assert clustered == serial
    capsys.readouterr()


def test_a_shipped_segmenter_is_checked_by_its_hash():
    from metaeval import segmenters, segmenting
    from metaeval.errors import MetaevalError

    seg = segmenters.get("spm:vocab=40", training_text=["今天下雨了。", "明天晴。"] * 5)
    shipped = segmenting.worker_spec(seg, "spm:vocab=40")
    assert isinstance(shipped, segmenting.Shipped)
    assert segmenting.get_segmenter(shipped).signature() == seg.signature()
    assert segmenting.worker_spec(segmenters.get("char"), "char") == "char"  # a registry name rebuilds the rest
    damaged = segmenting.Shipped(shipped.spec, shipped.sha256, shipped.payload[:-1] + b"\0")
    with pytest.raises(MetaevalError, match="arrived damaged"):
        segmenting.get_segmenter(damaged)
