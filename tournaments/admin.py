from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from . import services
from .forms import AdminTournamentForm
from .models import Announcement, DirectorAction, Entrant, Pair, Result, Round, RoundTable, StuckStep, Tournament


@admin.register(Pair)
class PairAdmin(admin.ModelAdmin):
    list_display = ("id", "player_one", "player_two", "status", "created_at")
    list_filter = ("status",)
    raw_id_fields = ("player_one", "player_two", "created_by")


class EntrantInline(admin.TabularInline):
    model = Entrant
    extra = 0
    raw_id_fields = ("user", "pair")
    fields = (
        "user",
        "pair",
        "checked_in",
        "state",
        "late",
        "joined_round",
        "byes",
        "eliminated_in_round",
        "arena_paused",
    )


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = AdminTournamentForm
    list_display = ("name", "variant", "kind", "format", "starts_at", "status")
    list_filter = ("status", "variant", "format", "kind")
    search_fields = ("name",)
    inlines = [EntrantInline]
    actions = ["copy_for_next_week"]

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
        services.schedule_nudges_on_commit(obj.pk)

    @admin.action(description=_("Copy for next week"))
    def copy_for_next_week(self, request, queryset):
        for event in queryset:
            services.do_copy_event(tournament_id=event.pk, by=request.user)
        self.message_user(request, _("Copied: the new events start a week later."), messages.SUCCESS)


class RoundTableInline(admin.TabularInline):
    model = RoundTable
    extra = 0
    raw_id_fields = ("table",)


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("tournament", "number", "status", "starts_at", "started_at", "finished_at")
    list_filter = ("status",)
    inlines = [RoundTableInline]


@admin.register(Entrant)
class EntrantAdmin(admin.ModelAdmin):
    list_display = ("tournament", "user", "pair", "checked_in", "state", "late", "byes")
    list_filter = ("state", "checked_in", "late")
    raw_id_fields = ("user", "pair")


@admin.register(Result)
class ResultAdmin(admin.ModelAdmin):
    list_display = ("round", "round_table", "entrant", "game_number", "place", "points", "is_durak", "is_bye")
    raw_id_fields = ("round_table", "entrant", "game", "corrected_by")
    readonly_fields = ("original_points", "corrected_by", "corrected_at")

    def save_model(self, request, obj, form, change):
        if change and "points" in form.changed_data:
            if obj.original_points is None:
                obj.original_points = form.initial.get("points")
            from django.utils import timezone

            obj.corrected_by = request.user
            obj.corrected_at = timezone.now()
        super().save_model(request, obj, form, change)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records of what happened: written by the services (the director page), read here."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(DirectorAction)
class DirectorActionAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "at", "by", "action", "reason")
    list_filter = ("action",)


@admin.register(Announcement)
class AnnouncementAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "at", "by", "text", "removed_at")


@admin.register(StuckStep)
class StuckStepAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "step", "round_table", "failures", "error", "next_attempt_at")
