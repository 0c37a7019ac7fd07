"""Chart builders: plain functions, numbers in and a Plotly or Altair figure out (no Streamlit),
so that every chart the app shows can be built and checked in a test."""

from specviz.figures.playground import (
    acceptance_figure,
    bucket_figure,
    proof_figure,
)
from specviz.figures.style import ChartStyle

__all__ = [
    "ChartStyle",
    "acceptance_figure",
    "bucket_figure",
    "proof_figure",
]
