"""The local journal of the orders made or looked up from this desk: only their ids (never card
data), in the user's data folder, so a gateway without the order list extension still shows
them. Newest first, bounded."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

log = logging.getLogger("partner_desk.orders")

MAX_IDS = 10_000


class OrderJournal:
    def __init__(self, path: Path) -> None:
        self.path = path

    def ids(self) -> list[str]:
        """The ids, newest first (an unreadable journal is empty, and said in the log)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.warning("The order journal %s cannot be read: %s", self.path, exc)
            return []
        if not isinstance(data, list):
            return []
        return [item for item in data if isinstance(item, str) and 0 < len(item) <= 64][:MAX_IDS]

    def remember(self, order_id: str) -> None:
        ids = [order_id, *(known for known in self.ids() if known != order_id)][:MAX_IDS]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".tmp")
        partial.write_text(json.dumps(ids), encoding="utf-8")
        os.replace(partial, self.path)  # whole or not at all
