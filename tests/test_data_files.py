"""Only regular files of a data directory are read (framework/data_files.py): a FIFO named
like a data file is refused at once instead of blocking for ever, and a dangling symlink (an
editor's lock file) beside the data is skipped with a warning instead of failing its items
(test_multisource_suite.py shows it for the release's persona directories)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import bounded

from pytest_memeval.framework.data_files import DataFileWarning, NotARegularFile, read_text, regular_files


def test_a_fifo_is_refused_at_once_with_what_it_is(tmp_path: Path) -> None:
    fifo = tmp_path / "event_table.json"
    os.mkfifo(fifo)
    error = bounded(10, lambda: read_text(fifo))
    assert isinstance(error, NotARegularFile) and isinstance(error, OSError)
    assert error.strerror == "not a regular file (a FIFO)" and error.filename == str(fifo)


def test_regular_files_and_symlinks_to_them_are_read(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("[1]", encoding="utf-8")
    (tmp_path / "link.json").symlink_to(tmp_path / "a.json")
    assert read_text(tmp_path / "link.json") == "[1]"
    with pytest.raises(FileNotFoundError):
        read_text(tmp_path / "missing.json")


def test_a_listing_skips_what_is_not_a_regular_file_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    (tmp_path / ".#a.json").symlink_to("someone@host.1234:1700000000")  # an editor's lock file
    os.mkfifo(tmp_path / "b.json")
    (tmp_path / "sub").mkdir()
    with pytest.warns(DataFileWarning) as caught:
        kept = regular_files(sorted(tmp_path.iterdir()))
    assert kept == [tmp_path / "a.json"]
    assert sorted(str(w.message).split(":")[0] for w in caught) == [
        str(tmp_path / ".#a.json"),
        str(tmp_path / "b.json"),
    ]
