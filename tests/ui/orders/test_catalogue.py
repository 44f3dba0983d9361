"""One table for each fact of an order: every status the gateway names has its words (the
same in the list, the detail and a reason), every action its button, rule and request."""

import typing

from app.api.gateway.fields import OrderStatus
from app.ui.orders.catalogue import STATUSES, status
from app.ui.orders.rules import ACTIONS, Action


def test_every_status_has_one_title_used_as_words_in_a_sentence():
    assert set(STATUSES) == set(typing.get_args(OrderStatus))
    assert status("partially_refunded").title == "Partly refunded"
    assert status("partially_refunded").words == "partly refunded"
    assert status("pending_3ds").words == "waiting for 3DS"
    unknown = status("on_hold_for_review")  # a status the gateway may add: shown as sent
    assert (unknown.title, unknown.words) == ("on_hold_for_review", "on_hold_for_review")


def test_every_action_has_its_button_rule_confirmation_and_request():
    assert list(ACTIONS) == list(typing.get_args(Action))
    for name, action in ACTIONS.items():
        assert action.label.endswith("…") and action.title.endswith("?"), name
        assert (action.send is None) == (name == "pay")  # the card entry sends the card
