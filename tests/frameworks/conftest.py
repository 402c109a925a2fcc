"""The frameworks tier: MegEngine, Paddle, MXNet, PyTorch, JAX and TensorFlow themselves, each in its own venv under
.venvs/ (scenarios in tests/framework_checks/, run by tests/framework_venvs.py).

Every test in this directory is marked `frameworks` and `slow` by tests/conftest.py: `pytest -m "not slow"` leaves
it out, `pytest -m frameworks` runs it alone."""
