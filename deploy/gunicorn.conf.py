"""gunicorn's settings for Dawnboard behind nginx (deploy/nginx.conf).

Started as `gunicorn -c deploy/gunicorn.conf.py config.wsgi`, with config.settings.production.

Sync workers, one request each at a time: they are safe only behind a proxy that buffers whole requests and
answers, as gunicorn's documentation says; nginx does that, so a worker never waits on a slow client. Run the
site with BEHIND_TLS_PROXY=1 beside this file. Options given on the command line (`-w`, `-b`) win over these;
`make soak` starts gunicorn with this file and its own port.
"""

import multiprocessing
import os

from config.logs import gunicorn_logging

# The loopback only: nginx is gunicorn's one client, and nothing reaches gunicorn around it.
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
worker_class = "sync"
# gunicorn's rule of thumb; each worker keeps one PostgreSQL connection (CONN_MAX_AGE).
workers = int(os.environ.get("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count() + 1))
# A request that runs past this is killed with its worker (nginx's proxy_read_timeout is longer).
timeout = 30
graceful_timeout = 30
# gunicorn trusts X-Forwarded-Proto only from these addresses: nginx's, on the same machine.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
# Only the header nginx sets (it replaces any a client sent); gunicorn's other defaults are never set by nginx.
secure_scheme_headers = {"X-FORWARDED-PROTO": "https"}
# gunicorn's own lines as the site's: one JSON object a line (LOG_FORMAT=plain for readable ones).
logconfig_dict = gunicorn_logging(
    log_format=os.environ.get("LOG_FORMAT", "json"), level=os.environ.get("LOG_LEVEL", "INFO")
)


def on_starting(server):
    """Before any worker starts: a server whose static files, database or broker are missing stops here, saying what
    to run (config/serving.py), rather than answering 500s. Checked once, in the master: a worker replaced later,
    during a short outage, is not stopped by it."""
    import django
    from django.core.exceptions import ImproperlyConfigured

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    django.setup()
    from config.serving import serving_problems

    problems = serving_problems(web=True)
    if problems:
        server.log.error("Cannot serve: %s", " ".join(problems))
        raise ImproperlyConfigured(" ".join(problems))
