"""The HTML report: index, file, class and method pages, search, history, and the sources' colours.

Formats the analysis's numbers like every report; colours sources with its own lexers and keeps them cached.
"""
