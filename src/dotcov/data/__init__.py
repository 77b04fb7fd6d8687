"""The data on disk: the agent's per-process data files (read, merge, combine, damage), git's changed lines.

Bottom layer: imports nothing of dotcov but the native module; every layer above reads through it.
"""
