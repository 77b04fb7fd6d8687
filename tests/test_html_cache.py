"""The sources' colours kept between HTML reports (html/cache.py): reused only for the same bytes, never trusted
when damaged, kept in bounds, cleared by `dotcov erase`, and never changing a byte of the report."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dotcov.data import datafiles as data
from dotcov.html import report as html
from dotcov.html import cache as html_cache
from dotcov.analysis.numbers import Analysis
from dotcov.api import Coverage
from dotcov.html.report import page_name, write_html
from dotcov.analysis.plans.cache import CACHE_DIR
from test_html import SRC, directory_bytes, many_states_result

SOURCES = ("Calc/Calculator.cs", "Calc/Parser.cs", "Lib/Shared.cs", "Lib/Util.fs")


@pytest.fixture
def src(tmp_path) -> Path:
    """A copy of the sample's sources (the tests edit them)."""
    root = tmp_path / "src"
    shutil.copytree(SRC, root)
    return root


class Counting:
    """Records the files html.highlight_lines colours (the cache's misses)."""

    def __init__(self, monkeypatch, root: Path):
        self.paths: list[str] = []
        real = html.highlight_lines

        def spy(text, path):
            self.paths.append(Path(path).relative_to(root).as_posix())
            return real(text, path)

        monkeypatch.setattr(html, "highlight_lines", spy)


def report(out: Path, root: Path, cache: Path | None, **kwargs) -> dict[str, bytes]:
    shutil.rmtree(out, ignore_errors=True)
    write_html(many_states_result(root), out, version="9.9.9", cache_dir=cache, **kwargs)
    return directory_bytes(out)


def stored(cache: Path) -> list[Path]:
    return sorted((cache / html_cache.SUBDIR).glob("*" + html_cache.SUFFIX))


def test_a_second_report_colours_nothing_and_is_byte_identical(tmp_path, src, monkeypatch):
    counting = Counting(monkeypatch, src)
    cache = tmp_path / "cache"
    plain = report(tmp_path / "plain", src, None)
    assert sorted(counting.paths) == sorted(SOURCES)  # (the missing source is not coloured)
    counting.paths.clear()
    first = report(tmp_path / "first", src, cache)
    assert sorted(counting.paths) == sorted(SOURCES)
    assert len(stored(cache)) == len(SOURCES)
    counting.paths.clear()
    second = report(tmp_path / "second", src, cache)
    assert counting.paths == []  # every colour read back
    assert first == plain and second == plain


def test_an_edited_source_is_coloured_again(tmp_path, src, monkeypatch):
    counting = Counting(monkeypatch, src)
    cache = tmp_path / "cache"
    report(tmp_path / "a", src, cache)
    parser = src / "Calc" / "Parser.cs"
    parser.write_text(parser.read_text("utf-8").replace("Parse", "ReadAll"), "utf-8")
    counting.paths.clear()
    out = report(tmp_path / "b", src, cache)
    assert counting.paths == ["Calc/Parser.cs"]
    assert b"ReadAll" in out[page_name("Calc/Parser.cs")]
    assert out == report(tmp_path / "plain", src, None)
    assert len(stored(cache)) == len(SOURCES) + 1  # the old text's colours stay until pruned


def test_the_same_bytes_in_another_language_are_coloured_for_it(tmp_path):
    colours = html_cache.ColourCache(tmp_path)
    text = b"let x = 1 // class\n"
    cs = colours.lines("a.cs", text, lambda: html.highlight_lines(text.decode(), "a.cs"))
    fs = colours.lines("a.fs", text, lambda: html.highlight_lines(text.decode(), "a.fs"))
    assert cs != fs and colours.misses == 2
    assert colours.lines("b.FS", text, lambda: pytest.fail("coloured again")) == fs


@pytest.mark.parametrize("damage", ["truncated", "flipped", "magic", "empty", "count", "utf8"])
def test_a_damaged_cache_file_is_ignored_and_written_again(tmp_path, src, monkeypatch, damage):
    counting = Counting(monkeypatch, src)
    cache = tmp_path / "cache"
    plain = report(tmp_path / "plain", src, None)
    report(tmp_path / "a", src, cache)
    victim = stored(cache)[0]
    blob = bytearray(victim.read_bytes())
    head = len(html_cache.MAGIC)
    if damage == "truncated":
        blob = blob[:-7]
    elif damage == "flipped":
        blob[-3] ^= 0x20
    elif damage == "magic":
        blob[0] ^= 1
    elif damage == "empty":
        blob = bytearray()
    elif damage == "count":  # a line count that does not match the body (CRC still right)
        blob[head + 8:head + 12] = (int.from_bytes(blob[head + 8:head + 12], "little") + 1).to_bytes(4, "little")
    elif damage == "utf8":  # a body that is not UTF-8, with a matching CRC
        import zlib

        body = b"\xff\xfe" + bytes(blob[html_cache._HEAD + 2:])
        blob[html_cache._HEAD:] = body
        blob[head + 12:head + 16] = zlib.crc32(body).to_bytes(4, "little")
    victim.write_bytes(bytes(blob))
    counting.paths.clear()
    assert report(tmp_path / "b", src, cache) == plain
    assert len(counting.paths) == 1  # that file only, coloured again
    assert victim.read_bytes().startswith(html_cache.MAGIC)  # and stored again, whole
    counting.paths.clear()
    assert report(tmp_path / "c", src, cache) == plain
    assert counting.paths == []


def test_erase_removes_the_kept_colours(tmp_path, src):
    cache = tmp_path / CACHE_DIR
    report(tmp_path / "out", src, cache)
    assert stored(cache)
    (cache / html_cache.SUBDIR / ".colour.x.tmp").write_bytes(b"half")  # left by a report that was killed
    data.erase(tmp_path)
    assert not (cache / html_cache.SUBDIR).exists()
    assert not cache.exists()


def test_dotcov_html_keeps_the_colours_in_the_data_directory(tmp_path, src, monkeypatch):
    cov = Coverage(tmp_path / "data")
    analysis = Analysis.of(many_states_result(src))
    monkeypatch.setattr(cov, "analysis", lambda: analysis)
    cov.html_report(tmp_path / "htmlcov")
    assert len(stored(tmp_path / "data" / CACHE_DIR)) == len(SOURCES)


def test_prune_keeps_the_newest(tmp_path):
    colours = html_cache.ColourCache(tmp_path)
    for i in range(6):
        colours.lines(f"f{i}.cs", b"x%d" % i, lambda: ["x"] * 1000)
    files = sorted(tmp_path.glob("*" + html_cache.SUFFIX))
    for i, p in enumerate(files):
        os.utime(p, ns=(i * 10**9, i * 10**9))
    html_cache.prune(tmp_path, max_files=4)
    assert sorted(tmp_path.glob("*" + html_cache.SUFFIX)) == files[2:]
    size = files[5].stat().st_size
    html_cache.prune(tmp_path, max_bytes=2 * size + 1)
    assert sorted(tmp_path.glob("*" + html_cache.SUFFIX)) == files[4:]


def test_an_unwritable_cache_is_no_error(tmp_path, src):
    blocker = tmp_path / "cache"
    blocker.write_text("not a directory")
    assert report(tmp_path / "a", src, blocker) == report(tmp_path / "plain", src, None)


def test_a_source_that_cannot_be_read_is_not_stored(tmp_path, src):
    cache = tmp_path / "cache"
    (src / "Lib" / "Util.fs").unlink()
    report(tmp_path / "a", src, cache)
    assert len(stored(cache)) == len(SOURCES) - 1


def test_the_key_covers_every_colouring_module():
    # An edited colouring module (an edited checkout) must colour anew: each is in the stamp with its size and time.
    stamp = html_cache.code_stamp()
    for name in ("report.py", "csharp.py", "pygments_colours.py"):
        assert f"{name}:".encode() in stamp


def test_a_report_prunes_only_after_adding_colours_or_when_over_the_bound(tmp_path, src, monkeypatch):
    pruned = []
    real = html_cache.prune
    monkeypatch.setattr(html_cache, "prune", lambda d, *a, **k: (pruned.append(Path(d)), real(d, *a, **k)))
    cache = tmp_path / "cache"
    colour_dir = cache / html_cache.SUBDIR
    report(tmp_path / "a", src, cache)
    assert pruned == [colour_dir]  # colours were added
    pruned.clear()
    report(tmp_path / "b", src, cache)
    assert pruned == []  # every colour read back: nothing scanned
    parser = src / "Calc" / "Parser.cs"
    parser.write_text(parser.read_text("utf-8") + "\n", "utf-8")
    report(tmp_path / "c", src, cache)
    assert pruned == [colour_dir]  # one added
    pruned.clear()
    monkeypatch.setattr(html_cache, "MAX_FILES", len(SOURCES))  # left over its bound (5 files kept of 4)
    report(tmp_path / "d", src, cache)
    assert pruned == [colour_dir] and len(stored(cache)) == len(SOURCES)  # the oldest one went
    pruned.clear()
    report(tmp_path / "e", src, cache)
    assert pruned == []


def test_over_count_counts_entries_without_reading_them(tmp_path):
    assert not html_cache.over_count(tmp_path / "absent")
    for i in range(3):
        (tmp_path / f"{i}{html_cache.SUFFIX}").write_bytes(b"")
    assert not html_cache.over_count(tmp_path, max_files=3)
    assert html_cache.over_count(tmp_path, max_files=2)


def test_prune_always_keeps_the_newest_file(tmp_path):
    # As the plan cache does (both prune through data/cache_files.py): the file just written survives any bounds.
    colours = html_cache.ColourCache(tmp_path)
    for i in range(3):
        colours.lines(f"f{i}.cs", b"x%d" % i, lambda: ["x"] * 10)
    files = sorted(tmp_path.glob("*" + html_cache.SUFFIX))
    for i, p in enumerate(files):
        os.utime(p, ns=((5 - 2 * i) * 10**9, (5 - 2 * i) * 10**9))  # files[0] newest
    html_cache.prune(tmp_path, max_files=0)
    assert list(tmp_path.glob("*" + html_cache.SUFFIX)) == files[:1]
    html_cache.prune(tmp_path, max_bytes=0)
    assert list(tmp_path.glob("*" + html_cache.SUFFIX)) == files[:1]
