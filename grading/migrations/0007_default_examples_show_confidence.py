"""The default grading prompts' calibration examples show all three lines the instructions ask
for (LABEL, CONFIDENCE, REASON): the first defaults showed LABEL and REASON only, so a model
copying them stated no confidence and could never pass a routing cut.

A version is never edited: a team whose newest default version is still the first default,
untouched (its hash is that default's), gets the next version with the new examples, the old
one as its parent; graders keep the version they were made with. A team that wrote its own
version keeps it.
"""

from django.db import migrations

NOTE = "Calibration examples show the CONFIDENCE line the instructions ask for."
NAME = {"en": "Default grader", "ja": "標準の採点"}
# The calibration examples of the first defaults, as they were hashed.
FIRST = {
    "en": [
        {
            "question": "Which Python version added the match statement?",
            "key": "3.10",
            "answer_format": "a version number",
            "answer": "3.1",
            "confidence": "HIGH",
            "label": "INCORRECT",
            "reason": "3.1 is a different version from 3.10.",
        },
        {
            "question": "Which HTTP header tells a client when to retry?",
            "key": "Retry-After",
            "answer_format": "a header name",
            "answer": "the retry-after header",
            "confidence": "MEDIUM",
            "label": "CORRECT",
            "reason": "Names the Retry-After header; case and wording differ only.",
        },
    ],
    "ja": [
        {
            "question": "match 文が追加された Python のバージョンは？",
            "key": "3.10",
            "answer_format": "バージョン番号",
            "answer": "3.1",
            "confidence": "HIGH",
            "label": "INCORRECT",
            "reason": "3.1 は 3.10 とは別のバージョンです。",
        },
        {
            "question": "クライアントに再試行の時期を伝える HTTP ヘッダーは？",
            "key": "Retry-After",
            "answer_format": "ヘッダー名",
            "answer": "retry-after ヘッダー",
            "confidence": "MEDIUM",
            "label": "CORRECT",
            "reason": "Retry-After ヘッダーを挙げており、違いは大文字小文字と言い回しだけです。",
        },
    ],
}
CONFIDENCES = ("0.95", "0.9")


def next_default_versions(apps, schema_editor):
    from grading import texts
    from probe.services.prompts import normalise_text

    GradingPrompt = apps.get_model("grading", "GradingPrompt")
    for language, first in FIRST.items():
        text = normalise_text(texts.DEFAULT_TEXT[language])
        first_hash = texts.content_hash(text, first)
        examples = [
            {**{f: "" for f in texts.EXAMPLE_FIELDS}, **example, "label_confidence": confidence}
            for example, confidence in zip(first, CONFIDENCES, strict=True)
        ]
        new_hash = texts.content_hash(text, examples)
        newest = {}
        for prompt in GradingPrompt.objects.filter(name=NAME[language]).order_by("version"):
            newest[prompt.team_id] = prompt
        for prompt in newest.values():
            if prompt.content_hash != first_hash or prompt.text != text:
                continue
            GradingPrompt.objects.create(
                team_id=prompt.team_id,
                name=prompt.name,
                version=prompt.version + 1,
                language=prompt.language,
                text=text,
                examples=examples,
                content_hash=new_hash,
                parent=prompt,
                note=NOTE,
            )


class Migration(migrations.Migration):
    dependencies = [("grading", "0006_routedanswer_returned")]

    operations = [migrations.RunPython(next_default_versions, migrations.RunPython.noop)]
