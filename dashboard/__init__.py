"""rankscope's Streamlit dashboard: pages over the ``metrics`` package (``rankscope dashboard``)."""
