from django.urls import path

from . import views

urlpatterns = [
    path("table/<int:table_id>/", views.table, name="table"),
]
