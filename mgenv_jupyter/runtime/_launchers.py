"""The session's variables for programs that start processes on other machines: torchrun, Open MPI's mpirun, Slurm's
srun, DeepSpeed's `.deepspeed_env`, a Kubernetes container's `env:` list and Ray's `runtime_env`.

What is carried: the variables changed through the session (magics, widgets, the sidebar, a profile, files, the API),
with the text the session normalised (`MEGENGINE_DTR_EVICTION_THRESHOLD=5GB` is carried as 5368709120), not the
kernel's own start-up variables (ipykernel's `MPLBACKEND`, `TERM`, `PAGER`...), which break batch jobs. `everything`
adds every change since the kernel started and every catalog variable that is set.

What is left out, named with the reason and never with its value: secrets (by name or by value) are never written in
clear; a variable that loads code (`LD_PRELOAD`, `PYTHONPATH`, `BASH_ENV`...) would run its code in every worker of
every machine, so it is carried only when asked for by name (`include`); a value a launcher cannot carry exactly.

Every value that is written arrives exactly and inert: quoted for the shell that reads the line (`shlex.quote`),
escaped for the consumer's own rules (Kubernetes expands `$(NAME)`, DeepSpeed's runner wraps values in double quotes
for a remote shell), so `$(...)`, backticks, `;` or a newline in a value are data, never a command.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..base._errors import InvalidValueError
from ..catalog._secrets import is_secret
from ._envfile import is_unicode
from ._environ_limits import is_variable_name

if TYPE_CHECKING:
    from ..catalog import Entry
    from . import EnvSession

FORMATS = ("torchrun", "mpirun", "slurm", "deepspeed", "k8s", "ray")
# Values Slurm's --export takes as NAME=VALUE without any doubt: it splits its argument at commas and has no quoting.
# Any other value reaches srun through its environment (`env NAME=VALUE srun --export=ALL,NAME`).
_SLURM_PLAIN = re.compile(r"[A-Za-z0-9_./:+@%-]+")
# Words srun reads in its --export list whatever their case: a bare NONE stops it there (the NAME=VALUE items after it
# are dropped), ALL exports srun's whole environment.
_SLURM_KEYWORDS = frozenset({"ALL", "NONE", "NIL"})
# DeepSpeed's runner strips each value (str.strip) and wraps it in double quotes for the remote shell, where these
# four characters keep a meaning; a backslash before each makes it literal.
_DOUBLE_QUOTED_SPECIAL = re.compile(r'([\\"$`])')
_ASSIGNMENT_AFTER_COMMA = re.compile(r",[^,]*=")
# Ray replaces ${NAME} in env_vars values with the worker node's value of NAME (empty when unset), and $NAME when NAME
# is set there; it has no escape for either (checked with Ray 2.60: $$ stays $$, \$ stays \ before the value). Its
# update_envs calls os.path.expandvars, whose names are ASCII word characters, digits first included ($1, $0x).
_RAY_REFERENCE = re.compile(r"\$[{A-Za-z0-9_]")


class NotCarriedWarning(UserWarning):
    """A variable of the session is not exported to the workers; the message names it and says why (never its
    value)."""


@dataclass(frozen=True)
class Carried:
    """What goes to the workers: `values` to set, `unset` (names unset through the session), and `left_out`: name →
    why it is not carried (the reason never quotes the value)."""

    values: dict[str, str] = field(default_factory=dict)
    unset: tuple[str, ...] = ()
    left_out: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LauncherExport:
    """A launcher's text and what it leaves out (name → reason). `notes()` says the left-out ones in words."""

    format: str
    text: str
    left_out: dict[str, str] = field(default_factory=dict)

    def notes(self) -> list[str]:
        return _notes(self.left_out)


def carried(session: EnvSession, *, everything: bool = False, include: Iterable[str] = (),
            secrets: bool = False) -> Carried:
    """The variables to send to workers and the ones left out, with why.

    `include` names code-loading variables to carry anyway (and, with `secrets`, secrets: Ray's runtime_env is the
    one place a secret may go, when named). A value that is not valid Unicode, or a name that is not a shell name,
    is left out.
    """
    asked = set(include)
    names = dict.fromkeys(session.changed_through_session())
    if everything:
        names.update(dict.fromkeys(session.environ_changes()))
        names.update(dict.fromkeys(e.name for e in session.catalog if e.is_env and e.name in session.environ))
    values: dict[str, str] = {}
    unset: list[str] = []
    left_out: dict[str, str] = {}
    for name in sorted(names):
        value = session.environ.get(name)
        why = _why_left_out(name, value, name in asked, secrets, session.catalog.get(name))
        if why is not None:
            left_out[_shown_name(name)] = why
        elif value is None:
            if name in session.start_environ:  # a worker started where the kernel was would still have it
                unset.append(name)
        else:
            values[name] = value
    return Carried(values, tuple(unset), left_out)


def _why_left_out(name: str, value: str | None, asked: bool, secrets: bool,
                  entry: Entry | None = None) -> str | None:
    if not is_variable_name(name):
        return "its name is not a shell name (letters, digits and underscores)"
    if value is None:
        return None
    if is_secret(name, value):
        if asked and secrets:
            return None
        if secrets:
            return "it is a secret: it is carried only when asked for by name"
        return "it is a secret and is never exported in clear"
    from ..catalog._code_loading import code_effect  # with the catalog: the magics import this module at `%load_ext`

    effect = code_effect(name, entry, value)  # the catalog entry's decision, the families, the flags of the value
    if effect is not None and not asked:
        return (f"it {effect.get()}, on every machine the job runs on; it is carried only when asked for by "
                "name")
    if not is_unicode(value):
        return "its value is not valid Unicode text (bytes that are not UTF-8)"
    return None


def export(session: EnvSession, fmt: str, *, everything: bool = False, include: Iterable[str] = ()) -> LauncherExport:
    """The session's variables as `fmt` wants them (see `FORMATS`); the left-out ones as comments where the format has
    them, and in `left_out` always.

    - `torchrun`: `env NAME=VALUE ... torchrun`, a command to finish with torchrun's own arguments (its workers
      inherit its environment); a variable unset through the session is `env -u NAME`.
    - `mpirun`: `mpirun -x NAME=VALUE ...` (Open MPI).
    - `slurm`: `srun --export=ALL,NAME=VALUE,...`; values Slurm's comma-separated list cannot hold exactly go through
      srun's environment (`env NAME=VALUE srun --export=ALL,NAME`). For sbatch, write sbatch for srun.
    - `deepspeed`: a `.deepspeed_env` file, NAME=VALUE lines as DeepSpeed's runner reads them (no comments: it would
      read them as settings); the values are escaped for the double quotes it puts them in for pdsh's remote shell,
      and a value its Slurm launcher would let srun split (a comma with a quote or a later '=') is left out.
      Nothing carried: an empty file (the runner fails on a blank line).
    - `k8s`: a container's `env:` list in YAML, every `$` doubled (Kubernetes expands `$(NAME)`; `$$` is one `$`).
    - `ray`: Ray's runtime_env as JSON (`ray job submit --runtime-env-json`, `ray.init(runtime_env=...)`).
    """
    if fmt not in FORMATS:
        raise InvalidValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    chosen = carried(session, everything=everything, include=include)
    left_out = dict(chosen.left_out)
    lines = _FORMATTERS[fmt](chosen, left_out)
    comments = [] if fmt == "deepspeed" or fmt == "ray" else [f"# {note}" for note in _notes(left_out)]
    text = "".join(f"{line}\n" for line in [*comments, *lines])  # nothing at all, not a blank line: DeepSpeed's
    return LauncherExport(fmt, text, left_out)  # runner splits every line of .deepspeed_env at '=', a blank one too


def _notes(left_out: dict[str, str]) -> list[str]:
    return [f"{name} is not exported: {why}" for name, why in left_out.items()]


def _unsettable(chosen: Carried, left_out: dict[str, str], launcher: str) -> None:
    for name in chosen.unset:
        left_out[name] = f"it was unset, and {launcher} can only set variables (unset it where the job starts)"


def _torchrun(chosen: Carried, left_out: dict[str, str]) -> list[str]:
    words = ["env", *(w for name in chosen.unset for w in ("-u", name))]
    words += [f"{name}={value}" for name, value in chosen.values.items()]
    return [" ".join(shlex.quote(word) for word in [*words, "torchrun"])]


def _mpirun(chosen: Carried, left_out: dict[str, str]) -> list[str]:
    _unsettable(chosen, left_out, "mpirun -x")
    words = ["mpirun", *(w for name, value in chosen.values.items() for w in ("-x", f"{name}={value}"))]
    return [" ".join(shlex.quote(word) for word in words)]


def _slurm(chosen: Carried, left_out: dict[str, str]) -> list[str]:
    listed = ["ALL"]
    through_environment: list[str] = []
    for name, value in chosen.values.items():
        if _SLURM_PLAIN.fullmatch(value):
            listed.append(f"{name}={value}")
        else:
            if name.upper() not in _SLURM_KEYWORDS:  # ALL carries it anyway; a bare NONE would end srun's list
                listed.append(name)
            through_environment.append(f"{name}={value}")
    words = ["srun", "--export=" + ",".join(listed)]
    if chosen.unset or through_environment:
        words = ["env", *(w for name in chosen.unset for w in ("-u", name)), *through_environment, *words]
    return [" ".join(shlex.quote(word) for word in words)]


def _deepspeed(chosen: Carried, left_out: dict[str, str]) -> list[str]:
    _unsettable(chosen, left_out, "a .deepspeed_env file")
    lines = []
    for name, value in chosen.values.items():
        why = why_not_deepspeed(value)
        if why is not None:
            left_out[name] = why
            continue
        escaped = _DOUBLE_QUOTED_SPECIAL.sub(r"\\\1", value)
        lines.append(f"{name}={escaped}")
    return lines


def why_not_deepspeed(value: str) -> str | None:
    """Why DeepSpeed's runner cannot carry `value` exactly, or safely (None: it can). It reads the file line by line
    in text mode (a carriage return ends a line too) and strips each value; its Slurm launcher hands each NAME="value"
    to srun's comma-separated --export list."""
    if "\n" in value or "\r" in value:
        return "its value holds a line break, and DeepSpeed's runner reads .deepspeed_env a line at a time"
    if value != value.strip():
        return "its value starts or ends with white space, which DeepSpeed's runner strips"
    if "," in value and ('"' in value or "'" in value or _ASSIGNMENT_AFTER_COMMA.search(value)):
        # DeepSpeed's Slurm launcher puts NAME="value" into `srun --export=ALL,...` as is; Slurm splits that list at
        # every comma outside quotes, and a quote in the value (a backslash does not escape it there) ends DeepSpeed's
        # quotes: 'a",LD_PRELOAD=/x.so,B="' would set LD_PRELOAD in every task. Older Slurm (sbatch's strtok) split at
        # every comma, quotes or not: 'a,LD_PRELOAD=/x.so' would.
        return ("its value holds a comma with a quote or a later '=', which DeepSpeed's Slurm launcher would let srun "
                "split into other variables")
    return None


def _k8s(chosen: Carried, left_out: dict[str, str]) -> list[str]:
    _unsettable(chosen, left_out, "a container's env list")
    if not chosen.values:
        return ["env: []"]
    lines = ["env:"]
    for name, value in chosen.values.items():
        # The name quoted too: YAML 1.1 readers (PyYAML, and go-yaml behind kubectl) read a plain ON, NO, TRUE or NULL
        # as a boolean or null, and go-yaml a plain Y or N too.
        lines += [f"- name: {yaml_string(name)}", f"  value: {yaml_string(value.replace('$', '$$'))}"]
    return lines


def yaml_string(text: str) -> str:
    """`text` as a YAML double-quoted scalar: printable ASCII as is, every other character escaped (YAML 1.1 and 1.2
    readers both decode \\xXX, \\uXXXX and \\UXXXXXXXX), so no reader turns a line break or a control character into
    something else."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _ray(chosen: Carried, left_out: dict[str, str]) -> list[str]:
    return [json.dumps(ray_runtime_env(chosen, left_out), indent=2, ensure_ascii=False)]


def ray_runtime_env(chosen: Carried, left_out: dict[str, str]) -> dict[str, dict[str, str]]:
    """Ray's runtime_env for `chosen`; what Ray cannot carry exactly goes into `left_out`."""
    _unsettable(chosen, left_out, "Ray's env_vars")
    env_vars = {}
    for name, value in chosen.values.items():
        if _RAY_REFERENCE.search(value):
            left_out[name] = ("its value holds '$' before a name, a digit or '{', which Ray replaces with a variable "
                              "of the worker's node (it has no escape for it)")
        else:
            env_vars[name] = value
    return {"env_vars": env_vars}


_FORMATTERS = {"torchrun": _torchrun, "mpirun": _mpirun, "slurm": _slurm, "deepspeed": _deepspeed, "k8s": _k8s,
               "ray": _ray}


def _shown_name(name: str) -> str:
    # ascii(): a name that is not a shell name may hold a newline, which would end a comment early.
    return name if is_variable_name(name) else ascii(name)[:60]
