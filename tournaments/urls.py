from django.urls import path

from . import views

app_name = "tournaments"

urlpatterns = [
    path("", views.event_list, name="list"),
    path("my-seat/", views.my_seat, name="my-seat"),
    path("pairs/", views.pairs, name="pairs"),
    path("pairs/<int:pair_id>/", views.pair_page, name="pair"),
    path("pairs/<int:pair_id>/answer/", views.pair_answer, name="pair-answer"),
    path("pairs/<int:pair_id>/dissolve/", views.pair_dissolve, name="pair-dissolve"),
    path("direct/", views.direct_list, name="direct-list"),
    path("<int:tournament_id>/", views.event_page, name="event"),
    path("<int:tournament_id>/panel/", views.event_panel, name="panel"),
    path("<int:tournament_id>/register/", views.register, name="register"),
    path("<int:tournament_id>/unregister/", views.unregister, name="unregister"),
    path("<int:tournament_id>/check-in/", views.check_in, name="check-in"),
    path("<int:tournament_id>/bye/", views.request_bye, name="request-bye"),
    path("<int:tournament_id>/standings.csv", views.standings_csv, name="standings-csv"),
    path("<int:tournament_id>/games.csv", views.games_csv, name="games-csv"),
    path("<int:tournament_id>/direct/", views.direct, name="direct"),
]
