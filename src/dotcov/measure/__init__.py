"""Measuring: starting a command with the agent in every .NET process it starts.

Finds the agent, builds the profiler environment, refuses a second coverage tool; knows nothing of reports.
"""
