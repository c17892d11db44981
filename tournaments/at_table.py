"""What the tournaments app adds to a player's own seat on the table page (registered with
`games.extensions` in TournamentsConfig.ready): an arena game's «Berserk» before his first move."""

from django.template.loader import render_to_string

from . import formats, selectors


def seat_actions(request, table: dict, game: dict, seat: int) -> list[str]:
    game_id = selectors.berserk_offer(table_id=table["id"], user=request.user)
    if game_id is None:
        return []
    context = {"game_id": game_id, "next": request.get_full_path(), "bonus": formats.BERSERK_BONUS}
    return [render_to_string("tournaments/partials/berserk.html", context, request=request)]
