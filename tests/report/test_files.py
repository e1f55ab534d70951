"""write_atomic: refuses to overwrite without the flag, replaces with it, leaves no temp file on failure."""

from __future__ import annotations

import os

import pytest

from metaeval.errors import UsageError
from metaeval.report import files
from metaeval.report.files import write_atomic, write_bytes_atomic


def test_writes_text_exactly(tmp_path):
    path = write_atomic(tmp_path / "a.txt", "中文 line\nsecond\n")
    assert path.read_bytes() == "中文 line\nsecond\n".encode("utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_refuses_to_overwrite_and_names_flag(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("old")
    with pytest.raises(UsageError, match=rf"{path}: file exists; pass --overwrite"):
        write_atomic(path, "new")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_overwrites_with_flag(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("old")
    write_atomic(path, "new", overwrite=True)
    assert path.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_file_mode_follows_umask(tmp_path):
    old = os.umask(0o027)
    try:
        path = write_atomic(tmp_path / "m.txt", "x")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o640  # 0o666 & ~0o027


@pytest.mark.parametrize("overwrite", [False, True])
def test_failure_during_write_leaves_nothing(tmp_path, monkeypatch, overwrite):
    target = tmp_path / "out.csv"
    if overwrite:
        target.write_text("old")

    def broken_fsync(fd):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(files.os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="simulated"):
        write_atomic(target, "new contents", overwrite=overwrite)
    assert sorted(p.name for p in tmp_path.iterdir()) == (["out.csv"] if overwrite else [])
    if overwrite:
        assert target.read_text() == "old"


def test_interrupt_during_write_leaves_nothing(tmp_path, monkeypatch):
    real_fdopen = os.fdopen

    class Exploding:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[:3])
            raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "fdopen", lambda fd, mode: Exploding(real_fdopen(fd, mode)))
    with pytest.raises(KeyboardInterrupt):
        write_bytes_atomic(tmp_path / "x.bin", b"abcdef")
    assert list(tmp_path.iterdir()) == []


def test_missing_folder_and_folder_target(tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        write_atomic(tmp_path / "no" / "such.txt", "x")
    with pytest.raises(UsageError, match="is a folder"):
        write_atomic(tmp_path, "x", overwrite=True)


def test_output_folder_rules_for_sub_folders_and_files(tmp_path):
    from metaeval.report.files import check_output_folder

    out = tmp_path / "out"
    assert check_output_folder(out, ["results.json", "charts/"]) == out  # new folder, parent exists
    with pytest.raises(UsageError, match=r"parent folder .*missing does not exist"):
        check_output_folder(tmp_path / "missing" / "out", ["results.json"])
    out.mkdir()
    (out / "charts").write_text("", encoding="utf-8")
    with pytest.raises(UsageError, match=r"out/charts: is a file, expected a folder for the outputs"):
        check_output_folder(out, ["charts/"])
    (out / "results.json").mkdir()
    with pytest.raises(UsageError, match=r"out/results\.json: is a folder, expected a file path"):
        check_output_folder(out, ["results.json"])
    (out / "table.tsv").write_text("", encoding="utf-8")
    with pytest.raises(UsageError, match=r"out/table\.tsv exists; pass --overwrite to replace the outputs in"):
        check_output_folder(out, ["table.tsv"])
    assert check_output_folder(out, ["table.tsv"], overwrite=True) == out
    with pytest.raises(UsageError, match=r"table\.tsv: is a file, expected a folder for the outputs"):
        check_output_folder(out / "table.tsv", ["x"])


def test_without_hard_links_an_existing_target_is_still_kept(tmp_path, monkeypatch):
    import errno
    import os

    def no_links(src, dst):  # noqa: ANN001, ANN202
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = write_atomic(tmp_path / "a.txt", "one")
    assert path.read_text(encoding="utf-8") == "one"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]  # the temporary file was moved, not linked


def test_a_folder_without_room_for_the_temporary_file_is_one_error(tmp_path, monkeypatch):
    import errno
    import tempfile

    from metaeval.errors import FileSystemError

    def full(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", full)
    with pytest.raises(FileSystemError, match=r"a\.txt: cannot write: no space left on device \(disk full\)$"):
        write_atomic(tmp_path / "a.txt", "one")


def test_the_umask_is_read_without_proc(monkeypatch):
    import builtins
    import os

    from metaeval.report.files import _umask

    real_open = builtins.open

    def no_proc(file, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if str(file) == "/proc/self/status":
            raise OSError("no /proc")
        return real_open(file, *args, **kwargs)

    mask = os.umask(0o027)
    try:
        monkeypatch.setattr(builtins, "open", no_proc)
        assert _umask() == 0o027
        assert os.umask(0o027) == 0o027  # left as it was
    finally:
        os.umask(mask)
