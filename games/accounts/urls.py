from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

urlpatterns = [
    path("signup/", views.sign_up, name="signup"),
    path("login/", views.LogInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("guest/", views.play_as_guest, name="guest"),
    path("players/<username:username>/", views.profile, name="profile"),
]
