"""The analysis: from data and PDBs to one model of coverage and every number reports show.

PDB facts, the line rule, branches, plans and their cache, contexts, filters, and the Analysis/Numbers objects.
"""
