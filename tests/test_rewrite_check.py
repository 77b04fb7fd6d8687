"""The IL rewriter self-check (`dotcov debug rewrite-check`) over real assemblies."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from dotcov import _native
from dotcov.cli.commands import cli

DATA = Path(__file__).resolve().parents[1] / "native" / "core" / "tests" / "data"


def shared_framework() -> Path | None:
    """The newest Microsoft.NETCore.App directory of the installed .NET."""
    candidates: list[Path] = []
    dotnet = shutil.which("dotnet")
    if dotnet:
        try:
            out = subprocess.run([dotnet, "--list-runtimes"], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        for m in re.finditer(r"^Microsoft\.NETCore\.App (\S+) \[(.+)\]$", out, re.M):
            candidates.append(Path(m.group(2)) / m.group(1))
    roots = [os.environ.get("DOTNET_ROOT"), "/usr/share/dotnet", "/usr/lib/dotnet"]
    for root in filter(None, roots):
        candidates += (Path(root) / "shared" / "Microsoft.NETCore.App").glob("*")
    found = [c for c in candidates if (c / "System.Private.CoreLib.dll").is_file()]

    def version(p: Path):
        return [int(x) if x.isdigit() else 0 for x in re.split(r"[.-]", p.name)]

    return max(found, key=version) if found else None


def test_ten_largest_framework_assemblies_have_no_failures():
    fw = shared_framework()
    if fw is None:
        pytest.skip("no .NET shared framework installed")
    largest = sorted(fw.glob("*.dll"), key=lambda p: p.stat().st_size, reverse=True)[:10]
    total = branches = 0
    problems = []
    for path in largest:
        r = _native.rewrite_check(str(path))
        assert r["managed"], path
        total += r["methods"]
        branches += r["branches"]  # conditional branches / switches also given outcome probes
        problems += [f"{path.name} 0x{token:08X}: {reason}" for token, reason in r["failures"]]
    assert total > 50_000
    assert branches > 20_000
    assert problems == []


def test_rewrite_check_of_non_managed_and_unreadable_files(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    r = _native.rewrite_check(str(text))
    assert r == {"managed": False, "methods": 0, "branches": 0, "failures": []}
    with pytest.raises(ValueError):
        _native.rewrite_check(str(tmp_path / "missing.dll"))
    broken = tmp_path / "broken.dll"
    broken.write_bytes(b"MZ" + bytes(200))
    with pytest.raises(ValueError):
        _native.rewrite_check(str(broken))


def test_sample_assembly_branches_are_instrumented():
    r = _native.rewrite_check(str(DATA / "portable" / "Sample.dll"))
    assert r["managed"] and r["failures"] == []
    assert 0 < r["branches"]


def test_cli_walks_folders_and_summarises(tmp_path):
    shutil.copy(DATA / "portable" / "Sample.dll", tmp_path / "Sample.dll")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "native.dll").write_bytes(b"\x7fELF not a PE image")
    (tmp_path / "sub" / "broken.exe").write_bytes(b"MZ" + bytes(100))
    (tmp_path / "readme.txt").write_text("not looked at")
    r = CliRunner(mix_stderr=False).invoke(cli, ["debug", "rewrite-check", str(tmp_path)])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[-2] == "1 assemblies checked, 1 non-managed files skipped, 1 unreadable"
    assert re.fullmatch(r"[1-9]\d* methods, 0 failures", lines[-1])
    assert "broken.exe" in r.stderr


def test_cli_prints_failures_and_exits_1(tmp_path, monkeypatch):
    asm = tmp_path / "A.dll"
    asm.write_bytes(b"")

    def fake(path, probe_styles):
        return {"managed": True, "methods": 3, "failures": [(0x06000002, "branch at IL offset 0x4 retargeted wrongly")]}

    monkeypatch.setattr(_native, "rewrite_check", fake)
    r = CliRunner(mix_stderr=False).invoke(cli, ["debug", "rewrite-check", str(asm)])
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        f"{asm} 0x06000002: branch at IL offset 0x4 retargeted wrongly",
        "1 assemblies checked, 0 non-managed files skipped, 0 unreadable",
        "3 methods, 1 failures",
    ]


def test_each_probe_style_alone_and_both():
    path = str(DATA / "portable" / "Sample.dll")
    both = _native.rewrite_check(path)
    for style in ("inline", "call", "atomic"):
        one = _native.rewrite_check(path, [style])
        assert one["failures"] == [] and one["methods"] == both["methods"]
        assert one["branches"] == both["branches"]  # counted once, whatever the number of styles
    with pytest.raises(ValueError, match="unknown probe style"):
        _native.rewrite_check(path, ["jump"])
    with pytest.raises(ValueError, match="no probe style"):
        _native.rewrite_check(path, [])


def test_cli_probe_option_chooses_the_styles(tmp_path, monkeypatch):
    asm = tmp_path / "A.dll"
    asm.write_bytes(b"")
    seen = []

    def fake(path, probe_styles):
        seen.append(list(probe_styles))
        return {"managed": True, "methods": 1, "failures": []}

    monkeypatch.setattr(_native, "rewrite_check", fake)
    for option, styles in ((["--probes", "inline"], ["inline"]), (["--probes", "call"], ["call"]),
                           (["--probes", "atomic"], ["atomic"]), ([], ["inline", "call", "atomic"])):
        seen.clear()
        r = CliRunner(mix_stderr=False).invoke(cli, ["debug", "rewrite-check", *option, str(asm)])
        assert r.exit_code == 0, r.output
        assert seen == [styles]
    r = CliRunner(mix_stderr=False).invoke(cli, ["debug", "rewrite-check", "--probes", "jump", str(asm)])
    assert r.exit_code == 2
