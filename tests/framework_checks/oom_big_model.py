"""An out-of-memory error with a big model in the namespace, in a real IPython shell with the real PyTorch: the
mixture-of-experts shape of Qwen3-30B-A3B (48 layers × 128 experts × 3 `Linear`, 18,432 parameter tensors, 30
billion parameters) built on the `meta` device, which costs no memory. Beside it, a user's module whose methods and
attribute look-ups count their calls (it overrides `parameters()`, `named_parameters()`, `__getattr__` and
`__getattribute__`), and a 4-bit-style parameter subclass whose `__torch_function__` counts its calls. Then a cell's
function raises PyTorch's `OutOfMemoryError`, and `%debug` is asked to print one of that function's locals.

    python oom_big_model.py

Reports what the user saw under the failing cell (the traceback and the report), the report's holders as data, how
long the failing cell and the report took, what `%memholders` says, how often the user's code ran, what `%debug`
printed and whether `sys.last_*` are the user's error.
"""

import io
import sys
import time

from IPython.utils.capture import capture_output

from _shell import emit, shell

MODEL = """
import torch
from torch import nn

calls = {"parameters": 0, "named_parameters": 0, "__getattr__": 0, "__getattribute__": 0, "__torch_function__": 0}

class Expert(nn.Module):
    def __init__(self, hidden=2048, intermediate=768):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, intermediate, bias=False)
        self.up_proj = nn.Linear(hidden, intermediate, bias=False)
        self.down_proj = nn.Linear(intermediate, hidden, bias=False)

class MoeLayer(nn.Module):
    def __init__(self, experts=128):
        super().__init__()
        self.experts = nn.ModuleList(Expert() for _ in range(experts))

class MoeModel(nn.Module):
    def __init__(self, layers=48):
        super().__init__()
        self.layers = nn.ModuleList(MoeLayer() for _ in range(layers))

with torch.device("meta"):
    model = MoeModel()

class Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(256, 256)
    def parameters(self, recurse=True):
        calls["parameters"] += 1
        return super().parameters(recurse)
    def named_parameters(self, *args, **kwargs):
        calls["named_parameters"] += 1
        return super().named_parameters(*args, **kwargs)
    def __getattr__(self, name):
        calls["__getattr__"] += 1
        return super().__getattr__(name)
    def __getattribute__(self, name):
        calls["__getattribute__"] += 1
        return object.__getattribute__(self, name)

class Params4bit(nn.Parameter):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        calls["__torch_function__"] += 1
        return super().__torch_function__(func, types, args, kwargs or {})

counting = Counting()
quantized = nn.Linear(64, 64)
quantized.weight = Params4bit(torch.zeros(64, 64))
for name in calls:
    calls[name] = 0  # building them ran their code: the user's, not ours
"""

FAILING = """
def step():
    where_am_i = "in the user's step()"
    raise torch.OutOfMemoryError(
        "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.10 GiB "
        "is free. Including non-PyTorch memory, this process has 78.00 GiB memory in use. Of the allocated memory "
        "61.00 GiB is allocated by PyTorch, and 16.30 GiB is reserved by PyTorch but unallocated.")
step()
"""

ip = shell()
ip.display_formatter.formatters["text/html"].enabled = True  # as in a notebook: text, HTML and the renderer's data
built = ip.run_cell(MODEL, store_history=True)
assert built.error_in_exec is None, built.error_in_exec
parameters = sum(1 for _ in ip.user_ns["model"].parameters())

started = time.perf_counter()
with capture_output() as captured:
    result = ip.run_cell(FAILING, store_history=True)
cell_seconds = time.perf_counter() - started
error = result.error_in_exec

import mgenv_jupyter  # noqa: E402

report = mgenv_jupyter.last_oom()
last = {"value": sys.last_value is error, "type": sys.last_type is type(error),
        "exc": getattr(sys, "last_exc", error) is error}
tb = sys.last_traceback
while tb.tb_next is not None:
    tb = tb.tb_next
innermost = tb.tb_frame.f_code.co_name

stdin = sys.stdin
sys.stdin = io.StringIO("p where_am_i\nq\n")
try:
    with capture_output() as debugged:
        ip.run_line_magic("debug", "")
finally:
    sys.stdin = stdin

started = time.perf_counter()
holders = ip.run_line_magic("memholders", "")
holders_seconds = time.perf_counter() - started

emit({
    "parameters": parameters,
    "error": f"{type(error).__module__}.{type(error).__qualname__}",
    "shown": captured.stdout + captured.stderr,
    "displays": [output.data.get("text/plain", "") for output in captured.outputs],
    "html": [output.data.get("text/html", "") for output in captured.outputs],
    "report_holders": holders_data.to_json() if (holders_data := getattr(report, "holders", None)) else None,
    "report_took": report.took if report is not None else None,
    "cell_seconds": cell_seconds,
    "last": last,
    "innermost": innermost,
    "debugged": debugged.stdout,
    "memholders": holders.holders.to_json(),
    "memholders_shown": repr(holders),
    "memholders_seconds": holders_seconds,
    "calls": ip.user_ns["calls"],
})
