"""The HTML report's search across files: every file, class and method by name, and the source text.

The index ships in the report's directory as scripts (`search.js`, and the source text in `search-src-N.js`
chunks) that the page loads with a <script> element when the search box is first used: a report opened from
file:// cannot fetch() local JSON, but it can load a script. dotcov.js searches them in the browser.

    search.js        dotcovSearchIndex({"files": [[name, page, cover]], "classes": [[name, file, line]],
                                        "methods": [[name, class, line, cover]], "chunks": N})
    search-src-N.js  dotcovSearchSource(N, [[file, text], ...])   (about CHUNK_CHARS characters each, the
                     first FIRST_CHUNK_CHARS; the browser reads them in order and shows hits as they come)

`cover` is the display percentage ("87"); `file` and `class` are indexes into the lists; `line` is the first line (0 when unknown). The source text is
that of the file pages (line breaks as the compiler counts them, unsafe characters made visible), so a hit's
line number is the page's. Files whose source cannot be read have no text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from dotcov.analysis.numbers import FileAnalysis, percent
from dotcov.html import directory as html_dir
from dotcov.reports.output import display_percent

INDEX = "search.js"
CHUNK_CHARS = 1_000_000
FIRST_CHUNK_CHARS = 250_000  # a small first chunk: the browser shows its hits while it reads the rest


def chunk_name(n: int) -> str:
    return f"search-src-{n}.js"


def _first_line(lines: Iterable[int]) -> int:
    return min(lines, default=0)


def _script(call: str, *args) -> bytes:
    # ensure_ascii: any character (even a lone surrogate from an odd file name) becomes a valid JS escape.
    body = ", ".join(json.dumps(a, ensure_ascii=True, separators=(",", ":")) for a in args)
    return f"{call}({body});\n".encode("ascii")


class Search:
    """The search index of a report: its files' names, then the files themselves, one at a time (`write`), so
    the caller can list them (directory.py's manifest) before any is written and no chunk is held longer than it
    takes to write it (a large report's source text runs to tens of MB)."""

    def __init__(self, index: bytes, chunks: list[list[tuple[int, str]]]):
        self._index = index
        self._chunks = chunks  # per chunk: (file index, source text)
        self.names = [chunk_name(n) for n in range(len(chunks))] + [INDEX]

    def contents(self) -> Iterator[tuple[str, bytes]]:
        """(file name, content) of every file, made as they are asked for."""
        for n, chunk in enumerate(self._chunks):
            # As _script("dotcovSearchSource", n, [[fi, text], ...]) writes it, a file's text at a time.
            parts = [f"dotcovSearchSource({n}, [".encode("ascii")]
            for i, (fi, text) in enumerate(chunk):
                parts.append(f'{"," if i else ""}[{fi},{json.dumps(text, ensure_ascii=True)}]'.encode("ascii"))
            parts.append(b"]);\n")
            yield chunk_name(n), b"".join(parts)
        yield INDEX, self._index

    def write(self, directory: Path) -> None:
        for name, content in self.contents():
            html_dir.write_file(directory / name, [content])


def prepare(files: list[tuple[FileAnalysis, str, str, str]],
            read_text: Callable[[str], str | None], precision: int = 0,
            method_covers: Sequence[str] | None = None) -> Search:
    """The search index of `files` ((analysis, display name, page, display cover) in display order).
    `read_text(path)` gives a file's source as its page shows it (None when unreadable). `method_covers`: each
    method's display cover when the caller has them already (the method pages do), one per method in the order
    of `files`, their classes and the classes' methods (html_methods.MethodTable.covers)."""
    if method_covers is not None:
        count = sum(len(c.method_table.names) for fa, *_ in files for c in fa.classes)
        if count != len(method_covers):
            raise ValueError(f"{len(method_covers)} method covers for {count} methods")
    index_files, classes, methods = [], [], []
    k = 0  # the method's position in that order
    for fi, (fa, name, page, cover) in enumerate(files):
        index_files.append([name, page, cover])
        for c in fa.classes:
            table = c.method_table
            if "<" in c.name and not table.names:  # a compiler-generated class (closures, state machines)
                continue
            ci = len(classes)
            classes.append([c.name, fi, _first_line(c.lines)])
            statements, covered, *_ = table.numbers()
            for name, first, n, hit in zip(table.display_names(), table.first_lines(), statements, covered):
                shown = method_covers[k] if method_covers is not None else display_percent(percent(hit, n), precision)
                methods.append([name, ci, first, shown])
                k += 1

    chunks: list[list[tuple[int, str]]] = []
    chunk: list[tuple[int, str]] = []
    size = 0
    for fi, (fa, _name, _page, _cover) in enumerate(files):
        text = read_text(fa.path)
        if not text:
            continue
        chunk.append((fi, text))
        size += len(text)
        if size >= (FIRST_CHUNK_CHARS if not chunks else CHUNK_CHARS):
            chunks.append(chunk)
            chunk, size = [], 0
    if chunk:
        chunks.append(chunk)
    index = _script("dotcovSearchIndex", {"files": index_files, "classes": classes, "methods": methods,
                                          "chunks": len(chunks)})
    return Search(index, chunks)


def build(files: list[tuple[FileAnalysis, str, str, str]],
          read_text: Callable[[str], str | None], precision: int = 0,
          method_covers: Sequence[str] | None = None) -> dict[str, bytes]:
    """The search index of `files` (as `prepare`), all in memory: file name -> content."""
    return dict(prepare(files, read_text, precision, method_covers).contents())
