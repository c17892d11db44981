"""Measurement cores behind the bench_* management commands, which only parse options.

`engine` is plain Python (no Django); `tables` drives a real daphne over websockets.
"""
