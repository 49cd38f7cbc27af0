"""deploy/nginx.conf, the proxy a deployment puts in front of gunicorn (and the soak runs): it refuses the bodies
the site refuses, and nginx itself accepts the file as the soak renders it."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from django.conf import settings

from bench.soak.proxy import NGINX_CONF, ProxyError, body_limits_check, nginx_command, nginx_conf_render


def test_the_proxys_body_limits_are_the_sites_per_path_limits():
    body_limits_check(
        NGINX_CONF.read_text(),
        form_bytes=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
        submission_bytes=settings.SUBMISSION_MAX_REQUEST_BYTES,
    )


def test_a_limit_that_drifted_from_the_sites_is_named():
    with pytest.raises(ProxyError, match="SUBMISSION_MAX_REQUEST_BYTES"):
        body_limits_check(NGINX_CONF.read_text(), form_bytes=settings.DATA_UPLOAD_MAX_MEMORY_SIZE, submission_bytes=1)


def test_nginx_accepts_the_file_as_rendered(tmp_path):
    if shutil.which("nginx", path="/usr/sbin:/usr/bin:/sbin:/bin") is None:
        pytest.skip("nginx is not installed here (`make soak` installs it): the file's syntax is checked there")
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_conf_render(listen="127.0.0.1:18391", upstream="127.0.0.1:18392", prefix=tmp_path))
    command = [*nginx_command(prefix=tmp_path, conf=conf)[:-2], "-t"]  # test the file, start nothing

    checked = subprocess.run(command, capture_output=True, text=True, timeout=30)

    assert checked.returncode == 0, checked.stderr
    assert "test is successful" in checked.stderr
