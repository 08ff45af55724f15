"""What Gemini CLI decides before it looks for skills: settings, trust, ``.env``, extensions.

The order and rules are the client's (``loadSettings`` → ``isWorkspaceTrusted`` →
``loadEnvironment`` → ``loadCliConfig``):

* ``homedir()`` is ``$GEMINI_CLI_HOME`` when non-empty, else ``$HOME``. The user settings file
  ``homedir()/.gemini/settings.json`` is fixed before ``.env`` is read; the user skill roots and
  the extensions folder are read after it, so a ``.env`` that sets ``GEMINI_CLI_HOME`` moves them.
* Settings layers, merged in this order: system defaults < user < workspace (only when the
  workspace is trusted and is not the home folder) < system. Comments are allowed, ``$VAR`` /
  ``${VAR}`` / ``${VAR:-default}`` are expanded. A system file is skipped unless it and every
  folder above it are owned by root and not writable by group or others. A file that is not a
  JSON object stops the client ("Please fix the configuration file(s) and try again").
* Trust: ``GEMINI_RESTRICTED_MODE=true`` or ``GEMINI_CLI_TRUST_WORKSPACE=false`` → untrusted;
  ``GEMINI_CLI_TRUST_WORKSPACE=true`` → trusted; ``security.folderTrust.enabled: false`` →
  trusted; else the longest matching rule of ``trustedFolders.json`` (``TRUST_FOLDER``,
  ``TRUST_PARENT``, ``DO_NOT_TRUST``; paths compared after resolving symlinks); else untrusted.
* ``.env``: one file, the first of ``<dir>/.gemini/.env`` (trusted only) or ``<dir>/.env`` from the
  working directory up to ``/``, then ``homedir()/.gemini/.env`` (trusted only) and
  ``homedir()/.env``. Variables already set are kept; an untrusted workspace takes only the four
  credential variables from it.
* ``skills.enabled`` (the last layer that sets it wins), ``skills.disabled`` (union of every
  layer; compared lower-cased with the sanitised name), the model (``$GEMINI_MODEL``, else
  ``model.name``, else ``auto``) and ``$GEMINI_PROMPT_AGENTSKILLS``.
* Extensions: ``homedir()/.gemini/extensions/<dir>`` in byte order, each a folder (links
  followed) with ``gemini-extension.json`` (``name`` matching ``[a-zA-Z0-9-]+`` and a
  ``version``); ``.gemini-extension-install.json`` of type ``link`` points at the real folder;
  ``extension-enablement.json`` rules decide whether it is active for the working directory.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillshelf.core.fileread import read_regular
from skillshelf.core.model import CatalogWarning

__all__ = [
    "TRUST_ENV",
    "Extension",
    "GeminiSetup",
    "SettingsLayer",
    "dotenv_parse",
    "load_setup",
    "strip_json_comments",
]

#: The environment variables that change what Gemini CLI does with skills.
TRUST_ENV = ("GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_RESTRICTED_MODE")
_CREDENTIALS = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION")
_PROJECT_ENV_EXCLUDED = ("DEBUG", "DEBUG_MODE", "GEMINI_CLI_IDE_SERVER_STDIO_COMMAND", "GEMINI_CLI_IDE_SERVER_STDIO_ARGS")
_TRUST_LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
_MAX_CONFIG_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class SettingsLayer:
    """One settings file: ``layer`` ``system-defaults``, ``user``, ``workspace`` or ``system``;
    ``data`` the expanded settings (``{}`` when absent, skipped or broken); ``used`` whether
    it takes part in the merge; ``note`` why not, in words."""

    layer: str
    path: str
    data: Mapping[str, Any] = field(default_factory=dict)
    exists: bool = False
    used: bool = True
    note: str = ""


@dataclass(frozen=True)
class Extension:
    """One folder of the extensions directory: ``name`` from its config, ``path`` where its
    files are (the link target for a linked extension), ``folder`` the entry in the extensions
    directory, ``active`` for this working directory (``reason`` when not)."""

    name: str
    path: str
    folder: str
    active: bool
    reason: str = ""


@dataclass(frozen=True)
class GeminiSetup:
    """Everything Gemini CLI settles for one working directory before discovering skills.

    ``cwd``: the real working directory; ``home``: ``homedir()`` after ``.env``; ``trusted`` and
    ``trust_reason`` (words naming the variable, setting or rule); ``fatal``: the message the
    client stops with, or ``None``; ``skills_enabled`` / ``skills_enabled_by``; ``disabled``:
    each ``skills.disabled`` entry with the files that list it; ``model`` and ``model_by``;
    ``catalog_in_prompt`` (``$GEMINI_PROMPT_AGENTSKILLS``); ``extensions`` in load order;
    ``warnings`` in the client's terms; ``files``: every file whose change matters.
    """

    cwd: str
    home: str
    trusted: bool
    trust_reason: str
    trust_file: str
    fatal: str | None
    skills_enabled: bool
    skills_enabled_by: str
    disabled: tuple[tuple[str, tuple[str, ...]], ...]
    model: str
    model_by: str
    catalog_in_prompt: bool
    extensions: tuple[Extension, ...]
    layers: tuple[SettingsLayer, ...]
    env: Mapping[str, str]
    env_file: str | None
    warnings: tuple[CatalogWarning, ...]
    files: tuple[str, ...]

    def disabled_by(self, name: str) -> tuple[str, ...] | None:
        """The settings files whose ``skills.disabled`` disable ``name`` (compared lower-cased),
        or ``None`` when it is enabled."""
        low = name.lower()
        files: list[str] = []
        for entry, where in self.disabled:
            if entry.lower() == low:
                files.extend(w for w in where if w not in files)
        return tuple(files) if files else None


# --------------------------------------------------------------------------- file formats
def strip_json_comments(text: str) -> str:
    """``strip-json-comments``: ``//`` and ``/* */`` outside strings become nothing."""
    out: list[str] = []
    i, n, in_str = 0, len(text), False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_str = False
            i += 1
        elif c == '"':
            in_str = True
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _read_json(path: str) -> tuple[Any, str | None, bool]:
    """(value, problem, exists) of a JSON-with-comments file."""
    try:
        data = read_regular(path, _MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None, None, False
    except OSError as exc:
        return None, f"cannot read it: {exc.strerror or exc}", True
    try:
        return json.loads(strip_json_comments(data.decode("utf-8", "replace")), parse_constant=_no_constants), None, True
    except ValueError as exc:
        return None, f"not valid JSON: {exc}", True
    except RecursionError:  # JSON.parse has no depth limit; Python's reader has one
        return None, "nested deeper than skillshelf's JSON reader follows (skillshelf's limit)", True


_ENV_REF = re.compile(r"\$(?:(\w+)|{([^}]+?)(?::-([^}]*))?})")


def _expand(value: Any, env: Mapping[str, str]) -> Any:
    """``resolveEnvVarsInObject``: ``$VAR``, ``${VAR}``, ``${VAR:-default}`` in every string."""
    if isinstance(value, str):
        def sub(m: re.Match[str]) -> str:
            var = m.group(1) or m.group(2) or ""
            if not var:
                return m.group(0)
            if var in env:
                return env[var]
            return m.group(3) if m.group(3) is not None else m.group(0)
        return _ENV_REF.sub(sub, value)
    if isinstance(value, list):
        return [_expand(v, env) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v, env) for k, v in value.items()}
    return value


def dotenv_parse(text: str) -> dict[str, str]:
    """``dotenv.parse`` as Gemini CLI bundles it."""
    out: dict[str, str] = {}
    lines = re.sub(r"\r\n?", "\n", text)
    line_re = re.compile(r"^\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*\"(?:\\\"|[^\"])*\""
                         r"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?$", re.MULTILINE)
    for m in line_re.finditer(lines):
        key, value = m.group(1), (m.group(2) or "").strip()
        quote = value[:1]
        value = re.sub(r"^(['\"`])([\s\S]*)\1$", r"\2", value, flags=re.MULTILINE)
        if quote == '"':
            value = value.replace("\\n", "\n").replace("\\r", "\r")
        out[key] = value
    return out


def _js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, (int, float, str)):
        return bool(value)
    return True


def _get(data: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(data, dict) or k not in data:
            return None
        data = data[k]
    return data


# --------------------------------------------------------------------------- system files
def _path_insecure(path: str, kind: str) -> str | None:
    """``checkPosixStatsSecurity`` of one path (``kind`` ``Directory`` or ``File``)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if st.st_uid != 0:
        return (f"{kind} '{path}' is not owned by root (uid 0). Current uid: {st.st_uid}. To fix this, run: "
                f'sudo chown root:root "{path}"')
    if st.st_mode & 0o022:
        return (f"{kind} '{path}' is writable by group or others (mode: {st.st_mode:o}). To fix this, run: "
                f'sudo chmod g-w,o-w "{path}"')
    return None


def _ancestors(path: str) -> list[str]:
    out = []
    cur = os.path.dirname(path)
    while True:
        out.append(cur)
        nxt = os.path.dirname(cur)
        if nxt == cur:
            return out
        cur = nxt


def _insecure(path: str) -> str | None:
    """Why a system settings file is skipped (``isFileAndDirectorySecureSync``), or ``None``:
    every folder above it (nearest first), then the file, then its resolved target."""
    path = os.path.normpath(os.path.abspath(path))
    for folder in _ancestors(path):
        why = _path_insecure(folder, "Directory")
        if why:
            return f"Parent directory '{folder}' is insecure: {why}"
    why = _path_insecure(path, "File")
    if why:
        return f"File is insecure: {why}"
    real = os.path.realpath(path)
    if real != path:
        why = _path_insecure(real, "File")
        if why:
            return f"Resolved target file is insecure: {why}"
        for folder in _ancestors(real):
            why = _path_insecure(folder, "Directory")
            if why:
                return f"Resolved target parent directory '{folder}' is insecure: {why}"
    return None


# --------------------------------------------------------------------------- trust
def _real(path: str) -> str:
    try:
        return os.path.realpath(path) if os.path.exists(path) else path
    except OSError:
        return path


def _within(path: str, base: str) -> bool:
    rel = os.path.relpath(path, base)
    return not (rel == ".." or rel.startswith("../") or os.path.isabs(rel))


class _TrustFile:
    """``trustedFolders.json``: rules path → level; ``problem`` makes the client stop."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.rules: dict[str, str] = {}
        self.problem: str | None = None
        value, problem, exists = _read_json(path)
        self.exists = exists
        if problem:
            self.problem = problem
        elif exists:
            if not isinstance(value, dict):
                self.problem = "Trusted folders file is not a valid JSON object."
            else:
                for k, v in value.items():
                    if v in _TRUST_LEVELS:
                        self.rules[os.path.abspath(k)] = v
                    else:
                        self.problem = f'Invalid trust level "{v}" for path "{k}".'

    def rule(self, location: str) -> tuple[str, str] | None:
        """(rule path, level) of the longest rule covering ``location``."""
        loc = _real(location)
        best: tuple[str, str] | None = None
        for rule, level in self.rules.items():
            base = _real(os.path.dirname(rule) if level == "TRUST_PARENT" else rule)
            if _within(loc, base) and (best is None or len(rule) > len(best[0])):
                best = (rule, level)
        return best


def _folder_trust(layers: Sequence[SettingsLayer]) -> tuple[bool, str]:
    enabled, where = True, "the default"
    for layer in layers:
        if not layer.used:
            continue
        v = _get(layer.data, "security", "folderTrust", "enabled")
        if v is not None:
            enabled, where = v is not False, layer.path
    return enabled, where


def _trust(env: Mapping[str, str], cwd: str, layers: Sequence[SettingsLayer],
           tfile: _TrustFile) -> tuple[bool | None, str, str | None]:
    """(trusted, reason, fatal problem) as ``checkPathTrust`` decides."""
    if env.get("GEMINI_RESTRICTED_MODE") == "true":
        return False, "GEMINI_RESTRICTED_MODE=true", None
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "false":
        return False, "GEMINI_CLI_TRUST_WORKSPACE=false", None
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return True, "GEMINI_CLI_TRUST_WORKSPACE=true", None
    enabled, where = _folder_trust(layers)
    if not enabled:
        return True, f"security.folderTrust.enabled is false in {where}", None
    if tfile.problem:
        return None, f"{tfile.path} is invalid", f"Error in {tfile.path}: {tfile.problem}"
    found = tfile.rule(cwd)
    if found is None:
        return None, f"no rule in {tfile.path} covers {cwd}", None
    rule, level = found
    return level != "DO_NOT_TRUST", f"{rule} is {level} in {tfile.path}", None


# --------------------------------------------------------------------------- extensions
def _hydrate_pattern(glob: str) -> re.Pattern[str]:
    r = re.sub(r"[.+?^${}()|\[\]\\]", lambda m: "\\" + m.group(0), glob)
    r = re.sub(r"(/?)\*", lambda m: "(" + re.escape(m.group(1)) + ".*)?", r)
    return re.compile("^" + r + "$")


def _slashes(path: str) -> str:
    p = path.replace("\\", "/")
    if not p.startswith("/"):
        p = "/" + p
    if not p.endswith("/"):
        p += "/"
    return p


def _extension_active(name: str, cwd: str, ext_dir: str) -> tuple[bool, str]:
    path = os.path.join(ext_dir, "extension-enablement.json")
    value, _problem, _exists = _read_json(path)
    rules = _get(value, name, "overrides") or []
    active, why = True, ""
    if isinstance(rules, list):
        for rule in rules:
            if not isinstance(rule, str):
                continue
            off = rule.startswith("!")
            base = rule[1:] if off else rule
            sub = base.endswith("*")
            base = base[:-1] if sub else base
            if _hydrate_pattern(base + ("*" if sub else "")).match(_slashes(cwd)):
                active, why = not off, f"rule {rule!r} in {path}"
    return active, why


def _extensions(home: str, cwd: str, layers: Sequence[SettingsLayer],
                warnings: list[CatalogWarning]) -> list[Extension]:
    ext_dir = os.path.join(home, ".gemini", "extensions")
    out: list[Extension] = []
    try:
        names = os.listdir(ext_dir)
    except OSError:
        return out
    allowed: Any = None
    block_git: Any = False
    for layer in layers:
        if layer.used and _get(layer.data, "security", "allowedExtensions") is not None:
            allowed = _get(layer.data, "security", "allowedExtensions")
        if layer.used and _get(layer.data, "security", "blockGitExtensions") is not None:
            block_git = _get(layer.data, "security", "blockGitExtensions")
    for sub in sorted(names, key=lambda s: s.encode("utf-8", "surrogateescape")):
        folder = os.path.join(ext_dir, sub)
        if not os.path.isdir(folder):
            continue
        meta, _p, _e = _read_json(os.path.join(folder, ".gemini-extension-install.json"))
        meta = meta if isinstance(meta, dict) else None
        if isinstance(allowed, list) and allowed:
            src = str((meta or {}).get("source") or "")
            target = os.path.realpath(src) if src else src
            if not any(isinstance(p, str) and _safe_search(p, target) for p in allowed):
                continue
        elif meta and meta.get("type") in ("git", "github-release") and block_git:
            continue
        source = meta.get("source") if meta and meta.get("type") == "link" else None
        path = source if isinstance(source, str) and source else folder
        config_path = os.path.join(path, "gemini-extension.json")
        raw, problem, exists = _read_json(config_path)
        why = problem if problem else ("missing" if not exists else None)
        if why is None and not isinstance(raw, dict):
            why = "not a JSON object"
        elif why is None and not raw.get("name"):
            why = 'missing "name"'
        elif why is None and not raw.get("version"):
            why = 'missing "version"'
        if why is None:
            ctx = {"extensionPath": path, "workspacePath": cwd, "/": "/", "pathSeparator": "/"}
            name = hydrate(raw["name"], ctx) if isinstance(raw["name"], str) else raw["name"]
            if not isinstance(name, str) or not re.fullmatch(r"[a-zA-Z0-9-]+", name):
                why = f"invalid name {name!r}"
        if why is not None:
            warnings.append(CatalogWarning(
                "gemini-extension-skipped", folder,
                f"Warning: Skipping extension in {folder}: Failed to load extension config from {config_path}: {why}"))
            continue
        active, reason = _extension_active(name, cwd, ext_dir)
        out.append(Extension(name, path, folder, active, "" if active else f"disabled for {cwd} by {reason}"))
    return out


def _safe_search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def hydrate(text: str, context: Mapping[str, str]) -> str:
    """Extension ``${key}`` substitution: known keys replaced, unknown ones kept as written."""
    return re.sub(r"\$\{(.*?)\}", lambda m: context.get(m.group(1), m.group(0)), text)


# --------------------------------------------------------------------------- the whole setup
def _env_file(start: str, trusted: bool, home: str) -> str | None:
    cur = os.path.abspath(start)
    while True:
        if trusted and os.path.exists(os.path.join(cur, ".gemini", ".env")):
            return os.path.join(cur, ".gemini", ".env")
        if os.path.exists(os.path.join(cur, ".env")):
            return os.path.join(cur, ".env")
        parent = os.path.dirname(cur)
        if parent == cur:
            if trusted and os.path.exists(os.path.join(home, ".gemini", ".env")):
                return os.path.join(home, ".gemini", ".env")
            p = os.path.join(home, ".env")
            return p if os.path.exists(p) else None
        cur = parent


def _layer(kind: str, path: str, env: Mapping[str, str], fatal: list[str], warnings: list[CatalogWarning],
           *, system: bool = False, skip: str = "") -> SettingsLayer:
    if skip:
        return SettingsLayer(kind, path, {}, os.path.exists(path), used=False, note=skip)
    if system and os.path.exists(path):
        why = _insecure(path)
        if why:
            label = "system settings" if kind == "system" else "system defaults"
            msg = f"Security Warning: Skipping {label} file '{path}': {why}"
            warnings.append(CatalogWarning("gemini-settings-skipped", path, msg))
            return SettingsLayer(kind, path, {}, True, used=False, note=msg)
    value, problem, exists = _read_json(path)
    if problem is None and exists and not isinstance(value, dict):
        problem = "Settings file is not a valid JSON object."
    if problem is not None:
        fatal.append(f"Error in {path}: {problem}")
        return SettingsLayer(kind, path, {}, True, used=False, note=problem)
    return SettingsLayer(kind, path, _expand(value, env) if exists else {}, exists)


def load_setup(cwd: str, home: str, env: Mapping[str, str]) -> GeminiSetup:
    """Gemini CLI's settings, trust and extensions for ``cwd`` with ``$HOME`` = ``home`` and the
    process environment ``env``. Never raises; problems become warnings or ``fatal``."""
    real_cwd = os.path.realpath(cwd)
    env0 = {k: v for k, v in env.items() if k != "HOME"}
    home0 = env0.get("GEMINI_CLI_HOME") or home
    warnings: list[CatalogWarning] = []
    fatal: list[str] = []
    sys_path = env0.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json"
    sysdef_path = env0.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or os.path.join(os.path.dirname(sys_path),
                                                                             "system-defaults.json")
    user_path = os.path.join(home0, ".gemini", "settings.json")
    ws_path = os.path.join(real_cwd, ".gemini", "settings.json")
    expand_env = {**env0, "HOME": home}
    system = _layer("system", sys_path, expand_env, fatal, warnings, system=True)
    sysdef = _layer("system-defaults", sysdef_path, expand_env, fatal, warnings, system=True)
    user = _layer("user", user_path, expand_env, fatal, warnings)
    ws_is_home = os.path.realpath(real_cwd) == os.path.realpath(home0)
    workspace = _layer("workspace", ws_path, expand_env, fatal, warnings,
                       skip="the workspace is the home folder" if ws_is_home else "")

    trust_path = env0.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(
        home0, *((".cache", ".gemini") if env0.get("SANDBOX") == "sandbox-exec" else (".gemini",)),
        "trustedFolders.json")
    tfile = _TrustFile(trust_path)
    first, _why0, problem0 = _trust(env0, real_cwd, [sysdef, user, system], tfile)
    trusted0 = bool(first)
    if not trusted0 and workspace.exists and workspace.used:
        workspace = SettingsLayer("workspace", ws_path, {}, True, used=False,
                                  note="the workspace is not trusted, so Gemini CLI ignores its settings")
    layers = (sysdef, user, workspace, system)

    env_file = _env_file(real_cwd, trusted0, home0)
    env1 = dict(env0)
    if env_file:
        try:
            parsed = dotenv_parse(read_regular(env_file, _MAX_CONFIG_BYTES).decode("utf-8", "replace"))
        except OSError:
            parsed = {}
        project = ".gemini" not in env_file
        for k, v in parsed.items():
            if not trusted0 and k not in _CREDENTIALS:
                continue
            if project and k in _PROJECT_ENV_EXCLUDED:
                continue
            if k not in env1 and k != "HOME":
                env1[k] = v
    trusted1, trust_reason, problem1 = _trust(env1, real_cwd, layers, tfile)
    problem = problem1 or problem0
    if problem and trusted1 is None:
        fatal.append(problem)
    trusted = bool(trusted1)
    fatal_text = "\n".join(fatal) + "\nPlease fix the configuration file(s) and try again." if fatal else None

    enabled, enabled_by = True, "the default"
    for layer in layers:
        flag_value = _get(layer.data, "skills", "enabled") if layer.used else None
        if flag_value is not None:
            enabled, enabled_by = _js_truthy(flag_value), layer.path
    disabled: dict[str, list[str]] = {}
    for layer in layers:
        entries = _get(layer.data, "skills", "disabled") if layer.used else None
        if isinstance(entries, list):
            for n, entry in enumerate(entries, 1):
                if not isinstance(entry, str):
                    warnings.append(CatalogWarning(
                        "gemini-settings-value", layer.path,
                        f"skills.disabled entry {n} in {layer.path} is not a string ({json.dumps(entry)}): Gemini CLI "
                        "lower-cases every entry and may fail on it; skillshelf ignores it"))
                if isinstance(entry, str):
                    disabled.setdefault(entry, [])
                    if layer.path not in disabled[entry]:
                        disabled[entry].append(layer.path)
    model, model_by = "auto", "the default"
    if env1.get("GEMINI_MODEL"):
        model, model_by = env1["GEMINI_MODEL"].strip(), "GEMINI_MODEL"
    else:
        for layer in layers:
            named = _get(layer.data, "model", "name") if layer.used else None
            if isinstance(named, str):
                model, model_by = named.strip(), f"model.name in {layer.path}"
        model = model or "auto"
    flag = (env1.get("GEMINI_PROMPT_AGENTSKILLS") or "").strip().lower()

    home1 = env1.get("GEMINI_CLI_HOME") or home
    extensions = tuple(_extensions(home1, real_cwd, layers, warnings)) if enabled and not fatal_text else ()
    files = [sys_path, sysdef_path, user_path, ws_path, trust_path, os.path.join(home1, ".gemini", "extensions")]
    if env_file:
        files.append(env_file)
    return GeminiSetup(
        cwd=real_cwd, home=home1, trusted=trusted, trust_reason=trust_reason, trust_file=tfile.path,
        fatal=fatal_text, skills_enabled=enabled, skills_enabled_by=enabled_by,
        disabled=tuple((k, tuple(v)) for k, v in disabled.items()), model=model, model_by=model_by,
        catalog_in_prompt=flag not in ("0", "false"), extensions=extensions, layers=layers, env=env1,
        env_file=env_file, warnings=tuple(warnings), files=tuple(dict.fromkeys(files)),
    )
