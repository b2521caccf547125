"""Root URL configuration."""

from allauth.socialaccount import views as sa_views
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.urls import include, path
from django.views.generic import TemplateView
from django.views.i18n import JavaScriptCatalog

from api import pages as api_pages
from probe.views import accounts as views_accounts
from probe.views import errors as views_errors
from probe.views import language as views_language
from probe.views import notifications as views_notifications
from probe.views import preferences as views_preferences
from probe.views import teams as views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path(
        "accounts/login/",
        views_accounts.LoginView.as_view(),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Sign-in through the identity provider (django-allauth): its OpenID Connect login and
    # callback (accounts/oidc/oidc/login/...), and its error and cancel pages. allauth's own
    # local-account pages are not served: the names it links to lead to the pages above.
    path("accounts/", include("allauth.socialaccount.providers.openid_connect.urls")),
    path("accounts/sso/cancelled/", sa_views.login_cancelled, name="socialaccount_login_cancelled"),
    path(
        "accounts/sso/error/",
        login_not_required(sa_views.login_error),
        name="socialaccount_login_error",
    ),
    path("accounts/sso/signup/", sa_views.signup, name="socialaccount_signup"),
    path("accounts/login/", views_accounts.LoginView.as_view(), name="account_login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="account_logout"),
    path(
        "accounts/inactive/",
        login_not_required(TemplateView.as_view(template_name="account/account_inactive.html")),
        name="account_inactive",
    ),
    path("i18n/language", views_language.language_set, name="set_language"),
    # The JavaScript catalogue (gettext() for static/js), needed on the login page too.
    path("jsi18n/", login_not_required(JavaScriptCatalog.as_view()), name="javascript-catalog"),
    path("accounts/time-zone/", views_preferences.time_zone_edit, name="time_zone"),
    path("accounts/notifications/", views_notifications.inbox, name="inbox"),
    path(
        "accounts/password/",
        views_accounts.PasswordChangeView.as_view(),
        name="password_change",
    ),
    # Without mail the form says to ask an owner; with EMAIL_URL set it mails a reset link
    # (and answers the same whether or not the address belongs to an account).
    path(
        "accounts/password/reset/",
        views_accounts.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        views_accounts.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "invitations/<str:token>/",
        views_accounts.invitation_accept,
        name="invitation_accept",
    ),
    path("admin/", admin.site.urls),
    path("", include("probe.urls")),
    path("", include("scoring.urls")),
    path("", include("grading.urls")),
    path("api/", include("api.urls")),
    path("account/tokens/", api_pages.token_list, name="token_list"),
    path("account/tokens/<int:token_pk>/revoke/", api_pages.token_revoke, name="token_revoke"),
]

handler400 = views_errors.bad_request
handler403 = views_errors.permission_denied
handler404 = views_errors.page_not_found
handler500 = views_errors.server_error
