from django.urls import path

from reviews import views

app_name = "reviews"

urlpatterns = [
    path("games/<int:game_id>/", views.panel, name="panel"),
    path("games/<int:game_id>/request/", views.request_review, name="request"),
]
