from django.urls import path

from . import views

app_name = "tournaments"

EXPORTS = (("standings", "csv"), ("standings", "xlsx"), ("standings", "trf"), ("games", "csv"), ("games", "xlsx"))

urlpatterns = [
    path("", views.event_list, name="list"),
    path("my-seat/", views.my_seat, name="my-seat"),
    path("archive/", views.archive_page, name="archive"),
    path("hall-of-fame/", views.hall_of_fame, name="hall-of-fame"),
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
    # The arena's buttons: one view, the button named in the URL's kwargs (views.ARENA_BUTTONS).
    path("<int:tournament_id>/arena/pause/", views.arena_button, {"button": "pause"}, name="arena-pause"),
    path("<int:tournament_id>/arena/return/", views.arena_button, {"button": "return"}, name="arena-return"),
    path("<int:tournament_id>/arena/leave/", views.arena_button, {"button": "leave"}, name="arena-leave"),
    path("berserk/<int:game_id>/", views.arena_button, {"button": "berserk"}, name="berserk"),
    *(
        # /<id>/standings.csv is named "standings-csv", and so on (exports.WRITERS).
        path(f"<int:tournament_id>/{what}.{fmt}", views.export, {"what": what, "fmt": fmt}, name=f"{what}-{fmt}")
        for what, fmt in EXPORTS
    ),
    path("<int:tournament_id>/print/pairings/", views.print_pairings, name="print-pairings"),
    path("<int:tournament_id>/print/pairings.pdf", views.print_pairings, {"pdf": True}, name="print-pairings-pdf"),
    path("<int:tournament_id>/print/slips/", views.print_slips, name="print-slips"),
    path("<int:tournament_id>/print/slips.pdf", views.print_slips, {"pdf": True}, name="print-slips-pdf"),
    path("<int:tournament_id>/print/standings/", views.print_standings, name="print-standings"),
    path("<int:tournament_id>/print/standings.pdf", views.print_standings, {"pdf": True}, name="print-standings-pdf"),
    path("<int:tournament_id>/direct/", views.direct, name="direct"),
]
