"""Issue 18, point 3: the archive of past events, a player's events on his profile and
the hall of fame per variant. Events are built by hand (entrants, one or two rounds,
results with places and points), so every place and count below is known in advance."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from html import unescape
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import timezone

from tournaments import archive, selectors
from tournaments.models import Entrant, Pair, Result, Round, RoundTable, Tournament

from .helpers import make_event, make_users

pytestmark = pytest.mark.django_db

MOSCOW = ZoneInfo("Europe/Moscow")


def finished_event(entries, *, points=None, status=Tournament.Status.FINISHED, starts_at=None, **kw) -> Tournament:
    """An event whose entries (users, or Pairs for a pair event) played one round at one
    table; `points`: each entry's points in that order (default 3, 2, 1, 0, ...), so the
    first entry wins."""
    pairs = bool(entries) and isinstance(entries[0], Pair)
    when = starts_at or timezone.now() - timedelta(days=1)
    fields = {"starts_at": when, "status": status, **kw}
    if pairs:
        fields.setdefault("kind", Tournament.Kind.PAIRS)
    event = make_event(**fields)
    entrants = [
        Entrant.objects.create(tournament=event, **({"pair": entry} if pairs else {"user": entry})) for entry in entries
    ]
    if not entrants:
        return event
    points = points or [float(len(entrants) - 1 - i) for i in range(len(entrants))]
    round_ = Round.objects.create(tournament=event, number=1, status=Round.Status.FINISHED, starts_at=when)
    rt = RoundTable.objects.create(round=round_, number=1, entrants=[e.pk for e in entrants], games_played=1, done=True)
    order = sorted(range(len(entrants)), key=lambda i: -points[i])
    for place, i in enumerate(order, start=1):
        Result.objects.create(
            round=round_, round_table=rt, entrant=entrants[i], game_number=1, place=place, points=points[i]
        )
    return event


def names_in(html: str, css: str) -> list[str]:
    return [unescape(name) for name in re.findall(rf'<td class="{css}">(?:<a [^>]*>)?([^<]+)', html)]


def archive_names(html: str) -> list[str]:
    return re.findall(r'class="event-card-name" href="/tournaments/\d+/">([^<]+)</a>', html)


def test_issue18_3_a_finished_event_keeps_a_public_page_a_draft_stays_hidden(client):
    users = make_users(4)
    done = finished_event(users, name="Кубок осени")
    draft = make_event(name="Черновик зимы", status=Tournament.Status.DRAFT)
    page = client.get(f"/tournaments/{done.pk}/")  # no one logged in
    assert page.status_code == 200 and "Кубок осени" in page.content.decode()
    assert client.get(f"/tournaments/{draft.pk}/").status_code == 404
    text = client.get("/tournaments/archive/").content.decode()
    assert "Кубок осени" in text and "Черновик зимы" not in text
    assert "Победитель: p01" in text


def test_issue18_3_cancelled_events_are_listed_as_cancelled_without_a_winner(client):
    users = make_users(4)
    finished_event(users, name="Несостоявшийся вечер", status=Tournament.Status.CANCELLED)
    finished_event(users, name="Вечер пятницы")
    make_event(name="Идущий вечер", status=Tournament.Status.RUNNING)
    text = client.get("/tournaments/archive/").content.decode()
    assert archive_names(text) == ["Вечер пятницы", "Несостоявшийся вечер"]  # running: not in the archive
    cancelled = text[text.index("Несостоявшийся вечер") :]
    assert '<span class="chip status status-cancelled">отменён</span>' in cancelled
    assert "Победитель" not in cancelled
    assert "Отменённые турниры остаются в архиве с пометкой «отменён», без победителя" in text
    # The hall of fame and the profile count finished events only.
    hall = client.get("/tournaments/hall-of-fame/").content.decode()
    assert "Несостоявшийся вечер" not in hall and "Вечер пятницы" in hall
    profile = client.get(reverse("games:profile", kwargs={"username": "p01"})).content.decode()
    assert "Вечер пятницы" in profile and "Несостоявшийся вечер" not in profile


def test_issue18_3_the_archive_filters_by_season_variant_format_and_name(client):
    users = make_users(4)
    # A season is the club's calendar year: 00:30 on 1 January in Moscow is still 31 December in UTC.
    finished_event(users, name="Новогодний кубок", starts_at=datetime(2026, 1, 1, 0, 30, tzinfo=MOSCOW))
    finished_event(users, name="Предновогодний", starts_at=datetime(2025, 12, 31, 23, 0, tzinfo=MOSCOW))
    finished_event(
        users,
        name="Переводной круг",
        variant="perevodnoy",
        format=Tournament.Format.ROUND_ROBIN,
        starts_at=datetime(2026, 3, 1, 19, 0, tzinfo=MOSCOW),
    )
    get = lambda query: archive_names(client.get(f"/tournaments/archive/?{query}").content.decode())  # noqa: E731
    assert get("") == ["Переводной круг", "Новогодний кубок", "Предновогодний"]
    assert get("year=2026") == ["Переводной круг", "Новогодний кубок"]
    assert get("year=2025") == ["Предновогодний"]
    assert get("variant=perevodnoy") == ["Переводной круг"]
    assert get("variant=podkidnoy&year=2026") == ["Новогодний кубок"]
    assert get("format=round_robin") == ["Переводной круг"]
    assert get("format=swiss") == ["Новогодний кубок", "Предновогодний"]
    assert get("q=КУБОК") == ["Новогодний кубок"]  # Cyrillic in any case, on SQLite too
    assert get("variant=nonsense&year=abc&format=x") == get("")  # unknown filters filter nothing
    text = client.get("/tournaments/archive/?year=2026").content.decode()
    assert '<option value="2026" selected>2026</option>' in text and '<option value="2025">2025</option>' in text
    assert "Сезон — календарный год, по дате начала турнира по времени клуба." in text


def test_issue18_3_the_archive_pages_thirty_events_in_bounded_queries(client, django_assert_max_num_queries):
    users = make_users(4)
    start = timezone.now() - timedelta(days=40)
    for i in range(30):
        finished_event(users, name=f"Турнир {i:02d}", starts_at=start + timedelta(days=i))
    with django_assert_max_num_queries(6):  # seasons, count, the page, its entrants, their results
        first = client.get("/tournaments/archive/").content.decode()
    assert archive_names(first) == [f"Турнир {i:02d}" for i in range(29, 9, -1)]
    assert "Страница 1 из 2" in first and 'rel="next" href="?page=2"' in first
    with django_assert_max_num_queries(6):
        second = client.get("/tournaments/archive/?variant=podkidnoy&page=2").content.decode()
    assert archive_names(second) == [f"Турнир {i:02d}" for i in range(9, -1, -1)]
    assert 'rel="prev" href="?variant=podkidnoy&amp;page=1"' in second and "Более ранние" not in second
    assert second.count("Победитель: p01") == 10
    # A page past the end shows the last one (Paginator.get_page), not an error.
    assert archive_names(client.get("/tournaments/archive/?page=99").content.decode()) == archive_names(second)


def test_issue18_3_the_list_page_shows_the_newest_past_events_and_links_the_archive(client):
    users = make_users(2)
    start = timezone.now() - timedelta(days=20)
    for i in range(8):
        finished_event(users, name=f"Вечер {i}", starts_at=start + timedelta(days=i), table_size=2)
    text = client.get("/tournaments/").content.decode()
    assert [f"Вечер {i}" in text for i in range(8)] == [False] * 3 + [True] * 5
    assert '<a href="/tournaments/archive/">Все прошедшие турниры: архив</a>' in text
    assert '<a href="/tournaments/hall-of-fame/">Зал славы</a>' in text
    assert '<a class="nav-archive" href="/tournaments/archive/">Архив</a>' in text


def test_issue18_3_the_profile_lists_the_players_events_with_place_and_points(client):
    anna, boris, vera, gleb = make_users(4)
    start = timezone.now() - timedelta(days=10)
    finished_event([anna, boris, vera, gleb], name="Первый вечер", points=[1, 4.5, 2, 0], starts_at=start)
    finished_event([boris, vera, gleb], name="Отменённый вечер", starts_at=start, status=Tournament.Status.CANCELLED)
    finished_event([vera, gleb, boris], name="Второй вечер", starts_at=start + timedelta(days=1), table_size=3)
    pair = Pair.objects.create(player_one=boris, player_two=anna, created_by=boris, status=Pair.Status.ACTIVE)
    other = Pair.objects.create(player_one=vera, player_two=gleb, created_by=vera, status=Pair.Status.ACTIVE)
    finished_event([pair, other], name="Парный вечер", starts_at=start + timedelta(days=2))
    text = client.get(reverse("games:profile", kwargs={"username": "p02"})).content.decode()
    section = text[text.index("Сыгранные турниры") :]
    rows = re.findall(
        r'<a href="/tournaments/\d+/">([^<]+)</a>.*?profile-event-place">([^<]+)</td>\s*'
        r'<td class="profile-event-points">([^<]+)</td>',
        section,
        re.S,
    )
    assert rows == [("Парный вечер", "1 из 2", "1"), ("Второй вечер", "3 из 3", "0"), ("Первый вечер", "1 из 4", "4,5")]
    assert "в паре с p01" in section
    assert "Отменённый вечер" not in section
    # The places are the event's own standings.
    first = Tournament.objects.get(name="Первый вечер")
    mine = next(line for line in selectors.standings_table(first) if line["name"] == "p02")
    assert (mine["rank"], mine["points"]) == (1, 4.5)
    # One who has played no event has no such section.
    (newcomer,) = make_users(1, prefix="n")
    assert "Сыгранные турниры" not in client.get(reverse("games:profile", kwargs={"username": "n01"})).content.decode()


def test_issue18_3_final_places_are_the_events_standings():
    users = make_users(6)
    event = finished_event(users[:4], points=[2, 2, 1, 0])  # a tie on points: the event's tie-breaks decide
    other = finished_event(users[2:], points=[0, 3, 1, 2])
    places = archive.final_places([event, other])
    for e in (event, other):
        assert [(p.entrant.pk, p.rank, p.points) for p in places[e.pk]] == [
            (line.entrant, line.rank, line.points) for line in selectors.standings_of(e)
        ]


def test_issue18_3_the_hall_of_fame_lists_winners_most_played_and_best_pairs(client):
    a, b, c, d, e, f, g, h = make_users(8)
    day = timezone.now() - timedelta(days=30)

    def on(n):
        return day + timedelta(days=n)

    finished_event([a, b, c, d], name="Вечер 1", starts_at=on(1))
    finished_event([b, a, c], name="Вечер 2", starts_at=on(2), table_size=3)
    finished_event([c, a], name="Вечер 3", starts_at=on(3), table_size=2)
    finished_event([h, a], name="Переводной", starts_at=on(4), variant="perevodnoy", table_size=2)
    # Pairs: a+b play 3 events, win 1 (places 1, 2, 2: average 5/3); c+d play 3, win 1 (1, 2, 3: 2);
    # e+f win 2 of 2: fewer than three events, not ranked. The same two people in a new Pair row
    # (b and a dissolved and paired again) are the same pair.
    ab = Pair.objects.create(player_one=a, player_two=b, created_by=a, status=Pair.Status.DISSOLVED)
    ba = Pair.objects.create(player_one=b, player_two=a, created_by=b, status=Pair.Status.ACTIVE)
    cd = Pair.objects.create(player_one=c, player_two=d, created_by=c, status=Pair.Status.ACTIVE)
    ef = Pair.objects.create(player_one=e, player_two=f, created_by=e, status=Pair.Status.ACTIVE)
    gh = Pair.objects.create(player_one=g, player_two=h, created_by=g, status=Pair.Status.ACTIVE)
    finished_event([ab, cd, gh], name="Пары 1", starts_at=on(5))
    finished_event([cd, ba, gh], name="Пары 2", starts_at=on(6))
    finished_event([ef, ba, cd], name="Пары 3", starts_at=on(7))
    finished_event([ef, gh], name="Пары 4", starts_at=on(8))
    finished_event([a, b], name="Отменён", starts_at=on(9), status=Tournament.Status.CANCELLED, table_size=2)

    hall = archive.hall_of_fame("podkidnoy")
    assert [(r["event"].name, r["winner"].name) for r in hall["winners"]] == [
        ("Пары 4", "p05 & p06"),
        ("Пары 3", "p05 & p06"),
        ("Пары 2", "p03 & p04"),
        ("Пары 1", "p01 & p02"),
        ("Вечер 3", "p03"),
        ("Вечер 2", "p02"),
        ("Вечер 1", "p01"),
    ]
    most = [(r["name"], r["events"], r["wins"]) for r in hall["most_played"]]
    assert most[:4] == [("p01", 6, 2), ("p03", 6, 2), ("p02", 5, 2), ("p04", 4, 1)]
    assert [(r["name"], r["wins"], round(r["average"], 3), r["events"]) for r in hall["best_pairs"]] == [
        ("p01 & p02", 1, 1.667, 3),
        ("p03 & p04", 1, 2.0, 3),
        ("p07 & p08", 0, 2.667, 3),
    ]

    text = client.get("/tournaments/hall-of-fame/").content.decode()
    assert names_in(text, "hall-name")[:3] == ["p05 & p06", "p05 & p06", "p03 & p04"]
    assert (
        "Пары из тех же двух игроков, сыгравшие не меньше 3 завершённых парных турниров; порядок: больше побед "
        "в турнирах, затем лучшее среднее место, затем больше турниров."
    ) in text
    assert ">Отменён</a>" not in text and ">Пары 4</a>" in text
    other = client.get("/tournaments/hall-of-fame/?variant=perevodnoy").content.decode()
    assert names_in(other, "hall-name") == ["p08", "p08", "p01"]  # the winner; most played (equal events: wins)
    assert '<strong aria-current="page">Переводной</strong>' in other


def test_issue18_3_the_pages_speak_english_too(client):
    users = make_users(4)
    finished_event(users, name="Autumn cup")
    client.cookies["django_language"] = "en"
    archive_text = client.get("/tournaments/archive/").content.decode()
    assert "A season is a calendar year, by the event's start in the club's time zone." in archive_text
    assert "Winner: p01" in archive_text
    hall = client.get("/tournaments/hall-of-fame/").content.decode()
    assert "Pairs of the same two players with at least 3 finished pair events" in hall
    profile = client.get(reverse("games:profile", kwargs={"username": "p02"})).content.decode()
    assert "Tournaments played" in profile and "2 of 4" in profile


def test_issue18_3_a_failing_events_section_leaves_the_profile_up(client, monkeypatch):
    users = make_users(4)
    finished_event(users, name="Кубок осени")

    def broken(user, limit=archive.PROFILE_EVENTS):
        raise RuntimeError("the archive is down")

    monkeypatch.setattr(archive, "player_events", broken)
    page = client.get(reverse("games:profile", kwargs={"username": "p01"}))
    assert page.status_code == 200 and "Сыгранные турниры" not in page.content.decode()
