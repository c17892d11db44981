from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ratings import services
from ratings.models import PairRating, RatedGame, Rating, RatingChange, Variant, VariantState


def _recalculate(modeladmin, request, variants) -> None:
    for variant in sorted(set(variants)):
        count = services.recompute(variant)
        modeladmin.message_user(
            request,
            ngettext(
                "%(variant)s: ratings recalculated from %(count)d game.",
                "%(variant)s: ratings recalculated from %(count)d games.",
                count,
            )
            % {"variant": Variant(variant).label, "count": count},
            messages.SUCCESS,
        )


@admin.action(description=_("Recalculate the ratings of these variants from scratch"))
def recalculate_variants(modeladmin, request, queryset):
    _recalculate(modeladmin, request, queryset.values_list("variant", flat=True))


@admin.register(VariantState)
class VariantStateAdmin(admin.ModelAdmin):
    list_display = ["variant", "last_seq", "last_finished_at", "recomputed_at"]
    readonly_fields = ["variant", "last_seq", "last_finished_at", "last_game_id", "recomputed_at", "touched_at"]
    actions = [recalculate_variants]

    def has_add_permission(self, request):
        return False


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["user", "variant", "display", "mu", "sigma", "games", "last_played"]
    list_filter = ["variant"]
    search_fields = ["user__username"]
    list_select_related = ["user"]
    actions = [recalculate_variants]


@admin.register(PairRating)
class PairRatingAdmin(admin.ModelAdmin):
    list_display = ["first", "second", "variant", "display", "mu", "sigma", "games", "last_played"]
    list_filter = ["variant"]
    search_fields = ["first__username", "second__username"]
    list_select_related = ["first", "second"]
    actions = [recalculate_variants]


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ["game", "user", "variant", "seq", "place", "display_before", "display_after"]
    list_filter = ["variant"]
    search_fields = ["user__username"]
    raw_id_fields = ["game", "user"]


@admin.register(RatedGame)
class RatedGameAdmin(admin.ModelAdmin):
    list_display = ["game", "variant", "seq", "finished_at"]
    list_filter = ["variant"]
    raw_id_fields = ["game"]
