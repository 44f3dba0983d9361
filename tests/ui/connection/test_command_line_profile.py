"""`partner-desk --base-url URL [--gateway-url URL] [--profile NAME]`: the profile the window
opens with, saved, and every mistake named by its option before any window shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from app.api.errors import InvalidInput
from app.ui.connection.profiles import SANDBOX, ProfileStore, ServerProfile
from app.ui.connection.profiles import chosen_on_the_command_line as chosen

EXE = str(Path(sys.executable).with_name("partner-desk"))


@pytest.fixture
def store(settings: QSettings) -> ProfileStore:
    return ProfileStore(settings)


def test_a_base_url_makes_a_profile_named_after_its_host(store):
    profile = chosen(store, "https://api.bank.example/v1", None, None)
    assert (profile.name, profile.base_url) == ("api.bank.example", "https://api.bank.example/v1")
    assert store.get("api.bank.example") == profile  # saved: its sign-in is remembered


def test_a_saved_profile_keeps_its_user_and_takes_the_new_addresses(store):
    store.save(ServerProfile("Bank test", "https://old.example", "PC-7", "anna"))
    profile = chosen(store, "https://new.example", "https://pay.example/gateway", "Bank test")
    assert (profile.user, profile.partner_code) == ("anna", "PC-7")
    assert (profile.base_url, profile.gateway_url) == (
        "https://new.example",
        "https://pay.example/gateway",
    )
    assert chosen(store, None, None, "Bank test") == profile
    assert chosen(store, None, None, SANDBOX).is_sandbox


@pytest.mark.parametrize(
    ("base_url", "gateway_url", "name", "field", "problem"),
    [
        (None, None, "Nobody", "--profile", "no profile is named 'Nobody' (saved: Embedded"),
        (None, "https://pay.example", None, "--gateway-url", "goes with --base-url"),
        ("http://bank.example", None, None, "--base-url", "use https"),
        ("https://bank.example", "ftp://pay", None, "--gateway-url", ""),
        ("https://bank.example", None, SANDBOX, "--profile", "has no base URL of its own"),
    ],
)
def test_a_mistake_is_named_by_its_option_and_nothing_is_saved(
    store, base_url, gateway_url, name, field, problem
):
    with pytest.raises(InvalidInput) as refused:
        chosen(store, base_url, gateway_url, name)
    assert refused.value.field == field and problem in refused.value.problem
    assert store.names() == [SANDBOX]


def test_the_command_refuses_a_bad_address_before_any_window(tmp_path):
    home = tmp_path / "home"
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    result = subprocess.run(
        [EXE, "--base-url", "http://bank.example"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("partner-desk: --base-url: use https")


def test_the_window_opens_on_the_profile_the_command_line_chose(qloop, settings, open_window):
    store = ProfileStore(settings)
    store.last = chosen(store, "https://api.bank.example", None, None).name
    window = open_window("http://unused", connect=True)
    assert window.connection_label.text() == "api.bank.example: sign in to connect"
    dialog = window.sign_in_dialog
    assert dialog is not None and dialog.profile.currentText() == "api.bank.example"
    assert dialog.base_url.text() == "https://api.bank.example"
    assert dialog.user.hasFocus() or dialog.focusWidget() is dialog.user  # what is left to type
    dialog.reject()
