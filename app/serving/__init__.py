"""The server plumbing the embedded sandbox and the webhook receiver share: the guarded
socket and connection (guard), running a server in the foreground or on a thread of its own
(runner), a request body read within a size and a time (body), JSON read strictly (strict_json).
It knows no service and no route."""
