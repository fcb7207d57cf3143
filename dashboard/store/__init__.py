"""The dashboard's side of the workspace: the store of this server process as a session uses it
(:mod:`~dashboard.store.opened`), the session's collection kept in step with the stored one
(:mod:`~dashboard.store.sync`), files parsed once per server process and run tables kept
(:mod:`~dashboard.store.parsed`), and review notes (:mod:`~dashboard.store.review_notes`). No other part of
the dashboard opens the workspace."""
