"""The simulated GPU: `MGENV_SIMULATE_GPU=<preset or scenario file>` runs every GPU code path without a GPU, for tests
and demos, labelled "simulated" wherever it is shown.

- `_fake_nvml.py`: a fake NVML library behind the real pynvml (the driver's C functions, answered in Python), so the
  NVML readers run their real code; the NVML tests use it directly.
- `_scenario.py`: what a simulated machine does over time (a preset or a JSON file), read field by field.
- `_simulation.py`: a running scenario driving the fake library; `from_environment()` starts the one the variable
  asks for.
- `_shared_machine.py`: one machine for a server, its kernels and (`MGENV_SIMULATE_GPU_MACHINE`) other servers of the
  host; `_host_pids.py`: its pids are the host's, as a driver's are, also for a process in a pid namespace of its own.

Nothing here is imported until the variable is set or a test asks: `ENV` is all this package's face holds, so asking
whether the variable is set costs no import of the simulation.
"""

ENV = "MGENV_SIMULATE_GPU"
