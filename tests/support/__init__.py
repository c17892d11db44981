"""The one home of the helpers tests share: people, whole games, table snapshots, sockets.

from tests.support.games import make_user, play_to_end
"""
