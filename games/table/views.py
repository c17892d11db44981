"""The table page: the same fragments the websocket sends, rendered in full."""

from django.http import Http404
from django.shortcuts import render
from django.urls import reverse

from games import extensions, permissions, positions, selectors, signals
from games.services import emotes

from . import heartbeat, presenters, rendering


def table(request, table_id: int):
    snapshot = selectors.table_snapshot(table_id)
    user_id = request.user.pk if request.user.is_authenticated else None
    if not permissions.may_watch(snapshot, user_id, request.session.get("invited_tables", [])):
        raise Http404("No such table.")
    seat = permissions.viewer_seat(snapshot, user_id)
    game = snapshot.get("game")
    # The log of exactly the moves the snapshot counts: one picture of the table.
    events, _moves = positions.recent_events(game["id"] if game else None, upto=game["move_count"] if game else None)
    context = rendering.decorated(presenters.table_context(snapshot, seat, events, viewer_id=user_id))
    context["chat_messages"] = selectors.recent_chat(table_id)
    context["page_notes"], context["page_title"] = _page_notes(table_id, request)
    context["seat_actions"] = extensions.seat_actions(request, context["table"], game, seat)
    context["can_chat"] = user_id is not None
    context["heartbeat_seconds"] = heartbeat.beat_seconds()
    context["emotes"], context["emote_mutes"] = emotes.emote_choices(), selectors.emote_mutes(table_id, user_id)
    token = selectors.invite_token_for(table_id, request.user)
    if token:
        context["invite_url"] = request.build_absolute_uri(reverse("games:table-invite", kwargs={"token": token}))
    return render(request, "games/table/table.html", context)


def _page_notes(table_id: int, request) -> tuple[list, str]:
    """What other apps say about this table (signals.table_page_will_render): fragments and a title."""
    notes, title = [], ""
    answers = signals.table_page_will_render.send_robust(sender=None, table_id=table_id, request=request)
    for _receiver, answer in answers:
        if isinstance(answer, dict):
            if answer.get("html"):
                notes.append(answer["html"])
            title = title or answer.get("title") or ""
    return notes, title
