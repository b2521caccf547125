"""Changing who is signed in, in the middle of a browser test."""


def forget_session(page) -> None:
    """Leave the page, then forget its cookies: a request the page still had in flight (a
    background save, a poll) cannot then answer after the clear and set the old CSRF cookie over
    the one the next sign-in form was rendered with."""
    page.goto("about:blank")
    page.context.clear_cookies()
