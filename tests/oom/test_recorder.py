"""The always-on recorder keeps a real sampler going at its low rate, gives it back when stopped, and follows the
kernel's sampler when that one is replaced."""

from __future__ import annotations

from waiting import wait_until

from mgenv_jupyter.memory._host_source import HostSource
from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.oom._recorder import RECORDER_INTERVAL, Recorder


def test_it_samples_at_its_own_rate_with_no_batches_and_stops_the_on_demand_sampler():
    sampler = Sampler([HostSource()], on_demand=True)
    recorder = Recorder(0.05, lambda: sampler).start()
    try:
        assert recorder.recording and sampler.running and sampler.interval == 0.05
        wait_until(lambda: sampler.history.count >= 4, what="four samples")
        assert sampler.history.count >= 4
        (subscription,) = sampler.subscriptions
        assert subscription.callback is None
        recorder.interval = 0.2  # the running subscription follows
        assert sampler.interval == 0.2
    finally:
        recorder.stop()
    assert not recorder.recording and not sampler.running and sampler.subscriptions == []
    sampler.close()


def test_a_faster_consumer_sets_the_pace_and_the_recorder_adds_nothing():
    sampler = Sampler([HostSource()], on_demand=True)
    chart = sampler.subscribe(lambda batch: None, interval=0.1)
    recorder = Recorder(sampler_factory=lambda: sampler).start()
    assert RECORDER_INTERVAL == 1.0 and sampler.interval == 0.1
    chart.close()
    assert sampler.interval == RECORDER_INTERVAL and sampler.running  # the recorder alone keeps it, at 1 Hz
    recorder.stop()
    assert not sampler.running
    sampler.close()


def test_it_records_from_the_new_sampler_after_the_old_one_was_closed():
    made: list[Sampler] = []

    def factory() -> Sampler:
        made.append(Sampler([HostSource()], on_demand=True))
        return made[-1]

    recorder = Recorder(0.05, factory).start()
    made[0].close()
    assert not recorder.recording
    assert recorder.ensure() is made[1] and recorder.recording and made[1].running
    recorder.stop()
    assert recorder.ensure() is made[1] and not recorder.recording  # stopped stays stopped
    for sampler in made:
        sampler.close()
