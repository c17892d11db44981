"""Clubs: many clubs on one site, each a row run by its own people (owner, leaders, members).

The public face other apps use: `clubs.selectors` (who belongs, who may do what) and
`clubs.services` (every write, one `do_*` each); the models are this app's own.
"""
