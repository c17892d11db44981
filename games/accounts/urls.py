from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

urlpatterns = [
    path("signup/", views.sign_up, name="signup"),
    path("login/", auth_views.LoginView.as_view(template_name="games/accounts/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("guest/", views.play_as_guest, name="guest"),
    path("players/<str:username>/", views.profile, name="profile"),
]
