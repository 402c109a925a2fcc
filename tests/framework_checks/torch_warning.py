"""The headline warning with real PyTorch: `import torch`, then `%envset TORCH_SHOW_CPP_STACKTRACES=1` in a cell of a
real IPython shell. What the user sees on stderr points at their own cell line, never at our source; the warning stays
an ordinary AlreadyReadWarning that a filter silences and a catcher records; and the line it says to run in a new
kernel, run before `import torch` in a fresh process, is what torch then reads."""

import contextlib
import io
import os
import subprocess
import sys
import warnings

from _shell import emit, shell

ip = shell()
ip.run_cell("import torch")
try:  # what the user wanted: C++ stack traces in torch's errors; this torch read the variable unset at import
    torch_error = ip.run_cell("torch.ones(2).view(3)").error_in_exec
    had_stack_before = "Exception raised from" in str(torch_error)
except Exception:  # noqa: BLE001
    had_stack_before = None

shown = io.StringIO()
with contextlib.redirect_stderr(shown):
    ip.run_cell("x = 1\n%envset TORCH_SHOW_CPP_STACKTRACES=1", store_history=True)  # a numbered cell, as in a notebook

from mgenv_jupyter import AlreadyReadWarning  # noqa: E402

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    ip.run_cell("%envset TORCH_SHOW_CPP_STACKTRACES=0")
recorded = [{"category": w.category.__name__, "is_already_read": issubclass(w.category, AlreadyReadWarning),
             "filename": w.filename, "lineno": w.lineno} for w in caught]

silenced = io.StringIO()
with contextlib.redirect_stderr(silenced), warnings.catch_warnings():
    warnings.filterwarnings("ignore", category=AlreadyReadWarning)
    ip.run_cell("%envset TORCH_SHOW_CPP_STACKTRACES=1")

# The way out, followed as written: a new process (a restarted kernel) runs the line before `import torch`.
text = shown.getvalue()
advice = text.split("run `%load_ext mgenv_jupyter` and `", 1)[1].split("` before torch is imported", 1)[0]
new_kernel = ("from IPython.core.interactiveshell import InteractiveShell\n"
              "ip = InteractiveShell.instance()\n"
              "ip.run_line_magic('load_ext', 'mgenv_jupyter')\n"
              f"ip.run_cell({advice!r})\n"
              "import torch\n"
              "try:\n"
              "    torch.ones(2).view(3)\n"
              "except RuntimeError as error:\n"
              "    print('C++ STACK', 'Exception raised from' in str(error))\n")
# Without symbolizing the stack (addr2line can take minutes): torch's own switch for that.
env = {k: v for k, v in os.environ.items() if k != "TORCH_SHOW_CPP_STACKTRACES"} | {"TORCH_DISABLE_ADDR2LINE": "1"}
done = subprocess.run([sys.executable, "-c", new_kernel], capture_output=True, text=True, env=env, timeout=300)

emit({"had_stack_before": had_stack_before, "shown": text, "recorded": recorded, "silenced": silenced.getvalue(),
      "advice": advice,
      "new_kernel": done.stdout.strip().splitlines()[-1:] if done.returncode == 0 else done.stderr[-2000:],
      "new_kernel_warned": "AlreadyReadWarning" in done.stderr})
