"""Root URL configuration."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from api import pages as api_pages
from probe import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("", include("probe.app_urls")),
    path("", include("scoring.urls")),
    path("api/", include("api.urls")),
    path("account/tokens/", api_pages.token_list, name="token_list"),
    path("account/tokens/<int:token_pk>/revoke/", api_pages.token_revoke, name="token_revoke"),
]
