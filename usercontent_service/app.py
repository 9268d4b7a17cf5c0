"""The process entry point: ``uvicorn usercontent_service.app:app``.

Settings are read here, at import, and only ``CoreSettings``: this process never declares a
sign-in, judge or cookie secret. Tests build their own app with ``create_app`` instead.
"""

from benchmax.settings import CoreSettings
from usercontent_service.service import create_app

app = create_app(CoreSettings())
