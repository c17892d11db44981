from battles.routing import websocket_urlpatterns as battles_ws
from games.lobby.routing import websocket_urlpatterns as lobby_ws
from games.table.routing import websocket_urlpatterns as table_ws
from tournaments.routing import websocket_urlpatterns as tournaments_ws

websocket_urlpatterns = [*lobby_ws, *table_ws, *tournaments_ws, *battles_ws]
