"""Launcher exports, each read back by its consumer: the torchrun, mpirun and Slurm lines run by real bash and dash
(with a stand-in launcher on PATH that records its arguments and environment) and split by shlex; `.deepspeed_env` read
the way DeepSpeed's runner reads it and then run through the remote shell command its pdsh launcher builds; the
Kubernetes env list loaded with yaml.safe_load and expanded the way Kubernetes expands `$(NAME)`; Ray's runtime_env
as JSON. Hostile values arrive exactly and run nothing; secrets never appear; code-loading variables stay out unless
named; only what the session changed is carried."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mgenv_jupyter.base._errors import CodeLoadingWarning, InvalidValueError
from mgenv_jupyter.runtime import EnvSession
from mgenv_jupyter.runtime import _launchers as launchers

SHELLS = ("bash", "dash")
CANARY = "CANARY"
HOSTILE = [
    f"$(touch {CANARY})", f"`touch {CANARY}`", f"; touch {CANARY}", f"a\nb; touch {CANARY}", f"' ; touch {CANARY}; '",
    f'" ; touch {CANARY}; "', "$HOME", "${HOME}", "$(HOME)", "$$(HOME)", "\\", "a\\", "-x", "--export=NONE", "a,b=c",
    "#not a comment", "$", "$$", "$(V0)", "é 中文", "tab\there", "!event", "*", "~", "a=b", "x|y&z>w<v",
    "\u2028", "\x85",
]
SECRET_VALUE = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2"  # shaped like a GitHub token: a secret by its value
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
values = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12)


def session_with(values: dict[str, str], start: dict[str, str] | None = None) -> EnvSession:
    """A session (with its own environment) whose changes through the API are `values`."""
    session = EnvSession(environ=dict(start or {}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session.set(values, force=True)
    return session


def stand_in(directory: Path, name: str) -> None:
    """An executable `name` on PATH that records its arguments and environment as JSON into $RECORD."""
    path = directory / name
    path.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                    "json.dump({'argv': sys.argv[1:], 'environ': dict(os.environ)}, open(os.environ['RECORD'], 'w'))\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def run_line(shell: str, text: str, launcher: str, tmp_path: Path) -> dict:
    """Run an export's text (comments and the command line) in a real shell, with `launcher` standing in."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    stand_in(bin_dir, launcher)
    record = tmp_path / "record.json"
    record.unlink(missing_ok=True)
    workdir = tmp_path / "work"
    workdir.mkdir(exist_ok=True)
    done = subprocess.run([shell, "-c", text], cwd=workdir, capture_output=True, timeout=30,
                          env={"PATH": f"{bin_dir}:{os.environ['PATH']}", "RECORD": str(record), "HOME": "/home/x",
                               "STARTED_WITH": "yes"})
    assert done.returncode == 0, done.stderr
    assert not (workdir / CANARY).exists(), f"{shell} ran something from the export"
    return json.loads(record.read_text())


def env_assignments(words: list[str]) -> dict[str, str]:
    return dict(word.split("=", 1) for word in words if "=" in word)


def slurm_environment(argv: list[str], environ: dict[str, str]) -> dict[str, str]:
    """What srun's --export gives the job: the list split at commas, NAME=VALUE set, a bare NAME from srun's own
    environment (ALL: everything else too)."""
    export = next(arg for arg in argv if arg.startswith("--export="))[len("--export="):]
    result = dict(environ) if "ALL" in export.split(",") else {}
    for item in export.split(","):
        name, sep, value = item.partition("=")
        if item != "ALL":
            result[name] = value if sep else environ[name]
    return result


def deepspeed_reads(path: Path) -> dict[str, str]:
    """DeepSpeed's runner reading .deepspeed_env (deepspeed/launcher/runner.py, main(), and MultiNodeRunner.add_export
    in multinode_runner.py, at microsoft/DeepSpeed 38327e07f6cd), rewritten line for line."""
    exports = {}
    with open(path) as fd:
        for var in fd.readlines():
            key, val = var.split("=", maxsplit=1)
            exports[key.strip()] = f'"{val.strip()}"'
    return exports


def pdsh_command(exports: dict[str, str]) -> str:
    """The exports part of the command PDSHRunner.get_cmd hands to pdsh for each node's shell."""
    return "".join(f"export {key}={val}; " for key, val in exports.items())


def kubernetes_expand(text: str, variables: dict[str, str]) -> str:
    """Kubernetes' expansion of `$(NAME)` in an env value (third_party/forked/golang/expansion/expand.go), over bytes
    as Go does: `$$` is `$`, `$(NAME)` is NAME's value (kept as written when unknown), any other `$x` stays."""
    data = text.encode()
    out = bytearray()
    checkpoint = cursor = 0
    while cursor < len(data):
        if data[cursor] == ord("$") and cursor + 1 < len(data):
            out += data[checkpoint:cursor]
            rest = data[cursor + 1:]
            if rest[0] == ord("$"):
                read, is_var, advance = b"$", False, 1
            elif rest[0] == ord("("):
                closer = rest.find(b")", 1)
                read, is_var, advance = (rest[1:closer], True, closer + 1) if closer > 0 else (b"$(", False, 1)
            else:
                read, is_var, advance = b"$" + chr(rest[0]).encode(), False, 1
            if is_var:
                name = read.decode()
                out += variables[name].encode() if name in variables else b"$(" + read + b")"
            else:
                out += read
            cursor += advance
            checkpoint = cursor + 1
        cursor += 1
    return (bytes(out) + data[checkpoint:]).decode()


def k8s_environment(text: str) -> dict[str, str]:
    document = yaml.safe_load(text)
    known: dict[str, str] = {}
    for item in document["env"]:  # each value may refer to the ones before it
        known[item["name"]] = kubernetes_expand(item["value"], known)
    return known


HOSTILE_VALUES = {f"V{i}": value for i, value in enumerate(HOSTILE)}


# ---- each format through its consumer ------------------------------------------------------------------------------

@pytest.mark.parametrize("shell", SHELLS)
def test_torchrun_line_gives_torchrun_every_value_exactly_and_runs_nothing(shell: str, tmp_path: Path):
    session = session_with(HOSTILE_VALUES, start={"GONE": "x"})
    session.unset(["GONE"])
    text = launchers.export(session, "torchrun").text
    record = run_line(shell, text, "torchrun", tmp_path)
    assert {name: record["environ"].get(name) for name in HOSTILE_VALUES} == HOSTILE_VALUES
    assert "GONE" not in record["environ"] and record["argv"] == []
    words = shlex.split(text, comments=True)
    assert words[0] == "env" and words[-1] == "torchrun" and env_assignments(words[3:-1]) == HOSTILE_VALUES


@pytest.mark.parametrize("shell", SHELLS)
def test_mpirun_line_passes_each_value_as_one_x_argument(shell: str, tmp_path: Path):
    exported = launchers.export(session_with(HOSTILE_VALUES), "mpirun")
    record = run_line(shell, exported.text, "mpirun", tmp_path)
    argv = record["argv"]
    assert argv[0::2] == ["-x"] * len(HOSTILE_VALUES)
    assert dict(arg.split("=", 1) for arg in argv[1::2]) == HOSTILE_VALUES
    assert shlex.split(exported.text, comments=True)[1:] == argv


@pytest.mark.parametrize("shell", SHELLS)
def test_slurm_line_gives_the_job_every_value_exactly(shell: str, tmp_path: Path):
    session = session_with({**HOSTILE_VALUES, "PLAIN": "5368709120"}, start={"GONE": "x"})
    session.unset(["GONE"])
    text = launchers.export(session, "slurm").text
    record = run_line(shell, text, "srun", tmp_path)
    job = slurm_environment(record["argv"], record["environ"])
    assert {name: job.get(name) for name in HOSTILE_VALUES} == HOSTILE_VALUES
    assert "GONE" not in job and job["STARTED_WITH"] == "yes"
    assert "PLAIN=5368709120" in record["argv"][0].split(",")  # plain values stay in --export=ALL,NAME=VALUE


def test_slurm_line_is_srun_alone_with_plain_values():
    text = launchers.export(session_with({"A": "1", "B": "x.y:z"}), "slurm").text
    assert text == "srun --export=ALL,A=1,B=x.y:z\n"


@pytest.mark.parametrize("shell", SHELLS)
def test_deepspeed_env_reads_back_through_deepspeeds_runner_and_pdsh_shell(shell: str, tmp_path: Path):
    exported = launchers.export(session_with(HOSTILE_VALUES), "deepspeed")
    path = tmp_path / ".deepspeed_env"
    path.write_text(exported.text)
    exports = deepspeed_reads(path)
    carried = {n: v for n, v in HOSTILE_VALUES.items() if launchers.why_not_deepspeed(v) is None}
    assert set(exports) == set(carried) and set(exported.left_out) == set(HOSTILE_VALUES) - set(carried)
    dump = "import json, os; print(json.dumps(dict(os.environ)))"
    command = pdsh_command(exports) + f"exec {shlex.quote(sys.executable)} -c {shlex.quote(dump)}"
    workdir = tmp_path / "work"
    workdir.mkdir()
    done = subprocess.run([shell, "-c", command], cwd=workdir, capture_output=True, text=True, timeout=30,
                          env={"PATH": os.environ["PATH"], "HOME": "/home/x"})
    assert done.returncode == 0, done.stderr
    assert not (workdir / CANARY).exists()
    environ = json.loads(done.stdout)
    assert {name: environ.get(name) for name in carried} == carried


def test_deepspeed_env_leaves_out_what_the_runner_would_change_and_has_no_comments():
    exported = launchers.export(session_with({"NL": "a\nb", "CR": "a\rb", "PAD": " x", "END": "x\t", "OK": "a b"}),
                                "deepspeed")
    assert exported.text == "OK=a b\n"
    assert set(exported.left_out) == {"NL", "CR", "PAD", "END"}
    assert "line break" in exported.left_out["NL"] and "white space" in exported.left_out["PAD"]


def test_k8s_env_list_loads_with_safe_load_and_survives_kubernetes_expansion():
    exported = launchers.export(session_with(HOSTILE_VALUES), "k8s")
    assert k8s_environment(exported.text) == HOSTILE_VALUES
    # Without the doubled $, Kubernetes would have put HOME's value in place of $(HOME):
    assert kubernetes_expand("$(HOME)", {"HOME": "/root"}) == "/root"
    assert kubernetes_expand("$$(HOME)", {"HOME": "/root"}) == "$(HOME)"


def test_k8s_env_list_is_empty_list_without_variables():
    assert yaml.safe_load(launchers.export(EnvSession(environ={}), "k8s").text) == {"env": []}


def test_ray_runtime_env_json_leaves_out_what_ray_would_expand():
    exported = launchers.export(session_with(HOSTILE_VALUES), "ray")
    env_vars = json.loads(exported.text)["env_vars"]
    expanded = {name for name, value in HOSTILE_VALUES.items() if launchers._RAY_REFERENCE.search(value)}
    assert expanded == {"V6", "V7"}  # $HOME and ${HOME}; $(HOME), $$ and a lone $ are kept (checked with real Ray)
    assert env_vars == {n: v for n, v in HOSTILE_VALUES.items() if n not in expanded}
    assert set(exported.left_out) == expanded


# ---- what is carried -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", launchers.FORMATS)
def test_secrets_never_appear_in_any_format(fmt: str):
    session = session_with({"MY_API_KEY": "abc123", "INNOCENT": SECRET_VALUE, "PLAIN": "1"})
    exported = launchers.export(session, fmt)
    assert "abc123" not in exported.text and SECRET_VALUE not in exported.text
    assert set(exported.left_out) == {"MY_API_KEY", "INNOCENT"}
    assert all("secret" in why for why in exported.left_out.values())
    asked = launchers.export(session, fmt, include=["MY_API_KEY"])  # naming a secret does not put it in a file
    assert "abc123" not in asked.text


@pytest.mark.parametrize("fmt", launchers.FORMATS)
def test_code_loading_variables_are_carried_only_when_named(fmt: str):
    session = EnvSession(environ={})
    with pytest.warns(CodeLoadingWarning):
        session.set({"LD_PRELOAD": "/tmp/evil.so", "PYTHONPATH": "/tmp/mods"})
    exported = launchers.export(session, fmt)
    assert "/tmp/evil.so" not in exported.text and "/tmp/mods" not in exported.text
    assert set(exported.left_out) == {"LD_PRELOAD", "PYTHONPATH"}
    assert "dynamic loader" in exported.left_out["LD_PRELOAD"] and "by name" in exported.left_out["LD_PRELOAD"]
    named = launchers.export(session, fmt, include=["PYTHONPATH"])
    assert "/tmp/mods" in named.text and "/tmp/evil.so" not in named.text


@pytest.mark.parametrize("fmt", ["torchrun", "mpirun", "slurm", "k8s"])
def test_left_out_variables_are_named_in_comments_without_their_values(fmt: str):
    exported = launchers.export(session_with({"MY_TOKEN": "tok-value", "OK": "1"}), fmt)
    comments = [line for line in exported.text.splitlines() if line.startswith("#")]
    assert comments == ["# MY_TOKEN is not exported: it is a secret and is never exported in clear"]


def test_only_changes_made_through_the_session_are_carried_by_default():
    session = EnvSession(environ={"TERM": "xterm"})
    session.environ["CLICOLOR"] = "1"  # set behind the session's back, as ipykernel does at start-up
    session.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    session.set({"MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB"})
    assert launchers.carried(session).values == {"MEGENGINE_DTR_EVICTION_THRESHOLD": "5368709120"}
    wider = launchers.carried(session, everything=True)
    assert wider.values == {"CLICOLOR": "1", "MEGENGINE_DTR_EVICTION_THRESHOLD": "5368709120"}
    assert "MPLBACKEND" in wider.left_out  # names a module matplotlib imports: code-loading


def test_npu_run_config_options_are_not_environment_variables():
    session = EnvSession(environ={})
    session.set({"precision_mode": "allow_mix_precision", "MEGENGINE_DTR_EVICTION_THRESHOLD": "5GB"}, live=False)
    assert session.npu_run_config_kwargs() == {"precision_mode": "allow_mix_precision"}
    assert session.changed_through_session() == ["MEGENGINE_DTR_EVICTION_THRESHOLD"]
    assert "precision_mode" not in launchers.carried(session).values


def test_unknown_format_is_refused():
    with pytest.raises(InvalidValueError, match="unknown format"):
        launchers.export(EnvSession(environ={}), "pbs")


def test_unset_is_said_where_the_launcher_cannot_unset():
    session = session_with({"A": "1"}, start={"GONE": "x"})
    session.unset(["GONE"])
    for fmt in ("mpirun", "deepspeed", "k8s", "ray"):
        assert "unset" in launchers.export(session, fmt).left_out["GONE"]
    assert "GONE" not in launchers.export(session, "torchrun").left_out


def test_yaml_string_escapes_everything_but_printable_ascii():
    assert launchers.yaml_string('a"b\\c\n\u2028😀') == '"a\\"b\\\\c\\x0a\\u2028\\U0001f600"'


# ---- any value -----------------------------------------------------------------------------------------------------

@PROPERTY
@given(value=values)
def test_any_value_round_trips_through_shlex_in_the_command_line_formats(value: str):
    session = session_with({"V": value})
    torchrun = shlex.split(launchers.export(session, "torchrun").text, comments=True)
    assert env_assignments(torchrun[1:-1]) == {"V": value}
    mpirun = shlex.split(launchers.export(session, "mpirun").text, comments=True)
    assert mpirun[1:] == ["-x", f"V={value}"]
    slurm = shlex.split(launchers.export(session, "slurm").text, comments=True)
    srun = slurm.index("srun")
    assert slurm_environment(slurm[srun:], env_assignments(slurm[1:srun])).get("V") == value


@PROPERTY
@given(value=values)
def test_any_value_round_trips_through_yaml_and_kubernetes_expansion(value: str):
    assert k8s_environment(launchers.export(session_with({"V": value}), "k8s").text) == {"V": value}


@PROPERTY
@given(value=values)
def test_any_value_deepspeed_carries_reaches_the_remote_shell_exactly(value: str, tmp_path: Path):
    exported = launchers.export(session_with({"V": value}), "deepspeed")
    if launchers.why_not_deepspeed(value) is not None:
        assert exported.text == "" and "V" in exported.left_out  # a blank line would stop DeepSpeed's runner
        return
    path = tmp_path / ".deepspeed_env"
    path.write_text(exported.text)
    command = pdsh_command(deepspeed_reads(path)) + 'printf %s "$V"'
    done = subprocess.run(["dash", "-c", command], capture_output=True, timeout=30, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.decode() == value


# ---- the magic -----------------------------------------------------------------------------------------------------

def test_envexport_magic_writes_a_launcher_format(ip, tmp_path: Path):
    ip.run_line_magic("envset", "MEGENGINE_DTR_EVICTION_THRESHOLD=5GB")
    assert ip.run_line_magic("envexport", "--format torchrun") == (
        "env MEGENGINE_DTR_EVICTION_THRESHOLD=5368709120 torchrun\n")
    target = tmp_path / "k8s.yaml"
    ip.run_line_magic("envexport", f"--format k8s {target}")
    assert yaml.safe_load(target.read_text()) == {"env": [{"name": "MEGENGINE_DTR_EVICTION_THRESHOLD",
                                                          "value": "5368709120"}]}


def test_envexport_magic_warns_about_what_a_deepspeed_file_leaves_out(ip):
    ip.run_line_magic("envset", "--force MY_SECRET_TOKEN=abc123")
    with pytest.warns(launchers.NotCarriedWarning, match="MY_SECRET_TOKEN is not exported") as caught:
        text = ip.run_line_magic("envexport", "--format deepspeed")
    assert "abc123" not in text and all("abc123" not in str(w.message) for w in caught)


# ---- Ray's own expansion -------------------------------------------------------------------------------------------

def ray_update_envs(env_vars: dict[str, str], environ: dict[str, str]) -> dict[str, str]:
    """What a Ray 2.60 worker sets for `env_vars` (ray/_private/utils.py update_envs, rewritten line for line, with
    posixpath.expandvars' rule over `environ` in place of os.environ)."""
    import re

    def expand(value: str) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            name = name[1:-1] if name.startswith("{") else name
            return environ.get(name, match.group(0))
        return re.sub(r"\$(\w+|\{[^}]*\})", one, value, flags=re.ASCII)

    return {key: re.sub(r"\$\{[A-Z0-9_]+\}", "", expand(value)) for key, value in env_vars.items()}


def every_name_set(value: str) -> dict[str, str]:
    """A worker's environment in which every name `value` could refer to is set (the worst case)."""
    import re

    names = re.findall(r"\$(\w+)", value, flags=re.ASCII) + re.findall(r"\$\{([^}]*)\}", value)
    return {name[:end]: "EXPANDED" for name in names for end in range(1, len(name) + 1)}


@pytest.mark.parametrize("value", ["$1", "cost $0.5", "$9lives", "a$_", "${1}", "$HOME", "$$", "$", "$(X)", "$-", "$é"])
def test_ray_gets_each_value_exactly_or_leaves_it_out_even_where_the_worker_sets_every_name(value: str):
    exported = launchers.export(session_with({"V": value}), "ray")
    env_vars = json.loads(exported.text)["env_vars"]
    if "V" in exported.left_out:
        assert env_vars == {} and "replaces" in exported.left_out["V"]
        return
    assert ray_update_envs(env_vars, every_name_set(value)) == {"V": value}


@PROPERTY
@given(value=values)
def test_any_value_ray_carries_reaches_the_worker_exactly(value: str):
    env_vars = json.loads(launchers.export(session_with({"V": value}), "ray").text)["env_vars"]
    assert ray_update_envs(env_vars, every_name_set(value)) == env_vars


# ---- DeepSpeed's Slurm launcher ------------------------------------------------------------------------------------

def slurm_quote_tokens(text: str) -> list[str]:
    """Slurm's _find_quote_token(text, ",") over a whole --export list (src/sbatch/opt.c, src/common: a comma splits
    when no single or double quote is open; a quote toggles, a backslash escapes nothing; a token wholly in quotes
    loses them), rewritten line for line."""
    tokens, start, single, double, i = [], 0, 0, 0, 0
    while start < len(text):
        char = text[i] if i < len(text) else "\0"
        if char == "'":
            single ^= 1
        elif char == '"':
            double ^= 1
        elif char in ",\0" and not single and not double:
            token = text[start:i]
            if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
                token = token[1:-1]
            tokens.append(token)
            start = i + 1
        elif char == "\0":  # a quote left open: Slurm refuses the list; count what is left as one more token
            tokens.append(text[start:])
            break
        i += 1
    return tokens


def deepspeed_slurm_export(path: Path) -> str:
    """The --export argument DeepSpeed's SlurmRunner.get_cmd builds from .deepspeed_env (multinode_runner.py)."""
    return "--export=ALL" + "".join(f",{key}={val}" for key, val in deepspeed_reads(path).items())


@pytest.mark.parametrize("value", ['a",LD_PRELOAD=/tmp/evil.so,B="', "x',LD_PRELOAD=/tmp/evil.so,B='", 'a"b,c',
                                   "a,LD_PRELOAD=/tmp/evil.so", "expandable_segments:True,max_split_size_mb:128",
                                   "granularity=fine,compact,1,0", 'say "hi"'])
def test_deepspeed_env_never_lets_slurm_split_a_value_into_other_variables(value: str, tmp_path: Path):
    exported = launchers.export(session_with({"V": value}), "deepspeed")
    path = tmp_path / ".deepspeed_env"
    path.write_text(exported.text)
    listed = deepspeed_slurm_export(path)[len("--export="):]
    old_slurm = listed.split(",")  # sbatch's _env_merge_filter before quotes were honoured: strtok_r at ","
    for tokens in (slurm_quote_tokens(listed), old_slurm):
        assignments = [token.partition("=")[0] for token in tokens if "=" in token]
        assert assignments == ([] if "V" in exported.left_out else ["V"]), tokens
    assert ("V" in exported.left_out) == (value not in ("expandable_segments:True,max_split_size_mb:128",
                                                        "granularity=fine,compact,1,0", 'say "hi"'))


def test_k8s_names_that_yaml_reads_as_booleans_or_null_stay_names():
    names = {name: "1" for name in ("ON", "OFF", "NO", "YES", "TRUE", "FALSE", "NULL", "Y", "N", "y", "n", "Null")}
    text = launchers.export(session_with(names), "k8s").text
    assert [item["name"] for item in yaml.safe_load(text)["env"]] == sorted(names)
    assert all(line.startswith(('- name: "', '  value: "', "env:")) for line in text.splitlines())


def srun_job_environment(argv: list[str], environ: dict[str, str]) -> dict[str, str]:
    """srun's _build_user_env (src/srun/libsrun/launch.c) over its --export list, rewritten line for line: ALL (any
    case) merges srun's environment after the list; NONE (any case) ends the list; NAME=VALUE sets; a bare NAME takes
    srun's value."""
    export = next(arg for arg in argv if arg.startswith("--export="))[len("--export="):]
    result: dict[str, str] = {}
    everything = False
    for token in slurm_quote_tokens(export):
        everything = everything or token.upper() == "ALL"
        if token.upper() == "NONE":
            break
        name, sep, value = token.partition("=")
        if sep:
            result[name] = value
        elif name in environ:
            result[name] = environ[name]
    return {**environ, **result} if everything else result


@pytest.mark.parametrize("shell", SHELLS)
def test_slurm_variables_named_like_sruns_keywords_do_not_end_its_list(shell: str, tmp_path: Path):
    values = {"none": "a b", "All": "c,d", "nil": "$x", "zz": "1", "A": "2"}  # zz=1 is listed after none
    text = launchers.export(session_with(values), "slurm").text
    record = run_line(shell, text, "srun", tmp_path)
    job = srun_job_environment(record["argv"], record["environ"])
    assert {name: job.get(name) for name in values} == values
