"""What one browser session holds: its collection and files (:mod:`~dashboard.session.state`), the one way user
text reaches a page (:mod:`~dashboard.session.user_text`), and the name typed by someone not signed in
(:mod:`~dashboard.session.typed_name`). Nothing here imports another part of the dashboard."""
