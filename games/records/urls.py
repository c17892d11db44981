from django.urls import path

from . import views

urlpatterns = [
    path("games/<int:game_id>/", views.game_record, name="game-record"),
    path("games/<int:game_id>/verify/", views.game_verify, name="game-verify"),
    path("verifier/fairness_verify.py", views.verifier_download, name="verifier-download"),
]
