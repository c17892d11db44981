"""Issue 15, point 10: "the one announcement cannot be cleared, has no history and stays on
the finished event". Announcements are a dated list that the director can remove from."""

from django.utils import timezone

from tournaments import services
from tournaments.models import Tournament

from .helpers import make_event


def announce(client, event, text):
    return client.post(f"/tournaments/{event.pk}/direct/", {"action": "announce", "text": text}, follow=True)


def test_announcements_are_a_dated_list_newest_first(client, director):
    event = make_event()
    client.force_login(director)
    announce(client, event, "Начинаем через 5 минут")
    announce(client, event, "Второй тур задерживается")
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert page.index("Второй тур задерживается") < page.index("Начинаем через 5 минут")
    assert page.count('<li class="announcement note"><time datetime=') == 2


def test_the_director_removes_an_announcement_and_the_history_says_so(client, director):
    event = make_event()
    client.force_login(director)
    announce(client, event, "Стол 3 переезжает")
    item = event.announcements.get()
    page = client.post(
        f"/tournaments/{event.pk}/direct/", {"action": "unannounce", "announcement": item.pk}, follow=True
    ).content.decode()
    assert "Объявление снято: игроки его больше не видят." in page
    assert "объявление снято" in page  # the director's history
    item.refresh_from_db()
    assert item.removed_at is not None and item.removed_by == director
    assert "Стол 3 переезжает" not in client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "Стол 3 переезжает" in client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    again = client.post(
        f"/tournaments/{event.pk}/direct/", {"action": "unannounce", "announcement": item.pk}, follow=True
    ).content.decode()
    assert "Это объявление уже снято." in again


def test_an_announcement_of_another_event_is_not_removed(client, director):
    first, second = make_event(), make_event()
    announcement = services.do_announce(tournament_id=first.pk, by=director, text="Только для первого")
    client.force_login(director)
    page = client.post(
        f"/tournaments/{second.pk}/direct/", {"action": "unannounce", "announcement": announcement.pk}, follow=True
    ).content.decode()
    assert "В этом событии нет такого объявления." in page
    announcement.refresh_from_db()
    assert announcement.removed_at is None


def test_a_finished_events_page_no_longer_shows_its_announcements(client, director):
    event = make_event()
    services.do_announce(tournament_id=event.pk, by=director, text="Перерыв 10 минут")
    assert "Перерыв 10 минут" in client.get(f"/tournaments/{event.pk}/").content.decode()
    Tournament.objects.filter(pk=event.pk).update(status=Tournament.Status.FINISHED, finished_at=timezone.now())
    assert "Перерыв 10 минут" not in client.get(f"/tournaments/{event.pk}/").content.decode()
