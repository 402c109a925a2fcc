"""The browser tier: JupyterLab (and Notebook 7) in headless Chromium, driven by Playwright (tests/lab_server.py).

Every test in this directory is marked `browser` and `slow` by tests/conftest.py: `pytest -m "not slow"` leaves it
out, `pytest -m browser` runs it alone."""
