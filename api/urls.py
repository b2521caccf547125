"""The API object and its URLs. Its views authenticate by token, not by the login session."""

from django.contrib.auth.decorators import login_not_required
from ninja import NinjaAPI

from . import errors
from .auth import TokenAuth, TokenThrottle
from .views import router
from .views_configs import router as configs_router

api = NinjaAPI(
    title="Blind probe API",
    version="1",
    description=(
        "Banks, prompt versions, model configurations, experiments and their results, with the "
        "roles and blinding rules of the pages. Authenticate with a personal token: "
        "`Authorization: Bearer <token>`."
    ),
    auth=TokenAuth(),
    throttle=TokenThrottle(),
    urls_namespace="api",
    docs_url="/docs",
    openapi_url="/openapi.json",
)
api.add_router("/", router)
api.add_router("/", configs_router)
errors.install(api)

patterns, app_name, namespace = api.urls
DOCS = {"api-root", "openapi-json", "openapi-view"}
for pattern in patterns:
    # Tokens, not sessions: the site's login-required middleware lets the endpoints through.
    # The schema and its page stay behind the login like every other page.
    if pattern.name not in DOCS:
        pattern.callback = login_not_required(pattern.callback)
urlpatterns = patterns
# ninja names its URLs in this namespace ("api:me", "api:openapi-view", ...).
app_name = namespace
