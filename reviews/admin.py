from django.contrib import admin

from reviews.models import Review, ReviewedDecision


class ReviewedDecisionInline(admin.TabularInline):
    model = ReviewedDecision
    extra = 0
    readonly_fields = ["move_number", "played", "best", "value_played", "value_best", "drop", "label"]
    can_delete = False


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    list_display = ["game", "seat", "user", "status", "decisions", "requested_at", "finished_at"]
    list_filter = ["status"]
    raw_id_fields = ["game", "user"]
    inlines = [ReviewedDecisionInline]
