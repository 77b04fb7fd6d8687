"""dotcov: code coverage for .NET, measured by a JIT-time CLR profiler agent."""

__version__ = "0.1.0"
