from django.urls import path

from ratings import views

app_name = "ratings"

urlpatterns = [
    path("", views.index, name="index"),
    path("about/", views.about, name="about"),
    path("<slug:variant>/", views.ladder, name="ladder"),
    path("<slug:variant>/players/<username:username>/", views.player, name="player"),
    path("<slug:variant>/players/<username:username>/chart/", views.chart, name="chart"),
]
