from django.urls import path

from . import views

app_name = "notices"

urlpatterns = [
    path("", views.preferences_redirect, name="home"),
    path("preferences/", views.preferences, name="preferences"),
    path("unsubscribe/<token:token>/", views.unsubscribe, name="unsubscribe"),
    path("calendar.ics", views.club_calendar, name="calendar"),
    path("calendar/<token:token>.ics", views.player_calendar, name="player-calendar"),
    path("push/subscription/", views.push_subscription, name="push-subscription"),
]
