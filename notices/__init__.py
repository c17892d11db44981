"""Notices off the site: mail, Web Push and calendar feeds of the club's events.

Its public face is `notices.services` (writes: preferences, unsubscribing, push
subscriptions, delivery) and `notices.selectors` (reads). It listens to
`tournaments.signals` and sends from Celery tasks (`notices.tasks`), each message
once: a `Sent` row per kind, object, recipient and channel. Nothing imports it.
"""
