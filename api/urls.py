"""The API object and its URLs. Its views authenticate by token, not by the login session."""

from django.contrib.auth.decorators import login_not_required
from ninja import NinjaAPI

from . import errors
from .auth import TokenAuth
from .views import banks, configs, experiments, gate, grading, prompts, results, teams

RETRY_AFTER = {
    "description": "whole seconds until the rate's window ends",
    "required": True,
    "schema": {"type": "integer", "minimum": 1},
}


class API(NinjaAPI):
    def get_openapi_operation_id(self, operation) -> str:
        # An operation's id names its endpoint, not the module of api.views that holds it: the
        # ids stay as they were when every endpoint was in one module (clients built from the
        # schema name their calls after them).
        return f"api_views_{operation.view_func.__name__}"

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        # Every 429 says when to try again (ninja's response= has no place for a header).
        for operations in schema["paths"].values():
            for operation in operations.values():
                refused = operation.get("responses", {}).get(429)
                if refused is not None:
                    refused["headers"] = {"Retry-After": RETRY_AFTER}
        return schema


api = API(
    title="Blind probe API",
    version="1",
    description=(
        "Banks, prompt versions, model configurations, experiments and their results, with the "
        "roles and blinding rules of the pages. Authenticate with a personal token: "
        "`Authorization: Bearer <token>`."
    ),
    auth=TokenAuth(),
    urls_namespace="api",
    docs_url="/docs",
    openapi_url="/openapi.json",
)
for module in (teams, banks, prompts, configs, experiments, results, gate, grading):
    api.add_router("/", module.router)
errors.install(api)

patterns, app_name, namespace = api.urls
DOCS = {"api-root", "openapi-json", "openapi-view"}
for pattern in patterns:
    # Tokens, not sessions: the site's login-required middleware lets the endpoints through.
    # The schema and its page stay behind the login like every other page.
    if pattern.name not in DOCS:
        pattern.callback = login_not_required(errors.method_not_allowed(pattern.callback))
urlpatterns = patterns
# ninja names its URLs in this namespace ("api:me", "api:openapi-view", ...).
app_name = namespace
