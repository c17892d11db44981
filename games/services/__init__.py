"""Every write to tables and games goes through these services (`do_*`).

Views, consumers and Celery tasks stay thin and call one service each.
"""
