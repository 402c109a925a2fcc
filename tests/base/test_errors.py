"""The exceptions and warnings users see (base/_errors.py): bad input raises InvalidValueError from every layer, and
each warning is its own category, so a user can silence one without the others."""

from __future__ import annotations

import os
import warnings

import pytest

import mgenv_jupyter
from mgenv_jupyter.base._errors import AlreadyReadWarning, CodeLoadingWarning, EnvironmentSizeWarning, InvalidValueError
from mgenv_jupyter.base._text import set_language
from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.protocol import checked_interval

WARNINGS = (AlreadyReadWarning, CodeLoadingWarning, EnvironmentSizeWarning)


def test_bad_input_is_refused_with_invalid_value_error_by_every_layer(fresh_session):
    device = catalog().get("MGE_DEFAULT_DEVICE")
    assert device is not None
    refusals = [
        lambda: device.type.parse("tpu0"),  # a value type
        lambda: catalog().select(framework="caffe"),  # the catalog
        lambda: fresh_session.set({"MGE_DEFAULT_DEVICE": "tpu0"}),  # the kernel's session
        lambda: set_language("fr"),  # the language setting
        lambda: checked_interval(0),  # the wire schema
    ]
    for refuse in refusals:
        with pytest.raises(InvalidValueError):
            refuse()
    assert "MGE_DEFAULT_DEVICE" not in os.environ


def test_code_written_for_value_errors_catches_a_refused_value(fresh_session):
    with pytest.raises(ValueError, match="tpu0"):
        fresh_session.set({"MGE_DEFAULT_DEVICE": "tpu0"})


def test_the_package_exports_the_exceptions_users_catch():
    assert mgenv_jupyter.InvalidValueError is InvalidValueError
    assert mgenv_jupyter.AlreadyReadWarning is AlreadyReadWarning


@pytest.mark.parametrize("category", WARNINGS, ids=lambda c: c.__name__)
def test_each_warning_is_a_user_warning_of_its_own(category):
    assert issubclass(category, UserWarning)
    others = [other for other in WARNINGS if other is not category]
    assert not [other for other in others if issubclass(category, other) or issubclass(other, category)]


def test_silencing_code_loading_warnings_still_sets_the_variable(fresh_session):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=CodeLoadingWarning)
        fresh_session.set({"PYTHONPATH": "/opt/mine"})
    assert caught == [] and os.environ["PYTHONPATH"] == "/opt/mine"
    with pytest.warns(CodeLoadingWarning, match="PYTHONPATH"):
        fresh_session.set({"PYTHONPATH": "/opt/other"})
