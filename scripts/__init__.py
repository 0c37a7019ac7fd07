"""Command-line tools that work on the running app or its output (``python -m scripts.<name>``)."""
