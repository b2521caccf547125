"""runapp refuses a web address already in use before it starts any child process."""

import socket

import pytest
from django.core.management import CommandError, call_command


def test_runapp_refuses_a_taken_port_before_starting_children():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(CommandError, match="already in use"):
            call_command("runapp", f"127.0.0.1:{port}", no_simulator=True)
