"""Marks the adapters' text that the web app shows to users, such as a provider's label.

Adapters import nothing of Django: `gettext_noop` here only marks a string, so that the app's
translation catalogue extracts it (makemessages knows the name), and the app translates the
marked text where it shows it.
"""


def gettext_noop(message: str) -> str:
    return message
