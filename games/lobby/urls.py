from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("tables/new/", views.table_new, name="table-new"),
    path("play/", views.play_now, name="play-now"),
    path("play/wait/", views.play_wait, name="play-wait"),
    path("play/wait/status/", views.play_status, name="play-status"),
    path("play/leave/", views.play_leave, name="play-leave"),
    path("play/bots/", views.play_with_bots, name="play-bots"),
    path("t/invite/<token:token>/", views.table_invite, name="table-invite"),
    path("t/<int:table_id>/join/", views.table_join, name="table-join"),
    path("t/<int:table_id>/guest/", views.table_guest, name="table-guest"),
    path("t/<int:table_id>/leave/", views.table_leave, name="table-leave"),
    path("t/<int:table_id>/start/", views.table_start, name="table-start"),
    path("t/<int:table_id>/bot/", views.table_bot, name="table-bot"),
    path("t/<int:table_id>/resign/", views.table_resign, name="table-resign"),
    path("t/<int:table_id>/back/", views.table_back, name="table-back"),
    path("t/<int:table_id>/finish/", views.table_finish, name="table-finish"),
    path("t/<int:table_id>/claim/", views.table_claim, name="table-claim"),
]
