from django.urls import path

from . import views

app_name = "friends"

urlpatterns = [
    path("", views.index, name="index"),
    path("follow/", views.follow, name="follow"),
    path("unfollow/", views.unfollow, name="unfollow"),
    path("keep-away/", views.keep_away, name="keep-away"),
    path("let-back/", views.let_back, name="let-back"),
    path("invite/", views.invite, name="invite"),
]
