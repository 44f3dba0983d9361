"""The webhook receiver: signature, delivery checks, the durable store (SQLite or
PostgreSQL) and the HTTP app. No Qt."""
