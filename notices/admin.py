from django.contrib import admin

from .models import Preference, PushSubscription, Sent


@admin.register(Sent)
class SentAdmin(admin.ModelAdmin):
    """What was sent to whom, and what failed (the error of the last attempt)."""

    list_display = ("kind", "object_key", "recipient", "channel", "sent_at", "attempts", "error")
    list_filter = ("kind", "channel")
    search_fields = ("object_key", "recipient__username")
    readonly_fields = [field.name for field in Sent._meta.fields]


@admin.register(Preference)
class PreferenceAdmin(admin.ModelAdmin):
    list_display = ("user", "email_kinds", "push_kinds", "language", "updated_at")
    search_fields = ("user__username",)


@admin.register(PushSubscription)
class PushSubscriptionAdmin(admin.ModelAdmin):
    list_display = ("user", "created_at")
    search_fields = ("user__username",)
