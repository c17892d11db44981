from django.urls import path

from .consumers import BoardConsumer

websocket_urlpatterns = [path("ws/battles/<int:battle_id>/", BoardConsumer.as_asgi())]
