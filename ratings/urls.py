from django.urls import path

from ratings import views

app_name = "ratings"

urlpatterns = [
    path("", views.index, name="index"),
    path("about/", views.about, name="about"),
    path("<str:variant>/", views.ladder, name="ladder"),
    path("<str:variant>/players/<str:username>/", views.player, name="player"),
    path("<str:variant>/players/<str:username>/chart/", views.chart, name="chart"),
]
