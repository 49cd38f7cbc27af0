"""WSGI entry point for gunicorn: `gunicorn config.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

from config.serving import refuse_to_serve_without_static_files
from leaderboard.http_limits import ChunkedBodyLimit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

# Django reads no body without a Content-Length: a chunked one is read here first, through a cap.
application = ChunkedBodyLimit(get_wsgi_application())

# A process without its static files stops here, saying what to run, rather than answering 500s: a lasting fault,
# which no restart mends. The database and the broker, which may be down for a moment while the site runs, are
# checked once, when gunicorn starts (deploy/gunicorn.conf.py's on_starting): a worker replaced during a short
# outage must not take the whole server down with it.
refuse_to_serve_without_static_files()
