"""`dotcov.toml`: settings found from the current directory upward; command-line flags win.

    [run]
    data_dir = ".dotcov"               # like --data-dir
    include_test_assemblies = false    # like --include-tests
    contexts = "test"                  # like --contexts test: which test ran each line (off when absent)

    [report]
    include = ["[Calc]*"]              # coverlet's [Assembly]Namespace.Type globs
    exclude = ["[*]Calc.Legacy*"]
    exclude_by_attribute = ["Obsolete"]   # added to ExcludeFromCodeCoverage and GeneratedCode
    exclude_by_file = ["**/Generated/*.cs"]
    skip_auto_properties = false       # leave out auto-property accessors (coverlet's SkipAutoProps)
    all_branches = false
    show_missing = false
    skip_covered = false
    precision = 0
    sort = "name"
    fail_under = 80                    # or { line = 80, branch = 60, method = 90 }
    fail_under_scope = "total"         # or "assembly"
    contexts = ["^MyApp\\.Tests\\.Orders"]   # like --contexts: only what these tests ran

    [html]
    history = "coverage-history"       # like `dotcov html --history DIR`

    [paths]                            # as in coverage.py: every alias maps to the first entry
    source = [".", "/_/", "/builds/ci/project/"]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

CONFIG_NAME = "dotcov.toml"


class ConfigError(Exception):
    pass


class UsageError(ConfigError):
    """A setting whose value is not one dotcov accepts: exit status 2, as for a bad flag."""


@dataclass
class Config:
    path: Path | None = None
    data_dir: str | None = None
    include_test_assemblies: bool = False
    run_contexts: str | None = None  # [run] contexts: "test" records which test ran each probe
    source: list[str] = field(default_factory=list)  # [run] source: where to look for assemblies never loaded
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    exclude_by_attribute: list[str] = field(default_factory=list)
    exclude_by_file: list[str] = field(default_factory=list)
    skip_auto_properties: bool = False
    all_branches: bool = False
    show_missing: bool = False
    skip_covered: bool = False
    precision: int = 0
    sort: str | None = None
    fail_under: dict[str, float] = field(default_factory=dict)  # kind -> percent
    fail_under_scope: str = "total"
    paths: dict[str, list[str]] = field(default_factory=dict)
    contexts: list[str] = field(default_factory=list)  # [report] contexts: like --contexts
    html_history: str | None = None  # [html] history: the directory of `dotcov html`'s run records


CONTEXT_KINDS = ("test",)


def check_contexts(value: str, where: str = "--contexts") -> str:
    """The one kind of context dotcov records today: "test" (each test method's fully qualified name)."""
    if value not in CONTEXT_KINDS:
        raise UsageError(f"{where}: unknown context kind {value!r}; the only kind is \"test\"")
    return value


def find_config(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


def _expect(value, kind, where: str):
    if not isinstance(value, kind):
        raise ConfigError(f"{where} must be {kind.__name__ if isinstance(kind, type) else 'a ' + str(kind)}")
    return value


def _strings(value, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a string or a list of strings")
    return list(value)


def load_config(start: Path | None = None) -> Config:
    path = find_config((start or Path.cwd()).resolve())
    if path is None:
        return Config()
    import tomllib  # only with a dotcov.toml: `dotcov run` without one skips its import

    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read {path}: {e}") from e
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}") from e
    cfg = Config(path=path)
    known = {"run", "report", "paths", "html"}
    unknown = set(raw) - known
    if unknown:
        raise ConfigError(f"{path}: unknown section(s) {', '.join(sorted(unknown))}; known: run, report, html, paths")
    for key, value in _expect(raw.get("html", {}), dict, f"{path}: [html]").items():
        where = f"{path}: html.{key}"
        if key == "history":
            d = Path(_expect(value, str, where))
            cfg.html_history = str(d if d.is_absolute() else path.parent / d)
        else:
            raise ConfigError(f"{where}: unknown setting")
    run = _expect(raw.get("run", {}), dict, f"{path}: [run]")
    report = _expect(raw.get("report", {}), dict, f"{path}: [report]")
    for key, value in run.items():
        where = f"{path}: run.{key}"
        if key == "data_dir":
            d = Path(_expect(value, str, where))
            cfg.data_dir = str(d if d.is_absolute() else path.parent / d)
        elif key == "include_test_assemblies":
            cfg.include_test_assemblies = _expect(value, bool, where)
        elif key == "contexts":
            cfg.run_contexts = check_contexts(_expect(value, str, where), where)
        elif key == "source":
            cfg.source = [str(d if (d := Path(x)).is_absolute() else path.parent / d) for x in _strings(value, where)]
        else:
            raise ConfigError(f"{where}: unknown setting")
    for key, value in report.items():
        where = f"{path}: report.{key}"
        if key in ("include", "exclude", "exclude_by_attribute", "exclude_by_file", "contexts"):
            setattr(cfg, key, _strings(value, where))
        elif key in ("skip_auto_properties", "all_branches", "show_missing", "skip_covered"):
            setattr(cfg, key, _expect(value, bool, where))
        elif key == "precision":
            cfg.precision = _expect(value, int, where)
        elif key == "sort":
            cfg.sort = _expect(value, str, where)
        elif key == "fail_under":
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                cfg.fail_under = {"line": float(value)}
            elif isinstance(value, dict):
                for kind, v in value.items():
                    if kind not in ("line", "branch", "method"):
                        raise ConfigError(f"{where}.{kind}: the kinds are line, branch and method")
                    if isinstance(v, bool) or not isinstance(v, (int, float)):
                        raise ConfigError(f"{where}.{kind} must be a number")
                    cfg.fail_under[kind] = float(v)
            else:
                raise ConfigError(f"{where} must be a number or a table of line/branch/method numbers")
        elif key == "fail_under_scope":
            if value not in ("total", "assembly"):
                raise ConfigError(f"{where} must be \"total\" or \"assembly\"")
            cfg.fail_under_scope = value
        else:
            raise ConfigError(f"{where}: unknown setting")
    for name, value in _expect(raw.get("paths", {}), dict, f"{path}: [paths]").items():
        entries = _strings(value, f"{path}: paths.{name}")
        if len(entries) < 2:
            raise ConfigError(f"{path}: paths.{name} needs the canonical path and at least one alias")
        canonical = entries[0]
        if not Path(canonical).is_absolute():
            canonical = str((path.parent / canonical).resolve())
        cfg.paths[name] = [canonical, *entries[1:]]
    return cfg
