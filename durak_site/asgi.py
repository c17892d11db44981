"""ASGI entry point: HTTP through Django, WebSockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")

# Set up Django before importing anything that touches models or settings.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from durak_site.input_checks import RefuseUnstorableSocket  # noqa: E402
from durak_site.origins import SameOriginValidator  # noqa: E402
from durak_site.routing import websocket_urlpatterns  # noqa: E402
from durak_site.sockets import SocketGuard  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Scheme, host and port of the Origin must be the site's own (or a trusted origin);
        # nothing no database stores, before the session is read (durak_site.input_checks);
        # then the caps on open sockets, and an answer when Redis is away (durak_site.sockets).
        "websocket": SameOriginValidator(
            RefuseUnstorableSocket(AuthMiddlewareStack(SocketGuard(URLRouter(websocket_urlpatterns))))
        ),
    }
)

# One command, no outside services: without REDIS_URL this process also runs
# a Celery worker and beat in threads (in-memory broker); see embedded.py.
from django.conf import settings  # noqa: E402

if settings.CELERY_EMBEDDED:
    from durak_site.embedded import SiteLoopRecorder, start_embedded_celery

    start_embedded_celery()
    application = SiteLoopRecorder(application)

# Last, once everything of start-up (the embedded threads included) exists: the
# garbage collector walks only what is made from now on (durak_site/collector.py).
from durak_site.collector import settle_after_start  # noqa: E402

settle_after_start()
