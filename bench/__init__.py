"""Tools that measure the site and are never part of it: benchmarks, the load test,
the framework floor, the memory bench, bot matches and the rating study.

A Django app only so that its management commands (`bench_tables`, `loadtest`,
`rating_study`, ...) keep their names; it has no models, URLs or templates, and no
product app imports it (an import contract in pyproject.toml). The commands only
parse options; the measurement cores are the modules here: `engine` and `pairing`
are plain Python (no Django), `tables` drives a real daphne over websockets.
"""
