"""Django admin for staff: tables, games and their move logs, profiles, chat.

Users themselves are managed with Django's standard User admin (with the
profile inline). Game records are read-only: the move log is the truth and
editing it would break the replay and the provably fair check.
"""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.utils.translation import gettext_lazy as _

from games.models import ChatMessage, Game, GameSeat, Move, Profile, Table, TableSeat


class TableSeatInline(admin.TabularInline):
    model = TableSeat
    extra = 0
    fields = ("number", "user", "bot_level")
    raw_id_fields = ("user",)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "variant",
        "seats_count",
        "status",
        "host",
        "is_private",
        "rated",
        "turn_seconds",
        "bot_level",
        "created_at",
    )
    list_filter = ("status", "variant", "seats_count", "is_private", "rated", "turn_seconds")
    search_fields = ("=id", "host__username", "seats__user__username", "invite_token")
    raw_id_fields = ("host",)
    readonly_fields = ("invite_token", "created_at", "updated_at")
    date_hierarchy = "created_at"
    inlines = [TableSeatInline]


class GameSeatInline(admin.TabularInline):
    model = GameSeat
    extra = 0
    can_delete = False
    fields = (
        "number",
        "user",
        "bot_level",
        "team",
        "place",
        "counted_place",
        "is_loser",
        "abandoned",
        "autopilot",
        "timeouts_in_row",
    )
    readonly_fields = ("number", "user", "bot_level", "team", "place", "counted_place", "is_loser")
    raw_id_fields = ("user",)

    def has_add_permission(self, request, obj=None):
        return False


class MoveInline(admin.TabularInline):
    model = Move
    extra = 0
    can_delete = False
    fields = ("number", "seat", "action", "source", "created_at")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "table", "number", "variant", "rated", "status", "move_count", "started_at", "finished_at")
    list_filter = ("status", "variant", "rated")
    search_fields = ("=id", "=table__id", "seats__user__username", "seed_hash")
    date_hierarchy = "started_at"
    readonly_fields = (
        "table",
        "number",
        "rules",
        "variant",
        "rated",
        "seed_hash",
        "dealer",
        "move_count",
        "state_json",
        "result",
        "started_at",
        "finished_at",
        "revealed_seed",
    )
    exclude = ("seed",)  # secret until the game is over: see revealed_seed
    inlines = [GameSeatInline, MoveInline]

    @admin.display(description=_("seed"))
    def revealed_seed(self, obj):
        return obj.seed if obj.is_over else _("secret until the game is over")


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "is_guest", "created_at")
    list_filter = ("is_guest",)
    search_fields = ("user__username",)
    raw_id_fields = ("user",)


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ("created_at", "table", "name", "text")
    list_filter = ("created_at",)
    search_fields = ("name", "text", "=table__id")
    raw_id_fields = ("table", "user")
    date_hierarchy = "created_at"


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    fields = ("is_guest",)


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class PlayerUserAdmin(UserAdmin):
    inlines = [*UserAdmin.inlines, ProfileInline]
    list_display = (*UserAdmin.list_display, "is_guest")
    list_filter = (*UserAdmin.list_filter, "profile__is_guest")

    def get_inline_instances(self, request, obj=None):
        # A new user's profile is made when he is saved (games.services.accounts.keep_name_key).
        return super().get_inline_instances(request, obj) if obj is not None else []

    @admin.display(boolean=True, description=_("guest"))
    def is_guest(self, obj):
        profile = getattr(obj, "profile", None)
        return bool(profile and profile.is_guest)
