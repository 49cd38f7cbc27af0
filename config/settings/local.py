"""Local development (`make run`): a fixed insecure key unless one is given; the site's own error pages.

DEBUG is off unless asked for (`DEBUG=1 make run`): `make run` shows the site as its readers meet it, its own
404 and 500 pages included, and a 500's traceback still goes to the console (the root logger, base.py).
"""

from config.settings.base import *  # noqa: F403
from config.settings.base import env, site_logging

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY", default="dawnboard-local-development-key-not-for-production")

# Serve static files (plotly.js, the API docs' Swagger UI) straight from the packages, no collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# Readable log lines on the console; LOG_FORMAT=json for the production's.
LOGGING = site_logging(default_format="plain")
