"""Coverage history for the HTML report (`dotcov html --history DIR`): a small record per run, and the
chart of line and branch coverage over time drawn from them.

Each run adds one JSON file to DIR, named by its UTC time and a short random suffix
(`20261124T231500.123456Z-3f9a1c.json`: names sort in time order), created exclusively so no record is
ever overwritten:

    {"format": 1, "timestamp": "2026-11-24T23:15:00.123456Z", "commit": "<sha or null>",
     "lines": {"covered": 812, "total": 1000, "percent": 81.2},
     "branches": {"covered": 90, "total": 120, "percent": 75.0},
     "files": {"Calc/Calculator.cs": 87.5, ...}}      (omitted beyond MAX_FILES files)

A record that cannot be read (not JSON, not this shape) is skipped with a warning naming it; the others
are still used. The chart is an inline SVG made here (no script library); the index also shows each file's
change of line coverage since the previous run.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import secrets
import subprocess
from dataclasses import dataclass
from pathlib import Path

from dotcov.analysis.numbers import Numbers
from dotcov.analysis.numbers import percent

FORMAT = 1
MAX_FILES = 5000  # beyond this many files a record keeps only the totals (records stay small)
CHART_RUNS = 60  # the chart shows the latest runs


@dataclass
class Record:
    timestamp: str  # ISO 8601, UTC ("2026-11-24T23:15:00.123456Z"; the fraction is optional)
    lines: tuple[int, int]  # covered, total
    branches: tuple[int, int]
    commit: str | None = None
    files: dict[str, float] | None = None  # display name -> line percent
    name: str = ""  # the record's file name in the history directory

    @property
    def line_percent(self) -> float:
        return percent(*self.lines)

    @property
    def branch_percent(self) -> float | None:
        return percent(*self.branches) if self.branches[1] else None

    def to_json(self) -> dict:
        doc = {
            "format": FORMAT, "timestamp": self.timestamp, "commit": self.commit,
            "lines": {"covered": self.lines[0], "total": self.lines[1], "percent": round(self.line_percent, 4)},
            "branches": {"covered": self.branches[0], "total": self.branches[1],
                         "percent": round(percent(*self.branches), 4)},
        }
        if self.files is not None:
            doc["files"] = {k: round(v, 4) for k, v in sorted(self.files.items())}
        return doc


class HistoryError(Exception):
    """The history directory cannot be used (not a directory, not writable)."""


def _count(section, where: str) -> tuple[int, int]:
    if not isinstance(section, dict):
        raise ValueError(f"{where} is not an object")
    covered, total = section.get("covered"), section.get("total")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (covered, total)) or covered > total:
        raise ValueError(f"{where} has no valid covered/total counts")
    return covered, total


def from_json(doc, name: str = "") -> Record:
    """The record in `doc` (parsed JSON); ValueError says what is wrong."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"not a dotcov history record (format {FORMAT})")
    ts = doc.get("timestamp")
    if not isinstance(ts, str):
        raise ValueError("no timestamp")
    _parse_time(ts)  # ValueError if malformed
    commit = doc.get("commit")
    if commit is not None and not isinstance(commit, str):
        raise ValueError("commit is not a string")
    files = doc.get("files")
    if files is not None:
        if not isinstance(files, dict) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 100 for v in files.values()):
            raise ValueError("files is not an object of percentages")
        files = {str(k): float(v) for k, v in files.items()}
    return Record(ts, _count(doc.get("lines"), "lines"), _count(doc.get("branches"), "branches"),
                  commit, files, name)


def _parse_time(ts: str) -> _dt.datetime:
    for fmt in ("%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%SZ"):
        try:
            return _dt.datetime.strptime(ts, fmt).replace(tzinfo=_dt.timezone.utc)
        except ValueError:
            pass
    raise ValueError(f"timestamp {ts!r} is not ISO 8601 UTC (YYYY-MM-DDTHH:MM:SS[.ffffff]Z)")


def shown_time(ts: str) -> str:
    """A record's time as the report shows it: "2026-11-24 23:15 UTC"."""
    return _parse_time(ts).strftime("%Y-%m-%d %H:%M UTC")


def make_record(totals: Numbers, files: dict[str, Numbers], *, now: _dt.datetime | None = None,
                commit: str | None = None) -> Record:
    """The record of this run: `totals` and each file's numbers (by display name)."""
    now = (now or _dt.datetime.now(_dt.timezone.utc)).astimezone(_dt.timezone.utc)
    per_file = {name: n.percent for name, n in files.items()} if len(files) <= MAX_FILES else None
    return Record(now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), (totals.covered, totals.statements),
                  (totals.branches_covered, totals.branches), commit, per_file)


def git_commit(cwd: str | os.PathLike | None = None) -> str | None:
    """The commit checked out in the git work tree holding `cwd`, or None (not a repository, no git)."""
    try:
        proc = subprocess.run(["git", "rev-parse", "--verify", "--quiet", "HEAD"], cwd=cwd, capture_output=True,
                              text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    sha = proc.stdout.strip()
    return sha if proc.returncode == 0 and len(sha) in (40, 64) else None


def read_history(directory: str | os.PathLike) -> tuple[list[Record], list[str]]:
    """Every readable record in `directory`, oldest first, and a warning for each one that is not."""
    d = Path(directory)
    if not d.exists():
        return [], []
    if not d.is_dir():
        raise HistoryError(f"history directory {d} is not a directory")
    records, warnings = [], []
    for p in sorted(d.glob("*.json")):
        try:
            records.append(from_json(json.loads(p.read_text(encoding="utf-8")), p.name))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            warnings.append(f"history record {p} cannot be read ({e}); it is left out of the history")
    records.sort(key=lambda r: (_parse_time(r.timestamp), r.name))
    return records, warnings


def write_record(directory: str | os.PathLike, record: Record) -> Path:
    """Adds `record` to `directory` (created if needed) under a new name; never replaces a file."""
    d = Path(directory)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise HistoryError(f"cannot create the history directory {d}: {e.strerror or e}") from e
    stamp = record.timestamp.replace("-", "").replace(":", "")
    payload = (json.dumps(record.to_json(), indent=1, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
    for _ in range(20):
        path = d / f"{stamp}-{secrets.token_hex(3)}.json"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        except OSError as e:
            raise HistoryError(f"cannot write a history record into {d}: {e.strerror or e}") from e
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
        except OSError as e:
            path.unlink(missing_ok=True)
            raise HistoryError(f"cannot write the history record {path}: {e.strerror or e}") from e
        record.name = path.name
        return path
    raise HistoryError(f"cannot find a free name for a history record in {d}")


def file_deltas(previous: Record | None, current: Record) -> dict[str, float]:
    """Each file's change of line coverage (percentage points) since `previous`, for files both records have."""
    if previous is None or previous.files is None or current.files is None:
        return {}
    return {name: pc - previous.files[name] for name, pc in current.files.items() if name in previous.files}


# --- the chart -------------------------------------------------------------------------------------------

@dataclass
class _Box:
    width: int = 720
    height: int = 200
    left: int = 44
    right: int = 16
    top: int = 12
    bottom: int = 28

    def x(self, i: int, n: int) -> float:
        span = self.width - self.left - self.right
        return self.left + (span / 2 if n == 1 else span * i / (n - 1))

    def y(self, pc: float) -> float:
        return self.top + (self.height - self.top - self.bottom) * (1 - pc / 100)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def chart_svg(records: list[Record]) -> str:
    """Line and branch coverage of `records` (oldest first; the latest CHART_RUNS) as an inline SVG: runs
    evenly spaced left to right, 0-100% up; each point's tooltip gives its time, commit and percentages."""
    records = records[-CHART_RUNS:]
    box = _Box()
    n = len(records)
    out = [f'<svg class="history-chart" viewBox="0 0 {box.width} {box.height}" role="img" '
           f'aria-label="Line and branch coverage of the last {n} run{"" if n == 1 else "s"}" '
           'xmlns="http://www.w3.org/2000/svg">']
    for pc in (0, 25, 50, 75, 100):
        y = _num(box.y(pc))
        out.append(f'<line class="grid" x1="{box.left}" y1="{y}" x2="{box.width - box.right}" y2="{y}"/>'
                   f'<text class="axis" x="{box.left - 6}" y="{y}" dy="0.32em" text-anchor="end">{pc}%</text>')
    if n:
        first, last = records[0].timestamp[:10], records[-1].timestamp[:10]
        base = box.height - 8
        out.append(f'<text class="axis" x="{box.left}" y="{base}">{_esc(first)}</text>')
        if n > 1:
            out.append(f'<text class="axis" x="{box.width - box.right}" y="{base}" text-anchor="end">'
                       f'{_esc(last)}</text>')
    for kind in ("line", "branch"):
        pts = []
        for i, r in enumerate(records):
            pc = r.line_percent if kind == "line" else r.branch_percent
            if pc is not None and math.isfinite(pc):
                pts.append((i, r, pc))
        if not pts:
            continue
        coords = " ".join(f"{_num(box.x(i, n))},{_num(box.y(pc))}" for i, _r, pc in pts)
        out.append(f'<polyline class="{kind}" points="{coords}"/>')
        for i, r, pc in pts:
            tip = shown_time(r.timestamp)
            if r.commit:
                tip += f" \u00b7 {r.commit[:12]}"
            tip += f"\n{kind} coverage {_num(pc)}%"
            out.append(f'<circle class="{kind}" cx="{_num(box.x(i, n))}" cy="{_num(box.y(pc))}" r="3">'
                       f'<title>{_esc(tip)}</title></circle>')
    out.append("</svg>")
    return "".join(out)


@dataclass
class History:
    """What the HTML index shows of the history: every readable record (this run's last), this run's record,
    the previous one, and the warnings about records that could not be read."""
    records: list[Record]
    current: Record
    previous: Record | None
    warnings: list[str]

    @property
    def deltas(self) -> dict[str, float]:
        return file_deltas(self.previous, self.current)

    @property
    def total_delta(self) -> float | None:
        return None if self.previous is None else self.current.line_percent - self.previous.line_percent

    def chart(self) -> str:
        return chart_svg(self.records)


def update(directory: str | os.PathLike, totals: Numbers, files: dict[str, Numbers], *,
           now: _dt.datetime | None = None, commit: str | None = None, cwd: str | None = None) -> History:
    """Reads the history in `directory`, adds this run's record to it and returns both. `commit` defaults
    to the commit checked out where `cwd` (default: the current directory) is."""
    records, warnings = read_history(directory)
    record = make_record(totals, files, now=now, commit=commit if commit is not None else git_commit(cwd))
    write_record(directory, record)
    previous = records[-1] if records else None
    return History([*records, record], record, previous, warnings)
