from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

urlpatterns = [
    path("signup/", views.sign_up, name="signup"),
    path("login/", views.LogInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("guest/", views.play_as_guest, name="guest"),
    path("players/<username:username>/", views.profile, name="profile"),
    path("account/", views.account, name="account"),
    path("account/email/confirm/<token:token>/", views.confirm_email, name="confirm-email"),
    path("password-reset/", views.PasswordResetView.as_view(), name="password-reset"),
    path("password-reset/sent/", views.PasswordResetSentView.as_view(), name="password-reset-sent"),
    path("password-reset/<uidb64>/<token>/", views.PasswordResetConfirmView.as_view(), name="password-reset-confirm"),
    path("password-reset/done/", views.PasswordResetDoneView.as_view(), name="password-reset-done"),
]
