"""Stored error messages, written in English by the adapters and by collection, read in Japanese:
the messages come from the real code paths (an httpx mock transport stands in for the network),
so a reworded adapter message shows up here rather than silently staying English."""

import httpx
import pytest
from django.utils import translation
from django.utils.translation import gettext

import adapters
from adapters.base import CompletionRequest
from probe.provider_messages import translate_message


def _error(adapter_name: str, handler=None, **request) -> str:
    adapter = adapters.get_adapter(adapter_name)
    client = httpx.Client(transport=httpx.MockTransport(handler or (lambda r: httpx.Response(200))))
    fields = {"model": "m", "prompt": "p", "base_url": "http://127.0.0.1:9/v1", "api_key": "k"}
    with pytest.raises(adapters.AdapterError) as caught:
        adapter.complete(CompletionRequest(**{**fields, **request}), client=client)
    return caught.value.message


def _raise(exc):
    def handler(request):
        raise exc

    return handler


def _cases():
    return [
        (_error("openai_chat", base_url="ftp://example.org"), "ホスト名を含む必要があります"),
        (
            _error("openai_chat", base_url="https://u:p@example.org/v1"),
            "認証情報を含めてはいけません",
        ),
        (
            _error("openai_chat", base_url="https://api.openai.com/v1", api_key=None),
            "API キーが渡されていません",
        ),
        (
            _error("openai_chat", _raise(httpx.ConnectError("refused"))),
            "に接続できませんでした：refused",
        ),
        (_error("openai_chat", _raise(httpx.ConnectTimeout("slow"))), "接続のタイムアウト"),
        (_error("openai_chat", _raise(httpx.ReadTimeout("slow"))), "読み取りのタイムアウト"),
        (
            _error(
                "openai_chat",
                lambda r: httpx.Response(
                    429,
                    json={
                        "error": {
                            "message": "You exceeded your current quota.",
                            "code": "insufficient_quota",
                        }
                    },
                    headers={"x-request-id": "req_42"},
                ),
            ),
            "リクエスト ID req_42",
        ),
        (
            _error("openai_chat", lambda r: httpx.Response(500, text="")),
            "サーバーの応答本文が空でした",
        ),
        (
            _error("openai_chat", lambda r: httpx.Response(200, text="<html>")),
            "JSON オブジェクトではなく",
        ),
        (_error("manual"), "手動の実行には呼び出す API がありません"),
    ]


def test_adapter_messages_read_in_japanese():
    for message, japanese in _cases():
        with translation.override("ja"):
            shown = translate_message(message)
        assert japanese in shown, (message, shown)
        with translation.override("en"):
            assert translate_message(message) == message  # English shows exactly what was stored


def test_what_collection_adds_reads_in_japanese_around_the_adapters_words():
    with translation.override("en"):
        gave_up = gettext("(Gave up after %(n)d attempts.)") % {"n": 4}
        base = _error("openai_chat", _raise(httpx.ConnectTimeout("slow")))
        stored = gettext("Item %(n)s: %(message)s") % {"n": 3, "message": f"{base} {gave_up}"}
    with translation.override("ja"):
        shown = translate_message(stored)
    assert shown.startswith("設問 3：openai_chat：127.0.0.1:9 との通信で 接続のタイムアウト")
    assert shown.endswith("（4 回試行して断念しました。）")


def test_the_environment_variable_messages():
    for name, environ in (("", {}), ("MY_KEY", {})):
        with pytest.raises(adapters.MissingAPIKeyError) as caught:
            adapters.api_key_from_env(name, environ)
        with translation.override("ja"):
            shown = translate_message(caught.value.message)
        assert "環境変数" in shown and "API" in shown, shown
        assert "environment variable" not in shown


def test_unknown_text_is_kept_as_it_is():
    with translation.override("ja"):
        assert translate_message("The provider said something new.") == (
            "The provider said something new."
        )
        assert translate_message("") == ""


@pytest.mark.django_db
def test_a_failed_run_reads_in_japanese_on_its_page(world, client):
    run = world.runs[0]
    with translation.override("en"):
        gave_up = gettext("(Gave up after %(n)d attempts.)") % {"n": 2}
    run.status = run.Status.FAILED
    run.error_message = "openai_chat: could not reach api.example.org: refused " + gave_up
    run.save()
    client.force_login(world.users["owner"])
    url = f"/runs/{run.pk}/"
    ja = client.get(url, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert (
        "openai_chat：api.example.org に接続できませんでした：refused （2 回試行して断念しました。）"
        in ja
    )
