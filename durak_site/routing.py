from games.lobby.routing import websocket_urlpatterns as lobby_ws
from games.table.routing import websocket_urlpatterns as table_ws

websocket_urlpatterns = [*lobby_ws, *table_ws]
