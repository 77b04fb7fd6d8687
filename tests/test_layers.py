"""The package's shape: layers that import only downwards, no import circle, small folders with a stated job.

Every `import` in src/dotcov counts, module-level or inside a function (a deferred import is still a
dependency). The layers, top to bottom (docs/architecture.md): cli, api, html, reports, analysis, measure, data.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "dotcov"

# Rank of each top-level part; an import must go to a strictly lower rank or stay inside its own part.
LAYERS = {"__main__": 7, "cli": 6, "api": 5, "html": 4, "reports": 3, "analysis": 2, "measure": 1, "data": 0,
          "__init__": -1, "_native": -1}
MAX_MODULES = 15


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def resolve(name: str, known: dict[str, Path]) -> str | None:
    """The dotcov module `name` refers to (a name imported from a package may be a submodule or an attribute)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for t in targets:
            if t == "dotcov" or t.startswith("dotcov."):
                r = resolve(t, known)
                if r and r != me and r != "dotcov":
                    found.add(r)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(path, known) for name, path in known.items()}


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_module_belongs_to_a_layer():
    unknown = sorted(m for m in modules() if m != "dotcov" and layer(m) not in LAYERS)
    assert not unknown, f"modules outside the layers of docs/architecture.md: {unknown}"


def test_imports_only_go_down():
    upward = []
    for module, targets in graph().items():
        for t in sorted(targets):
            a, b = layer(module), layer(t)
            if a != b and LAYERS.get(b, -1) >= LAYERS.get(a, -1):
                upward.append(f"{module} -> {t}")
    assert not upward, "imports from a lower layer up to a higher one (or across one layer):\n" + "\n".join(upward)


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `g`, as its modules in order, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(g.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(g):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_no_import_circle():
    cycle = find_cycle(graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_the_circle_finder_finds_circles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


@pytest.mark.parametrize("folder", sorted({p.parent for p in PACKAGE.rglob("*.py")}), ids=lambda p: p.name)
def test_folders_are_small_and_say_their_job(folder):
    own = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
    assert len(own) <= MAX_MODULES, f"{folder}: {len(own)} modules, at most {MAX_MODULES}"
    if folder != PACKAGE:
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text()))
        assert doc and len([line for line in doc.splitlines() if line.strip()]) <= 2, \
            f"{folder}/__init__.py: a docstring of at most two lines says the package's job"
