"""The reports: one module per output format (terminal table, Cobertura, OpenCover, lcov, JSON, badge, diff).

They format the analysis's numbers and compute none of their own.
"""
