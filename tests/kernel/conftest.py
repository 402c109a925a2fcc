"""The kernel tier: notebooks and comms in a real Jupyter kernel, through nbclient or jupyter_client.

Every test in this directory is marked `kernel` and `slow` by tests/conftest.py: `pytest -m "not slow"` leaves it
out, `pytest -m kernel` runs it alone."""
