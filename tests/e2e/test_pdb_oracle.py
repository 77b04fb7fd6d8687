"""Our C++ portable-PDB reader agrees with System.Reflection.Metadata (tests/tools/SeqPoints)."""

from __future__ import annotations

import subprocess

import pytest

from dotcov import _native

from .conftest import SAMPLES, _dotnet_env

pytestmark = pytest.mark.e2e

ASSEMBLIES = [
    SAMPLES / "Calc" / "bin" / "Debug" / "net10.0" / "Calc.dll",
    SAMPLES / "Calc.Tests" / "bin" / "Debug" / "net10.0" / "Calc.Tests.dll",
    SAMPLES / "Crash" / "bin" / "Debug" / "net10.0" / "Crash.dll",
]


@pytest.fixture(scope="module")
def oracle(dotnet, seqpoints):
    dll = seqpoints

    def run(*args):
        return subprocess.run([dotnet, str(dll), *args], env=_dotnet_env(), check=True, capture_output=True,
                              text=True).stdout

    return run


@pytest.mark.parametrize("assembly", ASSEMBLIES, ids=lambda p: p.name)
def test_sequence_points_and_ids_match(built_samples, oracle, assembly):
    expected = set()
    for line in oracle(str(assembly)).splitlines():
        token, offset, sl, sc, el, ec, doc, hidden = line.split("\t")
        if hidden == "0":
            expected.add((int(token, 16) & 0xFFFFFF, int(offset), int(sl), int(sc), int(el), int(ec), doc))
    sym = _native.read_symbols(str(assembly))
    docs = sym["documents"]
    ours = {(rid, off, sl, sc, el, ec, docs[d - 1])
            for rid, points in sym["sequence_points"].items() for off, sl, sc, el, ec, d in points}
    assert expected and ours == expected

    ids = dict(line.split("\t", 1) for line in oracle("--ids", str(assembly)).splitlines() if "\t" in line)
    assert sym["pdb_id"].hex() == ids["pdb_id"]
    assert sym["mvid"].hex() == ids["mvid_bytes"]
