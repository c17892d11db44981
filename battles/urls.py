from django.urls import path

from . import views

app_name = "battles"

urlpatterns = [
    path("", views.battle_list, name="list"),
    path("new/", views.new_battle, name="new"),
    path("clubs-ladder/", views.club_ladder, name="ladder"),
    path("<int:battle_id>/", views.battle_page, name="battle"),
    path("<int:battle_id>/answer/<int:club_id>/", views.answer, name="answer"),
    path("<int:battle_id>/enter/", views.enter, name="enter"),
    path("<int:battle_id>/invite/", views.invite, name="invite"),
    path("<int:battle_id>/board.csv", views.board_csv, name="board-csv"),
    path("<int:battle_id>/print/", views.board_print, name="print"),
]
