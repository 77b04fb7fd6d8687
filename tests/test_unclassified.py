"""Branches the recognisers could not read are never counted as the user's in silence (issue 25 item 5): every
report warns once, naming how many methods, and `dotcov debug data` lists each with the reason."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from dotcov import _native
from dotcov.api import Coverage
from dotcov.cli.commands import cli

DATA = Path(__file__).resolve().parents[1] / "native" / "core" / "tests" / "data" / "portable"


def test_methods_whose_branches_could_not_be_classified_are_said_once_and_listed(tmp_path, monkeypatch):
    for name in ("Sample.dll", "Sample.pdb"):
        shutil.copy(DATA / name, tmp_path / name)
    dll = tmp_path / "Sample.dll"
    raw = _native.read_symbols(str(dll))
    bodies = _native.read_method_bodies(str(dll))
    rids = {m[0]: rid for rid, m in enumerate(raw["methods"], start=1)}
    classify, add = rids["Classify"], rids["Add"]
    sites = [(0x06000000 | rid, p[0], 0) for rid, points in sorted(raw["sequence_points"].items()) for p in points]
    branches = [f[0] for f in _native.il_branch_facts(bodies[classify], False, None, [])]
    assert branches
    sites += [(0x06000000 | classify, offset, kind) for offset in branches for kind in (1, 2)]
    data = tmp_path / "data"
    data.mkdir()
    _native.write_data_file(str(data / "dotcov.1.00000001.cov"), {
        "processes": [{"command_line": "testhost", "cwd": str(tmp_path)}],
        "modules": [{"mvid": raw["mvid"], "pdb_id": raw["pdb_id"], "path": str(dll),
                     "tokens": [s[0] for s in sites], "offsets": [s[1] for s in sites],
                     "kinds": [s[2] for s in sites], "hits": [1] * len(sites), "method_states": b"",
                     "not_measured": []}]})
    # Classify's IL cannot be read (as for a method body the reader refuses): its branches are all the user's.
    monkeypatch.setattr(_native, "read_method_bodies",
                        lambda path: {rid: body for rid, body in bodies.items() if rid != classify})
    monkeypatch.chdir(tmp_path)
    warnings: list[str] = []
    Coverage(data, source_root=tmp_path, warn=warnings.append).load().analysis()
    said = [w for w in warnings if "recognisers could not read" in w]
    assert said == ["the branches of 1 method(s) in 1 module(s) are all counted as the user's, compiler-generated "
                    "ones too, for the recognisers could not read them ('dotcov debug data' lists them with the "
                    "reason)"]
    out = CliRunner().invoke(cli, ["debug", "data", "--data-dir", str(data)], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert ("    branches not classified (the recognisers could not read them; every one counted as the user's): "
            "1 method(s)\n"
            f"      0x{0x06000000 | classify:08X} Sample.Calc.Classify: its IL could not be read from the assembly\n"
            ) in out.output
    assert f"0x{0x06000000 | add:08X} Sample.Calc.Add" not in out.output
