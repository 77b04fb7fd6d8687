"""The lines added or changed since a git revision, from `git diff REV` against the working tree.

Plain `git` subprocess calls, and a small reader of `git diff -U0` output: with no context lines a hunk header
`@@ -a,b +c,d @@` names the added lines `c..c+d-1` exactly, so only headers and file names need reading. (The
unidiff package was tried: its Debian 0.7.3 misreads names with spaces as an extra renamed file and keeps git's
C-quoted names quoted. GitPython would only wrap the same commands.)
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

DEFAULT_BASES = ("origin/main", "main")

_HUNK = re.compile(rb"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class GitError(Exception):
    pass


@dataclass(frozen=True)
class Base:
    label: str  # what the user named (or the merge base's hash for the default)
    commit: str  # full hash diffed against
    described: str  # for people: "origin/main (merge base 1a2b3c4d5e6f)"


def _git(root: Path, *args: str) -> bytes:
    try:
        proc = subprocess.run(["git", "-c", "core.quotePath=false", *args], cwd=root, capture_output=True)
    except FileNotFoundError:
        raise GitError("git is not installed (dotcov diff needs it on PATH)") from None
    if proc.returncode != 0:
        raise GitError(proc.stderr.decode(errors="replace").strip() or f"git {args[0]} failed")
    return proc.stdout


def repository_root(cwd: Path) -> Path:
    """The top directory of the git work tree holding `cwd`."""
    try:
        out = _git(cwd, "rev-parse", "--show-toplevel")
    except GitError as e:
        raise GitError(f"{cwd} is not inside a git work tree ({e})") from None
    return Path(os.fsdecode(out.rstrip(b"\n")))


def _commit(root: Path, rev: str) -> str | None:
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}").decode().strip()
    except GitError:
        return None


def resolve_base(root: Path, rev: str | None) -> Base:
    """`rev` as given, or the merge base of HEAD with origin/main, else with main."""
    if rev is not None:
        commit = _commit(root, rev)
        if commit is None:
            raise GitError(f"--base {rev}: no such commit in {root}")
        return Base(rev, commit, rev if commit.startswith(rev) else f"{rev} ({commit[:12]})")
    for name in DEFAULT_BASES:
        if _commit(root, name) is None:
            continue
        try:
            commit = _git(root, "merge-base", name, "HEAD").decode().strip()
        except GitError:
            raise GitError(f"HEAD and {name} have no merge base (a shallow clone? fetch with full history, "
                           f"or give --base REV)") from None
        return Base(commit, commit, f"{name} (merge base {commit[:12]})")
    raise GitError(f"neither origin/main nor main exists in {root}; give --base REV")


def changed_lines(root: Path, commit: str) -> dict[str, set[int]]:
    """Repository-relative path (with `/`) -> line numbers of the working-tree file added or changed since
    `commit`. Deleted files and pure renames have no lines; binary files are left out; untracked files are not
    part of `git diff` (`git add -N FILE` makes them so; `untracked_files` lists them)."""
    patch = _git(root, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules",
                 "--find-renames", "--unified=0", "--src-prefix=a/", "--dst-prefix=b/", "--no-relative",
                 commit, "--")
    return parse_added_lines(patch)


def untracked_files(root: Path) -> list[str]:
    """Repository-relative paths (with `/`) of the files git does not track and does not ignore: `git ls-files
    --others --exclude-standard` (.gitignore, .git/info/exclude, core.excludesFile). A nested repository is one
    `dir/` entry, not entered, and is left out. Sorted."""
    out = _git(root, "ls-files", "-z", "--others", "--exclude-standard", "--full-name")
    return sorted(os.fsdecode(name) for name in out.split(b"\0") if name and not name.endswith(b"/"))


def parse_added_lines(patch: bytes) -> dict[str, set[int]]:
    """The added lines of each target file of a `git diff --unified=0 --dst-prefix=b/` patch."""
    result: dict[str, set[int]] = {}
    target: str | None = None
    skip = 0  # content lines of the current hunk still to pass over
    for line in patch.split(b"\n"):
        if skip:
            if not line.startswith(b"\\"):  # "\ No newline at end of file" is not a content line
                skip -= 1
            continue
        if line.startswith(b"diff "):
            target = None
        elif line.startswith(b"+++ "):
            target = _target_path(line[4:])
        elif line.startswith(b"@@ "):
            m = _HUNK.match(line)
            if m is None:
                continue
            old_count = int(m.group(1)) if m.group(1) is not None else 1
            start = int(m.group(2))
            new_count = int(m.group(3)) if m.group(3) is not None else 1
            skip = old_count + new_count
            if target is not None and new_count:
                result.setdefault(target, set()).update(range(start, start + new_count))
    return result


def _target_path(name: bytes) -> str | None:
    if name.startswith(b'"'):  # C-style quoted (tabs, newlines, quotes, backslashes in the name)
        name = ast.literal_eval("b" + name.decode("ascii", errors="backslashreplace"))
    else:
        name = name.removesuffix(b"\t")  # git ends a name holding a space with a tab
    if name == b"/dev/null" or not name.startswith(b"b/"):
        return None
    return os.fsdecode(name[2:])
