"""WSGI entry point for gunicorn: `gunicorn config.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

from config.serving import refuse_to_serve_unready
from leaderboard.http_limits import ChunkedBodyLimit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

# Django reads no body without a Content-Length: a chunked one is read here first, through a cap.
application = ChunkedBodyLimit(get_wsgi_application())

# A process without its static files, its database or its broker stops here, saying what to run, rather than
# answering 500s.
refuse_to_serve_unready(web=True)
