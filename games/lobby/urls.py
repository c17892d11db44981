from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("tables/new/", views.table_new, name="table-new"),
    path("t/invite/<str:token>/", views.table_invite, name="table-invite"),
    path("t/<int:table_id>/join/", views.table_join, name="table-join"),
    path("t/<int:table_id>/leave/", views.table_leave, name="table-leave"),
    path("t/<int:table_id>/start/", views.table_start, name="table-start"),
    path("t/<int:table_id>/bot/", views.table_bot, name="table-bot"),
    path("t/<int:table_id>/resign/", views.table_resign, name="table-resign"),
]
