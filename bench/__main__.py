"""`python -m bench` runs every benchmark; `python -m bench NAME` runs the one(s) named.
Each figure is printed as one JSON object per line: {"name": ..., "value": ..., "unit": ...}.
The benchmarks, and the desks they start, run in a home of their own: the user's settings,
data and keyring are never touched."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from app.testing.isolation import separate_home
from bench import fee, startup, statement, webhooks

BENCHMARKS: dict[str, Callable[[], list[dict[str, object]]]] = {
    "startup_ratio": startup.run,
    "statement_100k": statement.run_100k,
    "statement_1m": statement.run_1m,
    "fee_visible": fee.run,
    "webhooks": webhooks.run,
    "webhooks_outage": webhooks.run_outage,
}
# each figure's name leads to the benchmark that measures it
ALIASES = {
    "statement_100k_shown_s": "statement_100k",
    "statement_100k_max_stall_ms": "statement_100k",
    "statement_100k_peak_rss_mb": "statement_100k",
    "startup_usable_ratio": "startup_ratio",
    "startup_usable_s": "startup_ratio",
    "startup_app_s": "startup_ratio",
    "startup_bare_s": "startup_ratio",
    "statement_1m_shown_s": "statement_1m",
    "statement_1m_max_stall_ms": "statement_1m",
    "statement_1m_peak_rss_mb": "statement_1m",
    "statement_1m_ratio_to_reader": "statement_1m",
    "statement_1m_ratio_to_curl": "statement_1m",
    "statement_1m_sort_ratio_to_sorted": "statement_1m",
    "statement_1m_search_ratio_to_scan": "statement_1m",
    "statement_1m_export_ratio_to_csv": "statement_1m",
    "fee_visible_p50_ms": "fee_visible",
    "webhook_ratio_to_floor": "webhooks",
    "webhook_ratio_to_floor_pg": "webhooks",
    "webhook_events_per_s": "webhooks",
    "webhook_ack_p99_ms": "webhooks",
    "webhook_outage_lost": "webhooks_outage",
}


def main(names: list[str]) -> int:
    chosen = [ALIASES.get(name, name) for name in names] or list(BENCHMARKS)
    unknown = [name for name in chosen if name not in BENCHMARKS]
    if unknown:
        known = ", ".join([*BENCHMARKS, *ALIASES])
        print(f"unknown benchmark {', '.join(unknown)}; known: {known}", file=sys.stderr)
        return 2
    with separate_home("partner-desk-bench-"):
        for name in dict.fromkeys(chosen):
            for figure in BENCHMARKS[name]():
                if not names or figure["name"] in names or name in names:
                    print(json.dumps(figure), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
