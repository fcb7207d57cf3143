"""The root URL: a first visit opens on the overview of the demo collection, keeping every view parameter of
the link."""

import streamlit as st

params = {name: values if len(values) > 1 else values[0]
          for name in st.query_params for values in [st.query_params.get_all(name)] if values}
st.switch_page("app_pages/overview.py", query_params=params)
