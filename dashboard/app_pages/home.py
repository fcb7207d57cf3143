"""The root URL: a first visit opens on the overview of the demo collection, keeping every view parameter of
the link."""

import streamlit as st

from dashboard import pages

params = {name: values if len(values) > 1 else values[0]
          for name in st.query_params for values in [st.query_params.get_all(name)] if values}
st.switch_page(pages.by_script("overview").path, query_params=params)
