"""Other coverage tools in the same run: found before it starts (command line) or by the agent (data file).

Two coverage tools cannot measure one run: coverlet (its collector, or coverlet.msbuild) rewrites the
assemblies in bin/ that dotcov measures, and Microsoft's collector loads its own profiler into the test
host in place of dotcov's. Either way dotcov's result would be wrong or empty, so it stops and says so.
"""

from __future__ import annotations

import re
from pathlib import Path

ADVICE = ("Two coverage tools cannot measure one run: remove that option to measure with dotcov, "
          "or run the other tool without dotcov.")

_COLLECT = re.compile(r"^--collect(?:[=:](.*))?$", re.IGNORECASE)
_PROPERTY = re.compile(r"^(?:-|/|--)(?:p|property)[:=]CollectCoverage=true$", re.IGNORECASE)
_SETTINGS = re.compile(r"^(?:--settings|-s)(?:[=:](.*))?$", re.IGNORECASE)
_FRIENDLY = re.compile(r'friendlyName\s*=\s*"([^"]*)"', re.IGNORECASE)


def _collector(name: str) -> str | None:
    lowered = name.strip().lower()
    if "xplat code coverage" in lowered:
        return "coverlet's collector"
    if lowered.startswith("code coverage"):
        return "Microsoft's code coverage collector"
    return None


def _values(argv: list[str], pattern: re.Pattern) -> list[str]:
    """Values of an option given as `--opt value`, `--opt=value` or `--opt:value`."""
    out = []
    for i, arg in enumerate(argv):
        m = pattern.match(arg)
        if m:
            if m.group(1) is not None:
                out.append(m.group(1))
            elif i + 1 < len(argv):
                out.append(argv[i + 1])
    return out


def in_command_line(argv: list[str], cwd: Path) -> str | None:
    """Names another coverage tool the command line turns on, and how; None when there is none."""
    for value in _values(argv, _COLLECT):
        tool = _collector(value)
        if tool:
            return f'{tool} (--collect "{value}")'
    for arg in argv:
        if _PROPERTY.match(arg):
            return f"coverlet.msbuild ({arg})"
    for value in _values(argv, _SETTINGS):
        path = Path(value) if Path(value).is_absolute() else cwd / value
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for name in _FRIENDLY.findall(text):
            tool = _collector(name)
            if tool:
                return f'{tool} (the DataCollector "{name}" in {value})'
    return None
