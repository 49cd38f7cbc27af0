"""nginx in front of the soak's gunicorn: deploy/nginx.conf itself, its placeholders filled with the soak's own.

What the deployment documents is what the soak runs: the same file, rendered with the soak's ports, a
temporary prefix (pid file, logs, spooled bodies) and the user running it, then checked against the site's
own body limits, so that the file and config/settings/base.py cannot drift apart unnoticed.
"""

from __future__ import annotations

import getpass
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
PLACEHOLDER = re.compile(r"@[A-Z]+@")
# Uncommented client_max_body_size lines, in the file's order: the server's default, then the submissions
# endpoint's.
BODY_SIZE = re.compile(r"^\s*client_max_body_size\s+(\d+)([kKmMgG]?);", re.MULTILINE)
SIZE_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


class ProxyError(RuntimeError):
    """nginx is missing, or deploy/nginx.conf does not fit the site."""


def nginx_prepare(*, prefix: Path, listen: str, upstream: str, body_limits: list[int]) -> list[str]:
    """Write the rendered, checked nginx.conf into `prefix`; returns the command that runs nginx on it."""
    prefix.mkdir(exist_ok=True)
    conf = prefix / "nginx.conf"
    conf.write_text(nginx_conf_render(listen=listen, upstream=upstream, prefix=prefix))
    form_bytes, submission_bytes = body_limits
    body_limits_check(conf.read_text(), form_bytes=form_bytes, submission_bytes=submission_bytes)
    return nginx_command(prefix=prefix, conf=conf)


def nginx_conf_render(*, listen: str, upstream: str, prefix: Path) -> str:
    """deploy/nginx.conf with its placeholders filled; raises if one is left that the soak does not know."""
    text = NGINX_CONF.read_text()
    values = {"LISTEN": listen, "UPSTREAM": upstream, "PREFIX": str(prefix), "USER": getpass.getuser()}
    for name, value in values.items():
        text = text.replace(f"@{name}@", value)
    if unknown := sorted(set(PLACEHOLDER.findall(text))):
        raise ProxyError(f"{NGINX_CONF.relative_to(ROOT)} has placeholders the soak does not fill: {unknown}")
    return text


def body_limits_check(conf_text: str, *, form_bytes: int, submission_bytes: int) -> None:
    """The file's client_max_body_size lines must be the site's DATA_UPLOAD_MAX_MEMORY_SIZE, then its
    SUBMISSION_MAX_REQUEST_BYTES: nginx refuses a body before the site could, and must refuse the same ones."""
    found = [int(number) * SIZE_UNITS[unit.lower()] for number, unit in BODY_SIZE.findall(conf_text)]
    if found != [form_bytes, submission_bytes]:
        raise ProxyError(
            f"{NGINX_CONF.relative_to(ROOT)}'s client_max_body_size values are {found} bytes; the site's limits "
            f"are {form_bytes} (DATA_UPLOAD_MAX_MEMORY_SIZE) and {submission_bytes} (SUBMISSION_MAX_REQUEST_BYTES)"
        )


def nginx_command(*, prefix: Path, conf: Path) -> list[str]:
    """nginx in the foreground (a child of the soak, stopped with it), its start-up errors in the prefix too."""
    binary = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    if binary is None:
        raise ProxyError("nginx is not installed: `make soak` installs it (apt-get install nginx)")
    return [binary, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log"), "-g", "daemon off;"]


def access_log_statuses(prefix: Path, *, since_byte: int, method_path: str) -> list[int]:
    """Statuses nginx logged for `method_path` ("POST /api/v1/submissions/") past `since_byte` of access.log."""
    path = prefix / "access.log"
    if not path.exists():
        return []
    with path.open("rb") as log:
        log.seek(since_byte)
        lines = log.read().decode(errors="replace").splitlines()
    pattern = re.compile(rf'"{re.escape(method_path)}(?:\?[^" ]*)? HTTP/[\d.]+" (\d{{3}}) ')
    return [int(match.group(1)) for line in lines if (match := pattern.search(line))]


def access_log_size(prefix: Path) -> int:
    path = prefix / "access.log"
    return path.stat().st_size if path.exists() else 0
