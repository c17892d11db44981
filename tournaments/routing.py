from django.urls import path

from .consumers import EventConsumer, SeatConsumer

websocket_urlpatterns = [
    path("ws/tournaments/me/", SeatConsumer.as_asgi()),
    path("ws/tournaments/<int:tournament_id>/", EventConsumer.as_asgi()),
]
