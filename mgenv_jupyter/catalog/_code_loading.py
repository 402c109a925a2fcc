"""What can make a program load or run code, or send traffic elsewhere: decided for every variable, as data.

The rule, by construction rather than by a list that misses the next name:
- a catalog variable is decided by its own entry (`Entry.loads_code`, which every entry must state), and the flags of
  a flag string (XLA_FLAGS and the like) are judged one by one (`loading_flags`);
- any other name is matched against `RULES`: named variables (LD_PRELOAD, PYTHONPATH, …) beside families of names
  (`*_PRELOAD`, `*_INJECTION*`, `*_LIBRARY_PATH(S)`, `*PLUGIN*`, compilers and tool paths, configuration files of
  libraries that load modules …); a value holding a flag that names a program, a directory or a file counts too;
- from outside (a file, the sidebar, an out-of-memory report) a name outside the catalog is set without force only
  when its value is plainly data (`is_plain_data`): a number, or letters, digits and `_ - + , : = @ %`, nothing that
  can spell a file or a program's path.

None of them is ever taken from a notebook profile. From a file or a comm message they need an explicit `--force`
(or the user's confirmation); `%envset` sets them with a `CodeLoadingWarning` that says what the variable can do.
Every check here is a fixed set of string comparisons or a linear-time pattern over a bounded name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..base._text import Text
from ._entry import Entry
from ._values import flag_tokens

# Effects shared by catalog entries and the families below.
RUNS_PROGRAMS = Text(
    "names a program, a compiler or a directory of programs or headers that is run or compiled into this kernel's "
    "code",
    "指定会被运行或编译进本内核代码的程序、编译器,或程序与头文件所在的目录")
LOADS_COMPILED_CODE = Text(
    "points a compiler cache or work directory elsewhere: compiled code (shared libraries, pickles) is written there "
    "and loaded back, so whoever can write there runs code in this kernel",
    "把编译缓存或工作目录指向别处:编译产物(共享库、pickle)写入其中并被重新加载,能写入该目录的人即可在本内核中运行代码")
WRITES_FILES = Text(
    "names a place the framework writes files to, outside this session's control",
    "指定框架写入文件的位置,不受本会话控制")
_FLAGS = Text(
    "holds {flags}, which name a program, a directory or a file (a flag string is judged flag by flag)",
    "含有 {flags},它们指定程序、目录或文件(参数字符串逐个参数判断)")
_NOT_PLAIN = Text(
    "is not a catalog variable and its value is not plainly data (a number, or letters, digits and _ - + , : = @ % "
    "only), so it could name a file or a program",
    "不是目录中的变量,且其值不是单纯的数据(数字,或仅含字母、数字与 _ - + , : = @ %),因此可能指定文件或程序")

MAX_NAME_MATCHED = 256  # names longer than any real variable are code-loading without looking further


@dataclass(frozen=True)
class CodeLoadingRule:
    """Names matching `pattern` (a full match, case-sensitive unless the pattern says otherwise), or one of the
    `families`, can do `effect`. A family is judged on the upper-cased name by plain string tests: a word of it
    (between underscores) `contains` one of the given texts, or the name `starts` or `ends` with one, or `is` one."""

    pattern: str
    effect: Text
    contains: tuple[str, ...] = ()
    starts: tuple[str, ...] = ()
    ends: tuple[str, ...] = ()

    def matches(self, name: str) -> bool:
        if self.pattern and re.fullmatch(self.pattern, name) is not None:
            return True
        upper = name.upper()
        return (any(part in upper for part in self.contains) or upper.startswith(self.starts)
                or upper.endswith(self.ends))


RULES = (
    CodeLoadingRule(r"LD_\w+|DYLD_\w+|GCONV_PATH|LOCPATH", Text(
        "makes the dynamic loader load other libraries into every program started from here (LD_PRELOAD runs a "
        "library's code before main)",
        "让动态链接器向此后启动的每个程序加载其他库(LD_PRELOAD 会在 main 之前运行库中的代码)"),
        contains=("PRELOAD", "INJECTION")),
    CodeLoadingRule(r"PYTHON\w*", Text(
        "changes where Python finds modules or which files it runs at start-up (PYTHONPATH can put a "
        "sitecustomize.py first, PYTHONSTARTUP runs a file)",
        "改变 Python 查找模块的位置或启动时运行的文件"
        "(PYTHONPATH 可让 sitecustomize.py 优先加载,PYTHONSTARTUP 会运行文件)")),
    CodeLoadingRule(r"BASH_ENV|ENV|SHELL|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|IFS|BASH_FUNC_\S+|CDPATH", Text(
        "changes which shell runs `!cmd` and %%bash, or makes the shell run a file or command first",
        "改变运行 `!cmd` 与 %%bash 的 shell,或让 shell 先运行某个文件或命令")),
    CodeLoadingRule(r"PATH", Text(
        "decides which program runs for every command name (`!pip`, `git`, `nvidia-smi`)",
        "决定每个命令名(`!pip`、`git`、`nvidia-smi`)实际运行哪个程序")),
    CodeLoadingRule(r"GIT_\w+", Text(
        "makes git run other programs (GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, GIT_PAGER) or read another configuration",
        "让 git 运行其他程序(GIT_EXTERNAL_DIFF、GIT_SSH_COMMAND、GIT_PAGER)或读取其他配置")),
    CodeLoadingRule(r"(?i:PIP_\w+|UV_\w+|CONDA_\w+|NPM_CONFIG_\w+)", Text(
        "changes where package installers fetch packages from (%pip install could install someone else's code)",
        "改变包安装工具获取软件包的来源(%pip install 可能装上别人的代码)")),
    CodeLoadingRule(r"NODE_OPTIONS|NODE_PATH|PERL5LIB|PERL5OPT|PERLLIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|"
                    r"_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|LUA_PATH|LUA_CPATH|LUA_INIT\w*", Text(
        "makes another language's runtime load or run extra code (Node.js, Perl, Ruby, Java, Lua)",
        "让其他语言的运行时加载或运行额外代码(Node.js、Perl、Ruby、Java、Lua)")),
    CodeLoadingRule(r"(?i:https?_proxy|all_proxy|ftp_proxy|no_proxy|socks_proxy)", Text(
        "sends this kernel's network traffic (downloads, %pip, API calls) through another machine",
        "让此内核的网络流量(下载、%pip、API 调用)经由另一台机器转发")),
    CodeLoadingRule(r"SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|NODE_EXTRA_CA_CERTS", Text(
        "changes which certificates are trusted, so a man in the middle can pose as any server",
        "改变受信任的证书,中间人因此可以冒充任何服务器")),
    CodeLoadingRule(r"PAGER|MANPAGER|GIT_PAGER|EDITOR|VISUAL|BROWSER|LESSOPEN|LESSCLOSE|MPLBACKEND", Text(
        "names a program or module that tools run for you (a pager, an editor, a browser, a matplotlib backend)",
        "指定工具替你运行的程序或模块(分页器、编辑器、浏览器、matplotlib 后端)")),
    # Compiler caches: torch.compile and JAX load compiled kernels (shared libraries, pickles, serialized executables)
    # from these directories by key, so a directory someone else writes to runs their code in this kernel.
    CodeLoadingRule(r"TORCHINDUCTOR_CACHE_DIR|TRITON_CACHE_DIR|TORCHINDUCTOR_CUTLASS_DIR|JAX_COMPILATION_CACHE_DIR|"
                    r"TORCH_EXTENSIONS_DIR|CUDA_CACHE_PATH|HF_MODULES_CACHE", LOADS_COMPILED_CODE,
                    contains=("CACHE",)),
    CodeLoadingRule(r"HOME|XDG_CONFIG_HOME|XDG_DATA_HOME|IPYTHONDIR|JUPYTER_\w+|MPLCONFIGDIR|KUBECONFIG", Text(
        "moves where programs read their configuration and start-up files, which can run code (.bashrc, .gitconfig, "
        "IPython start-up scripts)",
        "改变程序读取配置与启动文件的位置,而这些文件可以运行代码(.bashrc、.gitconfig、IPython 启动脚本)")),
    # ---- families: a name that merely looks like these is treated as loading code ----------------------------------
    CodeLoadingRule("", Text(
        "names libraries or plug-ins that a program loads (a library path, a plug-in, a tool library)",
        "指定程序会加载的库或插件(库路径、插件、工具库)"),
        contains=("PLUGIN", "LIBRARY", "LIBRARIES", "_LIB_", "_LIBS_", "DRIVERS_PATH", "ICD_", "LAYER_PATH"),
        ends=("_LIB", "_LIBS", "_LIB_PATH", "_LIB_DIR", "_SO", "_DLL", "_DYLIB")),
    CodeLoadingRule(r"CC|CXX|CPP|FC|F77|F90|AR|AS|LD|NM|OBJCOPY|RANLIB|STRIP|CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|"
                    r"CUDACXX|CUDAHOSTCXX|HIPCXX|NVCC_\w+", RUNS_PROGRAMS,
                    contains=("PTXAS", "NVCC", "NVLINK", "NVDISASM", "FATBINARY", "CUOBJDUMP", "HIPCC", "CLANG", "GCC",
                              "COMPILER", "LINKER", "EXECUTABLE", "INTERPRETER", "PROLOG", "EPILOG"),
                    ends=("_CC", "_CXX", "_BIN", "_BIN_PATH", "_BIN_DIR", "_BINARY", "_EXE", "_CMD", "_COMMAND",
                          "_PROGRAM", "_TOOL", "_TOOLS", "_WRAPPER", "_LAUNCHER", "_HOOK", "_HOOKS", "_SHELL",
                          "_SCRIPT", "_HOME", "_ROOT", "CUDA_PATH", "ROCM_PATH", "HIP_PATH")),
    CodeLoadingRule(r"OPENSSL_\w+|KRB5_\w+|SASL_\w+|GNUTLS_\w+|P11_KIT_\w+|GIO_\w+|GTK_\w+|GST_\w+|QT_\w+", Text(
        "names the configuration or modules of a library that loads modules from it (OpenSSL's providers and "
        "engines, Kerberos plug-ins, GTK and Qt modules)",
        "指定会从中加载模块的库的配置或模块(OpenSSL 的 provider 与 engine、Kerberos 插件、GTK 与 Qt 模块)"),
        ends=("_CONF", "_CNF", "_CONF_FILE", "_CONF_PATH", "_CONFIG_FILE", "_MODULES", "_MODULE_DIR", "_ENGINES",
              "_PROVIDERS")),
    CodeLoadingRule(r"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD|TRUST_REMOTE_CODE|HF_ALLOW_CODE_EVAL|OMP_TOOL\w*", Text(
        "makes a library run code it would otherwise refuse (torch.load unpickling anything, a model's own Python "
        "code, an OpenMP tool library)",
        "让库运行原本会拒绝的代码(torch.load 反序列化任意对象、模型自带的 Python 代码、OpenMP 工具库)"),
        contains=("PICKLE", "REMOTE_CODE", "UNSAFE", "WEIGHTS_ONLY")),
)

_TOO_LONG = Text("has a name longer than any real variable", "名称比任何真实变量都长")


@lru_cache(maxsize=1024)  # asked twice per variable each %envset; the rules never change
def code_loading_rule(name: str) -> CodeLoadingRule | None:
    """The named rule or family `name` falls under, or None for a name that is neither."""
    for rule in RULES:
        if rule.matches(name):
            return rule
    return None


def is_code_loading(name: str) -> bool:
    """True for a name in the named list or a family (what a name outside the catalog is judged by)."""
    return len(name) > MAX_NAME_MATCHED or code_loading_rule(name) is not None


# ---- flag strings ---------------------------------------------------------------------------------------------------
# A flag names a program, a directory or a file, or a place files are written, when a word of its name (between
# underscores or dashes) is one of these: --xla_gpu_cuda_data_dir, --xla_dump_to, --xla_gpu_kernel_cache_file.
FLAG_WORDS = frozenset({
    "dir", "dirs", "directory", "path", "paths", "file", "files", "filename", "flagfile", "fromenv", "tryfromenv",
    "dump", "to", "from", "output", "out", "log", "logdir", "cache", "bin", "binary", "program", "ptxas", "nvcc",
    "nvlink", "exe", "executable", "cmd", "plugin", "plugins", "lib", "library", "libraries", "so", "root",
    "home", "prefix", "location", "url", "script", "tool", "compiler", "linker",
})
# A value holding one of these can spell a path wherever it goes.
_PATH_MARKS = ("/", "\\", "~")


def loading_flags(text: str) -> tuple[str, ...]:
    """The `--flags` of `text` (a flag string such as XLA_FLAGS) that name a program, a directory or a file, or write
    files: by a word of the flag's name (`FLAG_WORDS`) or by a value that holds a path separator or `~`."""
    if "-" not in text:  # no word can start with one: asked of every value %envset sets
        return ()
    found = []
    for flag, value in flag_tokens(text):
        words = flag.lower().replace("-", "_").split("_")
        if any(word in FLAG_WORDS for word in words) or (value is not None and any(m in value for m in _PATH_MARKS)):
            found.append(flag)
    return tuple(dict.fromkeys(found))


# ---- plain data -----------------------------------------------------------------------------------------------------
MAX_PLAIN_DATA = 256
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_+,:=@%-]*")
_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)*(?:[eE][+-]?[0-9]+)?")


def is_plain_data(value: str) -> bool:
    """True for a value that cannot spell a file or a program's path: at most 256 characters, a number (1, 0.5, 1e-3,
    1.13.0) or letters, digits and `_ - + , : = @ %` only (no dot, slash, tilde, space, quote or `$`)."""
    if len(value) > MAX_PLAIN_DATA:
        return False
    return _PLAIN_WORD.fullmatch(value) is not None or _NUMBER.fullmatch(value) is not None


def code_effect(name: str, entry: Entry | None, value: str | None) -> Text | None:
    """What setting `name` (to `value`, when given) can make a program load or run, or None for data.

    A catalog variable: what its entry decided. Any other name: the rule or family it falls under. Either way, a
    value whose flags name a program, a directory or a file (`loading_flags`) loads code too.
    """
    if entry is not None:
        effect = entry.code_effect
    elif len(name) > MAX_NAME_MATCHED:
        effect = _TOO_LONG
    else:
        rule = code_loading_rule(name)
        effect = rule.effect if rule is not None else None
    if effect is not None or value is None:
        return effect
    flags = loading_flags(value)
    if not flags:
        return None
    shown = ", ".join(flags[:3]) + (" …" if len(flags) > 3 else "")
    return Text(_FLAGS.en.format(flags=shown), _FLAGS.zh.format(flags=shown))


def needs_force_as_unknown(name: str, entry: Entry | None, value: str | None) -> Text | None:
    """Why a name outside the catalog whose value is not plainly data needs force from outside (None: it does not)."""
    if entry is not None or value is None or is_plain_data(value):
        return None
    return _NOT_PLAIN
