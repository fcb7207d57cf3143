"""The documentation site's configuration (Sphinx): ``python3 dev.py docs`` builds it into
``dashboard/static/docs/``, where the dashboard serves it.

The pages are Markdown (MyST); the Python reference is the numpydoc docstrings of the public API; the
measures page and the command-line reference are written from the code when the site is built
(``docs/_ext/``). The built site asks nothing from outside the machine: the theme's fonts and scripts ship
with it, search is Sphinx's own, and formulas are MathML written at build time (no MathJax).
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))  # the packages documented, as this checkout has them

project = "rankscope"
author = "The rankscope developers"
copyright = "the rankscope developers, MIT licence"

extensions = ["sphinx.ext.autodoc", "numpydoc", "myst_parser", "rankscope_site"]

root_doc = "index"
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_ext", "_build", "**.ipynb_checkpoints"]
templates_path: list[str] = []

myst_enable_extensions = ["attrs_block", "attrs_inline", "colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3
suppress_warnings: list[str] = []

autodoc_typehints = "signature"
autodoc_member_order = "bysource"
autodoc_class_signature = "mixed"
add_module_names = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()  # docs/_ext checks the docstrings of the public API itself
nitpicky = True  # an unresolved reference is a warning; rankscope_site lets the ones outside the API be

smartquotes = False  # "--output" stays two hyphens, quotes as typed: commands are copied from the pages

html_theme = "pydata_sphinx_theme"
html_title = "rankscope"
html_math_renderer = "mathml"
html_static_path = ["_static"]
html_css_files = ["rankscope.css"]
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 5,
    "footer_start": ["copyright"],
    "footer_end": [],
    "secondary_sidebar_items": ["page-toc"],
}
