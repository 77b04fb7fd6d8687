"""Branches: the method's IL model, the recognisers of compiler-generated branches, short circuits, switch arms.

Turns the agent's branch counters into branch records on source lines, each with its notes.
"""
