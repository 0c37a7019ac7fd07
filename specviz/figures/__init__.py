"""Chart builders: plain functions, numbers in and a Vega-Lite spec (a dict) out, no Streamlit,
so that every chart the app shows can be built and checked in a test."""
