"""Plans: the hit-independent part of a module's analysis, made once per module build and kept between commands.

A plan plus the hit counts gives the model; the cache keeps packed plans on disk.
"""
