"""Variables that make programs load or run code, or send traffic elsewhere: what each can do, as data.

None of them is ever taken from a notebook profile. From a file or a comm message they need an explicit `--force`
(or the user's confirmation); `%envset` sets them with a `CodeLoadingWarning` that says what the variable can do.
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass

from ..text import Text


@dataclass(frozen=True)
class CodeLoadingRule:
    """Names matching `pattern` (a full match, case-sensitive unless the pattern says otherwise) can do `effect`."""

    pattern: str
    effect: Text

    def matches(self, name: str) -> bool:
        return re.fullmatch(self.pattern, name) is not None


RULES = (
    CodeLoadingRule(r"LD_\w+|DYLD_\w+|GCONV_PATH|LOCPATH", Text(
        "makes the dynamic loader load other libraries into every program started from here (LD_PRELOAD runs a "
        "library's code before main)",
        "让动态链接器向此后启动的每个程序加载其他库(LD_PRELOAD 会在 main 之前运行库中的代码)")),
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
                    r"_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|LUA_PATH|LUA_CPATH", Text(
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
                    r"TORCH_EXTENSIONS_DIR|CUDA_CACHE_PATH", Text(
        "points a compiler cache elsewhere: torch.compile, Triton and JAX load compiled kernels (shared libraries, "
        "pickles) from it, so whoever can write there runs code in this kernel",
        "把编译缓存指向别处:torch.compile、Triton 与 JAX 会从中加载已编译的 kernel(共享库、pickle),"
        "能写入该目录的人即可在本内核中运行代码")),
    CodeLoadingRule(r"HOME|XDG_CONFIG_HOME|XDG_DATA_HOME|IPYTHONDIR|JUPYTER_\w+|MPLCONFIGDIR", Text(
        "moves where programs read their configuration and start-up files, which can run code (.bashrc, .gitconfig, "
        "IPython start-up scripts)",
        "改变程序读取配置与启动文件的位置,而这些文件可以运行代码(.bashrc、.gitconfig、IPython 启动脚本)")),
)


@lru_cache(maxsize=1024)  # asked twice per variable each %envset; the rules never change
def code_loading_rule(name: str) -> CodeLoadingRule | None:
    """The rule `name` falls under, or None for a variable that loads no code."""
    for rule in RULES:
        if rule.matches(name):
            return rule
    return None


def is_code_loading(name: str) -> bool:
    return code_loading_rule(name) is not None
