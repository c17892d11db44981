"""Measurement cores behind the bench_* management commands (no Django here)."""
