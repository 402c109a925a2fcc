"""The allocator config against torch's own parser. torch 2.13 parses the accelerator-generic keys in
c10::CachingAllocator::AcceleratorAllocatorConfig::parseArgs, which torch._C._accelerator_setAllocatorSettings reaches
on a CPU build too (the CUDA keys' parser is not built in, so a CPU build skips them). For a corpus of strings:
whatever torch refuses we refuse, and whatever we accept torch accepts in the normalised form we write. Also: the
environment variable is read at the first use of the settings, not at import, and %envset applies it live.

torch keeps large_segment_size_mb from one call to the next (parseArgs does not reset it), and the minimum of
max_split_size_mb and max_non_split_rounding_mb is that value, so each string is tried from the default state."""

import itertools
import random

from _shell import emit, envset, shell

ip = shell()
import torch  # noqa: E402

# First, before anything reads the settings: set after import, the variable is still read at their first use.
moment = envset(ip, "--env-only PYTORCH_ALLOC_CONF=max_split_size_mb:256")
read_then = torch._C._accelerator_getAllocatorSettings()

from mgenv_jupyter.base._errors import InvalidValueError  # noqa: E402
from mgenv_jupyter.catalog._torch import ALLOCATOR_CONFIG  # noqa: E402

GENERIC = ("max_split_size_mb", "max_non_split_rounding_mb", "garbage_collection_threshold", "roundup_power2_divisions",
           "expandable_segments", "large_segment_size_mb", "pinned_use_background_threads",
           "pinned_max_round_threshold_mb", "pinned_max_cached_size_mb")
# large_segment_size_mb with the two keys whose minimum it is, in either order
PAIRS = [f"{a}:{x},{b}:{y}" for a, b in (("large_segment_size_mb", "max_split_size_mb"),
                                         ("max_non_split_rounding_mb", "large_segment_size_mb"))
         for x in ("11", "15", "20", "64") for y in ("11", "15", "20", "64")]
VALUES = ("0", "1", "2", "3", "4", "8", "10", "11", "19", "20", "21", "64", "128", "1024", "0.5", ".5", "1.0", "0.0",
          "1e-3", "0.999", "True", "False", "true", "TRUE", "abc", "", "-1", "[256:1,512:2,>:4]", "[1:2]", "[3:2]",
          "[>:3]", "[256:0]", "[]", "[64:8,256:4,1024:4,>:1]", "[256:1")


def torch_accepts(text: str) -> bool:
    torch._C._accelerator_setAllocatorSettings("large_segment_size_mb:20")  # the default, which persists otherwise
    try:
        torch._C._accelerator_setAllocatorSettings(text)
    except (ValueError, RuntimeError):
        return False
    return True


def ours(text: str):
    try:
        return ALLOCATOR_CONFIG.parse(text).text
    except InvalidValueError:
        return None


corpus = [f"{key}:{value}" for key, value in itertools.product(GENERIC, VALUES)]
rng = random.Random(11)
for _ in range(400):
    keys = rng.sample(GENERIC, rng.randint(2, 4))
    corpus.append(",".join(f"{key}:{rng.choice(VALUES)}" for key in keys))
corpus += PAIRS
corpus += ["", "max_split_size_mb:100,", " max_split_size_mb : 100 , expandable_segments : True ",
           "max_split_size_mb:100:200", "max_split_size_mb 100", ",expandable_segments:True"]

torch_refused_we_accepted = []  # must stay empty
we_accepted_torch_refused_normalised = []  # must stay empty
stricter = []  # torch accepts, we refuse: listed with the reason we refuse
counts = {"strings": len(corpus), "torch_accepts": 0, "we_accept": 0}
for text in corpus:
    accepted_by_torch = torch_accepts(text)
    normalised = ours(text)
    counts["torch_accepts"] += accepted_by_torch
    counts["we_accept"] += normalised is not None
    if normalised is not None and not torch_accepts(normalised):
        we_accepted_torch_refused_normalised.append(text)
    if not accepted_by_torch and normalised is not None and normalised == text:
        torch_refused_we_accepted.append(text)
    if accepted_by_torch and normalised is None:
        stricter.append(text)

torch._C._accelerator_setAllocatorSettings("")
live = envset(ip, "PYTORCH_ALLOC_CONF=expandable_segments:true,max_split_size_mb:128")
emit({"counts": counts, "torch_refused_we_accepted": torch_refused_we_accepted,
      "we_accepted_torch_refused_normalised": we_accepted_torch_refused_normalised, "stricter": stricter,
      "moment": moment, "read_then": read_then, "live": live,
      "settings_after_live": torch._C._accelerator_getAllocatorSettings()})
