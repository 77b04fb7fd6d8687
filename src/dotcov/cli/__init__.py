"""The command line: the `dotcov` entry point, its commands and settings (dotcov.toml, options).

Top layer: parses what the user typed and calls measure (for `run`) or api (for the reports).
"""
