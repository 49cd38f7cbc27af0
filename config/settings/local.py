"""Local development (`make run`): debug on, a fixed insecure key unless one is given."""

from config.settings.base import *  # noqa: F403
from config.settings.base import env

DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env("SECRET_KEY", default="dawnboard-local-development-key-not-for-production")

# Serve static files (plotly.js, the API docs' Swagger UI) straight from the packages, no collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
