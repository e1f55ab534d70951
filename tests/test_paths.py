"""What the tool says about a path it cannot read or write: one cause, the path named."""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

import pytest

from metaeval.errors import DataError, FileSystemError
from metaeval.paths import (
    check_input_file,
    check_writable_folder,
    input_problem,
    make_folders,
    os_cause,
    os_error_message,
    read_input_bytes,
    remove_folders,
)


def test_os_causes_are_short_and_lower_case():
    assert os_cause(OSError(errno.EROFS, "Read-only file system")) == "read-only file system"
    assert os_cause(OSError(errno.ENOSPC, "x")) == "no space left on device (disk full)"
    assert os_cause(OSError(errno.ENOTCONN, "Transport Endpoint Is Not Connected")) == "transport endpoint is not connected"
    assert os_cause(OSError("plain")) == "plain"
    assert os_cause(OSError()) == "OSError"


def test_messages_name_the_path_and_the_action():
    exc = OSError(errno.EACCES, "Permission denied", "/a/b")
    assert os_error_message(exc) == "/a/b: permission denied"
    assert os_error_message(exc, "/c", "write scores") == "/c: cannot write scores: permission denied"
    assert os_error_message(OSError(errno.EACCES, "Permission denied"), action="read") == "cannot read: permission denied"


def test_every_kind_of_non_regular_input_is_named(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert input_problem(fifo) == "is a FIFO (named pipe), not a regular file"
    assert input_problem("/dev/null") == "is a character device, not a regular file"
    assert input_problem(tmp_path) == "is a folder, expected a file"
    assert input_problem(tmp_path / "absent") == "no such file"
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "gone")
    assert input_problem(dangling) == f"is a broken symbolic link (to {tmp_path / 'gone'})"
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert input_problem(loop) == "too many levels of symbolic links"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        assert input_problem(tmp_path / "sock") == "is a socket, not a regular file"
    regular = tmp_path / "file.txt"
    regular.write_text("x", encoding="utf-8")
    assert input_problem(regular) is None and check_input_file(regular) == regular


def test_reading_a_fifo_is_an_error_not_a_blocking_read(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(FileSystemError, match=r"fifo: is a FIFO \(named pipe\), not a regular file$"):
        read_input_bytes(fifo)
    with pytest.raises(DataError, match="fifo: is a FIFO"):
        read_input_bytes(fifo, DataError)


def test_output_folders_are_checked_before_any_work(tmp_path):
    check_writable_folder(tmp_path / "new" / "deeper")  # creatable: nothing raised, nothing made
    assert list(tmp_path.iterdir()) == []
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(FileSystemError, match=r"file: results folder is a file, expected a folder$"):
        check_writable_folder(blocker, "results")
    with pytest.raises(FileSystemError, match=r"file/out: cannot create results folder: .*file is a file, not a folder$"):
        check_writable_folder(blocker / "out", "results")


def test_an_unwritable_folder_is_found_by_a_probe(tmp_path, monkeypatch):
    import tempfile

    def denied(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(FileSystemError, match=rf"^{tmp_path}/out: cannot write output in {tmp_path}: read-only file system$"):
        check_writable_folder(tmp_path / "out")
    with pytest.raises(FileSystemError, match=rf"^{tmp_path}: cannot write output: read-only file system$"):
        check_writable_folder(tmp_path)


def test_make_folders_reports_what_it_made_and_undoes_a_partial_creation(tmp_path, monkeypatch):
    made = make_folders(tmp_path / "a" / "b")
    assert made == [tmp_path / "a" / "b", tmp_path / "a"]
    remove_folders(made)
    assert list(tmp_path.iterdir()) == []

    real_mkdir = Path.mkdir

    def second_fails(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if self.name == "b":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", second_fails)
    with pytest.raises(FileSystemError, match=r"a/b: cannot create folder: no space left on device \(disk full\)$"):
        make_folders(tmp_path / "a" / "b")
    assert list(tmp_path.iterdir()) == []  # "a" was removed again


def test_remove_folders_keeps_folders_that_are_not_empty(tmp_path):
    made = make_folders(tmp_path / "x")
    (tmp_path / "x" / "kept.txt").write_text("", encoding="utf-8")
    remove_folders(made)
    assert (tmp_path / "x" / "kept.txt").exists()


def test_replace_atomically_leaves_the_old_file_and_no_temporary_one_when_writing_fails(tmp_path: Path) -> None:
    from metaeval.paths import replace_atomically

    target = tmp_path / "entry"
    replace_atomically(target, lambda handle: handle.write(b"old"), ".x-")
    assert target.read_bytes() == b"old"

    def fails(handle) -> None:
        handle.write(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        replace_atomically(target, fails, ".x-")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["entry"]
    replace_atomically(target, lambda handle: handle.write(b"new"), ".x-")
    assert target.read_bytes() == b"new" and [p.name for p in tmp_path.iterdir()] == ["entry"]
