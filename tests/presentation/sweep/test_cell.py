"""A `%%envsweep` cell as text: the magic reads its line back as the values it was given."""

from __future__ import annotations

from dataclasses import replace

from mgenv_jupyter.base._shell_words import split_words
from mgenv_jupyter.base._text import Text
from mgenv_jupyter.oom._recognise import recognise
from mgenv_jupyter.oom._remedies import Remedy
from mgenv_jupyter.oom._report import build_report
from mgenv_jupyter.presentation.sweep._cell import sweep_cell, sweep_line, try_cell
from mgenv_jupyter.sweeps._grid import checked_grid, words_to_values


def read_back(cell: str, session) -> dict:
    words = [w for w in split_words(cell.splitlines()[0])[1:] if not w.startswith("--")]
    return words_to_values(words, session)


def test_commas_spaces_and_several_variables_survive_the_line(fresh_session):
    values = {"PYTORCH_CUDA_ALLOC_CONF": ["expandable_segments:True,max_split_size_mb:128",
                                         "expandable_segments:False"],
              "XLA_FLAGS": ["--xla_gpu_autotune_level=0 --xla_gpu_enable_latency_hiding_scheduler=true"],
              "FLAGS_allocator_strategy": ["auto_growth", "naive_best_fit"]}
    cell = sweep_cell(values, "train()", "en")
    assert read_back(cell, fresh_session) == values
    assert cell.endswith("train()\n")


def test_together_and_the_comment_in_the_sessions_language():
    assert sweep_line({"A": ["1", "2"], "B": ["3", "4"]}, together=True) == "%%envsweep A=1,2 B=3,4 --together"
    assert sweep_cell({"A": ["1"]}, None, "zh").splitlines()[1].startswith("# 把这一行换成要测量的代码")


def test_try_it_first_sweeps_the_failing_cell_over_the_current_setting_and_the_remedy(fresh_session):
    fresh_session.set({"FLAGS_allocator_strategy": "naive_best_fit"})
    report = build_report(recognise(MemoryError()), None, fresh_session, cell_code="train_step()\n")
    remedy = Remedy(cause=next(iter(type(report.findings[0].cause))), why=Text("w", "w"), restart=True,
                    assignments=(("FLAGS_allocator_strategy", "auto_growth"),
                                 ("FLAGS_fraction_of_gpu_memory_to_use", "0.5")))
    cell = try_cell(report, remedy, "en")
    assert cell is not None
    assert cell.splitlines()[0] == ("%%envsweep FLAGS_allocator_strategy=naive_best_fit,auto_growth "
                                    "FLAGS_fraction_of_gpu_memory_to_use=0.92,0.5 --together")
    assert cell.rstrip().endswith("train_step()")
    assert len(checked_grid(read_back(cell, fresh_session), fresh_session, zipped=True)) == 2
    assert try_cell(replace(report, cell_code=None), remedy, "en") is None
