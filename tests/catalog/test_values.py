"""Every value type with good and bad input: what is accepted, what it becomes, what the error says."""

from __future__ import annotations

import pytest

from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.catalog._values import (
    Choice,
    DeviceList,
    FileSystemPath,
    FreeText,
    Integer,
    MiB,
    Number,
    OptionalOf,
    Pattern,
    Presence,
    ReserveMemory,
    Size,
    Switch,
    format_size,
)


@pytest.mark.parametrize("raw,text,value", [
    ("1", "1", True), ("0", "0", False), ("on", "1", True), ("False", "0", False), (True, "1", True), (0, "0", False),
])
def test_switch_good(raw, text, value):
    parsed = Switch().parse(raw)
    assert (parsed.text, parsed.value) == (text, value)


def test_switch_framework_spelling_and_bad():
    assert Switch(on="true", off="false").parse("1").text == "true"
    with pytest.raises(InvalidValueError, match="1 \\(on\\) or 0 \\(off\\)"):
        Switch().parse("2")


def test_presence_zero_turns_on_and_says_how_to_turn_off():
    parsed = Presence().parse("0")
    assert parsed.value is True and "turns it ON" in parsed.notes[0] and "%envunset" in parsed.notes[0]
    assert Presence().parse("yes").notes == ()
    assert Presence(empty_is_off=True).parse("").value is False


@pytest.mark.parametrize("raw,expected", [
    ("5GB", 5 * 1024**3), ("1.5 gb", 1536 * MiB), ("512MiB", 512 * MiB), ("1048576", 1048576), (4096, 4096),
    ("2k", 2048), ("1TB", 1024**4),
])
def test_size_good(raw, expected):
    assert Size().parse(raw).value == expected


@pytest.mark.parametrize("raw", ["5G B", "GB", "-1", "1.5", "lots", True, "1e9", float("nan")])
def test_size_bad(raw):
    with pytest.raises(InvalidValueError, match="expected"):
        Size().parse(raw)


def test_size_in_megabytes_and_limits():
    assert Size(unit=MiB).parse("2GB").text == "2048"
    assert Size(unit=MiB).parse("100").text == "100"
    with pytest.raises(InvalidValueError, match="whole number of MiB"):
        Size(unit=MiB).parse("1.5MB")
    with pytest.raises(InvalidValueError):
        Size(minimum=1).parse("0")
    assert format_size(5 * 1024**3) == "5 GiB"


def test_reserve_memory_forms():
    assert ReserveMemory().parse("2GB").text == "b:2147483648"
    assert ReserveMemory().parse("b:1MB").text == "b:1048576"
    assert ReserveMemory().parse("all").text == "1"
    zero = ReserveMemory().parse("0")
    assert "does NOT turn this off" in zero.notes[0]
    with pytest.raises(InvalidValueError, match="b:<bytes>"):
        ReserveMemory().parse("plenty")


def test_enum_spelling_aliases_and_suggestions():
    levels = Choice(("0", "1", "2"), aliases=(("DEBUG", "0"),), python_type=int)
    assert levels.parse("debug").value == 0
    strategy = Choice(("auto_growth", "naive_best_fit"))
    assert strategy.parse("NAIVE_BEST_FIT").text == "naive_best_fit"
    with pytest.raises(InvalidValueError, match="did you mean 'auto_growth'"):
        strategy.parse("auto_grow")


def test_int_and_float_ranges():
    assert Integer(minimum=1).parse(" 8 ").value == 8
    for bad in ("0", "1.5", "eight", True):
        with pytest.raises(InvalidValueError):
            Integer(minimum=1).parse(bad)
    assert Number(0.0, 1.0).parse("0.92").value == 0.92
    for bad in ("1.5", "-0.1", "nan", "inf", "x"):
        with pytest.raises(InvalidValueError, match="from 0.0 to 1.0"):
            Number(0.0, 1.0).parse(bad)


def test_device_pattern():
    device = Pattern(r"([cxg]pu|rocm)(x|\d+)(:\d+)?", "a MegEngine device", ("gpu0",), lower=True)
    assert device.parse("GPU1:2").text == "gpu1:2"
    with pytest.raises(InvalidValueError, match="a MegEngine device"):
        device.parse("tpu0")


def test_path(tmp_path):
    parsed = FileSystemPath().parse(str(tmp_path / "new"))
    assert "does not exist yet" in parsed.notes[0]
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidValueError, match="expected a directory"):
        FileSystemPath().parse(str(tmp_path / "file"))
    with pytest.raises(InvalidValueError):
        FileSystemPath().parse("")


def test_device_list_and_free_text_and_optional():
    assert DeviceList().parse("0, 2").text == "0,2"
    assert DeviceList().parse("").value == []
    for bad in ("0,0", "gpu0", "1;2"):
        with pytest.raises(InvalidValueError):
            DeviceList().parse(bad)
    assert FreeText().parse(" x ").text == " x "
    with pytest.raises(InvalidValueError, match="NUL"):
        FreeText().parse("a\x00b")
    optional = OptionalOf(Integer(minimum=0))
    assert optional.parse(None).value is None and optional.parse("3").value == 3
    assert optional.describe()["optional"] is True


@pytest.mark.parametrize(("nbytes", "text"), [
    (5 * 1024**3, "5 GiB"), (3361447936, "3.13 GiB"), (40 * 1024**3, "40 GiB"), (int(37.25 * 1024**3), "37.3 GiB"),
    (1000 * 1024**2, "1000 MiB"), (1536 * 1024, "1.5 MiB"), (int(3.5 * 1024**4), "3.5 TiB"), (-2 * 1024**3, "-2 GiB"),
    (512, "512 B"),
])
def test_sizes_are_written_in_binary_units_as_the_chart_writes_them(nbytes, text):
    # The same cases as labextension/tests/chartFormat.test.ts: a line's label and the chart's axis agree.
    assert format_size(nbytes) == text


def test_what_a_value_became_is_said_in_the_language_of_the_moment():
    """%envset's note under a normalised value follows the kernel's language (a Chinese JupyterLab's, or %envlang)."""
    from mgenv_jupyter.base._text import set_language
    from mgenv_jupyter.catalog._values import GiB, Size

    size = Size()
    try:
        set_language("zh")
        assert tuple(map(str, size.parse("5GB").notes)) == ("'5GB' 已换算为 5368709120 字节(5 GiB),即框架读取的纯数字",)
        assert size.allowed() == ("字节数的整数,从 0 起,或带单位的大小,如 512 MiB 或 5 GiB(写 MB、GB 也一样,"
                                  "按 1024 换算)")  # the sidebar's "allowed"
        set_language("en")
        assert tuple(map(str, size.parse("5GB").notes)) == ("'5GB' normalised to 5368709120 bytes (5 GiB), the "
                                                            "plain number the framework reads",)
        assert size.allowed() == ("a whole number of bytes from 0, or a size with a unit such as 512 MiB or 5 GiB (MB "
                                  "and GB mean the same: 1024-based)")
    finally:
        set_language(None)
    assert size.parse("5GB").value == 5 * GiB
