"""The only Streamlit code outside the pages: page setup, the menu, projector mode and the shared
state that travels between pages and in share links."""
